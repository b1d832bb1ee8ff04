package host_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/normgym/normgym/sim"
)

// TestReplay checks that replay accepts an honest record and names the
// fields of a tampered one.
func TestReplay(t *testing.T) {
	r := compiler(t)
	ctx := context.Background()
	// A visit where the greedy newcomer is sanctioned and walks north.
	var orig sim.Record
	for _, visit := range suiteVisits(t, "mini") {
		orig = native(t, visit, "greedy")
		if orig.Scores.SanctionsReceived > 0 && orig.Probe != nil && slices.Contains(orig.Actions, "north") {
			break
		}
	}
	if orig.Scores.SanctionsReceived == 0 {
		t.Fatal("greedy is never sanctioned in the mini suite")
	}
	conf := 0.75
	orig.Probe.Confidence = &conf
	orig.Suite, orig.SuiteVersion = "mini", "1"

	// Two moves swapped: the visit keeps its length, not its trajectory.
	changedAction := func(rec *sim.Record) {
		for i := 1; i < len(rec.Actions); i++ {
			try := slices.Clone(rec.Actions)
			try[i-1], try[i] = try[i], try[i-1]
			if try[i] == try[i-1] {
				continue
			}
			if _, err := sim.Replay(sim.Record{Visit: rec.Visit, Actions: try}); err == nil {
				rec.Actions = try
				return
			}
		}
		t.Fatal("no two actions can be swapped without changing the visit's length")
	}
	cases := []struct {
		name   string
		tamper func(*sim.Record)
		want   []string // diffs, in order; "*" lists only some
	}{
		{"honest", func(*sim.Record) {}, nil},
		{"changed hash", func(r *sim.Record) { r.Hash = "00" + r.Hash[2:] }, []string{"hash"}},
		{"changed joint", func(r *sim.Record) { r.Scores.Joint = !r.Scores.Joint }, []string{"scores.joint"}},
		{"changed task and sanctions", func(r *sim.Record) {
			r.Scores.Task = !r.Scores.Task
			r.Scores.Sanctions = []int{0, 0}
			r.Scores.SanctionsReceived = 0
		}, []string{"scores.task", "scores.sanctions", "scores.sanctions_received"}},
		{"changed probe", func(r *sim.Record) { r.Probe.Correct = !r.Probe.Correct }, []string{"probe.correct"}},
		{"no probe answer", func(r *sim.Record) { r.Probe = nil }, nil},
		{"bad confidence", func(r *sim.Record) { c := 1.5; r.Probe.Confidence = &c }, []string{"probe.confidence"}},
		{"changed family and version", func(r *sim.Record) { r.Family, r.SimVersion = "time", "0" }, []string{"family", "sim_version"}},
		{"changed event", func(r *sim.Record) { r.Events[1].Text = "hello" }, []string{"events"}},
		{"no events", func(r *sim.Record) { r.Events = nil }, nil},
		{"abbreviated action", func(r *sim.Record) {
			for i, a := range r.Actions {
				if a == "north" {
					r.Actions[i] = "N"
					return
				}
			}
			t.Fatal("no north")
		}, []string{"actions"}},
		{"changed action", changedAction, []string{"*", "hash"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := orig
			rec.Actions = slices.Clone(orig.Actions)
			rec.Events = slices.Clone(orig.Events)
			p := *orig.Probe
			rec.Probe = &p
			c.tamper(&rec)
			res, err := r.Replay(ctx, rec)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := res.Match, len(c.want) == 0; got != want {
				t.Errorf("match %v, want %v (diffs %v)", got, want, res.Diffs)
			}
			if len(c.want) > 0 && c.want[0] == "*" {
				for _, d := range c.want[1:] {
					if !slices.Contains(res.Diffs, d) {
						t.Errorf("diffs %v, want them to include %q", res.Diffs, d)
					}
				}
			} else if !slices.Equal(res.Diffs, c.want) {
				t.Errorf("diffs %v, want %v", res.Diffs, c.want)
			}
			if res.Record.SimSHA256 != r.SHA256() {
				t.Errorf("sim_sha256 %q, want the module's", res.Record.SimSHA256)
			}
			if c.name == "honest" || c.name == "no events" {
				want := orig
				want.SimSHA256 = r.SHA256()
				if !reflect.DeepEqual(res.Record, want) {
					t.Errorf("recomputed record\n%+v\nwant\n%+v", res.Record, want)
				}
			}
		})
	}
}
