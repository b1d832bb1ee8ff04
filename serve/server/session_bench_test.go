package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/simwasm"
)

// BenchmarkSessionStep measures the latency of one session step over
// loopback HTTP (POST /api/session/step: the action stored in SQLite,
// stepped, the observation's JSON and text sent back), with 1, 10 and 100
// sessions stepping at once, for sessions stepped in sim.wasm (normgym
// serve's default) and natively (--step native), in two loads:
//
//   - closed: each session sends its next action as soon as the answer
//     arrives (no thinking time: the server saturated, the worst case);
//     min(b.N, 150) steps each (make bench: 150);
//   - paced: each session thinks 250 ms between actions (4 actions a
//     second, faster than a person or a model), 40 steps each.
//
// It reports p50 and p95 in milliseconds and steps/s, and logs the
// machine's load average, which the figures depend on (the machine is
// shared).
func BenchmarkSessionStep(b *testing.B) {
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		b.Logf("load average before: %s", strings.TrimSpace(string(load)))
	}
	mini, _ := sim.LookupSuite("mini")
	for _, eng := range []session.Engine{session.Wasm(rt), session.Native(simwasm.SHA256())} {
		for _, paced := range []bool{false, true} {
			for _, c := range []int{1, 10, 100} {
				mode := "closed"
				if paced {
					mode = "paced"
				}
				b.Run(fmt.Sprintf("%s/%s/sessions=%d", eng.Kind(), mode, c), func(b *testing.B) {
					e := newEnv(b, func(o *server.Options) { o.Engine = eng })
					steps := min(max(b.N, 10), 150)
					var think time.Duration
					if paced {
						steps, think = 40, 250*time.Millisecond
					}
					// Open the sessions first: the latency is of steps only.
					tokens := make([]string, c)
					for i := range tokens {
						st, body, _ := e.do("POST", "/api/sessions", api.SessionRequest{Visit: mini.Visits[i%len(mini.Visits)]})
						if st != http.StatusCreated {
							b.Fatalf("opening a session: %d %s", st, body)
						}
						var s api.SessionState
						json.Unmarshal(body, &s)
						tokens[i] = s.Session
					}
					moves := []string{"north", "east", "south", "west", "wait"}
					lat := make([][]time.Duration, c)
					var wg sync.WaitGroup
					var failed error
					var mu sync.Mutex
					b.ResetTimer()
					start := time.Now()
					for w := range c {
						wg.Add(1)
						go func() {
							defer wg.Done()
							client := &http.Client{}
							if think > 0 {
								// Spread the sessions' first actions over one think time.
								time.Sleep(think * time.Duration(w) / time.Duration(c))
							}
							for k := range steps {
								if think > 0 && k > 0 {
									time.Sleep(think)
								}
								body, _ := json.Marshal(api.SessionStep{Action: moves[(k+w)%len(moves)]})
								req, _ := http.NewRequest("POST", e.http.URL+"/api/session/step", bytes.NewReader(body))
								req.Header.Set("Content-Type", "application/json")
								req.Header.Set("Authorization", "Bearer "+tokens[w])
								t0 := time.Now()
								resp, err := client.Do(req)
								if err == nil {
									_, err = io.Copy(io.Discard, resp.Body)
									resp.Body.Close()
									if resp.StatusCode == http.StatusConflict {
										break // the visit is over
									}
									if resp.StatusCode != http.StatusOK {
										err = fmt.Errorf("step: %d", resp.StatusCode)
									}
								}
								if err != nil {
									mu.Lock()
									failed = err
									mu.Unlock()
									return
								}
								lat[w] = append(lat[w], time.Since(t0))
							}
						}()
					}
					wg.Wait()
					elapsed := time.Since(start)
					b.StopTimer()
					if failed != nil {
						b.Fatal(failed)
					}
					all := slices.Concat(lat...)
					slices.Sort(all)
					ms := func(q float64) float64 {
						return float64(all[min(len(all)-1, int(q*float64(len(all))))].Microseconds()) / 1000
					}
					b.ReportMetric(float64(len(all))/elapsed.Seconds(), "steps/s")
					b.ReportMetric(ms(0.50), "p50_ms")
					b.ReportMetric(ms(0.95), "p95_ms")
					b.ReportMetric(0, "ns/op")
				})
			}
		}
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		b.Logf("load average after: %s", strings.TrimSpace(string(load)))
	}
}
