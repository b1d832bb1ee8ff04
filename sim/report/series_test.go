package report_test

import (
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

func run(agent, client, visit, prov, source string) report.Run {
	return report.Run{Record: sim.Record{Agent: agent, Client: client, Visit: visit, Condition: sim.Observe}, Provenance: prov, Source: source}
}

func TestGroupSeriesLabels(t *testing.T) {
	const v1, v2 = "park/place.color=red/observe/s1", "park/place.color=red/observe/s2"
	tests := []struct {
		name string
		runs []report.Run
		want []string
	}{
		{"one file", []report.Run{run("greedy", "baseline", v1, "file", "a.jsonl"), run("observer", "baseline", v1, "file", "a.jsonl")},
			[]string{"greedy", "observer"}},
		{"suites in two files merge", []report.Run{run("observer", "baseline", v1, "file", "a.jsonl"), run("observer", "baseline", v2, "file", "b.jsonl")},
			[]string{"observer"}},
		{"one visit in two files: two runs", []report.Run{run("observer", "baseline", v1, "file", "a.jsonl"), run("observer", "baseline", v1, "file", "b.jsonl")},
			[]string{"observer (a.jsonl)", "observer (b.jsonl)"}},
		{"mixed provenance", []report.Run{run("human", "human", v1, "server-stepped", "x"), run("human", "human", v2, "self-reported", "x"),
			run("observer", "baseline", v1, "file", "a.jsonl")},
			[]string{"human · server-stepped", "human · self-reported", "observer · file"}},
		{"one name, two clients", []report.Run{run("observer", "baseline", v1, "file", "a.jsonl"), run("observer", "model", v1, "file", "a.jsonl")},
			[]string{"observer", "observer [model]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss := report.GroupSeries(tt.runs, nil)
			var got []string
			for _, s := range ss {
				got = append(got, s.Label)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("labels %q, want %q", got, tt.want)
			}
		})
	}
}

func TestChoose(t *testing.T) {
	const v = "park/place.color=red/observe/s1"
	all := report.GroupSeries([]report.Run{run("greedy", "baseline", v, "file", "a"), run("ritual-bow", "baseline", v, "file", "a"),
		run("ritual-bow", "model", v, "file", "a"), run("observer", "baseline", v, "file", "a")}, []string{"ritual-bow"})
	tests := []struct {
		name   string
		agents []string
		want   string
		err    string
	}{
		{"default: all but the rituals", nil, "greedy|ritual-bow [model]|observer", ""},
		{"named, in order", []string{"observer", "greedy"}, "observer|greedy", ""},
		{"by agent name: every series", []string{"ritual-bow"}, "ritual-bow|ritual-bow [model]", ""},
		{"all", []string{"all"}, "greedy|ritual-bow|ritual-bow [model]|observer", ""},
		{"unknown", []string{"gpt"}, "", `report: no agent "gpt" in the records (they hold greedy, ritual-bow`},
	}
	onlyRituals := report.GroupSeries([]report.Run{run("ritual-bow", "baseline", v, "file", "a")}, []string{"ritual-bow"})
	if got, err := report.Choose(onlyRituals, nil); err != nil || len(got) != 1 {
		t.Errorf("records of rituals alone: %d drawn (%v), want the one", len(got), err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := report.Choose(all, tt.agents)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Errorf("error %v, want one starting %q", err, tt.err)
				}
				return
			}
			var labels []string
			for _, s := range got {
				labels = append(labels, s.Label)
			}
			if err != nil || strings.Join(labels, "|") != tt.want {
				t.Errorf("chose %q (%v), want %q", labels, err, tt.want)
			}
		})
	}
}
