//go:build !js

package ui_test

import (
	"testing"

	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/sim/simtest"
	"github.com/normgym/normgym/web/internal/ui"
	"github.com/normgym/normgym/web/internal/wasmtest"
)

// TestStepperContract holds the browser's steppers to the native core with
// the environment checker: the page's own module (ui.Env, here under the
// wazero harness) and a server-stepped session (ui.Sealed, here a
// practice session of the real server, whose observations are the sealed
// ones' too, without its step rate limit: the checker steps fast).
func TestStepperContract(t *testing.T) {
	t.Run("module", func(t *testing.T) {
		env := wasmtest.Client(t).NewEnv()
		defer env.Close()
		simtest.Run(t, env, simtest.Cases())
	})
	t.Run("sealed", func(t *testing.T) {
		fetch, _ := sealedServer(t, limit.None)
		env := ui.NewSealed(fetch, ui.SessionRequest{})
		defer env.Close()
		simtest.Run(t, env, simtest.Cases())
	})
}
