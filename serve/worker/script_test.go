//go:build !js

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
)

// script runs the same client script against `normgym serve` (native,
// set up as the worker is) and the worker under wrangler dev, and wants
// the same outcome from both: the Python client's visits through /ws and
// over HTTP (practice, and a key's stored visit), four steps sent at once
// to one session, and a key's resume retiring the old token.
func script(t *testing.T, w *worker) {
	_, hs := native(t, w)
	targets := []*target{{name: "normgym serve", base: hs.URL}, {name: "wrangler dev", base: w.base}}
	mini, _ := sim.LookupSuite("mini")
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			t.Run("python", func(t *testing.T) { pythonVisits(t, w, tg, mini) })
			t.Run("parallel", func(t *testing.T) { parallelSteps(t, tg, mini.Visits[4]) })
			t.Run("resume", func(t *testing.T) { keyResume(t, w, tg) })
		})
	}
}

// pythonOut is what normgym_client.py prints.
type pythonOut struct {
	Visit     string   `json:"visit"`
	Actions   []string `json:"actions"`
	Hash      string   `json:"hash"`
	Reward    *float64 `json:"reward"`
	RunID     string   `json:"run_id"`
	StepCount int      `json:"step_count"`
}

// pythonVisits plays whole visits with serve/examples/python's client:
// practice through /ws and over HTTP (the trajectory hash must be the
// sim's for the client's actions), and a key's sealed visit through /ws
// (stored: its run must be on the leaderboard's model row).
func pythonVisits(t *testing.T, w *worker, tg *target, mini sim.Suite) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is needed for the Python client's parity")
		}
		t.Skip("python3 is not installed")
	}
	client, err := filepath.Abs(filepath.Join("..", "examples", "python", "normgym_client.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"websocket", []string{"--visit", mini.Visits[1]}},
		{"http", []string{"--http", "--visit", mini.Visits[2]}},
		{"websocket with a key", []string{"--key", w.submitterKey, "--suite", "mini"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(py, append([]string{client, tg.base}, tc.args...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			b, err := cmd.Output()
			if err != nil {
				t.Fatalf("python3 normgym_client.py %s %s: %v\n%s", tg.base, strings.Join(tc.args, " "), err, stderr.String())
			}
			var out pythonOut
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatalf("the client printed %q: %v", b, err)
			}
			if len(out.Actions) == 0 || out.StepCount != len(out.Actions) || out.Reward == nil || out.Visit == "" {
				t.Fatalf("client output: %+v", out)
			}
			env, err := sim.Replay(sim.Record{Visit: out.Visit, Actions: out.Actions})
			if err != nil || env.Hash() != out.Hash {
				t.Errorf("the server's trajectory hash %s is not the sim's for the client's actions (%v)", out.Hash, err)
			}
			keyed := slices.Contains(tc.args, "--key")
			if keyed != (out.RunID != "") || keyed != session.SealedVisit(out.Visit) {
				t.Errorf("run id %q, visit %s: a key's visit is sealed and stored, practice neither", out.RunID, out.Visit)
			}
		})
	}
}

// parallelSteps sends four steps to one session at once: each must be
// taken (200), one after another, none refused.
func parallelSteps(t *testing.T, tg *target, visit string) {
	st, b, _ := tg.do(t, "POST", "/api/sessions", api.SessionRequest{Visit: visit})
	var s api.SessionState
	if st != http.StatusCreated || json.Unmarshal(b, &s) != nil {
		t.Fatalf("POST /api/sessions = %d %s", st, b)
	}
	actions := []string{"north", "wait", "east", "wait"}
	codes := make([]int, len(actions))
	steps := make([]int, len(actions))
	var wg sync.WaitGroup
	for i, a := range actions {
		wg.Go(func() {
			st, b, _ := tg.do(t, "POST", "/api/session/step", api.SessionStep{Action: a}, "Authorization", "Bearer "+s.Session)
			var r api.SessionState
			json.Unmarshal(b, &r)
			codes[i], steps[i] = st, r.Actions
		})
	}
	wg.Wait()
	slices.Sort(steps)
	if want := []int{200, 200, 200, 200}; !slices.Equal(codes, want) || !slices.Equal(steps, []int{1, 2, 3, 4}) {
		t.Errorf("four steps at once: statuses %v, action counts %v; want %v and [1 2 3 4] (taken in turn)", codes, steps, want)
	}
	var trail api.SessionTrail
	st, b, _ = tg.do(t, "GET", "/api/session/trail", nil, "Authorization", "Bearer "+s.Session)
	if st != 200 || json.Unmarshal(b, &trail) != nil || len(trail.Actions) != 4 {
		t.Errorf("the trail after four steps at once: %d %.200s", st, b)
	}
}

// keyResume: a key asking for its suite again resumes its open session
// under a new token, and the old token names nothing any more.
func keyResume(t *testing.T, w *worker, tg *target) {
	auth := func(tok string) []string { return []string{"Authorization", "Bearer " + tok} }
	open := func() api.SessionState {
		st, b, _ := tg.do(t, "POST", "/api/sessions", api.SessionRequest{Suite: "mini"}, auth(w.submitterKey)...)
		var s api.SessionState
		if (st != http.StatusCreated && st != http.StatusOK) || json.Unmarshal(b, &s) != nil {
			t.Fatalf("POST /api/sessions (a key) = %d %s", st, b)
		}
		return s
	}
	first := open()
	if st, b, _ := tg.do(t, "POST", "/api/session/step", api.SessionStep{Action: "wait"}, auth(first.Session)...); st != 200 {
		t.Fatalf("a step: %d %s", st, b)
	}
	second := open()
	if !second.Resumed || second.Session == first.Session || second.Actions != 1 {
		t.Fatalf("asking again: resumed %v at %d actions, want the session resumed under a new token", second.Resumed, second.Actions)
	}
	for _, tc := range []struct {
		token  string
		status int
	}{{first.Session, http.StatusNotFound}, {second.Session, http.StatusOK}} {
		if st, b, _ := tg.do(t, "POST", "/api/session/step", api.SessionStep{Action: "wait"}, auth(tc.token)...); st != tc.status {
			t.Errorf("a step with the %s token: %d %.200s, want %d", map[bool]string{true: "old", false: "new"}[tc.token == first.Session], st, b, tc.status)
		}
	}
}

// stepLatency plays a practice visit of 160 waits on each target, a
// step on one then a step on the other, and returns each target's step
// times in order.
func stepLatency(t testing.TB, visit string, targets ...*target) [][]time.Duration {
	tokens := make([]string, len(targets))
	for i, tg := range targets {
		st, b, _ := tg.do(t, "POST", "/api/sessions", api.SessionRequest{Visit: visit})
		var s api.SessionState
		if st != http.StatusCreated || json.Unmarshal(b, &s) != nil {
			t.Fatalf("%s: POST /api/sessions = %d %s", tg.name, st, b)
		}
		tokens[i] = s.Session
	}
	out := make([][]time.Duration, len(targets))
	for over := false; !over; {
		for i, tg := range targets {
			t0 := time.Now()
			st, b, _ := tg.do(t, "POST", "/api/session/step", api.SessionStep{Action: "wait"}, "Authorization", "Bearer "+tokens[i])
			out[i] = append(out[i], time.Since(t0))
			var s api.SessionState
			if st != 200 || json.Unmarshal(b, &s) != nil {
				t.Fatalf("%s: step %d: %d %.300s", tg.name, len(out[i]), st, b)
			}
			over = s.Over
		}
	}
	return out
}

// latency sums up a visit's step times: p50 and p95 of all, and the p50
// of the first and of the last ten steps.
type latency struct{ p50, p95, first, last time.Duration }

func summarize(d []time.Duration) latency {
	q := func(d []time.Duration, f float64) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[int(f*float64(len(s)-1)+0.5)]
	}
	n := min(10, len(d))
	return latency{p50: q(d, 0.5), p95: q(d, 0.95), first: q(d[:n], 0.5), last: q(d[len(d)-n:], 0.5)}
}

func (l latency) String() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	return fmt.Sprintf("p50 %s, p95 %s; p50 of the first 10 steps %s, of the last 10 %s", ms(l.p50), ms(l.p95), ms(l.first), ms(l.last))
}
