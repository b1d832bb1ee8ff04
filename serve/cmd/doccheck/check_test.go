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

func TestFormatFigure(t *testing.T) {
	for _, tc := range []struct {
		figure string // the document's
		v      float64
		want   string
	}{
		{"8.7", 6.914, "6.9"},
		{"7.3", 10.04, "10"},
		{"1,500", 1432.7, "1,400"},
		{"397,000", 401234, "401,000"},
		{"0.30", 0.2961, "0.30"},
		{"20", 18.29, "18"},
		{"1.0", 0.9859, "0.99"},
		{"4,200", 6559, "6,600"},
		{"99", 99.7, "100"},
	} {
		if got := formatFigure(tc.v, significantDigits(tc.figure)); got != tc.want {
			t.Errorf("formatFigure(%v, digits of %q) = %q, want %q", tc.v, tc.figure, got, tc.want)
		}
	}
}

func TestWriteFigures(t *testing.T) {
	root := t.TempDir()
	write(t, root, "README.md", "Fast: 3.0× <!-- bench: BenchmarkRatio/observer wasm/native --> and 1,200 runs/s <!-- bench: BenchmarkSubmit/wasm runs/s -->.\n"+
		"Same: 4 µs <!-- bench: BenchmarkRatio/step native_us -->; gone 4 ms <!-- bench: BenchmarkGone ms -->\n"+
		"Split: 2.0×\n  <!-- bench: BenchmarkRatio/step wasm/native --> over a line break.\n")
	bench := `BenchmarkRatio/observer-2   1   100 native_ms   290 wasm_ms   2.9 wasm/native
BenchmarkRatio/observer-2   1   100 native_ms   310 wasm_ms   3.3 wasm/native
BenchmarkRatio/observer-2   1   100 native_ms   330 wasm_ms   3.4 wasm/native
BenchmarkRatio/step-2       1   4 native_us     4 wasm_us     4.0 wasm/native
BenchmarkSubmit/wasm-2      300   2,000 runs/s
BenchmarkSubmit/wasm-2      300   2480 runs/s
`
	changed, problems, err := writeFigures(root, bench)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "Fast: 3.3× <!-- bench: BenchmarkRatio/observer wasm/native --> and 2,500 runs/s <!-- bench: BenchmarkSubmit/wasm runs/s -->.\n" +
		"Same: 4 µs <!-- bench: BenchmarkRatio/step native_us -->; gone 4 ms <!-- bench: BenchmarkGone ms -->\n" +
		"Split: 4.0×\n  <!-- bench: BenchmarkRatio/step wasm/native --> over a line break.\n"
	if string(b) != want {
		t.Errorf("README.md now reads\n%s\nwant\n%s", b, want)
	}
	if len(changed) != 3 || !strings.Contains(changed[0], "3.0 → 3.3") || !strings.Contains(changed[2], "README.md:3: BenchmarkRatio/step wasm/native: 2.0 → 4.0") {
		t.Errorf("changed = %q, want the three figures that moved", changed)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "no BenchmarkGone ms") {
		t.Errorf("problems = %q, want the missing BenchmarkGone", problems)
	}
	if p, _ := checkFigures(root, bench); len(p) != 1 {
		t.Errorf("after writing, checkFigures finds %q, want only the missing benchmark", p)
	}
}

func TestSignificantDigits(t *testing.T) {
	for figure, want := range map[string]int{"4": 1, "20": 2, "8.7": 2, "0.30": 2, "1,500": 2, "397,000": 3, "2,532": 4, "100": 2, "1.0": 2} {
		if got := significantDigits(figure); got != want {
			t.Errorf("significantDigits(%q) = %d, want %d", figure, got, want)
		}
	}
}

func TestFigures(t *testing.T) {
	doc := "One 2.5× <!-- bench: BenchmarkA x -->,\ntwo 1,200\n  <!-- bench: BenchmarkB runs/s --> across lines;\n" +
		"and a stray <!-- bench: BenchmarkC ms --> after no number.\n"
	figs, orphans := figures(doc)
	if len(figs) != 2 || figs[0].figure != "2.5" || figs[0].line != 1 || figs[1].figure != "1,200" || figs[1].name != "BenchmarkB" || figs[1].line != 2 {
		t.Errorf("figures = %+v, want 2.5 on line 1 and 1,200 on line 2", figs)
	}
	if len(orphans) != 1 || orphans[0] != 4 {
		t.Errorf("orphans = %v, want line 4", orphans)
	}
}
