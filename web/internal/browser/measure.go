//go:build !js

package browser

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/chromedp/chromedp"
)

// BrotliLevel is the quality of the brotli column of Sizes when a file
// has no .br sibling: 9, a level CDNs use when they compress on the fly.
// The build's .br siblings (quality 11) are what the NormGym server sends.
const BrotliLevel = 9

// MaxFirstVisit is the budget of a first visit, in bytes transferred
// with brotli (issue 13): 2.0 MB for every file of the manifest, sim.wasm
// and its shim included — what a page that runs the sim loads (the static
// demo, a class's tutorial). Raised from 2,000,000 when issue 25 doubled
// the catalog (38 to 72 norms) and taught the sim to render every fact it
// scores: sim.wasm grew by about 31 kB of brotli (994,542 bytes), and the
// first visit measured 2,029,286 bytes. The site's sealed play loads no
// sim.wasm (MaxSealedFirstVisit).
const MaxFirstVisit = 2_050_000

// MaxSealedFirstVisit is the budget of the site's sealed first visit (the
// human baseline, a class's visit after its tutorial), which loads
// neither sim.wasm nor its shim: issue 13's 2.0 MB still holds, with room.
const MaxSealedFirstVisit = 2_000_000

// Asset is one file a first visit loads, with its sizes in bytes.
type Asset struct {
	Path              string
	Raw, Gzip, Brotli int
}

// Load is what one cold page load measured.
type Load struct {
	// Interactive is the time from navigation start until the app has
	// rendered its first screen with sim.wasm ready (performance mark
	// "normgym-interactive").
	Interactive time.Duration
	// Paths are the site files the page fetched, relative to the site.
	Paths []string
	// Transferred is the sum of the encoded (on the wire, compressed)
	// body sizes of the page and everything it fetched from the site,
	// from the browser's resource timing.
	Transferred int
}

// ColdLoad opens url in a fresh Chromium profile (empty cache) and waits
// until the app is interactive.
func ColdLoad(ctx context.Context, pageURL string, o Options) (Load, error) {
	dir, err := os.MkdirTemp("", "normgym-profile-")
	if err != nil {
		return Load{}, err
	}
	defer os.RemoveAll(dir)
	o.UserDataDir = dir
	bctx, cancel, err := Start(ctx, o)
	if err != nil {
		return Load{}, err
	}
	defer cancel()
	tctx, tcancel := context.WithTimeout(bctx, 30*time.Second)
	defer tcancel()
	if err := chromedp.Do(tctx, chromedp.Navigate(pageURL)); err != nil {
		return Load{}, err
	}
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`document.documentElement.dataset.ready === "1"`,
		chromedp.WithPollingInterval(5*time.Millisecond))); err != nil {
		return Load{}, fmt.Errorf("browser: the app never became interactive: %w", err)
	}
	ms, err := chromedp.Run(tctx, chromedp.Evaluate[float64](`performance.getEntriesByName("normgym-interactive")[0].startTime`))
	if err != nil {
		return Load{}, err
	}
	names, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`[location.href].concat(performance.getEntriesByType("resource").map(e => e.name))`))
	if err != nil {
		return Load{}, err
	}
	sent, err := chromedp.Run(tctx, chromedp.Evaluate[float64](`performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"))
		.filter(e => new URL(e.name).host === location.host).reduce((n, e) => n + (e.encodedBodySize || 0), 0)`))
	if err != nil {
		return Load{}, err
	}
	base, _ := url.Parse(pageURL)
	var paths []string
	for _, n := range names {
		u, err := url.Parse(n)
		if err != nil || u.Host != base.Host {
			continue
		}
		p := strings.TrimPrefix(u.Path, "/")
		if p == "" {
			p = "index.html"
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return Load{Interactive: time.Duration(ms * float64(time.Millisecond)), Paths: paths, Transferred: int(sent)}, nil
}

// Sizes measures the files under dir: raw, gzip (level 9) and brotli
// (BrotliLevel) sizes.
func Sizes(dir string, paths []string) ([]Asset, error) {
	var out []Asset
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if errors.Is(err, fs.ErrNotExist) && strings.HasPrefix(p, "api/") {
			continue // the site-mode probe (/api/consent): a 404 on a static host
		}
		if err != nil {
			return nil, err
		}
		a := Asset{Path: p, Raw: len(b)}
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, 9)
		zw.Write(b)
		zw.Close()
		a.Gzip = gz.Len()
		if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)) + ".br"); err == nil {
			a.Brotli = int(fi.Size())
		} else {
			var br bytes.Buffer
			bw := brotli.NewWriterLevel(&br, BrotliLevel)
			bw.Write(b)
			bw.Close()
			a.Brotli = br.Len()
		}
		out = append(out, a)
	}
	return out, nil
}

// Total sums sizes.
func Total(as []Asset) Asset {
	t := Asset{Path: "total"}
	for _, a := range as {
		t.Raw += a.Raw
		t.Gzip += a.Gzip
		t.Brotli += a.Brotli
	}
	return t
}

// Report writes the figures as a table.
func Report(w io.Writer, as []Asset, loads []Load) {
	fmt.Fprintf(w, "%-44s %10s %10s %10s\n", "file (first visit)", "raw", "gzip-9", "brotli")
	for _, a := range append(as, Total(as)) {
		fmt.Fprintf(w, "%-44s %10d %10d %10d\n", a.Path, a.Raw, a.Gzip, a.Brotli)
	}
	if len(loads) == 0 {
		return
	}
	ds := make([]time.Duration, len(loads))
	for i, l := range loads {
		ds[i] = l.Interactive
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	fmt.Fprintf(w, "transferred by Chromium on a first visit (brotli, encoded body sizes): %d bytes\n", loads[0].Transferred)
	fmt.Fprintf(w, "time to interactive, cold, localhost, %d loads: min %v, median %v, max %v\n",
		len(ds), ds[0].Round(time.Millisecond), ds[len(ds)/2].Round(time.Millisecond), ds[len(ds)-1].Round(time.Millisecond))
}

// Median returns the median time to interactive.
func Median(loads []Load) time.Duration {
	ds := make([]time.Duration, len(loads))
	for i, l := range loads {
		ds[i] = l.Interactive
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}
