package limit

import (
	"context"
	"fmt"
	"io"
	"net"
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

func TestListen(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := Listen(raw, 3, 2)
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
	// Two from 127.0.0.2 are served; the third is closed at once.
	a1, a2 := dialFrom(t, "127.0.0.2", addr), dialFrom(t, "127.0.0.2", addr)
	s1, s2 := <-accepted, <-accepted
	a3 := dialFrom(t, "127.0.0.2", addr)
	if !closedByPeer(a3) {
		t.Error("a third connection from one address was not closed")
	}
	if n, _ := Refused(l); n != 1 {
		t.Errorf("Refused = %d, want 1", n)
	}
	// Another address gets the last slot; a fourth waits for a slot.
	b1 := dialFrom(t, "127.0.0.3", addr)
	s3 := <-accepted
	b2 := dialFrom(t, "127.0.0.4", addr)
	select {
	case <-accepted:
		t.Fatal("a fourth connection was accepted while three were open")
	case <-time.After(200 * time.Millisecond):
	}
	s1.Close()
	select {
	case s4 := <-accepted:
		s4.Close()
	case <-time.After(2 * time.Second):
		t.Fatal("no slot freed when a connection closed")
	}
	for _, c := range []net.Conn{a1, a2, a3, b1, b2, s2, s3} {
		c.Close()
	}
}
