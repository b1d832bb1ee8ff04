package cli

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

func cmdReplay(e *env) error {
	fs := e.flags("replay", "F.jsonl… [--native]",
		"Re-executes every record's actions through the sim.wasm module and checks its scores, probe and\n"+
			"trajectory hash. Prints what differs; exits 1 on any mismatch.")
	native := fs.Bool("native", false, "replay on the native Go core instead of sim.wasm")
	interp := fs.Bool("interpreter", false, "use wazero's interpreter")
	catalogFile := fs.String("catalog", "", "the private suite file the records were made on (normgym run/eval --catalog): replays\non its norms, on the native core")
	files, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usageError("replay needs at least one results file")
	}
	cat := norms.Default()
	var (
		private *sim.Suite
		onFile  *norms.Catalog // the file's catalog, which moves the replay to the native core
	)
	if *catalogFile != "" {
		ps, err := loadPrivateFile(*catalogFile)
		if err != nil {
			return err
		}
		cat, onFile, private = ps.Catalog, ps.Catalog, &sim.Suite{Name: ps.Name, Version: ps.Version}
		fmt.Fprint(e.stderr, catalogNote(*native))
	}
	eng, err := openEngine(e.ctx, *native, *interp, onFile)
	if err != nil {
		return err
	}
	defer eng.Close()
	bad, total, other := 0, 0, 0
	for _, file := range files {
		recs, err := readRecords(file)
		if err != nil {
			return err
		}
		for i, rec := range recs {
			total++
			if msg := otherVersion(rec, cat, private); msg != "" {
				bad++
				other++
				fmt.Fprintf(e.stdout, "%s:%d %s (%s): %s\n", file, i+1, rec.Visit, rec.Agent, msg)
				continue
			}
			got, diffs, err := eng.Replay(e.ctx, rec)
			if err != nil {
				diffs = []string{err.Error()}
			}
			diffs = explain(rec, got, diffs)
			if len(diffs) > 0 {
				bad++
				fmt.Fprintf(e.stdout, "%s:%d %s (%s): %s\n", file, i+1, rec.Visit, rec.Agent, strings.Join(diffs, "; "))
			}
		}
	}
	fmt.Fprintf(e.stdout, "%d records replayed, %d matched, %d differ (sim %s)", total-other, total-bad, bad-other, short(eng.SHA256()))
	if other > 0 {
		fmt.Fprintf(e.stdout, "; %d of another sim, catalog or suite version, not replayed", other)
	}
	fmt.Fprintln(e.stdout)
	if bad > 0 {
		return errMismatch
	}
	return nil
}

// otherVersion says why a record another sim or catalog version made
// cannot be replayed here ("" if it can): its visit plays differently;
// or why a record made for another version of its suite is not counted:
// the suite holds other visits now.
//
// cat is the catalog replayed on, private the private suite of its file
// (nil: the public catalog and suites).
func otherVersion(rec sim.Record, cat *norms.Catalog, private *sim.Suite) string {
	if v := rec.SimVersion; v != sim.Version {
		return fmt.Sprintf("made by sim version %s; this replay runs sim version %s: re-run the visit", none(v), sim.Version)
	}
	if v, now := rec.Catalog, cat.Version(); v != now {
		hint := "re-run the visit"
		if private == nil {
			hint += ", or give the private suite file it was made on with --catalog"
		}
		return fmt.Sprintf("made with norm catalog version %s; this replay runs catalog version %s: %s", none(v), now, hint)
	}
	if private != nil && rec.Suite == private.Name && rec.SuiteVersion != private.Version {
		return fmt.Sprintf("made for suite %s version %s; the --catalog file's %s is version %s (its visits differ): re-run the suite", rec.Suite, none(rec.SuiteVersion), private.Name, private.Version)
	}
	if s, err := sim.LookupSuite(rec.Suite); err == nil && rec.SuiteVersion != s.Version {
		return fmt.Sprintf("made for suite %s version %s; this build's %s is version %s (its visits differ): re-run the suite", rec.Suite, none(rec.SuiteVersion), s.Name, s.Version)
	}
	return ""
}

// explain adds the values to the diffs people most need to see: the
// hashes and the headline scores.
func explain(submitted, recomputed sim.Record, diffs []string) []string {
	out := make([]string, len(diffs))
	for i, d := range diffs {
		switch d {
		case "hash":
			d = fmt.Sprintf("hash %s, recomputed %s", short(submitted.Hash), short(recomputed.Hash))
		case "scores.task", "scores.compliance", "scores.joint":
			sv, rv := reflect.ValueOf(submitted.Scores), reflect.ValueOf(recomputed.Scores)
			for f := 0; f < sv.NumField(); f++ {
				if "scores."+strings.Split(sv.Type().Field(f).Tag.Get("json"), ",")[0] == d {
					d = fmt.Sprintf("%s %v, recomputed %v", d, sv.Field(f).Interface(), rv.Field(f).Interface())
				}
			}
		}
		out[i] = d
	}
	return out
}

// none is s, or "(none)" for "".
func none(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
