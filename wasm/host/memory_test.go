package host_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/host"
)

// TestMemoryBounded: 900 visits reset and closed, at most 200 open at
// once: from the 400th reset on, the module's memory stops growing. The
// guest's collector must finish its cycles although a reactor's export
// never blocks (wasm/module's set yields at the end of every call);
// before it did, memory grew by about 0.18 MB a reset, for ever (from 76
// to 166 MB between the 400th and the 900th reset here).
func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("900 resets")
	}
	r := newRuntime(t, host.Options{MaxInstances: 1})
	ctx := context.Background()
	train, err := sim.LookupSuite("train")
	if err != nil {
		t.Fatal(err)
	}
	var open []*host.Visit
	var mid int
	for i := 0; i < 900; i++ {
		v, _, _, err := r.Reset(ctx, train.Visits[i%len(train.Visits)])
		if err != nil {
			t.Fatal(err)
		}
		if open = append(open, v); len(open) > 200 {
			open[0].Close(ctx)
			open = open[1:]
		}
		if i == 399 {
			mid = host.MemoryBytes(r)
		}
	}
	end := host.MemoryBytes(r)
	t.Logf("linear memory after 400 resets %d MB, after 900 %d MB (200 open)", mid>>20, end>>20)
	if end-mid > 40<<20 {
		t.Errorf("linear memory grew from %d MB after 400 resets to %d MB after 900, with 200 open: the guest keeps closed visits", mid>>20, end>>20)
	}
}

// TestCapacity: visits reset one after another fill the pool to its
// Capacity: a reset goes to an instance with a free handle (starting one
// if need be), not to the first free instance, which may hold 256.
func TestCapacity(t *testing.T) {
	if testing.Short() {
		t.Skip("300 resets")
	}
	r := newRuntime(t, host.Options{MaxInstances: 2})
	ctx := context.Background()
	for i := 0; i < 300; i++ {
		if _, _, _, err := r.Reset(ctx, fmt.Sprintf("orchard/none/control/s%d", i)); err != nil {
			t.Fatalf("reset %d of 300 (capacity %d): %v", i+1, r.Capacity(), err)
		}
	}
	if n := r.Instances(); n != 2 {
		t.Errorf("%d instances hold 300 visits, want 2", n)
	}
}
