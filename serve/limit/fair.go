package limit

import (
	"context"
	"sync"
)

// Fair is a semaphore whose waiters are served one client at a time, in
// turn: a client with many waiting delays another's by at most one turn
// each, where a plain semaphore would serve the flood first. Each client
// may have at most a bound of waiters (ErrClientFull beyond). Safe for
// concurrent use.
type Fair struct {
	mu        sync.Mutex
	free      int
	perClient int
	queues    map[string][]*waiter // each client's waiters, in order
	turn      []string             // clients with waiters, in turn order
	next      int                  // whose turn is next in turn
}

type waiter struct {
	ch      chan struct{}
	granted bool // guarded by Fair.mu
}

// NewFair returns a Fair of n slots (at least 1) taking at most perClient
// waiters of one client (≤ 0: no bound).
func NewFair(n, perClient int) *Fair {
	return &Fair{free: max(n, 1), perClient: perClient, queues: map[string][]*waiter{}}
}

// Acquire takes a slot for client, waiting for its turn; it returns
// ErrClientFull when the client has its bound of waiters already, and
// ctx's error if ctx ends first. Release gives the slot back.
func (f *Fair) Acquire(ctx context.Context, client string) error {
	f.mu.Lock()
	if f.free > 0 && len(f.turn) == 0 {
		f.free--
		f.mu.Unlock()
		return nil
	}
	q := f.queues[client]
	if f.perClient > 0 && len(q) >= f.perClient {
		f.mu.Unlock()
		return ErrClientFull
	}
	w := &waiter{ch: make(chan struct{})}
	if len(q) == 0 {
		f.turn = append(f.turn, client)
	}
	f.queues[client] = append(q, w)
	f.mu.Unlock()
	select {
	case <-w.ch:
		return nil
	case <-ctx.Done():
	}
	f.mu.Lock()
	if w.granted {
		f.mu.Unlock()
		f.Release()
	} else {
		f.drop(client, w)
		f.mu.Unlock()
	}
	return ctx.Err()
}

// drop removes w from client's waiters; f.mu is held.
func (f *Fair) drop(client string, w *waiter) {
	q := f.queues[client]
	for i, x := range q {
		if x == w {
			q = append(q[:i], q[i+1:]...)
			break
		}
	}
	if len(q) > 0 {
		f.queues[client] = q
		return
	}
	delete(f.queues, client)
	f.leaveTurn(client)
}

// leaveTurn takes client out of the turn order; f.mu is held.
func (f *Fair) leaveTurn(client string) {
	for i, c := range f.turn {
		if c == client {
			f.turn = append(f.turn[:i], f.turn[i+1:]...)
			if i < f.next {
				f.next--
			}
			break
		}
	}
	if f.next >= len(f.turn) {
		f.next = 0
	}
}

// Release gives a slot back: to the first waiter of the client whose turn
// it is, if any waits.
func (f *Fair) Release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.turn) == 0 {
		f.free++
		return
	}
	client := f.turn[f.next]
	q := f.queues[client]
	w := q[0]
	w.granted = true
	close(w.ch)
	if len(q) == 1 {
		delete(f.queues, client)
		f.leaveTurn(client)
		return
	}
	f.queues[client] = q[1:]
	f.next = (f.next + 1) % len(f.turn)
}

// Waiting returns how many wait.
func (f *Fair) Waiting() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, q := range f.queues {
		n += len(q)
	}
	return n
}
