package limit

import (
	"container/list"
	"net"
	"sync"
	"time"
)

// ListenOptions bound the connections a Listener keeps open. A bound ≤ 0
// is no bound.
type ListenOptions struct {
	// Max bounds the connections open at once. When it is reached, a new
	// connection takes the place of an idle one (see Listener.SetIdle) of
	// the client holding the most connections; if none is idle it waits
	// up to Wait for one to close, and is closed if none does.
	Max int
	// PerAddr bounds the connections from one client address: an IPv4
	// address or an IPv6 /64 (see ClientKey). Beyond it the client's
	// longest idle connection is closed for the new one; if it has none
	// idle, the new one is closed.
	PerAddr int
	// Per56 bounds the connections from one IPv6 /56 in all, likewise
	// (the longest idle connection of its busiest /64 makes room).
	Per56 int
	// Wait is how long a connection beyond Max waits for a slot when none
	// is idle (default 5 s).
	Wait time.Duration
}

// Listener is a net.Listener that keeps ListenOptions' bounds. The server
// says which connections are idle between requests (SetIdle): those are
// what a new connection may take the place of, so that idle keep-alive
// connections, however many, never keep a client out. A connection is
// idle from its accept until SetIdle says otherwise.
//
// Behind a reverse proxy every connection comes from the proxy: leave
// PerAddr and Per56 at 0 there (the server bounds each forwarded client's
// requests and WebSockets instead, see Gate).
type Listener struct {
	net.Listener
	o     ListenOptions
	freed chan struct{} // a slot freed (Max)
	done  chan struct{}
	shut  sync.Once

	mu        sync.Mutex
	open      int
	addrs     map[string]*addrConns
	nets      map[string]int // open by IPv6 /56
	refused   int
	reclaimed int
}

// addrConns are the open connections of one client address.
type addrConns struct {
	open int
	idle list.List // of *conn, idle the longest first
}

// ListenStats counts a Listener's connections.
type ListenStats struct {
	// Open and Idle are the connections open now, and idle among them.
	Open, Idle int
	// Refused counts the connections closed at accept for a bound;
	// Reclaimed the idle ones closed to make room for a new one.
	Refused, Reclaimed int
}

// Listen wraps l with the bounds of o.
func Listen(l net.Listener, o ListenOptions) *Listener {
	if o.Wait <= 0 {
		o.Wait = 5 * time.Second
	}
	return &Listener{Listener: l, o: o, freed: make(chan struct{}, 1), done: make(chan struct{}),
		addrs: map[string]*addrConns{}, nets: map[string]int{}}
}

// Accept implements net.Listener.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		raw, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := ClientKey(raw.RemoteAddr().String(), "")
		c := &conn{Conn: raw, l: l, key: key, net: Prefix56(key)}
		if l.admit(c) {
			return c, nil
		}
		raw.Close()
	}
}

// admit counts c in if the bounds allow, closing idle connections to make
// room, or waiting for a slot (Max); false: c is refused.
func (l *Listener) admit(c *conn) bool {
	var timeout <-chan time.Time
	for {
		l.mu.Lock()
		victim, ok, wait := l.room(c)
		if ok {
			l.count(c)
		} else if victim == nil && !wait {
			// A per-address bound, with nothing idle to close.
			l.refused++
		}
		l.mu.Unlock()
		if victim != nil {
			victim.Conn.Close()
		}
		switch {
		case ok:
			return true
		case victim != nil:
			continue
		case !wait:
			return false
		}
		if timeout == nil {
			timeout = time.After(l.o.Wait)
		}
		select {
		case <-l.freed:
		case <-timeout:
			l.note(&l.refused)
			return false
		case <-l.done:
			return false
		}
	}
}

func (l *Listener) note(n *int) {
	l.mu.Lock()
	*n++
	l.mu.Unlock()
}

// room reports whether c fits now. If not, it may return an idle
// connection it has uncounted, to be closed for c (then ask again); wait
// reports that only Max is in the way, so that a slot may free. l.mu is
// held.
func (l *Listener) room(c *conn) (victim *conn, ok, wait bool) {
	if a := l.addrs[c.key]; l.o.PerAddr > 0 && a != nil && a.open >= l.o.PerAddr {
		return l.reclaim(a), false, false
	}
	if c.net != "" && l.o.Per56 > 0 && l.nets[c.net] >= l.o.Per56 {
		return l.reclaim(l.busiest(c.net)), false, false
	}
	if l.o.Max > 0 && l.open >= l.o.Max {
		return l.reclaim(l.busiest("")), false, true
	}
	return nil, true, false
}

// busiest is the address (within the /56 net, or any if net is "") with
// the most connections open among those with one idle; nil if none is.
func (l *Listener) busiest(net string) *addrConns {
	var best *addrConns
	for key, a := range l.addrs {
		if a.idle.Len() > 0 && (best == nil || a.open > best.open) && (net == "" || Prefix56(key) == net) {
			best = a
		}
	}
	return best
}

// reclaim uncounts a's longest idle connection and returns it (nil if a
// is nil or has none idle). l.mu is held.
func (l *Listener) reclaim(a *addrConns) *conn {
	if a == nil || a.idle.Len() == 0 {
		return nil
	}
	c := a.idle.Front().Value.(*conn)
	l.uncount(c)
	l.reclaimed++
	return c
}

// count adds c, idle; l.mu is held.
func (l *Listener) count(c *conn) {
	a := l.addrs[c.key]
	if a == nil {
		a = &addrConns{}
		l.addrs[c.key] = a
	}
	a.open++
	if c.net != "" {
		l.nets[c.net]++
	}
	l.open++
	c.counted = true
	c.idle = a.idle.PushBack(c)
}

// uncount removes c (once); l.mu is held.
func (l *Listener) uncount(c *conn) {
	if !c.counted {
		return
	}
	c.counted = false
	a := l.addrs[c.key]
	if c.idle != nil {
		a.idle.Remove(c.idle)
		c.idle = nil
	}
	if a.open--; a.open == 0 {
		delete(l.addrs, c.key)
	}
	if c.net != "" {
		if l.nets[c.net]--; l.nets[c.net] <= 0 {
			delete(l.nets, c.net)
		}
	}
	l.open--
	l.signal()
}

// signal wakes a connection waiting for a slot; l.mu is held.
func (l *Listener) signal() {
	select {
	case l.freed <- struct{}{}:
	default:
	}
}

// SetIdle says whether c (a connection from Accept) waits between
// requests, so that it may be closed to make room for a new connection
// (an HTTP server's ConnState hook: idle at http.StateIdle, busy at
// http.StateActive and http.StateHijacked). Other connections are ignored.
func (l *Listener) SetIdle(nc net.Conn, idle bool) {
	c, ok := nc.(*conn)
	if !ok || c.l != l {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !c.counted || idle == (c.idle != nil) {
		return
	}
	a := l.addrs[c.key]
	if idle {
		c.idle = a.idle.PushBack(c)
		l.signal() // a connection waiting for a slot may take its place
	} else {
		a.idle.Remove(c.idle)
		c.idle = nil
	}
}

// Stats returns the listener's counts.
func (l *Listener) Stats() ListenStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := ListenStats{Open: l.open, Refused: l.refused, Reclaimed: l.reclaimed}
	for _, a := range l.addrs {
		s.Idle += a.idle.Len()
	}
	return s
}

// Close implements net.Listener.
func (l *Listener) Close() error {
	l.shut.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type conn struct {
	net.Conn
	l        *Listener
	key, net string
	// counted and idle (its place among its address's idle connections,
	// nil when busy) are guarded by l.mu.
	counted bool
	idle    *list.Element
}

// Close implements net.Conn.
func (c *conn) Close() error {
	c.l.mu.Lock()
	c.l.uncount(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}
