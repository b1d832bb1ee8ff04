package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/simwasm"
)

// The native verifier must answer exactly as sim.wasm's replay export:
// same recomputed record, same diffs, same refusals.
func TestNativeMatchesWasm(t *testing.T) {
	ctx := context.Background()
	w, n := server.Wasm(rt), server.Native(simwasm.SHA256())
	base := record(t, normVisit, "observer", "model")
	edits := map[string]func(*sim.Record){
		"valid":      func(*sim.Record) {},
		"joint":      func(r *sim.Record) { r.Scores.Joint = !r.Scores.Joint },
		"hash":       func(r *sim.Record) { r.Hash = "x" },
		"probe":      func(r *sim.Record) { r.Probe.Correct = !r.Probe.Correct },
		"no probe":   func(r *sim.Record) { r.Probe = nil },
		"world":      func(r *sim.Record) { r.World = "harbor" },
		"family":     func(r *sim.Record) { r.Family = "time" },
		"events":     func(r *sim.Record) { r.Events = r.Events[1:] },
		"versions":   func(r *sim.Record) { r.SimVersion, r.Catalog = "0", "0" },
		"steps":      func(r *sim.Record) { r.Scores.Steps = nil },
		"confidence": func(r *sim.Record) { c := -1.0; r.Probe.Confidence = &c },
		"short":      func(r *sim.Record) { r.Actions = r.Actions[:len(r.Actions)-1] },
		"long":       func(r *sim.Record) { r.Actions = append(r.Actions, "wait") },
		"bad answer": func(r *sim.Record) { r.Probe.Answer = 9 },
		"bad visit":  func(r *sim.Record) { r.Visit = "orchard/none/observe/s1" },
	}
	var recs []sim.Record
	for name, edit := range edits {
		rec := clone(base)
		edit(&rec)
		a, errA := w.Replay(ctx, rec)
		b, errB := n.Replay(ctx, rec)
		if (errA == nil) != (errB == nil) || errA != nil && (!errors.Is(errA, server.ErrUnreplayable) || !errors.Is(errB, server.ErrUnreplayable)) {
			t.Errorf("%s: wasm %v, native %v", name, errA, errB)
			continue
		}
		if errA != nil {
			continue
		}
		recs = append(recs, rec)
		ja, _ := json.Marshal(a.Record)
		jb, _ := json.Marshal(b.Record)
		if !slices.Equal(a.Diffs, b.Diffs) || !bytes.Equal(ja, jb) {
			t.Errorf("%s: wasm diffs %v, native %v; records differ in %v", name, a.Diffs, b.Diffs, sim.DiffRecords(a.Record, b.Record))
		}
		// A record may leave the probe unanswered.
		if (name == "valid" || name == "no probe") != (len(a.Diffs) == 0) {
			t.Errorf("%s: diffs %v", name, a.Diffs)
		}
	}
	if err := server.CrossCheck(ctx, w, n, recs); err != nil {
		t.Error(err)
	}
	if err := server.CrossCheck(ctx, w, server.Native("other"), recs); err == nil || !strings.Contains(err.Error(), "other") {
		t.Errorf("cross-check with another sha: %v", err)
	}
}

func TestNativeServer(t *testing.T) {
	e := newEnv(t, func(o *server.Options) { o.Verifier = server.Native(simwasm.SHA256()) })
	rec := record(t, normVisit, "oracle", "model")
	if got := e.mustSubmit(submission(rec, "")); got.Record.Hash != rec.Hash || got.Record.SimSHA256 != simwasm.SHA256() {
		t.Errorf("stored %+v", got.Record)
	}
	rec.Scores.Task = !rec.Scores.Task
	if st, b, _ := e.do("POST", "/api/runs", submission(rec, "")); st != 422 {
		t.Errorf("forged under native: %d %s", st, b)
	}
}

// slowVerifier blocks every replay until its context ends or release is
// closed, then fails with err (if set).
type slowVerifier struct {
	release chan struct{}
	started chan struct{} // gets a value when a replay begins (if not nil)
	err     error
}

func (v slowVerifier) Kind() string   { return "slow" }
func (v slowVerifier) SHA256() string { return simwasm.SHA256() }
func (v slowVerifier) Replay(ctx context.Context, rec sim.Record) (server.Replayed, error) {
	if v.started != nil {
		v.started <- struct{}{}
	}
	select {
	case <-ctx.Done():
		return server.Replayed{}, ctx.Err()
	case <-v.release:
		return server.Replayed{}, v.err
	}
}

func TestReplayLimits(t *testing.T) {
	var logs strings.Builder
	var mu sync.Mutex
	release := make(chan struct{})
	e := newEnv(t, func(o *server.Options) {
		o.Verifier = slowVerifier{release: release, err: errors.New("guest exploded at 0xdead")}
		o.ReplayTimeout = 100 * time.Millisecond
		o.MaxReplays = 1
		o.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
	})
	rec := record(t, controlVisit, "greedy", "model")
	// One replay runs out of time.
	st, b, h := e.do("POST", "/api/runs", submission(rec, ""))
	if got := errorOf(t, b); st != 503 || got.Code != "timeout" || h.Get("Retry-After") == "" {
		t.Errorf("slow replay: %d %s", st, b)
	}
	// While one replay runs, the next is turned away.
	started := make(chan struct{}, 1)
	e2 := newEnv(t, func(o *server.Options) {
		o.Verifier = slowVerifier{release: release, started: started, err: errors.New("guest exploded at 0xdead")}
		o.ReplayTimeout = time.Minute
		o.MaxReplays = 1
		o.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
	})
	first := make(chan int)
	go func() { st, _, _ := e2.do("POST", "/api/runs", submission(rec, "")); first <- st }()
	<-started
	st, b, _ = e2.do("POST", "/api/runs", submission(rec, ""))
	if st != 503 || errorOf(t, b).Code != "busy" {
		t.Errorf("second replay at once: %d %s, want 503 busy", st, b)
	}
	close(release)
	// The blocked replay then fails inside: a logged internal error, shown
	// without its detail.
	if st := <-first; st != 500 {
		t.Errorf("failed replay: %d", st)
	}
	go func() { <-started }()
	st, b, _ = e2.do("POST", "/api/runs", submission(rec, ""))
	got := errorOf(t, b)
	if st != 500 || got.Code != "internal" || strings.Contains(got.Message, "0xdead") {
		t.Errorf("internal error: %d %s", st, b)
	}
	if c := e.counts(); c[0] != 0 {
		t.Errorf("%d runs stored", c[0])
	}
	// Request logs carry no query strings.
	e2.do("GET", "/api/runs?participant=secret-pseudonym-1", nil)
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "0xdead") {
		t.Errorf("the internal error was not logged: %s", logs.String())
	}
	if strings.Contains(logs.String(), "secret-pseudonym") || !strings.Contains(logs.String(), "path=/api/runs") {
		t.Errorf("the log holds a query string, or no request lines: %s", logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
