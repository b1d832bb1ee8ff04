//go:build !js

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/sim"
)

// BenchmarkWorkerStep plays whole visits (160 waits) of practice
// sessions on the Worker under wrangler dev (the build of `make worker`,
// a fresh local D1) and on normgym serve's handler on loopback (the
// native core, as the Worker steps, and SQLite), a step on one and then
// on the other, and reports each one's step time: p50 and p95 over the
// visit, and the p50 of the first and of the last ten steps (a step that
// replayed the visit would grow from the first to the last), and, as the
// floor under wrangler dev, the time it takes to serve a static file of
// the app. `make bench` runs it after `make worker`; without
// serve/worker/build it is skipped.
func BenchmarkWorkerStep(b *testing.B) {
	w := benchWorker(b)
	_, hs := native(b, w)
	mini, err := sim.LookupSuite("mini")
	if err != nil {
		b.Fatal(err)
	}
	nat, wk := &target{name: "normgym serve", base: hs.URL}, &target{name: "wrangler dev", base: w.base}
	var natAll, wkAll, first, last, static []time.Duration
	b.ResetTimer()
	for i := range b.N {
		out := stepLatency(b, mini.Visits[(7+i)%len(mini.Visits)], nat, wk)
		natAll, wkAll = append(natAll, out[0]...), append(wkAll, out[1]...)
		n := min(10, len(out[1]))
		first, last = append(first, out[1][:n]...), append(last, out[1][len(out[1])-n:]...)
		// The floor: a file of the app, which wrangler dev serves without
		// the Worker's code, D1 or an object.
		for range len(out[1]) {
			t0 := time.Now()
			if st, _, _ := wk.do(b, "GET", "/manifest.json", nil); st != 200 {
				b.Fatalf("GET /manifest.json = %d", st)
			}
			static = append(static, time.Since(t0))
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	n, k := summarize(natAll), summarize(wkAll)
	f, l := summarize(first).p50, summarize(last).p50
	b.ReportMetric(ms(k.p50), "worker-p50-ms")
	b.ReportMetric(ms(k.p95), "worker-p95-ms")
	b.ReportMetric(ms(n.p50), "native-p50-ms")
	b.ReportMetric(ms(n.p95), "native-p95-ms")
	b.ReportMetric(ms(f), "worker-first10-p50-ms")
	b.ReportMetric(ms(l), "worker-last10-p50-ms")
	b.ReportMetric(ms(summarize(static).p50), "static-p50-ms")
	b.ReportMetric(ms(summarize(static).p95), "static-p95-ms")
	b.ReportMetric(float64(k.p95)/float64(n.p95), "worker/native-p95")
	b.ReportMetric(float64(l)/float64(f), "last10/first10")
	b.ReportMetric(0, "ns/op")
}

// benchWorker starts the Worker that `make worker` built in
// serve/worker/build under wrangler dev, from a folder of its own (a copy
// of wrangler.jsonc with absolute paths, a fresh local D1, no secrets:
// practice sessions need none); it is stopped when b ends.
func benchWorker(b *testing.B) *worker {
	wrangler, err := filepath.Abs(filepath.Join("node_modules", ".bin", "wrangler"))
	if err != nil {
		b.Fatal(err)
	}
	build, err := filepath.Abs("build")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(build, "app.wasm")); err != nil {
		b.Skip("worker: no serve/worker/build (make worker builds it)")
	}
	if _, err := os.Stat(wrangler); err != nil {
		b.Skip("worker: wrangler is not installed (make worker-deps)")
	}
	w := &worker{t: b, dir: b.TempDir(), wrangler: wrangler, assets: filepath.Join(build, "assets"), adminToken: randomHex(16)}
	if _, w.teacherKeyLine, err = server.NewTeacherKey("bench"); err != nil {
		b.Fatal(err)
	}
	if _, w.submitterKeyLine, err = server.NewSubmitterKey("bench"); err != nil {
		b.Fatal(err)
	}
	cfg := wranglerConfig(b)
	delete(cfg, "$schema")
	cfg["main"] = filepath.Join(build, "entry.mjs")
	cfg["assets"].(map[string]any)["directory"] = w.assets
	for _, db := range cfg["d1_databases"].([]any) {
		m := db.(map[string]any)
		abs, _ := filepath.Abs(m["migrations_dir"].(string))
		m["migrations_dir"] = abs
	}
	j, _ := json.MarshalIndent(cfg, "", "  ")
	w.workerDir = filepath.Join(w.dir, "worker")
	if err := os.MkdirAll(w.workerDir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.workerDir, "wrangler.jsonc"), j, 0o644); err != nil {
		b.Fatal(err)
	}
	w.start(true)
	return w
}
