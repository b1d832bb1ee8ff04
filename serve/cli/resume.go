package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
)

// runSettings are what every record of one eval results file shares: a
// resumed run must match them.
type runSettings struct {
	variant     prompt.Variant
	opt         prompt.Options
	temperature *float64
	maxTokens   int
}

// check refuses to resume from recs (this model's records in file) unless
// each was made under these settings and by the sim this run uses
// (simSHA; "" skips the module check, as --dry-run does).
func (s runSettings) check(recs []sim.Record, simSHA, file string) error {
	for _, r := range recs {
		var diffs []string
		differ := func(what, had, now string) {
			if had != now {
				diffs = append(diffs, fmt.Sprintf("%s %s (this run: %s)", what, had, now))
			}
		}
		x, ok := readExtra(r)
		if !ok {
			diffs = append(diffs, "no eval settings recorded (extra.prompt)")
		} else {
			differ("prompt", x.Prompt, string(s.variant))
			differ("prompt version", orNone(x.PromptVersion), prompt.PromptVersion)
			differ("temperature", temperatureText(x.Sampling.Temperature), temperatureText(s.temperature))
			differ("max_tokens", strconv.Itoa(x.Sampling.MaxTokens), strconv.Itoa(s.maxTokens))
			differ("context budget", strconv.Itoa(x.History.BudgetChars), strconv.Itoa(s.opt.Budget))
			differ("full replies", strconv.FormatBool(x.History.FullReplies), strconv.FormatBool(s.opt.FullReplies))
		}
		differ("sim version", orNone(r.SimVersion), sim.Version)
		differ("catalog version", orNone(r.Catalog), norms.Default().Version())
		if s, err := sim.LookupSuite(r.Suite); err == nil {
			differ("suite version", orNone(r.SuiteVersion), s.Version)
		}
		if simSHA != "" {
			differ("sim_sha256", short(orNone(r.SimSHA256)), short(simSHA))
		}
		if len(diffs) > 0 {
			return usageError("%s already holds visit %s of %s made under other settings: %s. "+
				"One results file holds one run: use another --out for this run, or re-run with the earlier settings to resume it",
				file, r.Visit, r.Agent, strings.Join(diffs, ", "))
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func temperatureText(t *float64) string {
	if t == nil {
		return "the endpoint's default"
	}
	return strconv.FormatFloat(*t, 'g', -1, 64)
}

// loadResults reads the records in an --out file that may have been cut
// short by a killed run. A last line that is not a whole record is
// dropped (with a note on stderr) and, if rewriteTorn, the file rewritten
// without it; a bad line elsewhere is an error. A missing file holds no
// records.
func loadResults(path string, e *env, rewriteTorn bool) ([]sim.Record, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(b), "\n")
	var (
		recs    []sim.Record
		keep    []string
		rewrite bool
	)
	for i, line := range lines {
		text := strings.TrimSpace(line)
		if text == "" {
			continue
		}
		rec, err := decodeRecord([]byte(text))
		if err != nil {
			if !strings.HasSuffix(line, "\n") { // only the last line can lack one
				fmt.Fprintf(e.stderr, "normgym: %s:%d: dropping an unfinished last line (from an interrupted run)\n", path, i+1)
				rewrite = true
				continue
			}
			return nil, fmt.Errorf("%s:%d: not a NormGym record: %v (fix the file or use another --out)", path, i+1, err)
		}
		if !strings.HasSuffix(line, "\n") {
			rewrite = true
		}
		recs = append(recs, rec)
		keep = append(keep, text+"\n")
	}
	if rewrite && rewriteTorn {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(strings.Join(keep, "")), 0o644); err != nil {
			return nil, err
		}
		if err := os.Rename(tmp, path); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// decodeRecord reads one record strictly, as readRecords does.
func decodeRecord(b []byte) (sim.Record, error) {
	var rec sim.Record
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return rec, err
	}
	if dec.More() {
		return rec, errors.New("more than one JSON value on the line")
	}
	if rec.Visit == "" || rec.Agent == "" {
		return rec, errors.New("record lacks a visit or agent")
	}
	return rec, nil
}
