//go:build !js

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/web/internal/browser"
)

// Budgets from issue 4.
const (
	maxBrotli = 2_500_000
	maxTTI    = 2 * time.Second
)

func firstVisit(tb testing.TB, runs int) ([]browser.Asset, []browser.Load) {
	dir := builtSite(tb)
	srv := browser.Serve(dir)
	defer srv.Close()
	var loads []browser.Load
	for i := 0; i < runs; i++ {
		l, err := browser.ColdLoad(context.Background(), srv.URL+"/", browser.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		loads = append(loads, l)
	}
	as, err := browser.Sizes(dir, loads[0].Paths)
	if err != nil {
		tb.Fatal(err)
	}
	return as, loads
}

// TestBudget checks the first visit's transfer size (brotli) and its time
// to interactive in headless Chromium on localhost, and logs the figures
// (go test -v; go run ./web/cmd/webbench prints them too).
func TestBudget(t *testing.T) {
	needChromium(t)
	as, loads := firstVisit(t, 3)
	var b strings.Builder
	browser.Report(&b, as, loads)
	t.Log("\n" + b.String())
	if total := browser.Total(as).Brotli; total > maxBrotli {
		t.Errorf("a first visit transfers %d bytes with brotli, over the %d budget", total, maxBrotli)
	}
	if tti := browser.Median(loads); tti > maxTTI {
		// Other packages' tests may be loading both cores: measure again
		// before calling it a regression.
		t.Logf("median time to interactive %v over budget; measuring again", tti)
		_, loads = firstVisit(t, 3)
		if tti := browser.Median(loads); tti > maxTTI {
			t.Errorf("median time to interactive %v, over the %v budget", tti, maxTTI)
		}
	}
	for _, want := range []string{"index.html", "sim.", "app.", "wasm_exec."} {
		found := false
		for _, p := range loads[0].Paths {
			found = found || strings.Contains(p, want)
		}
		if !found {
			t.Errorf("the first visit did not load %s*", want)
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
	builtSite(b)
	as, loads := firstVisit(b, max(b.N, 1))
	total := browser.Total(as)
	b.ReportMetric(float64(browser.Median(loads).Milliseconds()), "ms-tti")
	b.ReportMetric(float64(total.Brotli), "bytes-brotli")
	b.ReportMetric(float64(total.Raw), "bytes-raw")
	var s strings.Builder
	browser.Report(&s, as, loads)
	b.Log("\n" + s.String())
}
