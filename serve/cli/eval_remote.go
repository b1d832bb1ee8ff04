package cli

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strconv"

	"github.com/normgym/normgym/serve/harness"
	"github.com/normgym/normgym/serve/remote"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
)

// playRemote runs eval --server: the model plays through the server's
// OpenEnv WebSocket sessions (serve/remote), which step the sim; the
// harness sends the model only what the server renders and keeps the
// records and transcripts. With a submitter key every visit is the key's
// next sealed visit of the suite, which the server assigns and stores.
func (f *evalFlags) playRemote(e *env, fs *flag.FlagSet) error {
	key := ""
	if *f.serverKeyEnv != "" {
		if key = os.Getenv(*f.serverKeyEnv); key == "" {
			return usageError("$%s is empty or unset: it must hold the submitter key (normgym submitter-key LABEL prints one)", *f.serverKeyEnv)
		}
		if *f.sel.file != "" || *f.sel.filter != "" {
			return usageError("the server assigns a key's sealed visits: --visits and --filter do not apply (--sample N or --limit N say how many)")
		}
		if given(fs, "parallel") && *f.parallel != 1 {
			return usageError("a key holds one open sealed session of a suite at a time: --server with --key-env plays with --parallel 1")
		}
		*f.parallel = 1
	}
	var run *evalRun
	var err error
	if key != "" {
		run, err = f.planSealed(e)
	} else {
		run, err = f.plan(e)
	}
	if err != nil {
		return err
	}
	if err := run.check(""); err != nil {
		return err
	}
	client, err := run.client(e)
	if err != nil {
		return err
	}
	defer client.CloseIdle()
	hc := &http.Client{}
	defer hc.CloseIdleConnections()
	agent := ""
	if key == "" {
		agent = *f.model // a practice session's record names the model
	}
	h := &harness.Harness{Chat: client.Chat, Endpoint: client.Host(), Model: *f.model, Settings: run.settings, Suite: run.suite,
		NewEnv: func() sim.Env {
			return remote.WS(*f.server, remote.Options{Key: key, Agent: agent, Suite: run.suite.Name, Client: hc})
		}}
	if len(run.todo) > 0 {
		err := run.runVisits(e, h)
		var ref *remote.Refusal
		if key != "" && errors.As(err, &ref) && ref.Status == http.StatusConflict {
			// The key has played every visit of the suite there is for it.
			fmt.Fprintf(e.stderr, "normgym: %s says: %s\n", *f.server, ref.Message)
			err = nil
		}
		if err != nil {
			return err
		}
	}
	simSHA := "(server)"
	if len(run.recs) > 0 {
		simSHA = run.recs[0].SimSHA256
	}
	return run.summary(e, client.Host(), simSHA)
}

// planSealed is plan for a key's sealed visits: the selection says how
// many (its visits are the server's to assign), and the records of the
// suite already in --out count as done.
func (f *evalFlags) planSealed(e *env) (*evalRun, error) {
	variant, err := prompt.ParseVariant(*f.variant)
	if err != nil {
		return nil, usageError("%v", err)
	}
	suite, visits, err := f.sel.resolve()
	if _, lerr := sim.LookupSuite(*f.sel.suite); lerr != nil && *f.sel.file == "" && *f.sel.filter == "" {
		// A suite only the server holds (its private one): as many
		// visits as --limit or --sample say, or until the server says
		// the key has played them all.
		n := max(*f.sel.limit, *f.sel.sample)
		if n == 0 {
			n = maxServerVisits
		}
		suite, visits, err = sim.Suite{Name: *f.sel.suite}, make([]string, n), nil
	}
	if err != nil {
		return nil, err
	}
	var temp *float64
	if *f.temperature >= 0 {
		temp = f.temperature
	}
	if *f.out == "" {
		*f.out = defaultEvalOut(*f.model)
	}
	r := &evalRun{f: f, suite: suite, visits: visits, sealed: true, settings: harness.Settings{Variant: variant,
		Options: prompt.Options{Budget: *f.budget, FullReplies: *f.fullReplies}, Temperature: temp, MaxTokens: *f.maxTokens}}
	have, err := harness.LoadResults(*f.out, e.stderr, true)
	if err != nil {
		return nil, err
	}
	for _, rec := range have {
		x, ok := prompt.ReadExtra(rec.Extra)
		if rec.Client == "model" && rec.Suite == suite.Name && ok && x.Model == *f.model && len(r.recs) < len(visits) {
			r.recs = append(r.recs, rec)
		}
	}
	r.prior = len(r.recs)
	r.todo = make([]string, len(visits)-r.prior) // "": the server assigns each
	return r, nil
}

// maxServerVisits bounds the sealed visits of a suite only the server
// holds when the command line says no number: the server stops the run
// before, once the key has played them all.
const maxServerVisits = 1 << 16

// count writes a number of visits, or "all" for the open-ended run of a
// suite only the server holds.
func (r *evalRun) count(n int) string {
	if r.sealed && len(r.visits) == maxServerVisits && n >= maxServerVisits-r.prior {
		return "all"
	}
	return strconv.Itoa(n)
}

// given reports whether the flag called name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
