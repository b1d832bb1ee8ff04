package floor

import "testing"

func TestSearch(t *testing.T) {
	open := 0
	for _, wall := range grid {
		if !wall {
			open++
		}
	}
	var s Searcher
	for _, tc := range []struct {
		name     string
		from, to int
		want     int // tiles taken from the queue
	}{
		{"already there", 0, 0, 1},
		{"next door", 0, 1, 2},                    // the start, then its east neighbour
		{"far corner", 0, Width*Height - 1, open}, // the last open tile reached
		{"into a wall", 0, 7 * 3, -1},             // tile 21 is a wall
	} {
		if got := s.search(tc.from, tc.to); got != tc.want {
			t.Errorf("%s: search(%d, %d) = %d, want %d", tc.name, tc.from, tc.to, got, tc.want)
		}
	}
	if a, b := s.Search(6), s.Search(6); a != b || a <= 0 {
		t.Errorf("Search(6) = %d then %d, want the same positive checksum", a, b)
	}
}

func TestMix(t *testing.T) {
	if got := Mix(0); got != 1 {
		t.Errorf("Mix(0) = %d, want 1", got)
	}
	if Mix(1000) == Mix(1001) {
		t.Error("Mix(1000) == Mix(1001)")
	}
}
