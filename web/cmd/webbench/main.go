//go:build !js

// Command webbench prints the web app's first-visit figures: the size of
// every file a first visit loads (raw, gzip, and the build's brotli
// sibling), the bytes Chromium transferred loading it from a host that
// sends the .br files, and the time to interactive of cold loads in
// headless Chromium on localhost.
//
//	make web && go run ./web/cmd/webbench [-dir build/web] [-runs 5]
//
// Budget (issue 13): a first visit transfers at most 2.0 MB with brotli;
// it exits 1 above that. Time to interactive is printed, not judged: on a
// shared 2-core machine it varies with the load (the tests check sizes
// only, which are deterministic).
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
	fmt.Printf("budget: brotli %d bytes (%.3f MB) of %.1f MB; transferred %d bytes; median time to interactive %v (reported, not judged)\n",
		total, float64(total)/1e6, float64(browser.MaxFirstVisit)/1e6, loads[0].Transferred, tti.Round(time.Millisecond))
	if total > browser.MaxFirstVisit || loads[0].Transferred > browser.MaxFirstVisit {
		return fmt.Errorf("over budget")
	}
	return nil
}
