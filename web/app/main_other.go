//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "app: this is the browser UI; build it with GOOS=js GOARCH=wasm (make web)")
	os.Exit(2)
}
