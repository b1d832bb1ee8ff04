package limit

import (
	"errors"
	"sync"
)

// Gate counts what clients hold open at once (requests in flight,
// WebSockets) and bounds it per client (a ClientKey: an IPv4 address or
// an IPv6 /64), per IPv6 /56 and in all. Unlike Listen it works on the
// client a trusted proxy names, so its bounds hold behind the proxy. A
// nil *Gate bounds nothing. Safe for concurrent use.
type Gate struct {
	per, per56, total int

	mu  sync.Mutex
	n   map[string]int // by client key, and by /56 prefix
	all int
}

// Gate errors: Enter's refusals.
var (
	// ErrClientFull: the client (or its /56) holds its bound already.
	ErrClientFull = errors.New("limit: the client holds as many as it may")
	// ErrFull: the gate holds its bound in all.
	ErrFull = errors.New("limit: full")
)

// NewGate returns a Gate with the bounds per client, per /56 and in all
// (each ≤ 0: no bound).
func NewGate(perClient, per56, total int) *Gate {
	return &Gate{per: perClient, per56: per56, total: total, n: map[string]int{}}
}

// Enter takes a place for client and returns the func that gives it back
// (call it once), or ErrClientFull or ErrFull.
func (g *Gate) Enter(client string) (leave func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	net := Prefix56(client)
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.per > 0 && g.n[client] >= g.per, net != "" && g.per56 > 0 && g.n[net] >= g.per56:
		return nil, ErrClientFull
	case g.total > 0 && g.all >= g.total:
		return nil, ErrFull
	}
	g.n[client]++
	if net != "" {
		g.n[net]++
	}
	g.all++
	var once sync.Once
	return func() { once.Do(func() { g.leave(client, net) }) }, nil
}

func (g *Gate) leave(client, net string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, k := range []string{client, net} {
		if k == "" {
			continue
		}
		if g.n[k]--; g.n[k] <= 0 {
			delete(g.n, k)
		}
	}
	g.all--
}

// Open returns what client holds, and what all clients hold.
func (g *Gate) Open(client string) (n, all int) {
	if g == nil {
		return 0, 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n[client], g.all
}
