package limit

import (
	"net"
	"sync"
)

// Listen wraps l so that at most max connections are open at once (beyond
// it, Accept waits until one closes, as netutil.LimitListener does) and
// at most perAddr come from one client address (ClientKey of the peer:
// more are closed as soon as they are accepted, so that one client
// cannot take every slot). A bound ≤ 0 is no bound.
//
// Behind a reverse proxy every connection comes from the proxy: pass
// perAddr 0 there.
func Listen(l net.Listener, max, perAddr int) net.Listener {
	ll := &listener{Listener: l, per: perAddr, open: map[string]int{}, done: make(chan struct{})}
	if max > 0 {
		ll.sem = make(chan struct{}, max)
	}
	return ll
}

type listener struct {
	net.Listener
	sem       chan struct{} // nil: no total bound
	per       int
	mu        sync.Mutex
	open      map[string]int // by client key, when per > 0
	refused   int
	done      chan struct{}
	closeOnce sync.Once
}

func (l *listener) acquire() bool {
	if l.sem == nil {
		return true
	}
	select {
	case l.sem <- struct{}{}:
		return true
	case <-l.done:
		return false
	}
}

func (l *listener) release() {
	if l.sem != nil {
		<-l.sem
	}
}

// Accept implements net.Listener.
func (l *listener) Accept() (net.Conn, error) {
	for {
		if !l.acquire() {
			return nil, net.ErrClosed
		}
		c, err := l.Listener.Accept()
		if err != nil {
			l.release()
			return nil, err
		}
		if l.per <= 0 {
			return &conn{Conn: c, l: l}, nil
		}
		key := ClientKey(c.RemoteAddr().String(), "")
		l.mu.Lock()
		if l.open[key] >= l.per {
			l.refused++
			l.mu.Unlock()
			c.Close()
			l.release()
			continue
		}
		l.open[key]++
		l.mu.Unlock()
		return &conn{Conn: c, l: l, key: key, counted: true}, nil
	}
}

// Close implements net.Listener.
func (l *listener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// Refused counts the connections closed for going over the per-address
// bound; ok is false if l is not from Listen.
func Refused(l net.Listener) (n int, ok bool) {
	ll, ok := l.(*listener)
	if !ok {
		return 0, false
	}
	ll.mu.Lock()
	defer ll.mu.Unlock()
	return ll.refused, true
}

type conn struct {
	net.Conn
	l       *listener
	key     string
	counted bool
	once    sync.Once
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		if c.counted {
			c.l.mu.Lock()
			if c.l.open[c.key]--; c.l.open[c.key] <= 0 {
				delete(c.l.open, c.key)
			}
			c.l.mu.Unlock()
		}
		c.l.release()
	})
	return err
}
