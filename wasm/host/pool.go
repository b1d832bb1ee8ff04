package host

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/normgym/normgym/wasm/wire"
)

// notify wakes goroutines waiting for the pool to change; r.mu is held.
func (r *Runtime) notify() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// Instances reports how many live instances the pool holds.
func (r *Runtime) Instances() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.all)
}

// acquire returns an instance held for the caller, creating one if none
// is free and the pool has room, else waiting for the least awaited one.
// Instances with fewer open visits come first. For a reset (handle true)
// an instance whose handles are all taken counts as not free, so that
// visits spread over the pool up to its Capacity.
func (r *Runtime) acquire(ctx context.Context, handle bool) (*instance, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("host: %w", err)
		}
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return nil, ErrClosed
		}
		order := slices.Clone(r.all)
		slices.SortStableFunc(order, func(a, b *instance) int { return a.visits - b.visits })
		if handle {
			order = slices.DeleteFunc(order, func(in *instance) bool { return in.visits >= wire.MaxHandles })
			if len(order) == 0 && len(r.all)+r.creating >= r.max {
				order = slices.Clone(r.all) // full: the module says so
			}
		}
		for _, in := range order {
			select {
			case in.sem <- struct{}{}:
				r.mu.Unlock()
				return in, nil
			default:
			}
		}
		if len(r.all)+r.creating < r.max {
			r.creating++
			r.mu.Unlock()
			in, err := r.instantiate(ctx)
			r.mu.Lock()
			r.creating--
			r.notify()
			if err == nil {
				if r.closed {
					in.mod.Close(ctx)
					err = ErrClosed
				} else {
					in.sem <- struct{}{}
					r.all = append(r.all, in)
				}
			}
			r.mu.Unlock()
			if err != nil {
				return nil, err
			}
			return in, nil
		}
		if len(order) == 0 {
			// Every slot is being created by others: wait for a change.
			changed := r.changed
			r.mu.Unlock()
			select {
			case <-changed:
			case <-ctx.Done():
			}
			continue
		}
		in := slices.MinFunc(order, func(a, b *instance) int { return a.queued - b.queued })
		in.queued++
		r.mu.Unlock()
		if err := r.lock(ctx, in); err != nil {
			if errors.Is(err, ErrInstanceLost) {
				continue
			}
			return nil, fmt.Errorf("host: %w", err)
		}
		return in, nil
	}
}

// lock waits for in (already counted in in.queued) and holds it.
func (r *Runtime) lock(ctx context.Context, in *instance) error {
	var err error
	select {
	case in.sem <- struct{}{}:
		if in.dead.Load() {
			<-in.sem
			err = ErrInstanceLost
		}
	case <-ctx.Done():
		err = ctx.Err()
	}
	r.mu.Lock()
	in.queued--
	r.mu.Unlock()
	return err
}

func (r *Runtime) release(in *instance) { <-in.sem }

// discard drops a held instance after a trap and releases it.
func (r *Runtime) discard(in *instance) {
	in.dead.Store(true)
	r.mu.Lock()
	if i := slices.Index(r.all, in); i >= 0 {
		r.all = slices.Delete(r.all, i, i+1)
	}
	r.notify()
	r.mu.Unlock()
	in.mod.Close(context.Background())
	<-in.sem
}
