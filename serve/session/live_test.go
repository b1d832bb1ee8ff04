package session_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
)

// memStore is a session.Store in memory, with hooks: afterAppend runs
// once an action is stored, slowActions delays reading a session's actions
// (a rebuild's first call), and reads counts those reads (rebuilds).
type memStore struct {
	mu          sync.Mutex
	byID        map[string]*session.Session
	byToken     map[string]string
	actions     map[string][]string
	afterAppend func(ctx context.Context)
	slowActions time.Duration
	reads       atomic.Int64
	readOrder   []string // the sessions whose actions were read, in order
}

func newMemStore() *memStore {
	return &memStore{byID: map[string]*session.Session{}, byToken: map[string]string{}, actions: map[string][]string{}}
}

func (s *memStore) CreateSession(_ context.Context, ss session.Session, th string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byID[ss.ID], s.byToken[th] = &ss, ss.ID
	return nil
}

func (s *memStore) SessionByToken(_ context.Context, th string) (session.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.byID[s.byToken[th]]
	if !ok {
		return session.Session{}, session.ErrNotFound
	}
	out := *ss
	out.Actions = len(s.actions[ss.ID])
	return out, nil
}

func (s *memStore) OwnerSession(context.Context, string, string) (session.Session, error) {
	return session.Session{}, session.ErrNotFound
}

func (s *memStore) Rekey(_ context.Context, id, th string) error {
	return errors.New("memStore: no rekey")
}

func (s *memStore) Actions(ctx context.Context, id string) ([]string, error) {
	s.reads.Add(1)
	s.mu.Lock()
	s.readOrder = append(s.readOrder, id)
	s.mu.Unlock()
	if s.slowActions > 0 {
		select {
		case <-time.After(s.slowActions):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.actions[id]), nil
}

func (s *memStore) AppendAction(ctx context.Context, id string, n int, a string, at time.Time) error {
	s.mu.Lock()
	if len(s.actions[id]) != n {
		s.mu.Unlock()
		return session.ErrConflict
	}
	s.actions[id] = append(s.actions[id], a)
	s.byID[id].TouchedAt = at
	s.mu.Unlock()
	if s.afterAppend != nil {
		s.afterAppend(ctx)
	}
	return nil
}

func (s *memStore) SetAnswer(context.Context, string, int, *float64) error { return nil }
func (s *memStore) SetRun(context.Context, string, string) error           { return nil }
func (s *memStore) PurgeSessions(context.Context, time.Time) error         { return nil }

// fakeEngine steps nothing: a frame counts the actions. It counts the
// environments open at once, and the most ever.
type fakeEngine struct{ open, peak atomic.Int64 }

func (f *fakeEngine) Kind() string   { return "fake" }
func (f *fakeEngine) SHA256() string { return "fake" }

// NewEnv is never called: the Manager resets visits through Reset.
func (f *fakeEngine) NewEnv() sim.Env { panic("fakeEngine: no sim.Env") }

func (f *fakeEngine) Reset(ctx context.Context, visit string) (session.Visit, session.Frame, error) {
	if err := ctx.Err(); err != nil {
		return nil, session.Frame{}, err
	}
	n := f.open.Add(1)
	for p := f.peak.Load(); n > p && !f.peak.CompareAndSwap(p, n); p = f.peak.Load() {
	}
	return &fakeEnv{f: f}, fakeFrame(0), nil
}

func fakeFrame(n int) session.Frame {
	return session.Frame{Observation: []byte(fmt.Sprintf(`{"n":%d}`, n)), Text: fmt.Sprint("after ", n), Day: 1, Step: n}
}

type fakeEnv struct {
	f *fakeEngine
	n int
}

func (e *fakeEnv) Step(ctx context.Context, a string) (session.Frame, error) {
	if err := ctx.Err(); err != nil {
		return session.Frame{}, err
	}
	e.n++
	return fakeFrame(e.n), nil
}
func (e *fakeEnv) Skip(ctx context.Context, a string) error       { _, err := e.Step(ctx, a); return err }
func (e *fakeEnv) Observe(context.Context) (session.Frame, error) { return fakeFrame(e.n), nil }
func (e *fakeEnv) Probe(context.Context) (*sim.Probe, error)      { return nil, nil }
func (e *fakeEnv) Answer(context.Context, int) error              { return nil }
func (e *fakeEnv) Record(context.Context, string, string) (sim.Record, error) {
	return sim.Record{}, nil
}
func (e *fakeEnv) Close() { e.f.open.Add(-1) }

// fakeManager is a Manager over a memStore and a fakeEngine.
func fakeManager(t testing.TB, st *memStore, eng *fakeEngine, edit func(*session.Options)) *session.Manager {
	o := session.Options{Store: st, Engine: eng}
	if edit != nil {
		edit(&o)
	}
	m, err := session.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

const fakeVisit = "orchard/none/control/s1"

func openFake(t testing.TB, m *session.Manager, client string) string {
	t.Helper()
	s, err := m.Open(session.WithClient(context.Background(), client), session.Spec{Kind: api.KindPractice, Agent: "t", Visit: fakeVisit})
	if err != nil {
		t.Fatal(err)
	}
	return s.Session
}

// TestEvictsTheBusiestClient: with room for 4 environments, the client
// holding the most loses its least recently used one to another client's
// new session; the other client's stays in memory.
func TestEvictsTheBusiestClient(t *testing.T) {
	st, eng := newMemStore(), &fakeEngine{}
	m := fakeManager(t, st, eng, func(o *session.Options) { o.MaxLive = 4 })
	a := []string{openFake(t, m, "A"), openFake(t, m, "A"), openFake(t, m, "A")}
	b1 := openFake(t, m, "B")
	openFake(t, m, "B")
	if n := m.Live(); n != 4 {
		t.Fatalf("%d in memory, want 4", n)
	}
	ctxB := session.WithClient(context.Background(), "B")
	if _, err := m.Step(ctxB, b1, "wait"); err != nil || st.reads.Load() != 0 {
		t.Errorf("B's first session: %v, %d rebuilds; want it in memory", err, st.reads.Load())
	}
	if _, err := m.Step(session.WithClient(context.Background(), "A"), a[0], "wait"); err != nil || st.reads.Load() != 1 {
		t.Errorf("A's least recently used session: %v, %d rebuilds; want it rebuilt", err, st.reads.Load())
	}
	if p := eng.peak.Load(); p > 4 {
		t.Errorf("%d environments were open at once, bound 4", p)
	}
}

// TestLiveBound: sessions opened and stepped by many clients at once never
// hold more environments open than MaxLive, and each goes on where it was.
func TestLiveBound(t *testing.T) {
	st, eng := newMemStore(), &fakeEngine{}
	m := fakeManager(t, st, eng, func(o *session.Options) { o.MaxLive = 16 })
	var wg sync.WaitGroup
	for c := 0; c < 8; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := fmt.Sprint("client-", c)
			ctx := session.WithClient(context.Background(), client)
			var tokens []string
			for i := 0; i < 10; i++ {
				tokens = append(tokens, openFake(t, m, client))
			}
			for k := 0; k < 5; k++ {
				for _, tok := range tokens {
					k := k
					s, err := m.StepAt(ctx, tok, "wait", &k)
					if err != nil || s.Actions != k+1 || s.Text != fmt.Sprint("after ", k+1) {
						t.Errorf("%s step %d: %v %d %q", client, k, err, s.Actions, s.Text)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if p := eng.peak.Load(); p > 16 {
		t.Errorf("%d environments were open at once, bound 16", p)
	}
	if n := m.Live(); n > 16 || eng.open.Load() != int64(n) {
		t.Errorf("%d in memory, %d open in the engine; want at most 16, the same", n, eng.open.Load())
	}
}

// TestIdleEvicted: environments unused for Options.Idle are closed; their
// sessions come back when they act.
func TestIdleEvicted(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC).UnixNano())
	st, eng := newMemStore(), &fakeEngine{}
	m := fakeManager(t, st, eng, func(o *session.Options) {
		o.Idle = 2 * time.Second // swept every second
		o.Now = func() time.Time { return time.Unix(0, clock.Load()) }
	})
	tok := openFake(t, m, "A")
	openFake(t, m, "A")
	clock.Add(int64(time.Minute))
	for deadline := time.Now().Add(5 * time.Second); m.Live() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := m.Live(); n != 0 || eng.open.Load() != 0 {
		t.Fatalf("%d in memory (%d open) after twice the idle time, want 0", n, eng.open.Load())
	}
	if s, err := m.Step(context.Background(), tok, "wait"); err != nil || s.Actions != 1 {
		t.Errorf("a step after the eviction: %v %d", err, s.Actions)
	}
}

func codeOf(err error) api.Code {
	var e *session.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// TestClientGivesUp: a step whose request ended before it was taken is
// not taken; one whose request ends while it is stored is taken whole,
// and its retry (same index) is answered as it was; a rebuild whose
// request ends goes on, and the next request finds the session. No case
// is an internal error.
func TestClientGivesUp(t *testing.T) {
	st, eng := newMemStore(), &fakeEngine{}
	m := fakeManager(t, st, eng, nil)
	tok := openFake(t, m, "A")
	zero := 0
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.StepAt(ended, tok, "wait", &zero); codeOf(err) != api.CodeTimeout {
		t.Errorf("a step of an ended request: %v, want timeout", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st.afterAppend = func(context.Context) { cancel() }
	first, err := m.StepAt(ctx, tok, "north", &zero)
	st.afterAppend = nil
	if err != nil || first.Actions != 1 {
		t.Fatalf("a step whose request ended once it was stored: %v %d", err, first.Actions)
	}
	again, err := m.StepAt(context.Background(), tok, "north", &zero)
	if err != nil || again.Actions != 1 || again.Text != first.Text || len(slices.Concat(mapValues(st)...)) != 1 {
		t.Errorf("its retry: %v, %d actions, same text %v", err, again.Actions, again.Text == first.Text)
	}
	// A restarted Manager rebuilds slowly; the request gives up at once.
	st.slowActions = 100 * time.Millisecond
	m2 := fakeManager(t, st, eng, nil)
	short, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := m2.Get(short, tok); codeOf(err) != api.CodeTimeout {
		t.Errorf("a request that gives up during a rebuild: %v, want timeout", err)
	}
	if s, err := m2.Get(context.Background(), tok); err != nil || s.Actions != 1 || st.reads.Load() != 1 {
		t.Errorf("the next request: %v, %d actions, %d rebuilds (want 1: the first one's)", err, s.Actions, st.reads.Load())
	}
}

func mapValues(s *memStore) [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out [][]string
	for _, v := range s.actions {
		out = append(out, v)
	}
	return out
}

// TestRebuildsInTurn: one rebuild at a time, a client with ten sessions
// to rebuild and another with one: the other's comes second, not last; a
// client beyond its queue is told the server is busy.
func TestRebuildsInTurn(t *testing.T) {
	st, eng := newMemStore(), &fakeEngine{}
	m := fakeManager(t, st, eng, nil)
	var flood []string
	for i := 0; i < 10; i++ {
		flood = append(flood, openFake(t, m, "flood"))
	}
	honest := openFake(t, m, "honest")
	honestID := sessionID(t, st, honest)
	st.slowActions = 50 * time.Millisecond
	m2 := fakeManager(t, st, eng, func(o *session.Options) { o.MaxRebuilds, o.RebuildQueue = 1, 8 })
	var busy atomic.Int64
	var wg sync.WaitGroup
	get := func(client, tok string) {
		defer wg.Done()
		_, err := m2.Get(session.WithClient(context.Background(), client), tok)
		if codeOf(err) == api.CodeBusy {
			busy.Add(1)
		} else if err != nil {
			t.Error(err)
		}
	}
	st.mu.Lock()
	st.readOrder = nil
	st.mu.Unlock()
	for _, tok := range flood {
		wg.Add(1)
		go get("flood", tok)
	}
	time.Sleep(25 * time.Millisecond) // the flood queues first, during its first rebuild
	wg.Add(1)
	go get("honest", honest)
	wg.Wait()
	// The rebuilds start in the order of the reads of their actions.
	st.mu.Lock()
	i := slices.Index(st.readOrder, honestID)
	st.mu.Unlock()
	if i < 0 || i > 2 {
		t.Errorf("the honest client's rebuild started %d-th of %d, want at most 3rd", i+1, len(st.readOrder))
	}
	// One runs, 8 wait: the tenth is refused.
	if busy.Load() != 1 {
		t.Errorf("%d of the flood's rebuilds refused as busy, want 1 (queue of 8 and one running)", busy.Load())
	}
}

// sessionID is the id the store keeps the session of token under.
func sessionID(t *testing.T, st *memStore, token string) string {
	s, err := st.SessionByToken(context.Background(), session.TokenHash(token))
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// BenchmarkEviction: a call whose session is not in memory, rebuilt and
// put in place of another, with 100, 1,000 and 10,000 environments in
// memory (a client cycling through a tenth more sessions than fit, so
// that every call evicts): its cost does not grow with them. Eviction is
// O(1); before, each put scanned every environment.
func BenchmarkEviction(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint("live=", n), func(b *testing.B) {
			st, eng := newMemStore(), &fakeEngine{}
			m := fakeManager(b, st, eng, func(o *session.Options) { o.MaxLive = n })
			tokens := make([]string, n+n/10)
			for i := range tokens {
				tokens[i] = openFake(b, m, fmt.Sprint("client-", i%50))
			}
			ctx := session.WithClient(context.Background(), "client-0")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := m.Get(ctx, tokens[i%len(tokens)]); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if p := eng.peak.Load(); p > int64(n)+1 {
				b.Errorf("%d environments open at once, bound %d", p, n)
			}
		})
	}
}
