//go:build !js

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/wasm/simwasm"
)

// TestWorker builds the worker, runs it under `wrangler dev` (the pinned
// npm package, `make worker-deps`) on loopback with a local D1 and no
// network, and exercises submit (valid, duplicate, forged), assign, the
// leaderboard and a classroom.
func TestWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("worker: skipped in -short mode (it builds the worker and starts wrangler dev)")
	}
	wrangler, err := filepath.Abs(filepath.Join("node_modules", ".bin", "wrangler"))
	if err != nil {
		t.Fatal(err)
	}
	_, errNode := exec.LookPath("node")
	if _, err := os.Stat(wrangler); err != nil || errNode != nil {
		msg := "worker: wrangler is not installed (run make worker-deps: npm ci in serve/worker; node is needed)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	start := time.Now()
	dir := t.TempDir()
	key, keyLine, err := server.NewTeacherKey("worker-test")
	if err != nil {
		t.Fatal(err)
	}
	subKey, subKeyLine, err := server.NewSubmitterKey("worker-model")
	if err != nil {
		t.Fatal(err)
	}
	w := &worker{t: t, wrangler: wrangler, dir: dir, adminToken: randomHex(16), teacherKey: key, teacherKeyLine: keyLine,
		submitterKey: subKey, submitterKeyLine: subKeyLine}
	w.build()
	t.Logf("built in %s", time.Since(start).Round(time.Millisecond))
	w.config()
	w.run("d1", "migrations", "apply", "DB", "--local", "--persist-to", w.state())
	w.start()
	t.Logf("ready in %s", time.Since(start).Round(time.Millisecond))

	var h api.Health
	w.getJSON("/healthz", &h)
	if got, want := h.SimSHA256, simwasm.SHA256(); got != want {
		t.Fatalf("/healthz sim_sha256 = %s, want %s (the sim.wasm in wasm/simwasm)", got, want)
	}
	if got, want := h.Verify, "native"; got != want {
		t.Errorf("/healthz verify = %q, want %q", got, want)
	}
	if st, b, _ := w.do("GET", "/", nil); st != http.StatusOK || !bytes.Contains(b, []byte("<html")) {
		t.Errorf("GET / = %d %.200s, want 200 and a page", st, b)
	}

	mini, err := sim.LookupSuite("mini")
	if err != nil {
		t.Fatal(err)
	}
	visit := mini.Visits[0]

	t.Run("submit", func(t *testing.T) {
		if st, b, _ := w.do("POST", "/api/runs", submission(t, visit, "greedy", "baseline", "")); st != http.StatusForbidden {
			t.Errorf("POST /api/runs (a baseline's record) = %d %s, want 403: baselines are the server's", st, b)
		}
		sub := submission(t, visit, "greedy", "model", "")
		st, b, _ := w.do("POST", "/api/runs", sub)
		if st != http.StatusCreated {
			t.Fatalf("POST /api/runs (valid) = %d %s, want 201", st, b)
		}
		st, b, _ = w.do("POST", "/api/runs", sub)
		var dup api.SubmitResponse
		if err := json.Unmarshal(b, &dup); st != http.StatusOK || err != nil || !dup.Duplicate {
			t.Fatalf("POST /api/runs (the same run again) = %d %s, want 200 and duplicate", st, b)
		}
		other := submission(t, visit, "oracle", "model", "")
		other.RunID = sub.RunID
		if st, b, _ = w.do("POST", "/api/runs", other); st != http.StatusConflict {
			t.Fatalf("POST /api/runs (another run under a stored run_id) = %d %s, want 409", st, b)
		}
	})

	t.Run("forged", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			forge func(*sim.Record)
			diff  string
		}{
			{"score", func(r *sim.Record) { r.Scores.Joint, r.Scores.Task = !r.Scores.Joint, !r.Scores.Task }, "scores.joint"},
			{"hash", func(r *sim.Record) { r.Hash = strings.Repeat("0", len(r.Hash)) }, "hash"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p := "forger-" + tc.name
				sub := submission(t, visit, "greedy", "model", p)
				tc.forge(&sub.Record)
				st, b, _ := w.do("POST", "/api/runs", sub)
				var e api.ErrorDetail
				json.Unmarshal(b, &e)
				if st != http.StatusUnprocessableEntity || e.Code != "mismatch" || !slices.Contains(e.Diffs, tc.diff) {
					t.Fatalf("POST /api/runs (forged %s) = %d %s, want 422 mismatch naming %s", tc.name, st, b, tc.diff)
				}
				var runs api.Runs
				w.getJSON("/api/runs", &runs, api.ParticipantHeader, p)
				if len(runs.Runs) != 0 {
					t.Errorf("after a forged submission the store has %d runs of %s, want none", len(runs.Runs), p)
				}
			})
		}
	})

	t.Run("leaderboard", func(t *testing.T) {
		var lb api.Leaderboard
		w.getJSON("/api/leaderboard?suite=mini", &lb)
		var visits []string
		for _, a := range lb.Agents {
			visits = append(visits, fmt.Sprintf("%s/%s:%d", a.Client, a.Agent, a.Visits))
		}
		if got, want := strings.Join(visits, " "), "model/model-greedy:1"; got != want {
			t.Errorf("leaderboard agents = %q, want %q (one verified run; forged ones not counted)", got, want)
		}
		if st, b, _ := w.do("GET", "/leaderboard?suite=mini", nil); st != http.StatusOK || !bytes.Contains(b, []byte("model-greedy")) {
			t.Errorf("GET /leaderboard = %d %.200s, want 200 listing greedy", st, b)
		}
	})

	t.Run("sessions", func(t *testing.T) { sessions(t, w) })

	t.Run("rooms", func(t *testing.T) {
		var room api.RoomCreated
		if st, b, _ := w.do("POST", "/api/rooms", api.RoomRequest{Name: "class 1", Suite: "mini"}); st != http.StatusUnauthorized {
			t.Errorf("POST /api/rooms without a teacher key = %d %s, want 401", st, b)
		}
		if st, b, _ := w.do("POST", "/api/rooms", api.RoomRequest{Name: "class 1", Suite: "mini"}, "Authorization", "Bearer "+w.teacherKey); st != http.StatusCreated || json.Unmarshal(b, &room) != nil {
			t.Fatalf("POST /api/rooms = %d %s, want 201", st, b)
		}
		for _, p := range []string{"student-aaaa", "student-bbbb"} {
			sub := submission(t, visit, "oracle", "human", p)
			sub.Room = room.Code
			if st, b, _ := w.do("POST", "/api/runs", sub); st != http.StatusCreated {
				t.Fatalf("submitting %s's run in room %s: %d %s", p, room.Code, st, b)
			}
		}
		path := "/api/rooms/" + room.Code + "/dashboard"
		if st, b, _ := w.do("GET", path, nil); st != http.StatusUnauthorized {
			t.Errorf("GET %s without the teacher token = %d %s, want 401", path, st, b)
		}
		var d api.Dashboard
		w.getJSON(path, &d, "Authorization", "Bearer "+room.TeacherToken)
		if d.Stats.Runs != 2 || d.Stats.Participants != 2 || len(d.Students) != 2 {
			t.Errorf("dashboard: %d runs, %d participants, %d students; want 2, 2, 2", d.Stats.Runs, d.Stats.Participants, len(d.Students))
		}
		var pub api.Room
		w.getJSON("/api/rooms/"+room.Code, &pub)
		if pub.Stats.Runs != 2 {
			t.Errorf("public room stats: %d runs, want 2", pub.Stats.Runs)
		}
	})

	t.Run("export", func(t *testing.T) {
		if st, b, _ := w.do("GET", "/api/export?format=jsonl", nil); st != http.StatusUnauthorized {
			t.Errorf("GET /api/export without the admin token = %d %.200s, want 401", st, b)
		}
		st, b, _ := w.do("GET", "/api/export?format=jsonl", nil, "Authorization", "Bearer "+w.adminToken)
		// The data card, then the runs: 1 model + 1 key's session + 2 in the room.
		if lines := strings.Count(strings.TrimSpace(string(b)), "\n") + 1; st != http.StatusOK || lines != 5 {
			t.Errorf("GET /api/export = %d with %d lines, want 200 with 5 (a data card and 4 runs)", st, lines)
		}
	})

	t.Run("parity", func(t *testing.T) { parity(t, w) })

	// A few figures: Go starts anew for every request in Workers.
	var lat []time.Duration
	for range 10 {
		t0 := time.Now()
		w.do("GET", "/api/leaderboard?suite=mini", nil)
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	t.Logf("leaderboard under wrangler dev: p50 %s, max %s; whole test %s", lat[len(lat)/2].Round(time.Millisecond),
		lat[len(lat)-1].Round(time.Millisecond), time.Since(start).Round(time.Second))
}

// adminTokenVar is the variable the worker reads the admin token from.
const adminTokenVar = "NORMGYM_ADMIN_TOKEN"

// worker is a built worker and its wrangler dev process.
type worker struct {
	t        *testing.T
	wrangler string
	dir      string // temp: build/, state/, config, logs
	base     string // http://127.0.0.1:PORT
	cmd      *exec.Cmd
	log      *bytes.Buffer
	// adminToken is passed as the NORMGYM_ADMIN_TOKEN variable.
	adminToken string
	// teacherKey may create rooms: its line is NORMGYM_TEACHER_KEYS.
	teacherKey, teacherKeyLine string
	// submitterKey's sessions are stored: its line is
	// NORMGYM_SUBMITTER_KEYS.
	submitterKey, submitterKeyLine string
}

func (w *worker) state() string { return filepath.Join(w.dir, "state") }

// build builds the worker as make worker does, into dir/build.
func (w *worker) build() {
	w.t.Helper()
	out := filepath.Join(w.dir, "build")
	w.exec(nil, "go", "run", "github.com/syumai/workers/cmd/workers-assets-gen", "-mode=go", "-o", out)
	w.exec(append(os.Environ(), "GOOS=js", "GOARCH=wasm"), "go", "build", "-trimpath",
		"-ldflags", "-s -w -X main.simSHA256="+simwasm.SHA256(), "-o", filepath.Join(out, "app.wasm"), ".")
	if fi, err := os.Stat(filepath.Join(out, "app.wasm")); err == nil {
		w.t.Logf("app.wasm: %.1f MB", float64(fi.Size())/1e6)
	}
}

// config writes dir/wrangler.json: wrangler.jsonc with the build, the web
// app (an empty folder if make web has not run) and the migrations as
// absolute paths.
func (w *worker) config() {
	w.t.Helper()
	src, err := os.ReadFile("wrangler.jsonc")
	if err != nil {
		w.t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(src), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			lines = append(lines, l)
		}
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(strings.Join(lines, "\n")), &cfg); err != nil {
		w.t.Fatalf("wrangler.jsonc (full-line comments only): %v", err)
	}
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			w.t.Fatal(err)
		}
		return a
	}
	delete(cfg, "$schema")
	cfg["main"] = filepath.Join(w.dir, "build", "worker.mjs")
	cfg["assets"].(map[string]any)["directory"] = w.assets()
	for _, db := range cfg["d1_databases"].([]any) {
		m := db.(map[string]any)
		m["migrations_dir"] = abs(m["migrations_dir"].(string))
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(w.dir, "wrangler.json"), b, 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// assets copies the web app (build/web, if make web has built it) into
// dir/assets and appends security_headers to its _headers, as make worker
// does, and returns the folder.
func (w *worker) assets() string {
	w.t.Helper()
	dst := filepath.Join(w.dir, "assets")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		w.t.Fatal(err)
	}
	web, err := filepath.Abs(filepath.Join("..", "..", "build", "web"))
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(web, "index.html")); err == nil {
		if err := os.CopyFS(dst, os.DirFS(web)); err != nil {
			w.t.Fatal(err)
		}
	}
	sec, err := os.ReadFile("security_headers")
	if err != nil {
		w.t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dst, "_headers"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append([]byte("\n"), sec...)); err != nil {
		w.t.Fatal(err)
	}
	return dst
}

// env is wrangler's environment: no metrics, no error reports, no
// request.cf fetch, no update check (the banner), config and logs in the
// temp dir.
func (w *worker) env() []string {
	return append(os.Environ(), "WRANGLER_SEND_METRICS=false", "WRANGLER_SEND_ERROR_REPORTS=false", "WRANGLER_HIDE_BANNER=true",
		"CLOUDFLARE_CF_FETCH_ENABLED=false", "XDG_CONFIG_HOME="+filepath.Join(w.dir, "xdg"),
		"WRANGLER_LOG_PATH="+filepath.Join(w.dir, "logs"), "NO_COLOR=1", "CI=true")
}

// run runs wrangler with args to completion.
func (w *worker) run(args ...string) {
	w.t.Helper()
	w.exec(w.env(), w.wrangler, append(args, "--config", filepath.Join(w.dir, "wrangler.json"))...)
}

// exec runs a command to completion in env (nil: this process's), within
// three minutes.
func (w *worker) exec(env []string, name string, args ...string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// start starts wrangler dev in its own process group on a free port in
// 20000–29999 (an ephemeral port once clashed with workerd's own) and
// waits until /healthz answers; the test's cleanup ends the group.
func (w *worker) start() {
	w.t.Helper()
	var lastErr error
	for range 3 {
		port := freePort(w.t)
		w.base = "http://127.0.0.1:" + strconv.Itoa(port)
		w.log = &bytes.Buffer{}
		cmd := exec.Command(w.wrangler, "dev", "--config", filepath.Join(w.dir, "wrangler.json"),
			"--ip", "127.0.0.1", "--port", strconv.Itoa(port), "--inspector-port", strconv.Itoa(port+1),
			"--persist-to", w.state(), "--show-interactive-dev-session=false", "--log-level", "info",
			"--var", adminTokenVar+":"+w.adminToken, "--var", "NORMGYM_TEACHER_KEYS:"+w.teacherKeyLine,
			"--var", "NORMGYM_SUBMITTER_KEYS:"+w.submitterKeyLine)
		cmd.Env = w.env()
		cmd.Stdout, cmd.Stderr = w.log, w.log
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			w.t.Fatal(err)
		}
		w.cmd = cmd
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		stop := func() {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-exited
			}
			// Children that outlive the leader are in the group too.
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		if lastErr = w.waitReady(exited, 90*time.Second); lastErr == nil {
			w.t.Cleanup(func() {
				stop()
				if w.t.Failed() {
					w.t.Logf("wrangler dev log:\n%s", w.log)
				}
			})
			return
		}
		stop()
		w.t.Logf("wrangler dev on port %d: %v\n%s", port, lastErr, w.log)
	}
	w.t.Fatalf("wrangler dev did not start: %v", lastErr)
}

func (w *worker) waitReady(exited <-chan error, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: 5 * time.Second}
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("wrangler dev exited: %v", err)
		case <-time.After(250 * time.Millisecond):
		}
		resp, err := client.Get(w.base + "/healthz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return errors.New("no answer from /healthz within " + limit.String())
}

// freePort returns a port p in 20000–29998 where p and p+1 are free.
func freePort(t *testing.T) int {
	t.Helper()
	for range 100 {
		n, _ := rand.Int(rand.Reader, big.NewInt(9999))
		p := 20000 + int(n.Int64())
		if free(p) && free(p+1) {
			return p
		}
	}
	t.Fatal("no free port in 20000-29999")
	return 0
}

func free(port int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// do sends a request (body JSON-encoded unless nil) and returns the
// status, body and header.
func (w *worker) do(method, path string, body any, header ...string) (int, []byte, http.Header) {
	w.t.Helper()
	var rd io.Reader
	if body != nil {
		j, err := json.Marshal(body)
		if err != nil {
			w.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, w.base+path, rd)
	if err != nil {
		w.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		w.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		w.t.Fatal(err)
	}
	return resp.StatusCode, b, resp.Header
}

// getJSON GETs path and decodes a 200 answer into v.
func (w *worker) getJSON(path string, v any, header ...string) {
	w.t.Helper()
	st, b, _ := w.do("GET", path, nil, header...)
	if st != http.StatusOK {
		w.t.Fatalf("GET %s = %d %s, want 200", path, st, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		w.t.Fatalf("GET %s: %v in %s", path, err, b)
	}
}

// submission plays visit natively with a baseline agent and wraps its
// record as the client would (agent "human" for humans).
func submission(t *testing.T, visit, agent, client, participant string) api.Submission {
	t.Helper()
	env, err := agents.Play(visit, agent)
	if err != nil {
		t.Fatalf("playing %s with %s: %v", visit, agent, err)
	}
	name := agent
	switch client {
	case "human":
		name = "human"
	case "model":
		name = "model-" + agent // baselines are the server's: models here
	}
	rec := env.Record(name, client)
	rec.SimSHA256 = simwasm.SHA256()
	return api.Submission{RunID: randomHex(12), Participant: participant, Consent: true,
		ConsentVersion: server.ConsentVersion, Record: rec}
}

func norm(t *testing.T, visit string) string {
	t.Helper()
	v, err := sim.ParseVisitID(visit)
	if err != nil {
		t.Fatal(err)
	}
	return v.Norm
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
