package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/tetratelabs/wazero/api"

	"github.com/normgym/normgym/wasm/wire"
)

// call runs an export on a held instance: it writes req with in_ptr (for
// exports that take one), calls the export and copies out its response.
// Any wazero error discards the instance.
func (r *Runtime) call(ctx context.Context, in *instance, export string, req []byte, hasInput bool) ([]byte, error) {
	if len(req) > wire.MaxInput {
		return nil, &Error{Export: export, Message: fmt.Sprintf("request of %d bytes, more than %d", len(req), wire.MaxInput)}
	}
	if in.dead.Load() {
		return nil, fmt.Errorf("host: %s: %w", export, ErrInstanceLost)
	}
	trap := func(err error) ([]byte, error) {
		in.dead.Store(true) // do discards it
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("host: %s: %w: %w (%v)", export, ErrInstanceLost, ctxErr, err)
		}
		return nil, fmt.Errorf("host: %s: %w: %v", export, ErrInstanceLost, err)
	}
	st := in.stack
	if hasInput {
		st[0] = api.EncodeI32(int32(len(req)))
		if err := in.fns["in_ptr"].CallWithStack(ctx, st); err != nil {
			return trap(err)
		}
		ptr := api.DecodeU32(st[0])
		if ptr == 0 {
			return nil, &Error{Export: export, Message: "in_ptr refused the request's length"}
		}
		if !in.mem.Write(ptr, req) {
			return trap(errors.New("in_ptr returned an address out of memory"))
		}
		st[0] = api.EncodeI32(int32(len(req)))
	}
	if err := in.fns[export].CallWithStack(ctx, st); err != nil {
		return trap(err)
	}
	n := api.DecodeU32(st[0])
	if err := in.fns["out_ptr"].CallWithStack(ctx, st); err != nil {
		return trap(err)
	}
	view, ok := in.mem.Read(api.DecodeU32(st[0]), n)
	if !ok {
		return trap(errors.New("out_ptr and the length point out of memory"))
	}
	resp := slices.Clone(view)
	if wire.IsError(resp) {
		var e wire.Error
		if err := json.Unmarshal(resp, &e); err != nil {
			return nil, &Error{Export: export, Message: "unreadable error response: " + string(resp)}
		}
		return nil, &Error{Export: export, Message: e.Error}
	}
	return resp, nil
}

// do acquires an instance (or waits for pinned), runs one export and
// decodes its response into resp (unless resp is nil). A nil req means
// the export takes no request.
func (r *Runtime) do(ctx context.Context, pinned *instance, export string, req, resp any) error {
	var body []byte
	if req != nil {
		var err error
		if body, err = marshal(export, req); err != nil {
			return err
		}
	}
	out, err := r.doRaw(ctx, pinned, export, body, req != nil)
	if err != nil {
		return err
	}
	return unmarshal(export, out, resp)
}

func marshal(export string, req any) ([]byte, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("host: %s: encoding the request: %w", export, err)
	}
	return b, nil
}

func unmarshal(export string, out []byte, resp any) error {
	if resp == nil {
		return nil
	}
	if err := decode(out, resp); err != nil {
		return fmt.Errorf("host: %s: decoding the response: %w", export, err)
	}
	return nil
}

// doRaw runs one export on pinned, or on an instance acquired from the
// pool, and releases the instance (or discards it after a trap).
func (r *Runtime) doRaw(ctx context.Context, pinned *instance, export string, body []byte, hasInput bool) ([]byte, error) {
	in := pinned
	if in == nil {
		var err error
		if in, err = r.acquire(ctx, false); err != nil {
			return nil, err
		}
	} else {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("host: %w", err)
		}
		r.mu.Lock()
		in.queued++
		r.mu.Unlock()
		if err := r.lock(ctx, in); err != nil {
			return nil, fmt.Errorf("host: %s: %w", export, err)
		}
	}
	out, err := r.call(ctx, in, export, body, hasInput)
	if in.dead.Load() {
		r.discard(in)
	} else {
		r.release(in)
	}
	return out, err
}

// Call sends raw request bytes to an export of a pooled instance and
// returns the raw response: the ABI without the typed layer, for tests,
// fuzzing and proxies. Exports that take no request (info, norms) ignore
// req. An error value from the module is returned as *Error.
func (r *Runtime) Call(ctx context.Context, export string, req []byte) ([]byte, error) {
	if !slices.Contains(exportNames, export) || export == "in_ptr" || export == "out_ptr" {
		return nil, fmt.Errorf("host: unknown export %q", export)
	}
	hasInput := export != "info" && export != "norms"
	return r.doRaw(ctx, nil, export, req, hasInput)
}
