// Package limit holds the NormGym server's per-client limits: token
// buckets keyed by client and class of request (Buckets), a listener that
// caps connections in all, per address and per IPv6 /56, and lets new
// connections take the place of idle ones (Listen), a count of what each
// client holds open that works behind a proxy (Gate), a semaphore that
// serves clients in turn (Fair), and the key that names a client
// (ClientKey). It knows nothing of the routes: the server says which
// class a request draws from.
package limit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Rate is a token bucket: one token every Every, at most Burst kept. The
// zero Rate is unlimited.
type Rate struct {
	Every time.Duration
	Burst int
}

// Unlimited reports whether r limits nothing.
func (r Rate) Unlimited() bool { return r.Every <= 0 || r.Burst <= 0 }

// PerSecond is the sustained rate in tokens per second (0: unlimited).
func (r Rate) PerSecond() float64 {
	if r.Unlimited() {
		return 0
	}
	return float64(time.Second) / float64(r.Every)
}

// String formats r as ParseRate reads it: "5/s:50", "20/h:10" or "off".
func (r Rate) String() string {
	if r.Unlimited() {
		return "off"
	}
	for _, u := range units {
		if n := u.d / r.Every; n >= 1 && u.d%r.Every == 0 {
			return fmt.Sprintf("%d/%s:%d", n, u.name, r.Burst)
		}
	}
	return fmt.Sprintf("1/%s:%d", r.Every, r.Burst)
}

var units = []struct {
	name string
	d    time.Duration
}{{"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}}

// ParseRate reads "N/UNIT:BURST" (UNIT s, m or h; ":BURST" defaults to
// N), "1/DURATION:BURST" with a Go duration ("1/250ms:20"), or "off".
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	if s == "off" || s == "0" {
		return Rate{}, nil
	}
	spec, burstText, hasBurst := strings.Cut(s, ":")
	num, unit, ok := strings.Cut(spec, "/")
	if !ok {
		return Rate{}, fmt.Errorf("limit: rate %q: want N/UNIT[:BURST] such as 5/s:50, or off", s)
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 {
		return Rate{}, fmt.Errorf("limit: rate %q: %q is not a positive count", s, num)
	}
	var per time.Duration
	for _, u := range units {
		if unit == u.name {
			per = u.d
		}
	}
	if per == 0 {
		if per, err = time.ParseDuration(unit); err != nil || per <= 0 {
			return Rate{}, fmt.Errorf("limit: rate %q: unit %q is not s, m, h or a duration", s, unit)
		}
	}
	r := Rate{Every: per / time.Duration(n), Burst: n}
	if hasBurst {
		if r.Burst, err = strconv.Atoi(burstText); err != nil || r.Burst <= 0 {
			return Rate{}, fmt.Errorf("limit: rate %q: burst %q is not a positive count", s, burstText)
		}
	}
	if r.Every <= 0 {
		return Rate{}, fmt.Errorf("limit: rate %q is too fast", s)
	}
	return r, nil
}

// Limiter decides whether a client may make a request of a class now.
type Limiter interface {
	// Allow takes a token from the client's bucket of the class and
	// reports whether there was one; if not, retry is how long until
	// there will be. A class it does not know is unlimited.
	Allow(ctx context.Context, class, client string) (ok bool, retry time.Duration)
}

// None is a Limiter that allows everything.
var None Limiter = none{}

type none struct{}

func (none) Allow(context.Context, string, string) (bool, time.Duration) { return true, 0 }
