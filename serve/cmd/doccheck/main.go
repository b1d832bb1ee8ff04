// Command doccheck keeps the documents honest:
//
//	doccheck links            every relative link and every *.md named in a document exists
//	doccheck figures FILE     every figure a document takes from `make bench` is within 2× of FILE's
//	doccheck write FILE       rewrite every such figure with FILE's median, to the document's precision
//
// A document marks a figure it copies from the benchmarks with a comment
// right after the number:
//
//	the observer runs 2.9× <!-- bench: BenchmarkRatio/observer wasm/native --> slower
//
// naming the benchmark (without the -GOMAXPROCS suffix) and the metric's
// unit. `make bench` writes its raw output to build/bench.txt and runs
// `doccheck figures build/bench.txt`, which fails when the document's number and
// the median of the benchmark's samples differ by more than a factor of 2,
// or when a marked benchmark is missing from the output. After a change
// that moves the figures, `make bench-docs` (`doccheck write build/bench.txt`)
// copies the medians into the documents; read the prose around them
// before committing.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: doccheck links | doccheck figures BENCH_OUTPUT | doccheck write BENCH_OUTPUT")
		os.Exit(2)
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "doccheck:", err)
		os.Exit(1)
	}
	var problems []string
	switch os.Args[1] {
	case "links":
		problems, err = checkLinks(root)
	case "figures":
		if len(os.Args) != 3 {
			fmt.Fprintln(os.Stderr, "usage: doccheck figures BENCH_OUTPUT")
			os.Exit(2)
		}
		var b []byte
		if b, err = os.ReadFile(os.Args[2]); err == nil {
			problems, err = checkFigures(root, string(b))
		}
	case "write":
		if len(os.Args) != 3 {
			fmt.Fprintln(os.Stderr, "usage: doccheck write BENCH_OUTPUT")
			os.Exit(2)
		}
		var b []byte
		var changed []string
		if b, err = os.ReadFile(os.Args[2]); err == nil {
			changed, problems, err = writeFigures(root, string(b))
		}
		for _, c := range changed {
			fmt.Println(c)
		}
		if err == nil {
			fmt.Printf("doccheck: %d figures rewritten from %s\n", len(changed), os.Args[2])
		}
	default:
		fmt.Fprintf(os.Stderr, "doccheck: unknown command %q (want links, figures or write)\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "doccheck:", err)
		os.Exit(1)
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
}
