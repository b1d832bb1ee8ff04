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
// trusted. Replay runs in the caller's goroutine and returns only when
// the replay is over (bounded by sim.MaxActions): ctx is checked before
// it starts, and the server bounds its own wait (Server.replay), keeping
// the replay's slot until Replay returns.
func Native(sha string) Verifier { return nativeVerifier{sha, sim.Verify} }

type nativeVerifier struct {
	sha    string
	verify func(sim.Record) (sim.Record, []string, error) // sim.Verify
}

func (n nativeVerifier) Kind() string   { return "native" }
func (n nativeVerifier) SHA256() string { return n.sha }

func (n nativeVerifier) Replay(ctx context.Context, rec sim.Record) (r Replayed, err error) {
	if err := ctx.Err(); err != nil {
		return Replayed{}, fmt.Errorf("server: native replay: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			r, err = Replayed{}, fmt.Errorf("server: native replay panicked: %v", p)
		}
	}()
	out, diffs, err := n.verify(rec)
	if err != nil {
		return Replayed{}, fmt.Errorf("%w: %v", ErrUnreplayable, err)
	}
	out.SimSHA256 = n.sha
	return Replayed{Record: out, Diffs: diffs}, nil
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
				rec.Visit, ref.Kind(), v.Kind(), sim.DiffRecords(a.Record, b.Record), a.Diffs, b.Diffs)
		}
	}
	return nil
}
