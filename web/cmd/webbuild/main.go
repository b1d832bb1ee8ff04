//go:build !js

// Command webbuild builds NormGym's static web app (see web/internal/site)
// into a directory, build/web by default:
//
//	go run ./web/cmd/webbuild [-out build/web]
//
// It needs sim.wasm (make wasm) and browser_wasi_shim (npm ci in web/);
// `make web` runs both first.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/normgym/normgym/wasm/simwasm"
	"github.com/normgym/normgym/web/internal/site"
)

func main() {
	out := flag.String("out", "build/web", "output directory (replaced)")
	flag.Parse()
	root, err := site.FindRoot(".")
	if err == nil {
		err = simwasm.Err()
	}
	if err == nil {
		_, err = site.Build(context.Background(), site.Options{Out: *out, Root: root, Sim: simwasm.Bytes(), Log: os.Stderr})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
