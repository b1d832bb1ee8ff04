package sim

import (
	"strconv"

	"github.com/normgym/normgym/sim/splitmix"
)

// rng is the simulation's deterministic generator (SplitMix64, package
// splitmix) with the draws it needs. Its stream depends only on its
// seed, never on the host.
type rng struct{ src splitmix.Source }

// newRNG seeds a generator from parts, hashed with FNV-1a.
func newRNG(parts ...string) *rng {
	return &rng{src: *splitmix.New(seedOf(parts...))}
}

func seedOf(parts ...string) uint64 {
	h := uint64(14695981039346656037)
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			h ^= uint64(p[i])
			h *= 1099511628211
		}
		h ^= 0xff
		h *= 1099511628211
	}
	return h
}

func (r *rng) next() uint64 { return r.src.Uint64() }

// intn returns a value in [0, n); n must be > 0.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// float returns a value in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// perm returns a permutation of [0, n).
func (r *rng) perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := r.intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

func itoa(i int) string { return strconv.Itoa(i) }

func utoa(u uint64) string { return strconv.FormatUint(u, 10) }
