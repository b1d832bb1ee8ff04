package host_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/normgym/normgym/wasm/host"
)

// TestContextStopsCall checks that a cancelled context or a deadline that
// passes during a long batch returns an error, drops only the instance
// that was running, and leaves the pool usable.
func TestContextStopsCall(t *testing.T) {
	r := newRuntime(t, host.Options{MaxInstances: 1})
	visits := every(suiteVisits(t, "standard"), 7, 100)

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.RunBaselines(cancelled, visits, "observer"); !errors.Is(err, context.Canceled) {
		t.Fatalf("already cancelled: %v, want context.Canceled", err)
	}
	if got := r.Instances(); got != 1 {
		t.Fatalf("%d instances after a call that never started, want 1 (the first stays)", got)
	}

	ctx := context.Background()
	pinned, _, _, err := r.Reset(ctx, "orchard/place.color=blue/observe/s17")
	if err != nil {
		t.Fatal(err)
	}
	short, stop := context.WithTimeout(ctx, 50*time.Millisecond)
	defer stop()
	start := time.Now()
	_, err = r.RunBaselines(short, visits, "observer")
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, host.ErrInstanceLost) {
		t.Fatalf("deadline: %v, want DeadlineExceeded and ErrInstanceLost", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call took %v to stop", d)
	}
	if got := r.Instances(); got != 0 {
		t.Errorf("%d instances after the trap, want 0", got)
	}
	// The visit lived in the lost instance.
	if _, err := pinned.Step(ctx, "wait"); !errors.Is(err, host.ErrInstanceLost) {
		t.Errorf("step on a lost visit: %v, want ErrInstanceLost", err)
	}
	if err := pinned.Close(ctx); err != nil {
		t.Errorf("close of a lost visit: %v", err)
	}
	rec, err := r.RunBaseline(ctx, visits[0], "greedy")
	if err != nil {
		t.Fatalf("the pool is not usable after a trap: %v", err)
	}
	if want := native(t, visits[0], "greedy"); rec.Hash != want.Hash {
		t.Errorf("after a trap: hash %s, want %s", rec.Hash, want.Hash)
	}
}

// TestConcurrentVisits plays visits from many goroutines over a small
// pool: each must match its native run.
func TestConcurrentVisits(t *testing.T) {
	r := newRuntime(t, host.Options{MaxInstances: 2})
	visits := every(suiteVisits(t, "mini"), 9, 6)
	t.Run("group", func(t *testing.T) {
		for _, visit := range visits {
			t.Run(visit, func(t *testing.T) {
				t.Parallel()
				same(t, "concurrent", stepwise(t, r, visit, "greedy"), native(t, visit, "greedy"))
			})
		}
	})
	if got := r.Instances(); got > 2 {
		t.Errorf("%d instances, want at most 2", got)
	}
}
