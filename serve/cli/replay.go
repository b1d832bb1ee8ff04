package cli

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/normgym/normgym/sim"
)

func cmdReplay(e *env) error {
	fs := e.flags("replay", "F.jsonl… [--native]",
		"Re-executes every record's actions through the sim.wasm module and checks its scores, probe and\n"+
			"trajectory hash. Prints what differs; exits 1 on any mismatch.")
	native := fs.Bool("native", false, "replay on the native Go core instead of sim.wasm")
	interp := fs.Bool("interpreter", false, "use wazero's interpreter")
	files, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usageError("replay needs at least one results file")
	}
	eng, err := openEngine(e.ctx, *native, *interp)
	if err != nil {
		return err
	}
	defer eng.Close()
	bad, total := 0, 0
	for _, file := range files {
		recs, err := readRecords(file)
		if err != nil {
			return err
		}
		for i, rec := range recs {
			total++
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
	fmt.Fprintf(e.stdout, "%d records replayed, %d matched, %d differ (sim %s)\n", total, total-bad, bad, short(eng.SHA256()))
	if bad > 0 {
		return errMismatch
	}
	return nil
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
