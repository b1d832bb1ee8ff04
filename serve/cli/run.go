package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/normgym/normgym/serve/internal/workers"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/report"
)

func cmdRun(e *env) error {
	fs := e.flags("run", "--suite S --agent A [flags]",
		"Runs baseline newcomers over a suite through the sim.wasm module (or the native core with --native),\n"+
			"writes one JSON record per visit (--out, by default out/results.jsonl) and prints a summary table.\n"+
			"Agents: "+strings.Join(agents.Names(), ", ")+", or all (comma lists work too).")
	sel := addVisitFlags(fs, "mini", "run")
	agentList := fs.String("agent", "all", "baseline(s) to run")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "visits run at once")
	out := fs.String("out", defaultRunOut, "write records to this JSON Lines file, creating its folder (\"\": none)")
	asJSON := fs.Bool("json", false, "print the summary as JSON (one object per agent; one object when one agent)")
	native := fs.Bool("native", false, "run the native Go core instead of sim.wasm")
	interp := fs.Bool("interpreter", false, "use wazero's interpreter instead of its compiler")
	submit := fs.String("submit", "", "no longer taken: a NormGym server computes its baseline rows itself (normgym serve --baselines) and refuses submitted ones")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usageError("run takes no arguments, got %q (use --suite and --agent)", pos[0])
	case *parallel < 1:
		return usageError("--parallel must be at least 1")
	case *submit != "":
		return usageError("--submit: a NormGym server computes its baselines itself (normgym serve --baselines) and refuses submitted baseline runs; models are submitted with normgym eval --submit, or played through a session with a submitter key")
	}
	suite, visits, err := sel.resolve()
	if err != nil {
		return err
	}
	names, err := agentNames(*agentList)
	if err != nil {
		return err
	}
	if sel.catalog != nil {
		fmt.Fprint(e.stderr, catalogNote(*native))
	}
	eng, err := openEngine(e.ctx, *native, *interp, sel.catalog)
	if err != nil {
		return err
	}
	defer eng.Close()
	recs, err := runBaselines(e, eng, suite, visits, names, *parallel, *out)
	if err != nil {
		return err
	}
	sums := report.Summarize(recs)
	if *asJSON {
		if len(sums) == 1 {
			return writeJSON(e.stdout, sums[0])
		}
		return writeJSON(e.stdout, sums)
	}
	fmt.Fprintf(e.stdout, "suite %s@%s · %s · sim %s\n\n", suite.Name, suite.Version, sel.describe(suite, visits), short(eng.SHA256()))
	return report.Table(e.stdout, sums)
}

// runBaselines plays every visit with every baseline of names on parallel
// workers and returns the records, written to out ("": nowhere) in order
// as they finish.
func runBaselines(e *env, eng engine, suite sim.Suite, visits, names []string, parallel int, out string) ([]sim.Record, error) {
	sink, closeOut, err := recordSink(out)
	if err != nil {
		return nil, err
	}
	type job struct{ visit, agent string }
	var jobs []job
	for _, a := range names {
		for _, v := range visits {
			jobs = append(jobs, job{v, a})
		}
	}
	recs := make([]sim.Record, len(jobs))
	done := make([]bool, len(jobs))
	prog := newProgress(e.stderr, len(jobs))
	var (
		mu   sync.Mutex
		next int // next record to write, in order
	)
	firstErr := workers.ForEach(e.ctx, len(jobs), parallel, func(ctx context.Context, i int) error {
		j := jobs[i]
		r, err := eng.RunBaseline(ctx, j.visit, j.agent)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%s with %s: %w", j.visit, j.agent, err)
		}
		r.Suite, r.SuiteVersion = suite.Name, suite.Version
		mu.Lock()
		defer mu.Unlock()
		recs[i], done[i] = r, true
		for next < len(jobs) && done[next] {
			if sink != nil {
				if err := writeRecord(sink, recs[next]); err != nil {
					return err
				}
			}
			next++
		}
		prog.add(r.Scores.Joint)
		return nil
	})
	prog.finish()
	if err := closeOut(); err != nil && firstErr == nil {
		firstErr = err
	}
	if err := e.ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted after %d of %d visits (the records written are complete; run again to redo the rest): %w", next, len(jobs), err)
	}
	return recs, firstErr
}

// recordSink opens out for records, buffered ("": none, nil), with the
// function that flushes and closes it.
func recordSink(out string) (io.Writer, func() error, error) {
	if out == "" {
		return nil, func() error { return nil }, nil
	}
	f, err := createOut(out)
	if err != nil {
		return nil, nil, err
	}
	bw := bufio.NewWriter(f)
	return bw, func() error {
		if err := bw.Flush(); err != nil {
			f.Close()
			return fmt.Errorf("writing %s: %w", out, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", out, err)
		}
		return nil
	}, nil
}

// short is the first 12 hex digits of a hash.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// agentNames expands "all" and comma lists, checking each name.
func agentNames(list string) ([]string, error) {
	if list == "all" {
		return agents.Names(), nil
	}
	var out []string
	for _, a := range strings.Split(list, ",") {
		a = strings.TrimSpace(a)
		ok := false
		for _, k := range agents.Names() {
			ok = ok || k == a
		}
		if !ok {
			return nil, usageError("unknown agent %q (want one of %s, or all)", a, strings.Join(agents.Names(), ", "))
		}
		out = append(out, a)
	}
	return out, nil
}

func writeRecord(w io.Writer, r sim.Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// progress draws a progress bar with ETA and running joint success on a
// terminal, and nothing otherwise.
type progress struct {
	w            io.Writer
	on           bool
	total, n, ok int
	start, last  time.Time
	// noJoint leaves out the running joint success (for work that scores
	// nothing, as eval --dry-run's replays).
	noJoint bool
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, on: isTerminal(w), total: total, start: time.Now()}
}

func (p *progress) add(joint bool) {
	p.n++
	if joint {
		p.ok++
	}
	if !p.on || (time.Since(p.last) < 100*time.Millisecond && p.n < p.total) {
		return
	}
	p.last = time.Now()
	const width = 30
	fill := width * p.n / p.total
	el := time.Since(p.start)
	eta := time.Duration(float64(el) / float64(p.n) * float64(p.total-p.n)).Round(time.Second)
	score := fmt.Sprintf("  joint %.2f", float64(p.ok)/float64(p.n))
	if p.noJoint {
		score = ""
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d%s  ETA %s   ", strings.Repeat("#", fill), strings.Repeat(".", width-fill),
		p.n, p.total, score, eta)
}

func (p *progress) finish() {
	if p.on && p.n > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 80))
	}
}

// isTerminal reports whether w is a character device.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
