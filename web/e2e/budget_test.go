//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normgym/normgym/web/internal/browser"
	"github.com/normgym/normgym/web/internal/site"
)

// TestBudget checks the first visit's weight in bytes, which do not
// depend on the machine: the build's brotli siblings of every file a
// first visit loads must add up to at most browser.MaxFirstVisit, and
// those of the site's sealed first visit (no sim.wasm, no shim) to at most
// browser.MaxSealedFirstVisit. Time to interactive varies with the
// machine's load, so it is only measured and printed (make web-bench,
// BenchmarkFirstVisit), never asserted.
func TestBudget(t *testing.T) {
	dir := builtSite(t)
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m site.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	total, err := m.FirstVisit(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a first visit transfers %d bytes with brotli (budget %d)", total, browser.MaxFirstVisit)
	if total > browser.MaxFirstVisit {
		t.Errorf("a first visit transfers %d bytes with brotli, over the %d budget", total, browser.MaxFirstVisit)
	}
	sealed := total
	for _, f := range m.Files {
		if strings.Contains(f, "/sim.") || strings.Contains(f, "/shim-") {
			n, ok := m.Brotli[f]
			if !ok {
				fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f)))
				if err != nil {
					t.Fatal(err)
				}
				n = int(fi.Size())
			}
			sealed -= n
		}
	}
	t.Logf("the site's sealed first visit transfers %d bytes with brotli (budget %d)", sealed, browser.MaxSealedFirstVisit)
	if sealed > browser.MaxSealedFirstVisit || sealed >= total {
		t.Errorf("the site's sealed first visit transfers %d bytes with brotli (of %d in all), over the %d budget", sealed, total, browser.MaxSealedFirstVisit)
	}
	for _, f := range m.Files {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.Brotli[f]; !ok && site.Compressible(f, int(fi.Size())) {
			t.Errorf("%s has no .br sibling", f)
		}
	}
	for _, want := range []string{"index.html", "sim.", "app.", "wasm_exec."} {
		found := false
		for _, p := range m.Files {
			found = found || strings.Contains(p, want)
		}
		if !found {
			t.Errorf("the first visit does not list %s*", want)
		}
	}
}

// BenchmarkFirstVisit reports the first visit's figures as metrics, one
// cold load per iteration:
//
//	go test -run '^$' -bench FirstVisit -benchtime 3x ./web/e2e/
func BenchmarkFirstVisit(b *testing.B) {
	if browser.Path() == "" {
		b.Skip("chromium is not installed")
	}
	dir := builtSite(b)
	srv := browser.Serve(dir)
	defer srv.Close()
	var loads []browser.Load
	for i := 0; i < max(b.N, 1); i++ {
		l, err := browser.ColdLoad(context.Background(), srv.URL+"/", browser.Options{})
		if err != nil {
			b.Fatal(err)
		}
		loads = append(loads, l)
	}
	as, err := browser.Sizes(dir, loads[0].Paths)
	if err != nil {
		b.Fatal(err)
	}
	total := browser.Total(as)
	b.ReportMetric(float64(browser.Median(loads).Milliseconds()), "ms-tti")
	b.ReportMetric(float64(total.Brotli), "bytes-brotli")
	b.ReportMetric(float64(loads[0].Transferred), "bytes-transferred")
	b.ReportMetric(float64(total.Raw), "bytes-raw")
	var s strings.Builder
	browser.Report(&s, as, loads)
	b.Log("\n" + s.String())
}
