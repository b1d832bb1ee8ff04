package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepositoryLinks: no document of the project names a file that is not
// in it (relative links and *.md names).
func TestRepositoryLinks(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	problems, err := checkLinks(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func write(t *testing.T, root, name, body string) {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckLinks(t *testing.T) {
	root := t.TempDir()
	write(t, root, "README.md", "See [the design](sim/DESIGN.md), [a page](https://x.example/a.md), sim/RATIONALE.md and [gone](nowhere.md).\n")
	write(t, root, "sim/DESIGN.md", "Back to [the readme](../README.md); and OTHER.md.\n")
	write(t, root, "sim/RATIONALE.md", "ok\n")
	write(t, root, "node_modules/x/README.md", "[broken](nope.md)\n")
	problems, err := checkLinks(root)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(problems, "\n")
	for _, want := range []string{"README.md:1: the link nowhere.md leads to no file", "sim/DESIGN.md:1: sim/DESIGN.md names OTHER.md"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	if len(problems) != 3 {
		t.Errorf("%d problems, want 3 (the link, its name, OTHER.md):\n%s", len(problems), got)
	}
}

func TestCheckFigures(t *testing.T) {
	root := t.TempDir()
	write(t, root, "README.md", "Fast: 3.0× <!-- bench: BenchmarkRatio/observer wasm/native --> and 1,200 runs/s <!-- bench: BenchmarkSubmit/wasm runs/s -->.\n"+
		"Stale: **9.5×** <!-- bench: BenchmarkRatio/step wasm/native -->; gone 4 ms <!-- bench: BenchmarkGone ms -->\n")
	bench := `goos: linux
BenchmarkRatio/observer-2   1   100 native_ms   290 wasm_ms   2.9 wasm/native
BenchmarkRatio/observer-2   1   100 native_ms   310 wasm_ms   3.1 wasm/native
BenchmarkRatio/observer-2   1   100 native_ms   330 wasm_ms   3.3 wasm/native
BenchmarkRatio/step-2       1   1 native_us     4 wasm_us     4.0 wasm/native
BenchmarkSubmit/wasm-2      3   34.4 p50_ms     1000 runs/s
PASS
`
	problems, err := checkFigures(root, bench)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(problems, "\n")
	if len(problems) != 2 || !strings.Contains(got, "says 9.5 for BenchmarkRatio/step wasm/native, the benchmarks measure 4") ||
		!strings.Contains(got, "no BenchmarkGone ms") {
		t.Errorf("problems:\n%s\nwant the stale ratio and the missing benchmark only", got)
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}}
	for _, tc := range tests {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
