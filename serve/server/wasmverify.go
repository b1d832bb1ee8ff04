//go:build !js

package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/host"
)

// Wasm returns a Verifier that replays inside sim.wasm under wazero.
func Wasm(rt *host.Runtime) Verifier { return wasmVerifier{rt} }

type wasmVerifier struct{ rt *host.Runtime }

func (w wasmVerifier) Kind() string   { return "wasm" }
func (w wasmVerifier) SHA256() string { return w.rt.SHA256() }

func (w wasmVerifier) Replay(ctx context.Context, rec sim.Record) (Replayed, error) {
	res, err := w.rt.Replay(ctx, rec)
	if err != nil {
		var he *host.Error
		if errors.As(err, &he) {
			return Replayed{}, fmt.Errorf("%w: %s", ErrUnreplayable, he.Message)
		}
		return Replayed{}, err
	}
	diffs := res.Diffs
	if diffs == nil {
		diffs = []string{}
	}
	return Replayed{Record: res.Record, Diffs: diffs}, nil
}
