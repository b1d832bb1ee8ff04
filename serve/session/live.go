package session

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/sim"
)

// The environments in memory. A Manager keeps at most Options.MaxLive
// visits open in its engines; the others are closed and rebuilt from the
// store when their session acts again (RATIONALE.md, "Memory").
//
//   - Room is made before a visit is started, so the bound holds at every
//     moment, and in O(1): the client holding the most environments (as
//     WithClient names clients) loses its least recently used idle one.
//     A flood of sessions from one client evicts its own.
//   - An environment unused for Options.Idle is closed.
//   - A rebuild runs apart from the request that needs it, on a context
//     of its own: a client that gives up does not fail it (its retry
//     finds the session in memory), and two requests of one session share
//     one rebuild. At most Options.MaxRebuilds run at once, and waiting
//     clients are served in turn (limit.Fair), each with a bounded queue.

// live is a session whose environment is in memory.
type live struct {
	mu    sync.Mutex
	sess  Session
	token string // hash
	env   Visit
	frame Frame
	probe *sim.Probe
	// last is the last action taken ("" before the first): a step sent
	// again with its index is answered, not taken again.
	last string
	gone bool // evicted: look it up again

	// Guarded by Manager.mu.
	used         time.Time
	owner        *owner
	prev, next   *live // among all, least recently used first
	oprev, onext *live // among its owner's, likewise
}

// owner is a client and the environments it used last.
type owner struct {
	client     string
	n          int
	head, tail *live
}

// liveSet is a Manager's environments in memory, guarded by Manager.mu.
type liveSet struct {
	live    map[string]*live  // session id → environment in memory
	byToken map[string]string // token hash → session id
	// open counts the environments open in the engines: in the set, being
	// rebuilt, or started for a session not stored yet.
	open       int
	head, tail *live // all, least recently used first
	owners     map[string]*owner
	byCount    map[int]map[*owner]bool // owners by how many they hold
	most       int                     // the largest count held
	building   map[string]*rebuildCall // session id → its rebuild
	pacer      *limit.Fair
	sweeper    *time.Timer
	closed     bool
}

func newLiveSet(opts Options) liveSet {
	return liveSet{live: map[string]*live{}, byToken: map[string]string{}, owners: map[string]*owner{},
		byCount: map[int]map[*owner]bool{}, building: map[string]*rebuildCall{},
		pacer: limit.NewFair(opts.MaxRebuilds, opts.RebuildQueue)}
}

// Defaults of Options.
const (
	// DefaultIdle is how long an environment stays in memory unused.
	DefaultIdle = 10 * time.Minute
	// DefaultRebuildQueue bounds one client's rebuilds waiting at once.
	DefaultRebuildQueue = 64
	// rebuildTimeout bounds one rebuild, its wait for a turn included.
	rebuildTimeout = time.Minute
)

// defaultMaxRebuilds is how many rebuilds run at once: one a core.
func defaultMaxRebuilds() int { return runtime.GOMAXPROCS(0) }

type callerKey struct{}

// WithClient returns ctx carrying the name of the client a call is made
// for (its address, as serve/limit's ClientKey names it). The Manager
// shares memory and rebuilds among clients by it; calls without one share
// the name "".
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, callerKey{}, client)
}

func callerOf(ctx context.Context) string {
	c, _ := ctx.Value(callerKey{}).(string)
	return c
}

// The lists. m.mu is held in all of these.

func (s *liveSet) pushAll(lv *live) {
	lv.prev, lv.next = s.tail, nil
	if s.tail != nil {
		s.tail.next = lv
	} else {
		s.head = lv
	}
	s.tail = lv
}

func (s *liveSet) removeAll(lv *live) {
	if lv.prev != nil {
		lv.prev.next = lv.next
	} else if s.head == lv {
		s.head = lv.next
	}
	if lv.next != nil {
		lv.next.prev = lv.prev
	} else if s.tail == lv {
		s.tail = lv.prev
	}
	lv.prev, lv.next = nil, nil
}

func (o *owner) push(lv *live) {
	lv.oprev, lv.onext = o.tail, nil
	if o.tail != nil {
		o.tail.onext = lv
	} else {
		o.head = lv
	}
	o.tail = lv
}

func (o *owner) remove(lv *live) {
	if lv.oprev != nil {
		lv.oprev.onext = lv.onext
	} else {
		o.head = lv.onext
	}
	if lv.onext != nil {
		lv.onext.oprev = lv.oprev
	} else {
		o.tail = lv.oprev
	}
	lv.oprev, lv.onext = nil, nil
}

// setCount moves o to the count n. Counts move by one, so finding the
// largest again takes one step.
func (s *liveSet) setCount(o *owner, n int) {
	if b := s.byCount[o.n]; b != nil {
		delete(b, o)
		if len(b) == 0 {
			delete(s.byCount, o.n)
		}
	}
	o.n = n
	if n == 0 {
		delete(s.owners, o.client)
	} else {
		if s.byCount[n] == nil {
			s.byCount[n] = map[*owner]bool{}
		}
		s.byCount[n][o] = true
		s.most = max(s.most, n)
	}
	for s.most > 0 && len(s.byCount[s.most]) == 0 {
		s.most--
	}
}

func (s *liveSet) attach(lv *live, client string) {
	o := s.owners[client]
	if o == nil {
		o = &owner{client: client}
		s.owners[client] = o
	}
	o.push(lv)
	lv.owner = o
	s.setCount(o, o.n+1)
}

func (s *liveSet) detachOwner(lv *live) {
	if o := lv.owner; o != nil {
		o.remove(lv)
		lv.owner = nil
		s.setCount(o, o.n-1)
	}
}

// insert adds lv, used now by client.
func (s *liveSet) insert(lv *live, client string, now time.Time) {
	s.live[lv.sess.ID] = lv
	s.byToken[lv.token] = lv.sess.ID
	lv.used = now
	s.pushAll(lv)
	s.attach(lv, client)
}

// touch marks lv used now by client.
func (s *liveSet) touch(lv *live, client string, now time.Time) {
	lv.used = now
	s.removeAll(lv)
	s.pushAll(lv)
	if lv.owner != nil && lv.owner.client == client {
		lv.owner.remove(lv)
		lv.owner.push(lv)
		return
	}
	s.detachOwner(lv)
	s.attach(lv, client)
}

// detach takes lv out of the set and returns its environment for the
// caller to close (after m.mu is released: closing takes it); lv.mu is
// held too.
func (s *liveSet) detach(lv *live) Visit {
	if s.live[lv.sess.ID] == lv {
		delete(s.live, lv.sess.ID)
		delete(s.byToken, lv.token)
		s.removeAll(lv)
		s.detachOwner(lv)
	}
	lv.gone = true
	env := lv.env
	lv.env = nil
	return env
}

// victim returns an idle environment to evict, locked: the least recently
// used of the client holding the most, else the least recently used of
// all; nil if the few it looks at are all busy.
func (s *liveSet) victim() *live {
	tries := 0
	for o := range s.byCount[s.most] {
		for lv := o.head; lv != nil && tries < 8; lv = lv.onext {
			tries++
			if lv.mu.TryLock() {
				return lv
			}
		}
		if tries >= 8 {
			break
		}
	}
	for lv := s.head; lv != nil && tries < 24; lv = lv.next {
		tries++
		if lv.mu.TryLock() {
			return lv
		}
	}
	return nil
}

// slotEnv is an environment counted in liveSet.open until it is closed.
type slotEnv struct {
	Visit
	m    *Manager
	once sync.Once
}

func (e *slotEnv) Close() {
	e.once.Do(func() {
		e.Visit.Close()
		e.m.mu.Lock()
		e.m.open--
		e.m.mu.Unlock()
	})
}

// reset starts visit in eng, first making room for it (MaxLive).
func (m *Manager) reset(ctx context.Context, eng Engine, visit string) (Visit, Frame, error) {
	m.makeRoom()
	env, f, err := eng.Reset(ctx, visit)
	if err != nil {
		m.mu.Lock()
		m.open--
		m.mu.Unlock()
		return nil, Frame{}, err
	}
	return &slotEnv{Visit: env, m: m}, f, nil
}

// makeRoom evicts until one more environment fits, and counts it. If
// every environment it looks at is busy, it goes over the bound for as
// long as they are.
func (m *Manager) makeRoom() {
	for {
		m.mu.Lock()
		if m.open < m.opts.MaxLive {
			m.open++
			m.mu.Unlock()
			return
		}
		v := m.victim()
		if v == nil {
			m.open++
			m.mu.Unlock()
			return
		}
		env := m.detach(v)
		m.mu.Unlock()
		v.mu.Unlock()
		if env != nil {
			env.Close()
		}
	}
}

// put adds a new session's environment, used by ctx's client.
func (m *Manager) put(ctx context.Context, lv *live) {
	m.mu.Lock()
	m.insert(lv, callerOf(ctx), m.opts.Now())
	m.armSweeper()
	m.mu.Unlock()
}

// forget drops lv from memory and closes its environment; lv.mu is held.
func (m *Manager) forget(lv *live) {
	m.mu.Lock()
	env := m.detach(lv)
	m.mu.Unlock()
	if env != nil {
		env.Close()
	}
}

// armSweeper starts the idle sweep if it is not running; m.mu is held.
func (m *Manager) armSweeper() {
	if m.sweeper == nil && !m.closed && m.opts.Idle > 0 && len(m.live) > 0 {
		m.sweeper = time.AfterFunc(max(m.opts.Idle/4, time.Second), m.sweep)
	}
}

// sweep closes the environments unused for Options.Idle.
func (m *Manager) sweep() {
	now := m.opts.Now()
	var envs []Visit
	m.mu.Lock()
	for lv := m.head; lv != nil && now.Sub(lv.used) > m.opts.Idle; {
		next := lv.next
		if lv.mu.TryLock() {
			envs = append(envs, m.detach(lv))
			lv.mu.Unlock()
		}
		lv = next
	}
	m.sweeper = nil
	m.armSweeper()
	m.mu.Unlock()
	for _, env := range envs {
		if env != nil {
			env.Close()
		}
	}
}

// Close closes every environment in memory (the sessions themselves stay
// in the store: a Manager made later rebuilds them). Use it when the
// Manager is done with, so that its engine's open visits are freed.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	if m.sweeper != nil {
		m.sweeper.Stop()
		m.sweeper = nil
	}
	all := make([]*live, 0, len(m.live))
	for _, lv := range m.live {
		all = append(all, lv)
	}
	m.mu.Unlock()
	for _, lv := range all {
		lv.mu.Lock()
		m.forget(lv)
		lv.mu.Unlock()
	}
}

// Live counts the environments in memory.
func (m *Manager) Live() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live)
}
