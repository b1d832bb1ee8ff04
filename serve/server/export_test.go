package server

import "github.com/normgym/normgym/sim"

// NativeWith is Native with verify in place of sim.Verify, for tests
// that need a slow replay.
func NativeWith(sha string, verify func(sim.Record) (sim.Record, []string, error)) Verifier {
	return nativeVerifier{sha, verify}
}
