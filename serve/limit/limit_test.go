package limit

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	tests := []struct {
		in, out string
		every   time.Duration
		burst   int
		bad     bool
	}{
		{in: "5/s:50", out: "5/s:50", every: 200 * time.Millisecond, burst: 50},
		{in: "5/s", out: "5/s:5", every: 200 * time.Millisecond, burst: 5},
		{in: "20/h:10", out: "20/h:10", every: 3 * time.Minute, burst: 10},
		{in: "30/m:60", out: "30/m:60", every: 2 * time.Second, burst: 60},
		{in: "1/250ms:20", out: "4/s:20", every: 250 * time.Millisecond, burst: 20},
		{in: "off", out: "off"},
		{in: "0", out: "off"},
		{in: "5", bad: true},
		{in: "-1/s", bad: true},
		{in: "5/week", bad: true},
		{in: "5/s:0", bad: true},
		{in: "5/s:x", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, err := ParseRate(tt.in)
			if tt.bad {
				if err == nil {
					t.Fatalf("ParseRate(%q) = %v, want an error", tt.in, r)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Every != tt.every || r.Burst != tt.burst || r.String() != tt.out {
				t.Errorf("ParseRate(%q) = %v/%d %q, want %v/%d %q", tt.in, r.Every, r.Burst, r, tt.every, tt.burst, tt.out)
			}
		})
	}
}

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func allow(b *Buckets, class, who string) bool {
	ok, _ := b.Allow(context.Background(), class, who)
	return ok
}

func TestBuckets(t *testing.T) {
	c := &clock{time.Unix(1e9, 0)}
	b := NewBuckets(map[string]Rate{"write": {Every: time.Second, Burst: 3}, "free": {}}, c.now)
	for i := range 3 {
		if !allow(b, "write", "a") {
			t.Fatalf("request %d of a burst of 3 refused", i+1)
		}
	}
	ok, retry := b.Allow(context.Background(), "write", "a")
	if ok || retry != time.Second {
		t.Fatalf("4th request: ok %v retry %v, want refused and 1s", ok, retry)
	}
	if !allow(b, "write", "b") {
		t.Error("another client shares the first one's bucket")
	}
	c.advance(500 * time.Millisecond)
	if ok, retry := b.Allow(context.Background(), "write", "a"); ok || retry != 500*time.Millisecond {
		t.Errorf("after half a token: ok %v retry %v, want refused and 500ms", ok, retry)
	}
	c.advance(500 * time.Millisecond)
	if !allow(b, "write", "a") {
		t.Error("after a whole token: refused")
	}
	for range 100 {
		if !allow(b, "free", "a") || !allow(b, "unknown", "a") {
			t.Fatal("an unlimited class refused a request")
		}
	}
	// Refilled buckets are forgotten.
	c.advance(time.Hour)
	allow(b, "write", "c")
	if n := b.Len(); n != 1 {
		t.Errorf("%d buckets after an hour, want 1 (only the new client's)", n)
	}
}

// TestBucketsBounded: a flood from many addresses keeps at most the bound.
func TestBucketsBounded(t *testing.T) {
	c := &clock{time.Unix(1e9, 0)}
	b := NewBuckets(map[string]Rate{"write": {Every: time.Hour, Burst: 2}}, c.now)
	b.max = 1000
	for i := range 10_000 {
		c.advance(time.Millisecond)
		allow(b, "write", fmt.Sprint("client-", i))
		if n := b.Len(); n > b.max {
			t.Fatalf("%d buckets after %d clients, bound %d", n, i+1, b.max)
		}
	}
	// The most recent client is remembered.
	allow(b, "write", "client-9999")
	if allow(b, "write", "client-9999") {
		t.Error("the most recent client's bucket was dropped")
	}
}

func TestClientKey(t *testing.T) {
	tests := []struct{ remote, header, want string }{
		{"192.0.2.7:5123", "", "192.0.2.7"},
		{"[2001:db8:1:2:3:4:5:6]:443", "", "2001:db8:1:2::/64"},
		{"[::ffff:192.0.2.7]:80", "", "192.0.2.7"},
		{"127.0.0.1:80", "203.0.113.9", "203.0.113.9"},
		{"127.0.0.1:80", "198.51.100.1, 203.0.113.9", "203.0.113.9"},
		{"127.0.0.1:80", "spoofed, 2001:db8::1", "2001:db8::/64"},
		{"127.0.0.1:80", "[2001:db8::1]:1234", "2001:db8::/64"},
		{"127.0.0.1:80", "203.0.113.9:8080", "203.0.113.9"},
		{"127.0.0.1:80", "garbage", "127.0.0.1"},
		{"pipe", "", "pipe"},
	}
	for _, tt := range tests {
		if got := ClientKey(tt.remote, tt.header); got != tt.want {
			t.Errorf("ClientKey(%q, %q) = %q, want %q", tt.remote, tt.header, got, tt.want)
		}
	}
}

// dialFrom connects to addr from a loopback source address.
func dialFrom(t *testing.T, src, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 2 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// closedByPeer reports whether the server closed c (within a second).
func closedByPeer(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(time.Second))
	_, err := c.Read(make([]byte, 1))
	return err == io.EOF || err != nil && !isTimeout(err)
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestListen: the bounds over real loopback connections; the cases of
// TestListenBounds in detail.
func TestListen(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := Listen(raw, ListenOptions{Max: 3, PerAddr: 2})
	defer l.Close()
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	addr := raw.Addr().String()
	busy := func() net.Conn { c := <-accepted; l.SetIdle(c, false); return c }
	// Two from 127.0.0.2 are served; the third is closed at once.
	a1, a2 := dialFrom(t, "127.0.0.2", addr), dialFrom(t, "127.0.0.2", addr)
	s1, s2 := busy(), busy()
	a3 := dialFrom(t, "127.0.0.2", addr)
	if !closedByPeer(a3) {
		t.Error("a third connection from one address was not closed")
	}
	if st := l.Stats(); st.Refused != 1 || st.Open != 2 {
		t.Errorf("Stats = %+v, want 1 refused, 2 open", st)
	}
	// Another address gets the last slot; a fourth waits for a slot.
	b1 := dialFrom(t, "127.0.0.3", addr)
	s3 := busy()
	b2 := dialFrom(t, "127.0.0.4", addr)
	select {
	case <-accepted:
		t.Fatal("a fourth connection was accepted while three were open and busy")
	case <-time.After(200 * time.Millisecond):
	}
	// An idle one makes room: the busiest address's.
	l.SetIdle(s1, true)
	select {
	case s4 := <-accepted:
		s4.Close()
	case <-time.After(2 * time.Second):
		t.Fatal("no room made when a connection went idle")
	}
	if !closedByPeer(a1) {
		t.Error("the idle connection was not closed for the new one")
	}
	for _, c := range []net.Conn{a1, a2, a3, b1, b2, s2, s3} {
		c.Close()
	}
}

// fakeConn is one end of a pipe with a chosen remote address; closed is
// closed when the listener's side closes it.
type fakeConn struct {
	net.Conn
	remote net.Addr
	closed chan struct{}
	once   sync.Once
}

func (c *fakeConn) RemoteAddr() net.Addr { return c.remote }
func (c *fakeConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// fakeListener hands out the conns sent on in.
type fakeListener struct {
	in   chan net.Conn
	done chan struct{}
}

func (f *fakeListener) Accept() (net.Conn, error) {
	select {
	case c := <-f.in:
		return c, nil
	case <-f.done:
		return nil, net.ErrClosed
	}
}
func (f *fakeListener) Close() error   { close(f.done); return nil }
func (f *fakeListener) Addr() net.Addr { return &net.TCPAddr{} }

// listenHarness runs a Listener over a fakeListener.
type listenHarness struct {
	t        *testing.T
	l        *Listener
	f        *fakeListener
	accepted chan net.Conn
}

func newListenHarness(t *testing.T, o ListenOptions) *listenHarness {
	h := &listenHarness{t: t, f: &fakeListener{in: make(chan net.Conn), done: make(chan struct{})}, accepted: make(chan net.Conn, 100)}
	h.l = Listen(h.f, o)
	go func() {
		for {
			c, err := h.l.Accept()
			if err != nil {
				return
			}
			h.accepted <- c
		}
	}()
	t.Cleanup(func() { h.l.Close() })
	return h
}

// dial connects from ip and returns the listener's side, busy (nil if
// the connection was refused or still waits after wait), and the fake
// client side.
func (h *listenHarness) dial(ip string, wait time.Duration) (net.Conn, *fakeConn) {
	h.t.Helper()
	a, b := net.Pipe()
	h.t.Cleanup(func() { b.Close() })
	fc := &fakeConn{Conn: a, remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 4000}, closed: make(chan struct{})}
	h.f.in <- fc
	return h.await(fc, wait), fc
}

// await returns fc's listener side once accepted (marked busy), or nil if
// it is refused or still waits after wait.
func (h *listenHarness) await(fc *fakeConn, wait time.Duration) net.Conn {
	select {
	case c := <-h.accepted:
		h.l.SetIdle(c, false)
		return c
	case <-fc.closed:
	case <-time.After(wait):
	}
	return nil
}

func isClosed(fc *fakeConn) bool {
	select {
	case <-fc.closed:
		return true
	default:
		return false
	}
}

// TestListenBounds: the per-address, per-/56 and total bounds, each with
// idle connections making room and without.
func TestListenBounds(t *testing.T) {
	const long = 2 * time.Second
	tests := []struct {
		name string
		o    ListenOptions
		run  func(t *testing.T, h *listenHarness)
	}{
		{"per address: refused when none is idle", ListenOptions{PerAddr: 2}, func(t *testing.T, h *listenHarness) {
			h.dial("192.0.2.1", long)
			h.dial("192.0.2.1", long)
			if c, _ := h.dial("192.0.2.1", long); c != nil {
				t.Error("a third connection from one address was accepted")
			}
			if c, _ := h.dial("192.0.2.2", long); c == nil {
				t.Error("another address was refused")
			}
			if st := h.l.Stats(); st.Refused != 1 || st.Open != 3 {
				t.Errorf("stats %+v, want 1 refused and 3 open", st)
			}
		}},
		{"per address: an idle one makes room", ListenOptions{PerAddr: 2}, func(t *testing.T, h *listenHarness) {
			c1, f1 := h.dial("192.0.2.1", long)
			h.dial("192.0.2.1", long)
			h.l.SetIdle(c1, true)
			if c, _ := h.dial("192.0.2.1", long); c == nil || !isClosed(f1) {
				t.Error("the idle connection did not make room for the new one")
			}
			if st := h.l.Stats(); st.Reclaimed != 1 || st.Open != 2 {
				t.Errorf("stats %+v, want 1 reclaimed and 2 open", st)
			}
		}},
		{"per /56", ListenOptions{PerAddr: 2, Per56: 3}, func(t *testing.T, h *listenHarness) {
			h.dial("2001:db8:0:1::1", long)
			c2, f2 := h.dial("2001:db8:0:1::2", long)
			h.dial("2001:db8:0:2::1", long)
			if c, _ := h.dial("2001:db8:0:3::1", long); c != nil {
				t.Error("a fourth connection from one /56 was accepted")
			}
			if c, _ := h.dial("2001:db8:0:100::1", long); c == nil {
				t.Error("another /56 was refused")
			}
			h.l.SetIdle(c2, true)
			if c, _ := h.dial("2001:db8:0:3::1", long); c == nil || !isClosed(f2) {
				t.Error("the /56's idle connection did not make room")
			}
		}},
		{"total: the busiest address's idle one makes room", ListenOptions{Max: 3}, func(t *testing.T, h *listenHarness) {
			a1, fa1 := h.dial("192.0.2.1", long)
			h.dial("192.0.2.1", long)
			b, fb := h.dial("192.0.2.2", long)
			h.l.SetIdle(b, true)
			h.l.SetIdle(a1, true)
			if c, _ := h.dial("192.0.2.3", long); c == nil || !isClosed(fa1) || isClosed(fb) {
				t.Errorf("a new client: accepted %v; the busiest address's idle connection closed %v, the other's %v", c != nil, isClosed(fa1), isClosed(fb))
			}
		}},
		{"total: waits for a slot", ListenOptions{Max: 2}, func(t *testing.T, h *listenHarness) {
			c1, _ := h.dial("192.0.2.1", long)
			h.dial("192.0.2.2", long)
			c, f := h.dial("192.0.2.3", 200*time.Millisecond)
			if c != nil || isClosed(f) {
				t.Fatal("a third connection did not wait while two were busy")
			}
			c1.Close()
			if h.await(f, long) == nil {
				t.Error("no slot freed when a connection closed")
			}
		}},
		{"total: refused after the wait", ListenOptions{Max: 1, Wait: 100 * time.Millisecond}, func(t *testing.T, h *listenHarness) {
			h.dial("192.0.2.1", long)
			if c, f := h.dial("192.0.2.2", long); c != nil || !isClosed(f) {
				t.Error("a connection beyond the bound was not closed after the wait")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newListenHarness(t, tt.o)) })
	}
}

func TestPrefix56(t *testing.T) {
	tests := []struct{ key, want string }{
		{"2001:db8:1:2::/64", "2001:db8:1::/56"},
		{"2001:db8:1:ff00::/64", "2001:db8:1:ff00::/56"},
		{"192.0.2.7", ""},
		{"pipe", ""},
	}
	for _, tt := range tests {
		if got := Prefix56(tt.key); got != tt.want {
			t.Errorf("Prefix56(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestGate(t *testing.T) {
	g := NewGate(2, 3, 4)
	var leaves []func()
	enter := func(client string, want error) {
		t.Helper()
		leave, err := g.Enter(client)
		if err != want {
			t.Fatalf("Enter(%s) = %v, want %v", client, err, want)
		}
		if err == nil {
			leaves = append(leaves, leave)
		}
	}
	enter("192.0.2.1", nil)
	enter("192.0.2.1", nil)
	enter("192.0.2.1", ErrClientFull)
	enter("2001:db8:0:1::/64", nil)
	enter("2001:db8:0:2::/64", nil)
	enter("2001:db8:0:3::/64", ErrFull) // the total (4) comes before the /56 (3)
	leaves[0]()
	leaves[0]() // twice is once
	enter("2001:db8:0:3::/64", nil)
	enter("2001:db8:0:4::/64", ErrClientFull) // the /56 holds 3
	if n, all := g.Open("192.0.2.1"); n != 1 || all != 4 {
		t.Errorf("Open = %d, %d; want 1 and 4", n, all)
	}
	var none *Gate
	if leave, err := none.Enter("x"); err != nil {
		t.Error("a nil Gate refused")
	} else {
		leave()
	}
}

// TestFair: waiters are served one client at a time, in turn, whatever
// the order they came in.
func TestFair(t *testing.T) {
	f := NewFair(1, 3)
	ctx := context.Background()
	if err := f.Acquire(ctx, "flood"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	wait := func(client string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.Acquire(ctx, client); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, client)
			mu.Unlock()
			f.Release()
		}()
		for n := f.Waiting(); f.Waiting() == n; {
			time.Sleep(time.Millisecond)
		}
	}
	for range 3 {
		wait("flood")
	}
	if err := f.Acquire(ctx, "flood"); err != ErrClientFull {
		t.Errorf("a fourth waiter of one client: %v, want ErrClientFull", err)
	}
	wait("honest")
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	if err := f.Acquire(cctx, "gone"); err == nil {
		t.Error("a waiter whose context ended got a slot")
	}
	cancel()
	f.Release()
	wg.Wait()
	if got := strings.Join(order, " "); got != "flood honest flood flood" {
		t.Errorf("served %q, want flood honest flood flood", got)
	}
	if f.Waiting() != 0 {
		t.Errorf("%d still waiting", f.Waiting())
	}
}
