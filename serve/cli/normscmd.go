package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim/validity"
)

// normsSubcommand runs the subcommands of "norms" (handled reports whether
// args named one).
func normsSubcommand(e *env) (handled bool, err error) {
	if len(e.args) == 0 {
		return false, nil
	}
	sub := *e
	sub.args = e.args[1:]
	switch e.args[0] {
	case "check":
		return true, cmdNormsCheck(&sub)
	case "generate":
		return true, cmdNormsGenerate(&sub)
	}
	return false, nil
}

const checkAbout = `Checks norm files against the validity floors of sim/DESIGN.md. Each FILE is a
catalog family file (norms/catalog/README.md) or a catalog file with "families"
(what "norms generate" writes, and the format of serve --private-catalog). Unless
--alone, the files are checked as part of the public catalog: the standard suite
is built from the public norms and the files' norms together; a FILE named like a
public catalog file stands for it (norms/catalog/92-beside.json checks that file
in place).

For each norm of the files, over its 16 visits of that standard suite: greedy's
chance compliance (≤ 0.25), greedy's practice-day own sanction (≥ 0.60), the
oracle's joint success (every visit), and the best ritual's gain over greedy on
it (it counts toward the suite's). Then each family's practice-day own sanction
(≥ 0.60), the suite's (≥ 0.80), every ritual's gain over greedy over the whole
suite (≤ 0.05) and every play-free probe heuristic (within chance's 95%
interval). --norms-only skips the whole-suite play (faster; the probe heuristics
still run). Exits 1 when a figure misses its floor.`

func cmdNormsCheck(e *env) error {
	fs := e.flags("norms check", "[--alone] [--norms-only] [--workers N] [--json] FILE...", checkAbout)
	alone := fs.Bool("alone", false, "check the files as a catalog of their own, without the public norms")
	normsOnly := fs.Bool("norms-only", false, "measure the files' norms only, not the whole suite's floors")
	workers := fs.Int("workers", 0, "goroutines playing visits (0: one a CPU)")
	asJSON := fs.Bool("json", false, "print the figures as JSON")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError("norms check needs at least one FILE")
	}
	files := map[string][]byte{}
	if !*alone {
		if files, err = defaultCatalogFiles(); err != nil {
			return err
		}
	}
	var mine []string
	for i, p := range pos {
		fams, err := readNormFile(p)
		if err != nil {
			return err
		}
		for k := range files {
			// A file named like a public one (the catalog's own, being
			// checked in place) stands for it.
			if !strings.HasPrefix(k, "~") && filepath.Base(k) == filepath.Base(p) {
				delete(files, k)
			}
		}
		for j, fam := range fams {
			// After the public files, in the order given.
			files[fmt.Sprintf("~%03d-%03d-%s", i, j, filepath.Base(p))] = fam
		}
		c, err := norms.LoadFiles(familyFiles(fams))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, n := range c.Norms() {
			mine = append(mine, n.ID)
		}
	}
	cat, err := norms.LoadFiles(files)
	if err != nil {
		return err
	}
	res, err := checkCatalog(cat, mine, *normsOnly, *workers)
	if err != nil {
		return err
	}
	if *asJSON {
		if err := writeJSON(e.stdout, res); err != nil {
			return err
		}
	} else {
		printCheck(e.stdout, res, mine)
	}
	if !res.OK() {
		return errMismatch
	}
	return nil
}

// checkCatalog measures cat's floors: the norms ids only (with the probe
// heuristics) or, unless normsOnly, the whole suite's.
func checkCatalog(cat *norms.Catalog, ids []string, normsOnly bool, workers int) (validity.SuiteResult, error) {
	if !normsOnly {
		return validity.CheckSuite(cat, workers)
	}
	res, err := validity.CheckNorms(cat, ids, workers)
	if err != nil {
		return validity.SuiteResult{}, err
	}
	probe, err := validity.ProbeFairness(cat)
	if err != nil {
		return validity.SuiteResult{}, err
	}
	return validity.SuiteResult{Catalog: cat.Version(), Norms: res, Suite: probe}, nil
}

// defaultCatalogFiles returns the public catalog's files by name.
func defaultCatalogFiles() (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(norms.DefaultFiles(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".json" {
			return err
		}
		files[p], err = fs.ReadFile(norms.DefaultFiles(), p)
		return err
	})
	return files, err
}

// familyFiles names family files by their index.
func familyFiles(fams [][]byte) map[string][]byte {
	m := map[string][]byte{}
	for i, f := range fams {
		m[fmt.Sprintf("%03d.json", i)] = f
	}
	return m
}

// readNormFile reads a family file, or a catalog file holding "families",
// and returns its families' contents.
func readNormFile(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var probe struct {
		Families []json.RawMessage `json:"families"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if probe.Families == nil {
		return [][]byte{data}, nil
	}
	out := make([][]byte, len(probe.Families))
	for i, f := range probe.Families {
		out[i] = bytes.Clone(f)
	}
	return out, nil
}

// printCheck prints the figures of the norms ids (each with a verdict),
// their families' and the suite's.
func printCheck(w io.Writer, res validity.SuiteResult, ids []string) {
	want := map[string]bool{}
	fams := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	bad := 0
	for _, n := range res.Norms {
		if !want[n.Norm.ID] {
			continue
		}
		fams[n.Norm.Family] = true
		fmt.Fprintf(w, "%s (%s, %s): %q\n", n.Norm.ID, n.Norm.Family, n.Norm.Tag, n.Norm.Statement)
		printFigures(w, n.Figures)
		verdict := "valid"
		if !n.OK() {
			verdict, bad = "INVALID", bad+1
		}
		fmt.Fprintf(w, "  verdict: %s\n\n", verdict)
	}
	for _, f := range res.Families {
		if fams[f.Family] {
			fmt.Fprintf(w, "family %s:\n", f.Family)
			printFigures(w, []validity.Figure{f.Figure})
		}
	}
	if len(res.Suite) > 0 {
		fmt.Fprintf(w, "the suite (catalog %s):\n", res.Catalog)
		printFigures(w, res.Suite)
	}
	verdict := "all valid"
	if !res.OK() {
		verdict = fmt.Sprintf("%d of %d norms invalid; suite floors %s", bad, len(ids), okWord(suiteOK(res)))
	}
	fmt.Fprintf(w, "\n%d norms checked: %s\n", len(ids), verdict)
}

func printFigures(w io.Writer, figs []validity.Figure) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range figs {
		fmt.Fprintf(tw, "  %s\t%s\twant %s\t%s\n", f.Name, f.Detail, f.Want, okWord(f.OK))
	}
	tw.Flush()
}

func suiteOK(res validity.SuiteResult) bool {
	for _, f := range res.Families {
		if !f.Figure.OK {
			return false
		}
	}
	for _, f := range res.Suite {
		if !f.OK {
			return false
		}
	}
	return true
}

func okWord(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}
