package splitmix_test

import (
	"math/rand/v2"
	"testing"

	"github.com/normgym/normgym/sim/splitmix"
)

// The reference stream of SplitMix64 seeded with 0 (Vigna's splitmix64.c);
// the seeded one pins NormGym's own use.
func TestStream(t *testing.T) {
	tests := []struct {
		name string
		seed uint64
		want []uint64
	}{
		{"seed 0", 0, []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f, 0xf88bb8a8724c81ec, 0x1b39896a51a8749b}},
		{"seed 1234567", 1234567, []uint64{0x599ed017fb08fc85, 0x2c73f08458540fa5, 0x883ebce5a3f27c77, 0x3fbef740e9177b3f, 0xe3b8346708cb5ecd}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := splitmix.New(tc.seed)
			for k, want := range tc.want {
				if got := s.Uint64(); got != want {
					t.Errorf("value %d = %#016x, want %#016x", k, got, want)
				}
			}
		})
	}
	var zero splitmix.Source
	if got, want := zero.Uint64(), splitmix.New(0).Uint64(); got != want {
		t.Errorf("the zero Source gave %#x, want %#x (seed 0)", got, want)
	}
}

// A Source is a math/rand/v2 Source.
var _ rand.Source = (*splitmix.Source)(nil)
