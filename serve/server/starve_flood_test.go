package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
)

// openMany opens n practice sessions on a running server from 50
// sessions' worth of loopback addresses each (127.0.1.x: within each
// address's write burst) and returns their tokens.
func openMany(t *testing.T, url string, n int) []string {
	t.Helper()
	tokens := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	const perAddr = 50
	next := make(chan int, (n+perAddr-1)/perAddr)
	for a := 0; a*perAddr < n; a++ {
		next <- a
	}
	close(next)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range next {
				p := newPeer(url, fmt.Sprintf("127.0.1.%d", a+1), 30*time.Second)
				for i := a * perAddr; i < min(n, (a+1)*perAddr); i++ {
					s, err := p.open(i)
					if err != nil {
						select {
						case errs <- fmt.Errorf("session %d of %d: %w", i+1, n, err):
						default:
						}
						return
					}
					tokens[i] = s.Session
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	return tokens
}

// floodCount counts a flooder's answers: served, and refused by a rate
// limit (429; over /ws an error CAPACITY_REACHED with status 429).
type floodCount struct{ ok, limited, other atomic.Int64 }

func (f *floodCount) note(r wsReplyT) {
	switch {
	case r.Type != "error":
		f.ok.Add(1)
	case r.Data["code"] == "CAPACITY_REACHED" && r.Data["status"] == 429.0:
		f.limited.Add(1)
	default:
		f.other.Add(1)
	}
}

func (f *floodCount) String() string {
	return fmt.Sprintf("%d served, %d rate-limited, %d other", f.ok.Load(), f.limited.Load(), f.other.Load())
}

// floodStates pipelines /ws state messages in tokens[0]'s session for d.
func floodStates(url, src, token string, d time.Duration, n *floodCount) error {
	ctx, cancel := context.WithTimeout(context.Background(), d+10*time.Second)
	defer cancel()
	c, err := newPeer(url, src, 10*time.Second).wsDial(ctx)
	if err != nil {
		return err
	}
	defer c.CloseNow()
	r, err := wsRoundTrip(ctx, c, map[string]any{"type": "reset", "data": map[string]any{"session_id": token}})
	if err != nil || r.Type != "observation" {
		return fmt.Errorf("flooder's reset: %v %v", r, err)
	}
	wctx, wcancel := context.WithTimeout(ctx, d)
	defer wcancel()
	go func() {
		for wctx.Err() == nil {
			if c.Write(wctx, websocket.MessageText, []byte(`{"type":"state"}`)) != nil {
				return
			}
		}
	}()
	for wctx.Err() == nil {
		_, b, err := c.Read(wctx)
		if err != nil {
			break
		}
		var r wsReplyT
		json.Unmarshal(b, &r)
		n.note(r)
	}
	return nil
}

// floodResets cycles /ws resets with session_id over every session for d:
// each one resumes a session that is likely not in memory.
func floodResets(url, src string, tokens []string, d time.Duration, n *floodCount) error {
	ctx, cancel := context.WithTimeout(context.Background(), d+10*time.Second)
	defer cancel()
	c, err := newPeer(url, src, 10*time.Second).wsDial(ctx)
	if err != nil {
		return err
	}
	defer c.CloseNow()
	end := time.Now().Add(d)
	for i := 0; time.Now().Before(end); i++ {
		r, err := wsRoundTrip(ctx, c, map[string]any{"type": "reset", "data": map[string]any{"session_id": tokens[(i*7)%len(tokens)]}})
		if err != nil {
			return err
		}
		n.note(r)
	}
	return nil
}

// floodStateHTTP asks GET /state of every session in turn for d.
func floodStateHTTP(url, src string, tokens []string, d time.Duration, n *floodCount) {
	p := newPeer(url, src, 10*time.Second)
	end := time.Now().Add(d)
	for i := 0; time.Now().Before(end); i++ {
		st, _, err := p.call(context.Background(), "GET", "/state?session_id="+tokens[(i*13)%len(tokens)], "", nil, nil)
		switch {
		case err == nil && st == http.StatusOK:
			n.ok.Add(1)
		case st == http.StatusTooManyRequests:
			n.limited.Add(1)
		default:
			n.other.Add(1)
		}
	}
}

// TestMessageFlood: with 1,100 practice sessions open (more than the
// server keeps in memory), one client floods its /ws with state messages,
// another cycles /ws resets over all 1,100 sessions (each resume a
// rebuild) and a third asks GET /state of each in turn. The flooders get
// rate-limit errors (CAPACITY_REACHED, 429) while an honest client goes
// on stepping its session with p95 under 100 ms, and the server's peak RSS
// stays under 500 MB.
func TestMessageFlood(t *testing.T) {
	bin := normgymBinary(t)
	cmd, url := startServe(t, bin, filepath.Join(t.TempDir(), "normgym.db"))
	defer stopServe(cmd)
	start := time.Now()
	tokens := openMany(t, url, 1100)
	t.Logf("1,100 sessions opened in %v; peak RSS %d MB", time.Since(start).Round(time.Millisecond), peakRSS(t, cmd.Process.Pid)>>20)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hc, err := newPeer(url, "127.0.2.1", 10*time.Second).wsDial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.CloseNow()
	const d = 4 * time.Second
	var states, resets, gets floodCount
	var wg sync.WaitGroup
	errs := make([]error, 3)
	wg.Add(3)
	go func() { defer wg.Done(); errs[0] = floodStates(url, "127.0.2.2", tokens[0], d, &states) }()
	go func() { defer wg.Done(); errs[1] = floodResets(url, "127.0.2.3", tokens, d, &resets) }()
	go func() { defer wg.Done(); floodStateHTTP(url, "127.0.2.4", tokens, d, &gets) }()
	stop := make(chan struct{})
	go func() { time.Sleep(d); close(stop) }()
	lat, herr := wsHonestSteps(hc, 7, 150, 20*time.Millisecond, stop)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	t.Logf("in %v: /ws state flood %v; /ws reset cycle %v; GET /state cycle %v; honest %d steps, p95 %v", d, &states, &resets, &gets, len(lat), p95(lat))
	if herr != nil {
		t.Errorf("the honest client during the flood: %v", herr)
	}
	if states.limited.Load() == 0 || states.ok.Load() > 300+20*4+100 {
		t.Errorf("/ws state flood: %v; want refusals beyond the read class's burst (300) and rate (20/s)", &states)
	}
	if resets.limited.Load() == 0 {
		t.Errorf("/ws reset cycle: %v; want refusals beyond the write class's burst (60) and rate (5/s)", &resets)
	}
	if p := p95(lat); p > 100*time.Millisecond || len(lat) < 20 {
		t.Errorf("honest client: %d steps, p95 %v during the flood; want it to go on with p95 under 100 ms", len(lat), p)
	}
	if rss := peakRSS(t, cmd.Process.Pid); rss > 500<<20 {
		t.Errorf("peak RSS %d MB with 1,100 sessions open and the flood, want under 500 MB", rss>>20)
	} else {
		t.Logf("peak RSS %d MB", rss>>20)
	}
}

// killClient is one client of TestKillPacing: its session, the actions
// it was told were taken, and the one in flight when the server died.
type killClient struct {
	p       *peer
	token   string
	visit   string
	acked   []string
	pending string
	answer  api.SessionState // the first answer after the restart
}

// rebuildWork times, in sim.wasm in this process, what the restarted
// server must do before its first answers: each client's visit reset and
// its actions replayed, one after the other.
func rebuildWork(t *testing.T, clients []*killClient) time.Duration {
	ctx := context.Background()
	start := time.Now()
	for _, k := range clients {
		v, _, _, err := rt.Reset(ctx, k.visit)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range k.acked {
			if i < len(k.acked)-1 {
				v.StepTextJSON(ctx, a)
			} else {
				v.StepJSON(ctx, a)
			}
		}
		v.Close(ctx)
	}
	return time.Since(start)
}

// step sends action with its index; ok reports an answer (any status).
func (k *killClient) step(ctx context.Context, action string) (int, api.SessionState, []byte, error) {
	var s api.SessionState
	st, b, err := k.p.call(ctx, "POST", "/api/session/step", k.token, stepBody{action, len(k.acked)}, &s)
	return st, s, b, err
}

// TestKillPacing SIGKILLs the server while 100 sessions step (each step
// sent with its index), restarts it and sends every client's next request
// at once: the one in flight again (the same index), or the next. Half of
// the clients give up their first try after 20 ms and send it again.
// Every answer is a success (no 500: rebuilds do not run on a request's
// context), the first answers' p95 is under 1 s (or, on a machine too
// loaded for that, under twice the time the rebuilds' own work takes on
// one core),
// and no session is ahead of its client: each answer has exactly the
// client's actions and the observation a straight run of them renders.
func TestKillPacing(t *testing.T) {
	bin := normgymBinary(t)
	db := filepath.Join(t.TempDir(), "normgym.db")
	cmd, url := startServe(t, bin, db)
	clients := make([]*killClient, 100)
	for i := range clients {
		p := newPeer(url, fmt.Sprintf("127.0.3.%d", i/5+1), 10*time.Second)
		s, err := p.open(i)
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = &killClient{p: p, token: s.Session, visit: s.Visit}
	}
	var total atomic.Int64
	var wg sync.WaitGroup
	for i, k := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 100; n++ {
				a := floodMoves[(n+i)%len(floodMoves)]
				st, _, _, err := k.step(context.Background(), a)
				if err != nil || st != http.StatusOK {
					k.pending = a // killed in flight (or refused: sent again below)
					return
				}
				k.acked = append(k.acked, a)
				total.Add(1)
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	for deadline := time.Now().Add(60 * time.Second); total.Load() < 1500 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	wg.Wait()
	t.Logf("%d steps acknowledged before SIGKILL", total.Load())

	var log syncBuffer
	cmd, url = startServeLog(t, bin, db, &log)
	defer stopServe(cmd)
	for _, k := range clients {
		k.p.url = url
	}
	lat := make([]time.Duration, len(clients))
	fails := make([]string, len(clients))
	var ready sync.WaitGroup
	ready.Add(1)
	for i, k := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := k.pending
			if a == "" {
				a = floodMoves[(len(k.acked)+i)%len(floodMoves)]
			}
			ready.Wait()
			start := time.Now()
			if i%2 == 0 {
				// This client gives up at once and asks again.
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
				k.step(ctx, a)
				cancel()
			}
			st, s, b, err := k.step(context.Background(), a)
			lat[i] = time.Since(start)
			if err != nil || st != http.StatusOK {
				fails[i] = fmt.Sprintf("client %d: %d %.200s %v", i, st, b, err)
				return
			}
			k.acked = append(k.acked, a)
			k.answer = s
		}()
	}
	ready.Done()
	wg.Wait()
	for i, k := range clients {
		if fails[i] != "" {
			t.Error(fails[i])
		} else if k.answer.Actions != len(k.acked) {
			t.Errorf("client %d: the session has %d actions, its client was told of %d", i, k.answer.Actions, len(k.acked))
		} else if want := straightText(k.visit, k.acked); k.answer.Text != want {
			t.Errorf("client %d: the observation after %d actions is not a straight run's", i, len(k.acked))
		}
	}
	// The bound is the issue's, 1 s, which the server meets with its two
	// cores to itself (about 0.5 s of work here). On a machine too loaded
	// for that, the answers must still come as fast as the work allows:
	// within twice the time the rebuilds take on one core here, now (the
	// rest is HTTP, the store and the answers; wasted work, such as
	// rebuilds started again for each retry, or rebuilds in turn on one
	// core where two were free, would show).
	work := rebuildWork(t, clients)
	bound := max(time.Second, 2*work)
	t.Logf("first answers after the restart: p95 %v (the rebuilds' work on one core now: %v)", p95(lat), work)
	if p := p95(lat); p > bound {
		t.Errorf("first answers after kill -9 under 100 sessions: p95 %v, want under %v", p, bound)
	}
	if strings.Contains(log.String(), "internal error") {
		t.Errorf("the restarted server logged internal errors:\n%s", log.String())
	}
}

// straightText is the observation's text after actions in a fresh run of
// visit (the Go core; sim.wasm renders the same text).
func straightText(visit string, actions []string) string {
	env, obs, err := sim.NewVisit(visit)
	if err != nil {
		return "new env: " + err.Error()
	}
	for _, s := range actions {
		a, err := sim.ParseAction(s)
		if err != nil {
			return "action: " + err.Error()
		}
		res, err := env.Step(a)
		if err != nil {
			return "step: " + err.Error()
		}
		obs = res.Observation
	}
	return obs.Text()
}
