//go:build !js

package session

import (
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/host"
)

// Wasm returns an Engine that steps visits inside sim.wasm under wazero
// (rt): each visit is one of the host's Envs.
func Wasm(rt *host.Runtime) Engine {
	return engine{kind: "wasm", sha: rt.SHA256(), env: func() sim.Env { return rt.NewEnv() }}
}
