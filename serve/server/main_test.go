package server_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/store"
	"github.com/normgym/normgym/serve/store/storetest"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/wasm/host"
	"github.com/normgym/normgym/wasm/simwasm"
)

// rt is the one sim.wasm runtime the tests share (compiling costs ~1.5 s
// without the on-disk cache).
var rt *host.Runtime

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		// A fuzz worker runs FuzzSubmit only, with the native verifier:
		// compiling sim.wasm under the fuzzer's coverage instrumentation
		// would take minutes before the first input.
		os.Exit(m.Run())
	}
	ctx := context.Background()
	opts := host.Options{Uninterruptible: true} // as normgym serve runs it
	if dir, err := os.UserCacheDir(); err == nil {
		opts.CacheDir = filepath.Join(dir, "normgym", "wazero")
		if os.MkdirAll(opts.CacheDir, 0o755) != nil {
			opts.CacheDir = ""
		}
	}
	var err error
	if rt, err = host.New(ctx, simwasm.Bytes(), opts); err != nil {
		fmt.Fprintf(os.Stderr, "loading sim.wasm: %v (run make wasm)\n", err)
		os.Exit(1)
	}
	// The tests make records with the native core and the server replays
	// them in sim.wasm: both must come from the same source.
	rec := record(nil, "orchard/none/control/s1", "greedy", "model")
	if res, err := rt.Replay(ctx, rec); err != nil || !res.Match {
		fmt.Fprintf(os.Stderr, "sim.wasm is stale (replay of a native record: %v %v): run make wasm\n", err, res.Diffs)
		os.Exit(1)
	}
	code := m.Run()
	removeSharedBinary()
	rt.Close(ctx)
	os.Exit(code)
}

// recCache keeps native records: playing a visit costs milliseconds.
var recCache sync.Map

// record plays visit with a baseline natively and returns its record as
// sim.wasm would have produced it, marked as coming from client (agent
// "human" for humans).
func record(t testing.TB, visit, agent, client string) sim.Record {
	key := visit + "|" + agent + "|" + client
	if r, ok := recCache.Load(key); ok {
		return clone(r.(sim.Record))
	}
	env, err := agents.Play(visit, agent)
	if err == nil {
		name := agent
		switch client {
		case "human":
			name = "human"
		case "model":
			// Baselines are the server's own: the tests submit their
			// records as models.
			name = "model-" + agent
		}
		rec := env.Record(name, client)
		rec.SimSHA256 = simwasm.SHA256()
		recCache.Store(key, rec)
		return clone(rec)
	}
	if t == nil {
		panic(err)
	}
	t.Fatalf("playing %s with %s: %v", visit, agent, err)
	return sim.Record{}
}

// clone deep-copies a record through JSON.
func clone(r sim.Record) sim.Record {
	b, _ := json.Marshal(r)
	var out sim.Record
	json.Unmarshal(b, &out)
	return out
}

func newRunID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// env is a server on a real SQLite file behind httptest.
type env struct {
	t     testing.TB
	srv   *server.Server
	http  *httptest.Server
	store *store.Store
	now   time.Time
	mu    sync.Mutex
}

type option func(*server.Options)

func newEnv(t testing.TB, opts ...option) *env {
	t.Helper()
	e := &env{t: t, store: storetest.MustOpenDB(t), now: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)}
	// Rate limits are off and anyone may create a room unless a test says
	// otherwise (limits_test.go, rooms_test.go): the tests submit faster
	// than any one honest client does.
	o := server.Options{Store: e.store, Verifier: server.Wasm(rt), Web: os.DirFS(filepath.Join(t.TempDir(), "web")),
		Now: func() time.Time { e.mu.Lock(); defer e.mu.Unlock(); return e.now }, Limiter: limit.None, OpenRooms: true}
	for _, f := range opts {
		f(&o)
	}
	srv, err := server.New(o)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	e.http = httptest.NewServer(srv)
	// The runtime is shared by every test: free the sessions' visits.
	t.Cleanup(srv.Close)
	t.Cleanup(e.http.Close)
	return e
}

// do sends a request and returns the status and body.
func (e *env) do(method, path string, body any, header ...string) (int, []byte, http.Header) {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.http.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, b, resp.Header
}

// getJSON GETs path and decodes a 200 answer into v.
func (e *env) getJSON(path string, v any, header ...string) {
	e.t.Helper()
	st, b, _ := e.do("GET", path, nil, header...)
	if st != http.StatusOK {
		e.t.Fatalf("GET %s: %d %s", path, st, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		e.t.Fatalf("GET %s: %v in %s", path, err, b)
	}
}

// submission wraps a record for POST /api/runs.
func submission(rec sim.Record, participant string) api.Submission {
	return api.Submission{RunID: newRunID(), Participant: participant, Consent: true, ConsentVersion: server.ConsentVersion, Record: rec}
}

// newRoom creates a room of the visits (of the mini suite if none) and
// returns its code.
func (e *env) newRoom(visits ...string) string {
	e.t.Helper()
	req := api.RoomRequest{Visits: visits}
	if len(visits) == 0 {
		req.Suite = "mini"
	}
	st, b, _ := e.do("POST", "/api/rooms", req)
	var room api.RoomCreated
	if st != http.StatusCreated || json.Unmarshal(b, &room) != nil {
		e.t.Fatalf("creating a room: %d %s", st, b)
	}
	return room.Code
}

// inRoom puts a submission in a room: where a person's submitted record
// is taken (as self-reported).
func inRoom(sub api.Submission, code string) api.Submission {
	sub.Room = code
	return sub
}

// mustSubmit posts sub and fails unless it is stored.
func (e *env) mustSubmit(sub api.Submission) api.SubmitResponse {
	e.t.Helper()
	st, b, _ := e.do("POST", "/api/runs", sub)
	if st != http.StatusCreated {
		e.t.Fatalf("submitting %s: %d %s", sub.Record.Visit, st, b)
	}
	var r api.SubmitResponse
	if err := json.Unmarshal(b, &r); err != nil {
		e.t.Fatal(err)
	}
	return r
}

// errorOf decodes an error answer.
func errorOf(t testing.TB, b []byte) api.ErrorDetail {
	t.Helper()
	var e api.ErrorDetail
	if err := json.Unmarshal(b, &e); err != nil || e.Code == "" || e.Message == "" {
		t.Fatalf("not an error answer: %s", b)
	}
	return e
}

// counts returns the row counts of the tables a submission writes.
func (e *env) counts() [3]int {
	return [3]int{storetest.Count(e.t, e.store, "runs"), storetest.Count(e.t, e.store, "cell_totals"), storetest.Count(e.t, e.store, "visit_plays")}
}
