package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/simwasm"
)

// BenchmarkSubmit measures verified submissions over loopback HTTP: each
// one decoded, replayed and stored in SQLite, 8 clients at once. It
// reports runs/s and the p50/p99 latency, for the sim.wasm verifier and
// the native one. make bench runs it with a bounded count.
func BenchmarkSubmit(b *testing.B) {
	su, _ := sim.LookupSuite("mini")
	var pool []sim.Record
	for _, v := range su.Visits[:20] {
		for _, a := range []string{"greedy", "oracle", "observer"} {
			pool = append(pool, record(b, v, a, "model"))
		}
	}
	for _, v := range []server.Verifier{server.Wasm(rt), server.Native(simwasm.SHA256())} {
		b.Run(v.Kind(), func(b *testing.B) {
			e := newEnv(b, func(o *server.Options) { o.Verifier = v })
			bodies := make([][]byte, b.N)
			for i := range bodies {
				bodies[i], _ = json.Marshal(submission(pool[i%len(pool)], ""))
			}
			lat, el := load(b, 8, b.N, func(i int) error {
				resp, err := http.Post(e.http.URL+"/api/runs", "application/json", bytes.NewReader(bodies[i]))
				if err != nil {
					return err
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					return fmt.Errorf("%d %s", resp.StatusCode, body)
				}
				return nil
			})
			reportLoad(b, lat, el, "runs/s")
		})
	}
}

// BenchmarkLeaderboard measures GET /api/leaderboard with 100,000 runs
// stored (bulk-inserted synthetic runs: 5 baselines, 20 models, humans),
// 4 clients at once.
func BenchmarkLeaderboard(b *testing.B) {
	e := newEnv(b)
	su, _ := sim.LookupSuite("standard")
	r := rand.New(rand.NewPCG(7, 8))
	const total, chunk = 100_000, 10_000
	start := time.Now()
	humans := 0
	for done := 0; done < total; done += chunk {
		runs := make([]domain.Run, 0, chunk)
		for i := 0; i < chunk; i++ {
			agent, client := "human", "human"
			switch k := r.IntN(10); {
			case k < 3:
				agent, client = []string{"random", "greedy", "oracle", "self", "observer"}[r.IntN(5)], "baseline"
			case k < 7:
				agent, client = fmt.Sprintf("model-%02d", r.IntN(20)), "model"
			}
			rec := synthetic(su.Visits[r.IntN(len(su.Visits))], agent, client, r)
			rec.Suite, rec.SuiteVersion = su.Name, su.Version
			p := ""
			if client == "human" {
				// A person meets each norm once (the store refuses a
				// second): every synthetic human run is its own person.
				p = fmt.Sprintf("participant-%06d", humans)
				humans++
			}
			runs = append(runs, domain.Run{RunID: fmt.Sprintf("bench-run-%09d", done+i), ContentSHA256: "x",
				CreatedAt: e.now, Participant: p, ConsentVersion: server.ConsentVersion, Record: rec})
		}
		if err := e.store.BulkPut(context.Background(), runs); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("bulk-inserted %d runs in %v", total, time.Since(start).Round(time.Millisecond))
	get := func(url string) func(int) error {
		return func(int) error {
			resp, err := http.Get(url)
			if err != nil {
				return err
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("status %d", resp.StatusCode)
			}
			return nil
		}
	}
	for _, path := range []string{"/api/leaderboard?suite=standard", "/leaderboard?suite=standard"} {
		b.Run(path[1:], func(b *testing.B) {
			lat, el := load(b, 4, b.N, get(e.http.URL+path))
			reportLoad(b, lat, el, "req/s")
		})
	}
	// The worst case: a run stored every 5 ms and no caching, so every
	// request recomputes the leaderboard from the totals.
	b.Run("api/leaderboard-uncached-under-writes", func(b *testing.B) {
		srv, err := server.New(server.Options{Store: e.store, Verifier: server.Wasm(rt), BoardTTL: -1})
		if err != nil {
			b.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
				rec := synthetic(su.Visits[i%len(su.Visits)], "greedy", "baseline", rand.New(rand.NewPCG(uint64(i), 9)))
				rec.Suite, rec.SuiteVersion = su.Name, su.Version
				e.store.PutRun(context.Background(), domain.Run{RunID: newRunID(), ContentSHA256: "x", CreatedAt: e.now,
					ConsentVersion: server.ConsentVersion, Record: rec})
			}
		}()
		lat, el := load(b, 1, b.N, get(hs.URL+"/api/leaderboard?suite=standard"))
		close(stop)
		wg.Wait()
		reportLoad(b, lat, el, "req/s")
	})
}

// load runs n calls of fn from c goroutines and returns their latencies
// and the wall time.
func load(b *testing.B, c, n int, fn func(i int) error) ([]time.Duration, time.Duration) {
	b.Helper()
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				t0 := time.Now()
				if err := fn(i); err != nil {
					failed.Store(err)
					return
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatal(err)
	}
	return lat, elapsed
}

// reportLoad prints the throughput and the latency percentiles.
func reportLoad(b *testing.B, lat []time.Duration, elapsed time.Duration, unit string) {
	slices.Sort(lat)
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), unit)
	ms := func(q float64) float64 {
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(ms(0.50), "p50_ms")
	b.ReportMetric(ms(0.99), "p99_ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkRefusals measures what hostile requests cost the server over
// loopback HTTP, 8 clients at once: a junk body of 64 KiB (15,000
// actions) refused before any replay, and a request refused by its
// rate limit. Junk costs what its bytes cost to read and check; a
// refusal by the limit is cheaper than any answer.
func BenchmarkRefusals(b *testing.B) {
	base := submission(record(b, normVisit, "greedy", "model"), "")
	junk := base
	junk.Record = clone(base.Record)
	for len(junk.Record.Actions) < 15000 {
		junk.Record.Actions = append(junk.Record.Actions, "n")
	}
	body, _ := json.Marshal(junk)
	for _, tc := range []struct {
		name    string
		limiter bool
		status  int
	}{{"junk", false, http.StatusBadRequest}, {"rate-limited", true, http.StatusTooManyRequests}} {
		b.Run(tc.name, func(b *testing.B) {
			e := newEnv(b, func(o *server.Options) {
				if tc.limiter {
					o.Limiter = nil // the default buckets: one client, its burst soon spent
				}
			})
			lat, el := load(b, 8, b.N, func(i int) error {
				resp, err := http.Post(e.http.URL+"/api/runs", "application/json", bytes.NewReader(body))
				if err != nil {
					return err
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tc.status && resp.StatusCode != http.StatusBadRequest {
					return fmt.Errorf("status %d, want %d", resp.StatusCode, tc.status)
				}
				return nil
			})
			reportLoad(b, lat, el, "requests/s")
		})
	}
	b.Logf("junk body: %d bytes", len(body))
}
