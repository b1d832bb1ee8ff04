package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/store"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/wasm/host"
	"github.com/normgym/normgym/wasm/simwasm"
)

func init() {
	commands["serve"] = command{"run the NormGym site: web app, verified runs, leaderboard, classrooms", cmdServe}
}

func cmdServe(e *env) error {
	fs := e.flags("serve", "[flags]",
		"Serves the web app and the API on --addr with an embedded SQLite database (--db). Submitted runs are\n"+
			"replayed through the embedded sim.wasm and stored only if they match. Stops cleanly on SIGINT or SIGTERM.")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (port 0: any free port)")
	dbPath := fs.String("db", "normgym.db", "SQLite database file (created if missing)")
	web := fs.String("web", "build/web", "directory of the built web app (make web)")
	tokenEnv := fs.String("admin-token-env", "NORMGYM_ADMIN_TOKEN", "environment variable holding the admin token for /api/export (unset: export disabled)")
	verify := fs.String("verify", "wasm", "how runs are replayed: wasm (sim.wasm under wazero) or native (the Go core, checked against sim.wasm at start; ~20x faster)")
	replayTimeout := fs.Duration("replay-timeout", 10*time.Second, "longest time one replay may take")
	fsync := fs.Bool("fsync", false, "fsync every commit (synchronous=FULL): survive power loss, not just a crash, at some speed")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError("serve takes no arguments, got %q", pos[0])
	}
	if *verify != "wasm" && *verify != "native" {
		return usageError("--verify must be wasm or native, not %q", *verify)
	}
	if *replayTimeout <= 0 {
		return usageError("--replay-timeout must be positive")
	}
	log := slog.New(slog.NewJSONHandler(e.stderr, nil))
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Replays are bounded (sim.MaxActions steps), so wazero's per-loop
	// context checks (a ~3x slowdown) buy nothing: a deadline is checked
	// before each call instead.
	opts := host.Options{Uninterruptible: true}
	if dir, err := os.UserCacheDir(); err == nil {
		opts.CacheDir = filepath.Join(dir, "normgym", "wazero")
		if err := os.MkdirAll(opts.CacheDir, 0o755); err != nil {
			opts.CacheDir = ""
		}
	}
	rt, err := host.New(ctx, simwasm.Bytes(), opts)
	if err != nil {
		return err
	}
	defer rt.Close(context.Background())
	v := server.Wasm(rt)
	if *verify == "native" {
		nv := server.Native(rt.SHA256())
		if err := server.CrossCheck(ctx, v, nv, sampleRecords(rt.SHA256())); err != nil {
			return err
		}
		v = nv
	}
	syncMode := ""
	if *fsync {
		syncMode = "FULL"
	}
	st, err := store.Open(ctx, *dbPath, store.Options{Synchronous: syncMode})
	if err != nil {
		return err
	}
	defer st.Close()
	srv, err := server.New(server.Options{Store: st, Verifier: v, Web: *web, AdminToken: os.Getenv(*tokenEnv),
		AdminTokenEnv: *tokenEnv, Logger: log, ReplayTimeout: *replayTimeout})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 64 << 10, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	export := "disabled (set $" + *tokenEnv + ")"
	if os.Getenv(*tokenEnv) != "" {
		export = "enabled"
	}
	fmt.Fprintf(e.stdout, "normgym: serving on http://%s (db %s, web %s, verify %s with sim.wasm %.12s, export %s)\n",
		ln.Addr(), *dbPath, *web, v.Kind(), rt.SHA256(), export)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	fmt.Fprintln(e.stdout, "normgym: stopped")
	return nil
}

// sampleRecords plays a few visits of the mini suite natively (one per
// family and condition where possible) for the native verifier's
// cross-check, with one probe answer tampered with.
func sampleRecords(sha string) []sim.Record {
	su, _ := sim.LookupSuite("mini")
	var out []sim.Record
	for i := 0; i < len(su.Visits); i += 7 {
		v := su.Visits[i]
		env, err := agents.Play(v, "observer")
		if err != nil {
			continue
		}
		rec := env.Record("observer", "baseline")
		rec.SimSHA256 = sha
		out = append(out, rec)
	}
	if len(out) > 0 && out[0].Probe != nil {
		forged := out[0]
		pr := *forged.Probe
		pr.Correct = !pr.Correct
		forged.Probe = &pr
		forged.Scores.Joint = !forged.Scores.Joint
		out = append(out, forged)
	}
	return out
}
