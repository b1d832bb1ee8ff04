package sim_test

import (
	"testing"

	"github.com/normgym/normgym/sim"
)

func TestScoresDay(t *testing.T) {
	s := sim.Scores{Task: true, PracticeTask: false, Sanctions: []int{3, 1}}
	for _, tc := range []struct {
		day           int
		wantTask      bool
		wantSanctions int
	}{
		{1, false, 3},
		{2, true, 1},
		{0, false, 0},
		{3, false, 0},
	} {
		task, n := s.Day(tc.day)
		if task != tc.wantTask || n != tc.wantSanctions {
			t.Errorf("Day(%d) = %v, %d; want %v, %d", tc.day, task, n, tc.wantTask, tc.wantSanctions)
		}
	}
}
