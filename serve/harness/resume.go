package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/remote"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
)

// Settings are what every record of one results file shares: a resumed
// run must match them.
type Settings struct {
	Variant     prompt.Variant
	Options     prompt.Options
	Temperature *float64
	MaxTokens   int
	// Catalog holds the norms of the visits (nil: the public catalog);
	// a dry run plays its baselines on it. Records name its version.
	Catalog *norms.Catalog
}

// Prompt is how prompt.Run plays under s, for model at endpoint.
func (s Settings) Prompt(model, endpoint string) prompt.Settings {
	return prompt.Settings{Variant: s.Variant, Options: s.Options, Model: model, Endpoint: endpoint,
		Temperature: s.Temperature, MaxTokens: s.MaxTokens}
}

// ErrOtherSettings is wrapped by Check's error for a results file made
// under other settings.
var ErrOtherSettings = errors.New("harness: the results file holds another run")

// Check refuses to resume from recs (this model's records in file) unless
// each was made under these settings and by the sim this run uses
// (simSHA; "" skips the module check, as a dry run does).
func (s Settings) Check(recs []sim.Record, simSHA, file string) error {
	for _, r := range recs {
		var diffs []string
		differ := func(what, had, now string) {
			if had != now {
				diffs = append(diffs, fmt.Sprintf("%s %s (this run: %s)", what, had, now))
			}
		}
		x, ok := prompt.ReadExtra(r.Extra)
		if !ok {
			diffs = append(diffs, "no eval settings recorded (extra.prompt)")
		} else {
			differ("prompt", x.Prompt, string(s.Variant))
			differ("prompt version", orNone(x.PromptVersion), prompt.PromptVersion)
			differ("temperature", temperatureText(x.Sampling.Temperature), temperatureText(s.Temperature))
			differ("max_tokens", strconv.Itoa(x.Sampling.MaxTokens), strconv.Itoa(s.MaxTokens))
			differ("context budget", strconv.Itoa(x.History.BudgetChars), strconv.Itoa(s.Options.Budget))
			differ("full replies", strconv.FormatBool(x.History.FullReplies), strconv.FormatBool(s.Options.FullReplies))
		}
		if strings.HasPrefix(r.Visit, remote.PrivatePrefix) {
			// A private suite's record, which the server keeps: what it
			// shows says nothing of the sim or catalog that ran it.
			simSHA = ""
		} else {
			differ("sim version", orNone(r.SimVersion), sim.Version)
			differ("catalog version", orNone(r.Catalog), norms.Default().Version())
			if su, err := sim.LookupSuite(r.Suite); err == nil {
				differ("suite version", orNone(r.SuiteVersion), su.Version)
			}
		}
		if simSHA != "" {
			differ("sim_sha256", Short(orNone(r.SimSHA256)), Short(simSHA))
		}
		if len(diffs) > 0 {
			return fmt.Errorf("%w: %s already holds visit %s of %s made under other settings: %s. "+
				"One results file holds one run: use another --out for this run, or re-run with the earlier settings to resume it",
				ErrOtherSettings, file, r.Visit, r.Agent, strings.Join(diffs, ", "))
		}
	}
	return nil
}

// Short is the first 12 hex digits of a SHA-256, or s as it is.
func Short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
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

// LoadResults reads the records in a results file that may have been cut
// short by a killed run. A last line that is not a whole record is
// dropped (with a note on warn) and, if rewriteTorn, the file rewritten
// without it; a bad line elsewhere is an error. A missing file holds no
// records.
func LoadResults(path string, warn io.Writer, rewriteTorn bool) ([]sim.Record, error) {
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
		rec, err := DecodeRecord([]byte(text))
		if err != nil {
			if !strings.HasSuffix(line, "\n") { // only the last line can lack one
				fmt.Fprintf(warn, "normgym: %s:%d: dropping an unfinished last line (from an interrupted run)\n", path, i+1)
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

// DecodeRecord reads one record strictly: no unknown field, one JSON
// value, a visit and an agent.
func DecodeRecord(b []byte) (sim.Record, error) {
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
