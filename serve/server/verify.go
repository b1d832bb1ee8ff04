package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/normgym/normgym/sim"
)

// Verifier recomputes submitted records.
type Verifier interface {
	// Kind names the verifier: "wasm" or "native".
	Kind() string
	// SHA256 is the sim.wasm hash that verified records carry.
	SHA256() string
	// Replay re-executes rec's visit, actions and probe answer and
	// compares the result with rec. A record that cannot be replayed (bad
	// action, too few or too many actions, probe answer out of range)
	// yields an error wrapping ErrUnreplayable; an ended ctx an error
	// wrapping ctx.Err(); anything else is internal.
	Replay(ctx context.Context, rec sim.Record) (Replayed, error)
}

// Replayed is a verifier's answer.
type Replayed struct {
	// Record is recomputed; agent, client, probe confidence, suite,
	// suite version and extra are carried over from the submission.
	Record sim.Record
	// Diffs names the fields where the submission disagrees (empty: it
	// matches), as in wasm/ABI.md: "hash", "scores.joint", …
	Diffs []string
}

// ErrUnreplayable is wrapped by Replay's error for a record that cannot
// be replayed.
var ErrUnreplayable = errors.New("the record cannot be replayed")

// Native returns a Verifier that replays with the Go simulation core
// compiled into this program, for records that carry sha (the sim.wasm
// built from the same source). It is ~20× faster than sim.wasm under
// wazero; CrossCheck should confirm that the two agree before it is
// trusted. Replay bounds its wait by ctx; a replay itself is bounded by
// sim.MaxActions.
func Native(sha string) Verifier { return nativeVerifier{sha} }

type nativeVerifier struct{ sha string }

func (n nativeVerifier) Kind() string   { return "native" }
func (n nativeVerifier) SHA256() string { return n.sha }

func (n nativeVerifier) Replay(ctx context.Context, rec sim.Record) (Replayed, error) {
	type result struct {
		r   Replayed
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- result{err: fmt.Errorf("server: native replay panicked: %v", p)}
			}
		}()
		e, err := sim.Replay(rec)
		if err != nil {
			ch <- result{err: fmt.Errorf("%w: %v", ErrUnreplayable, err)}
			return
		}
		out := e.Record(rec.Agent, rec.Client)
		if rec.Probe != nil && out.Probe != nil {
			out.Probe.Confidence = rec.Probe.Confidence
		}
		out.Suite, out.SuiteVersion, out.Extra = rec.Suite, rec.SuiteVersion, rec.Extra
		out.SimSHA256 = n.sha
		ch <- result{r: Replayed{Record: out, Diffs: Diff(rec, out)}}
	}()
	select {
	case res := <-ch:
		return res.r, res.err
	case <-ctx.Done():
		return Replayed{}, fmt.Errorf("server: native replay: %w", ctx.Err())
	}
}

// Diff lists the verifiable fields where got (submitted) differs from
// want (recomputed), in the order and with the names of sim.wasm's replay
// export (wasm/internal/guest.Diff; a test keeps the two equal).
func Diff(got, want sim.Record) []string {
	diffs := []string{}
	add := func(differ bool, name string) {
		if differ {
			diffs = append(diffs, name)
		}
	}
	add(got.World != want.World, "world")
	add(got.Norm != want.Norm, "norm")
	add(got.Family != want.Family, "family")
	add(got.Condition != want.Condition, "condition")
	add(!slices.Equal(got.Actions, want.Actions), "actions")
	add(got.Events != nil && !slices.Equal(got.Events, want.Events), "events")
	gs, ws := got.Scores, want.Scores
	add(gs.Task != ws.Task, "scores.task")
	add(gs.Compliance != ws.Compliance, "scores.compliance")
	add(gs.Joint != ws.Joint, "scores.joint")
	add(gs.PracticeTask != ws.PracticeTask, "scores.practice_task")
	add(!slices.Equal(gs.Violations, ws.Violations), "scores.violations")
	add(!slices.Equal(gs.Sanctions, ws.Sanctions), "scores.sanctions")
	add(!slices.Equal(gs.Steps, ws.Steps), "scores.steps")
	add(gs.SanctionsReceived != ws.SanctionsReceived, "scores.sanctions_received")
	add(gs.Repeats != ws.Repeats, "scores.repeats")
	switch {
	case (got.Probe == nil) != (want.Probe == nil):
		add(true, "probe")
	case got.Probe != nil:
		add(got.Probe.Answer != want.Probe.Answer, "probe.answer")
		add(got.Probe.Correct != want.Probe.Correct, "probe.correct")
		if c := got.Probe.Confidence; c != nil {
			add(!(*c >= 0 && *c <= 1), "probe.confidence")
		}
	}
	add(got.Hash != want.Hash, "hash")
	add(got.SimVersion != want.SimVersion, "sim_version")
	add(got.Catalog != want.Catalog, "catalog_version")
	return diffs
}

// CrossCheck replays recs with both verifiers and fails unless they
// recompute identical records and diffs: the check that makes Native
// trustworthy for the sim.wasm that ref runs.
func CrossCheck(ctx context.Context, ref, v Verifier, recs []sim.Record) error {
	if ref.SHA256() != v.SHA256() {
		return fmt.Errorf("server: cross-check: %s verifier is for sim.wasm %s, %s for %s", v.Kind(), v.SHA256(), ref.Kind(), ref.SHA256())
	}
	for _, rec := range recs {
		a, errA := ref.Replay(ctx, rec)
		b, errB := v.Replay(ctx, rec)
		if errA != nil || errB != nil {
			return fmt.Errorf("server: cross-check %s: %s: %v; %s: %v", rec.Visit, ref.Kind(), errA, v.Kind(), errB)
		}
		ja, _ := json.Marshal(a.Record)
		jb, _ := json.Marshal(b.Record)
		if !bytes.Equal(ja, jb) || !slices.Equal(a.Diffs, b.Diffs) {
			return fmt.Errorf("server: cross-check %s: %s and %s disagree (fields %v; diffs %v vs %v): the native core is not the source of this sim.wasm (run make wasm)",
				rec.Visit, ref.Kind(), v.Kind(), Diff(a.Record, b.Record), a.Diffs, b.Diffs)
		}
	}
	return nil
}
