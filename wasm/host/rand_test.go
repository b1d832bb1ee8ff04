package host

import (
	"encoding/hex"
	"testing"

	"github.com/normgym/normgym/sim/splitmix"
)

// TestFixedRand pins the bytes the module's Go runtime reads as random:
// reads of 3, 8, 9 and 16 bytes from the seed New uses.
func TestFixedRand(t *testing.T) {
	r := fixedRand{splitmix.New(0x4e6f726d47796d)}
	for _, want := range []string{"388ce0", "f4eaffdeb7164300", "ff2bcbbefe98740d22", "81fa9b8d4ffb826aa54d8dd2b3c53b58"} {
		p := make([]byte, len(want)/2)
		if n, err := r.Read(p); n != len(p) || err != nil {
			t.Fatalf("Read(%d bytes) = %d, %v", len(p), n, err)
		}
		if got := hex.EncodeToString(p); got != want {
			t.Errorf("Read(%d bytes) = %s, want %s", len(p), got, want)
		}
	}
}
