//go:build !js

// Command webbench prints the web app's first-visit figures: the size of
// every file a first visit loads (raw, gzip, brotli) and the time to
// interactive of cold loads in headless Chromium on localhost.
//
//	make web && go run ./web/cmd/webbench [-dir build/web] [-runs 5]
//
// Budgets (issue 4): brotli total ≤ 2.5 MB, median time to interactive
// ≤ 2 s. It exits 1 when either is exceeded.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/normgym/normgym/web/internal/browser"
)

func main() {
	dir := flag.String("dir", "build/web", "the built site")
	runs := flag.Int("runs", 5, "cold loads")
	flag.Parse()
	if err := run(*dir, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "webbench:", err)
		os.Exit(1)
	}
}

func run(dir string, runs int) error {
	if _, err := os.Stat(dir + "/index.html"); err != nil {
		return fmt.Errorf("no site in %s: run make web", dir)
	}
	srv := browser.Serve(dir)
	defer srv.Close()
	var loads []browser.Load
	for i := 0; i < runs; i++ {
		l, err := browser.ColdLoad(context.Background(), srv.URL+"/", browser.Options{})
		if err != nil {
			return err
		}
		loads = append(loads, l)
	}
	as, err := browser.Sizes(dir, loads[0].Paths)
	if err != nil {
		return err
	}
	browser.Report(os.Stdout, as, loads)
	total, tti := browser.Total(as).Brotli, browser.Median(loads)
	fmt.Printf("budgets: brotli %.2f MB of 2.50 MB, median time to interactive %v of 2s\n", float64(total)/1e6, tti.Round(time.Millisecond))
	if total > 2_500_000 || tti > 2*time.Second {
		return fmt.Errorf("over budget")
	}
	return nil
}
