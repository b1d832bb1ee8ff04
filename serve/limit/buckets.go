package limit

import (
	"context"
	"sync"
	"time"
)

// Buckets is an in-memory Limiter: a token bucket per class and client.
// Its memory is bounded: a bucket that has refilled is forgotten (it
// would answer as a new one does), and beyond MaxClients buckets the
// least recently used are dropped first. Safe for concurrent use.
type Buckets struct {
	rates map[string]Rate
	max   int
	now   func() time.Time

	mu    sync.Mutex
	m     map[bucketKey]*bucket
	sweep time.Time // when refilled buckets were last dropped
}

type bucketKey struct{ class, client string }

type bucket struct {
	tokens float64
	at     time.Time // when tokens was computed
}

// MaxClients bounds the buckets a Buckets keeps (about 100 bytes each).
const MaxClients = 200_000

// NewBuckets returns token buckets with the rates by class (a class not
// in rates, or with a zero Rate, is unlimited). now is the clock (nil:
// time.Now).
func NewBuckets(rates map[string]Rate, now func() time.Time) *Buckets {
	if now == nil {
		now = time.Now
	}
	rs := make(map[string]Rate, len(rates))
	for c, r := range rates {
		rs[c] = r
	}
	return &Buckets{rates: rs, max: MaxClients, now: now, m: map[bucketKey]*bucket{}}
}

// Rates returns the rates by class.
func (b *Buckets) Rates() map[string]Rate {
	out := make(map[string]Rate, len(b.rates))
	for c, r := range b.rates {
		out[c] = r
	}
	return out
}

// Len returns how many buckets are kept.
func (b *Buckets) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.m)
}

// Allow implements Limiter.
func (b *Buckets) Allow(_ context.Context, class, client string) (bool, time.Duration) {
	r, ok := b.rates[class]
	if !ok || r.Unlimited() {
		return true, 0
	}
	now := b.now()
	k := bucketKey{class, client}
	b.mu.Lock()
	defer b.mu.Unlock()
	bk := b.m[k]
	if bk == nil {
		if len(b.m) >= b.max || now.Sub(b.sweep) > time.Minute {
			b.prune(now)
		}
		bk = &bucket{tokens: float64(r.Burst), at: now}
		b.m[k] = bk
	}
	if el := now.Sub(bk.at); el > 0 {
		bk.tokens = min(float64(r.Burst), bk.tokens+float64(el)/float64(r.Every))
		bk.at = now
	}
	if bk.tokens >= 1 {
		bk.tokens--
		return true, 0
	}
	return false, time.Duration((1 - bk.tokens) * float64(r.Every))
}

// prune drops the buckets that have refilled; if that leaves too many, it
// drops the least recently used down to 3/4 of the bound.
func (b *Buckets) prune(now time.Time) {
	b.sweep = now
	for k, bk := range b.m {
		r := b.rates[k.class]
		if bk.tokens+float64(now.Sub(bk.at))/float64(r.Every) >= float64(r.Burst) {
			delete(b.m, k)
		}
	}
	if len(b.m) < b.max {
		return
	}
	// Rare (a flood from very many addresses): find the age below which
	// 3/4 of the bound stay.
	ages := make([]time.Duration, 0, len(b.m))
	for _, bk := range b.m {
		ages = append(ages, now.Sub(bk.at))
	}
	cut := nth(ages, b.max*3/4)
	for k, bk := range b.m {
		if now.Sub(bk.at) >= cut {
			delete(b.m, k)
		}
	}
}

// nth returns the k-th smallest of v (0-based; v is reordered).
func nth(v []time.Duration, k int) time.Duration {
	lo, hi := 0, len(v)-1
	for lo < hi {
		p := v[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for v[i] < p {
				i++
			}
			for v[j] > p {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}
