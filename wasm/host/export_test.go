package host

import (
	"context"

	"github.com/tetratelabs/wazero/api"
)

// RawCall calls in_ptr(alloc) and then export(n) on a pooled instance,
// bypassing the host's own length checks, and returns in_ptr's result and
// the raw response (nil when in_ptr refused). Tests use it to feed the
// guest lengths that the typed API never sends.
func RawCall(ctx context.Context, r *Runtime, export string, alloc, n int32) (uint32, []byte, error) {
	in, err := r.acquire(ctx, false)
	if err != nil {
		return 0, nil, err
	}
	defer func() {
		if in.dead.Load() {
			r.discard(in)
		} else {
			r.release(in)
		}
	}()
	st := in.stack
	st[0] = api.EncodeI32(alloc)
	if err := in.fns["in_ptr"].CallWithStack(ctx, st); err != nil {
		in.dead.Store(true)
		return 0, nil, err
	}
	ptr := api.DecodeU32(st[0])
	st[0] = api.EncodeI32(n)
	if err := in.fns[export].CallWithStack(ctx, st); err != nil {
		in.dead.Store(true)
		return ptr, nil, err
	}
	size := api.DecodeU32(st[0])
	if err := in.fns["out_ptr"].CallWithStack(ctx, st); err != nil {
		in.dead.Store(true)
		return ptr, nil, err
	}
	view, ok := in.mem.Read(api.DecodeU32(st[0]), size)
	if !ok {
		return ptr, nil, ErrInstanceLost
	}
	return ptr, append([]byte(nil), view...), nil
}

// MemoryBytes is the size of the linear memory of r's instances, in all.
func MemoryBytes(r *Runtime) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, in := range r.all {
		n += int(in.mem.Size())
	}
	return n
}
