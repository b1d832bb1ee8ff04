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
			got, err := eng.Replay(e.ctx, rec)
			var diffs []string
			if err != nil {
				diffs = []string{err.Error()}
			} else {
				diffs = Diff(rec, got)
			}
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

// Diff lists how a submitted record differs from the recomputed one: the
// hash, each score field, the probe, the action count.
func Diff(submitted, recomputed sim.Record) []string {
	var d []string
	if submitted.Hash != recomputed.Hash {
		d = append(d, fmt.Sprintf("hash %s, recomputed %s", short(submitted.Hash), short(recomputed.Hash)))
	}
	sv, rv := reflect.ValueOf(submitted.Scores), reflect.ValueOf(recomputed.Scores)
	for i := 0; i < sv.NumField(); i++ {
		a, b := sv.Field(i).Interface(), rv.Field(i).Interface()
		if !reflect.DeepEqual(a, b) {
			tag := strings.Split(sv.Type().Field(i).Tag.Get("json"), ",")[0]
			d = append(d, fmt.Sprintf("scores.%s %v, recomputed %v", tag, a, b))
		}
	}
	switch {
	case (submitted.Probe == nil) != (recomputed.Probe == nil):
		d = append(d, "probe present in only one")
	case submitted.Probe != nil && submitted.Probe.Correct != recomputed.Probe.Correct:
		d = append(d, fmt.Sprintf("probe.correct %v, recomputed %v", submitted.Probe.Correct, recomputed.Probe.Correct))
	}
	if !reflect.DeepEqual(submitted.Events, recomputed.Events) && len(submitted.Events) > 0 {
		d = append(d, "events differ")
	}
	return d
}
