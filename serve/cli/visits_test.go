package cli

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
)

func TestVisitFlags(t *testing.T) {
	mini, _ := sim.LookupSuite("mini")
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	two := file("two", "# a comment\n"+mini.Visits[5]+"\n\n"+mini.Visits[2]+"  # trailing\n")
	tests := []struct {
		name    string
		args    []string
		want    func([]string) bool
		wantErr string
	}{
		{name: "the whole suite", args: nil, want: func(v []string) bool { return slices.Equal(v, mini.Visits) }},
		{name: "limit", args: []string{"--limit", "7"}, want: func(v []string) bool { return slices.Equal(v, mini.Visits[:7]) }},
		{name: "a file, in its order", args: []string{"--visits", two},
			want: func(v []string) bool { return slices.Equal(v, []string{mini.Visits[5], mini.Visits[2]}) }},
		{name: "filter by condition", args: []string{"--filter", "condition=solo|told"}, want: func(v []string) bool {
			for _, id := range v {
				if !strings.Contains(id, "/solo/") && !strings.Contains(id, "/told/") {
					return false
				}
			}
			want := 0 // counted from the suite, not by hand
			for _, id := range mini.Visits {
				if strings.Contains(id, "/solo/") || strings.Contains(id, "/told/") {
					want++
				}
			}
			return len(v) == want && want > 0
		}},
		{name: "filter by family and world", args: []string{"--filter", "family=place,world=park"}, want: func(v []string) bool {
			for _, id := range v {
				if !strings.HasPrefix(id, "park/place.") {
					return false
				}
			}
			return len(v) > 0
		}},
		{name: "control is a family", args: []string{"--filter", "family=control"}, want: func(v []string) bool { return len(v) == 4 }},
		{name: "unknown key", args: []string{"--filter", "colour=red"}, wantErr: "KEY one of"},
		{name: "no value", args: []string{"--filter", "condition="}, wantErr: "KEY=VALUE"},
		{name: "nothing matches", args: []string{"--filter", "world=nowhere"}, wantErr: "no visit of suite mini"},
		{name: "missing file", args: []string{"--visits", filepath.Join(dir, "none")}, wantErr: "--visits"},
		{name: "a bad id", args: []string{"--visits", file("bad", "orchard/nosuch/observe/s1\n")}, wantErr: "bad.txt:1"},
		{name: "a visit of another suite", args: []string{"--visits", file("other", "orchard/place.color=red/observe/s1\n")}, wantErr: "is not a visit of suite mini"},
		{name: "twice", args: []string{"--visits", file("twice", mini.Visits[1]+"\n"+mini.Visits[1]+"\n")}, wantErr: "listed twice"},
		{name: "negative limit", args: []string{"--limit", "-1"}, wantErr: "--limit"},
		{name: "a stratified sample", args: []string{"--sample", "20", "--seed", "3"},
			want: func(v []string) bool { return slices.Equal(v, sim.Sample(mini.Visits, 20, 3)) }},
		{name: "a sample of the filtered", args: []string{"--filter", "condition=observe", "--sample", "5", "--seed", "2"}, want: func(v []string) bool {
			for _, id := range v {
				if !strings.Contains(id, "/observe/") {
					return false
				}
			}
			return len(v) == 5 && len(sim.Compose(v).Norms) == 5
		}},
		{name: "sample and limit", args: []string{"--sample", "5", "--limit", "3"}, wantErr: "not both"},
		{name: "seed alone", args: []string{"--seed", "5"}, wantErr: "--sample"},
		{name: "negative sample", args: []string{"--sample", "-2"}, wantErr: "--sample"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			sel := addVisitFlags(fs, "mini", "run")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			_, visits, err := sel.resolve()
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, errUsage) || !strings.Contains(err.Error(), strings.TrimSuffix(tc.wantErr, ".txt:1")) {
					t.Fatalf("resolve() error = %v, want a usage error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.want(visits) {
				t.Errorf("resolve() = %d visits %q…, not what %s wants", len(visits), visits[:min(3, len(visits))], tc.name)
			}
		})
	}
}
