//go:build !js

package ui_test

import (
	"strings"
	"testing"

	"github.com/normgym/normgym/web/internal/ui"
	"github.com/normgym/normgym/web/internal/wasmtest"
)

// memJournal is a ui.Journal in memory.
type memJournal struct {
	p     ui.Progress
	ok    bool
	saves int
}

func (m *memJournal) Load() (ui.Progress, bool) { return m.p, m.ok }
func (m *memJournal) Save(p ui.Progress)        { m.p, m.ok = p, true; m.saves++ }
func (m *memJournal) Clear()                    { m.p, m.ok = ui.Progress{}, false }

// TestResume stops a visit at every kind of place (mid day, on the card
// between the days, on the probe, on the result), resumes it from its
// journal, and finishes it: the record must be the uninterrupted one.
func TestResume(t *testing.T) {
	c := wasmtest.Client(t)
	id := visits(t, 1)[0]
	v := ui.Resolved{ID: id, Suite: "mini", SuiteVersion: "1", N: 1, Of: 60}
	base, err := c.RunBaseline(id, "greedy")
	if err != nil {
		t.Fatal(err)
	}
	answer := 0
	if base.Probe != nil {
		answer = base.Probe.Answer
	}
	// stop plays until n actions were taken (and, at the day's card,
	// whether Begin was pressed); n = -1 plays to the probe, -2 answers it.
	for _, tc := range []struct {
		name  string
		n     int
		begin bool
		want  ui.Stage
	}{
		{"on the first day's card", 0, false, ui.StageDay},
		{"at the first step", 0, true, ui.StagePlay},
		{"mid day", 7, true, ui.StagePlay},
		{"on the probe", -1, false, ui.StageProbe},
		{"on the result", -2, false, ui.StageResult},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := &memJournal{}
			p, err := ui.NewPlay(c, v, "human", "human")
			if err != nil {
				t.Fatal(err)
			}
			p.Journal = j
			p.Start()
			for i, a := range base.Actions {
				if tc.n >= 0 && i == tc.n {
					break
				}
				if p.Stage == ui.StageDay {
					p.Begin()
				}
				if _, _, err := p.Act(a); err != nil {
					t.Fatal(err)
				}
			}
			if tc.begin {
				p.Begin()
			}
			if tc.n == -2 {
				if err := p.Finish(answer, .7); err != nil {
					t.Fatal(err)
				}
			}
			p.Close()
			kept, ok := j.Load()
			if !ok || kept.Stage != tc.want || strings.Contains(kept.Key, "/") {
				t.Fatalf("kept %+v (ok %v), want stage %d and a key without the id", kept, ok, tc.want)
			}
			q, err := ui.Resume(c, v, kept, "human", "human", j)
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			if q.Stage != tc.want || len(q.Actions) != len(kept.Actions) {
				t.Fatalf("resumed at stage %d after %d actions, want %d after %d", q.Stage, len(q.Actions), tc.want, len(kept.Actions))
			}
			saves := j.saves
			for _, a := range base.Actions[len(q.Actions):] {
				if q.Stage == ui.StageDay {
					q.Begin()
				}
				if _, _, err := q.Act(a); err != nil {
					t.Fatal(err)
				}
			}
			if q.Stage == ui.StageProbe {
				if err := q.Finish(answer, .7); err != nil {
					t.Fatal(err)
				}
			}
			if q.Record == nil || q.Record.Hash != base.Hash {
				t.Fatalf("resumed visit's record %+v, want the hash %s", q.Record, base.Hash)
			}
			if tc.want != ui.StageResult && j.saves == saves {
				t.Error("the resumed visit no longer keeps its progress")
			}
		})
	}
	t.Run("another visit", func(t *testing.T) {
		kept := ui.Progress{Key: v.Key(), First: "0000000000000000", Stage: ui.StagePlay}
		if _, err := ui.Resume(c, v, kept, "human", "human", nil); err != ui.ErrOtherVisit {
			t.Errorf("Resume with another visit's fingerprint: %v, want ErrOtherVisit", err)
		}
		kept.Key = "standard#4"
		if _, err := ui.Resume(c, v, kept, "human", "human", nil); err != ui.ErrOtherVisit {
			t.Errorf("Resume with another visit's key: %v, want ErrOtherVisit", err)
		}
	})
}
