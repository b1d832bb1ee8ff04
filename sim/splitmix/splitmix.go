// Package splitmix is NormGym's one pseudo-random generator: SplitMix64
// (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", 2014). The simulation draws layouts, routines, probes and
// sanction noise from it (package sim), the random baseline its actions
// (sim/agents), and the wasm host the fixed random bytes it gives the
// module (wasm/host).
//
// A Source's stream depends only on its seed: the same on every host,
// natively and under WebAssembly. Changing anything here changes every
// trajectory, so the tests pin its output.
package splitmix

// Source is a SplitMix64 generator. The zero value is the generator
// seeded with 0. It is a math/rand/v2 Source. It is not safe for
// concurrent use.
type Source struct{ state uint64 }

// New returns a generator seeded with seed.
func New(seed uint64) *Source { return &Source{state: seed} }

// Uint64 returns the next value of the stream.
func (s *Source) Uint64() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
