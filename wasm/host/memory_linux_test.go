package host

import (
	"testing"
	"unsafe"
)

// TestMmapMemory: the linear memory grows in place, zeroed and writable,
// up to its maximum and no further.
func TestMmapMemory(t *testing.T) {
	const page = 65536
	m := newMmapMemory(0, 16*page)
	a := m.Reallocate(page)
	if len(a) != page {
		t.Fatalf("len %d, want %d", len(a), page)
	}
	a[page-1] = 7
	b := m.Reallocate(3 * page)
	if len(b) != 3*page || unsafe.SliceData(a) != unsafe.SliceData(b) || b[page-1] != 7 || b[3*page-1] != 0 {
		t.Fatalf("grown: len %d, moved %v, kept %d", len(b), unsafe.SliceData(a) != unsafe.SliceData(b), b[page-1])
	}
	b[3*page-1] = 1
	if m.Reallocate(17*page) != nil {
		t.Error("grew past its maximum")
	}
	m.Free()
	m.Free() // twice is once
}
