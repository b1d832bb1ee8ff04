package host_test

import (
	"testing"

	"github.com/normgym/normgym/sim/simtest"
)

// TestEnvContract holds the module's Env (host.Env) to the native core
// with the environment checker: the same turns, observations, errors,
// probe and record, and nothing of the norm before the probe.
func TestEnvContract(t *testing.T) {
	env := compiler(t).NewEnv()
	defer env.Close()
	simtest.Run(t, env, simtest.Cases())
}
