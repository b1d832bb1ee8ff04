package prompt

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
)

// TestRun plays visits natively under the model loop with scripted chats
// and checks what the loop does with their replies: actions, waits for
// replies without one, notes under reflect, the probe (none under
// control), the record and its extra, and a chat's error ending the run.
func TestRun(t *testing.T) {
	errDown := errors.New("endpoint down")
	tests := []struct {
		name    string
		visit   string
		variant Variant
		reply   func(n int, req Request) (string, error)
		check   func(t *testing.T, rec sim.Record, x Extra, kinds []Kind)
		wantErr error
	}{
		{"waits on a bad reply", "orchard/place.color=blue/observe/s17", Plain, func(n int, req Request) (string, error) {
			if req.Kind == AskProbe {
				return "ANSWER: 3", nil
			}
			if n%5 == 4 {
				return "hmm", nil
			}
			return "ACTION: north", nil
		}, func(t *testing.T, rec sim.Record, x Extra, kinds []Kind) {
			waits := 0
			for _, a := range rec.Actions {
				if a == sim.Wait {
					waits++
				}
			}
			if x.FormatErrors == 0 || waits != x.FormatErrors || len(x.FormatErrorReplies) == 0 {
				t.Errorf("%d format errors, %d waits", x.FormatErrors, waits)
			}
			if rec.Probe == nil || rec.Probe.Answer != 2 || rec.Agent != "m" || rec.Client != "model" || kinds[len(kinds)-1] != AskProbe {
				t.Errorf("record %q/%q probe %+v", rec.Agent, rec.Client, rec.Probe)
			}
			if x.RunID != "r1" || x.App != "test" || x.Prompt != "plain" || x.Usage.Requests != len(kinds) || len(x.StepLog) != len(kinds) {
				t.Errorf("extra %+v for %d requests", x, len(kinds))
			}
		}, nil},
		{"control has no probe", "park/none/control/s5", Plain, func(int, Request) (string, error) { return "ACTION: wait", nil },
			func(t *testing.T, rec sim.Record, x Extra, kinds []Kind) {
				if rec.Probe != nil || kinds[len(kinds)-1] != AskStep || len(kinds) != len(rec.Actions) {
					t.Errorf("%d requests for %d actions, probe %+v", len(kinds), len(rec.Actions), rec.Probe)
				}
			}, nil},
		{"reflect writes notes", "market/social.greet=elder/solo/s3", Reflect, func(_ int, req Request) (string, error) {
			if req.Kind == AskNotes {
				return "NOTES: bow to the elder", nil
			}
			return "ACTION: wait", nil
		}, func(t *testing.T, rec sim.Record, x Extra, kinds []Kind) {
			notes := 0
			for _, k := range kinds {
				if k == AskNotes {
					notes++
				}
			}
			if notes != sim.Days-1 || len(x.Notes) != notes || x.Notes[0] != "bow to the elder" {
				t.Errorf("%d notes requests, notes %q", notes, x.Notes)
			}
		}, nil},
		{"probe without an answer", "orchard/place.color=blue/observe/s17", NormAware, func(_ int, req Request) (string, error) {
			if req.Kind == AskProbe {
				return "I cannot tell.", nil
			}
			return "ACTION: wait", nil
		}, func(t *testing.T, rec sim.Record, x Extra, kinds []Kind) {
			if rec.Probe != nil || !x.ProbeFormatError || !x.StepLog[len(x.StepLog)-1].FormatError || x.FormatErrors != 0 {
				t.Errorf("probe %+v, extra format errors %d, probe format error %v", rec.Probe, x.FormatErrors, x.ProbeFormatError)
			}
		}, nil},
		{"a chat error ends the run", "orchard/place.color=blue/observe/s17", Plain, func(n int, req Request) (string, error) {
			if n == 7 {
				return "", errDown
			}
			return "ACTION: wait", nil
		}, nil, errDown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var kinds []Kind
			chat := func(_ context.Context, req Request) (Reply, error) {
				content, err := tc.reply(len(kinds), req)
				kinds = append(kinds, req.Kind)
				return Reply{Content: content, Usage: Usage{PromptTokens: Chars(req.Messages) / 4}}, err
			}
			s := Settings{Variant: tc.variant, Options: DefaultOptions(), Model: "m", RunID: "r1", App: "test"}
			var seen int
			rec, x, err := Run(context.Background(), new(sim.Native), tc.visit, s, chat, func(Exchange) { seen++ })
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), "day 1 step 7") {
					t.Fatalf("Run = %v, want %v at day 1 step 7", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if seen != len(kinds) {
				t.Errorf("the observer saw %d of %d requests", seen, len(kinds))
			}
			if got, ok := ReadExtra(rec.Extra); !ok || got.Usage != x.Usage || got.History.Requests != x.History.Requests {
				t.Errorf("the record's extra %+v is not the extra returned", got)
			}
			tc.check(t, rec, x, kinds)
		})
	}
}
