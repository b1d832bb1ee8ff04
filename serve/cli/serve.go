package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/normgym/normgym/web/dist"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
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
	web := fs.String("web", "", "serve the web app from this directory (development) instead of the one built into the binary")
	tokenEnv := fs.String("admin-token-env", "NORMGYM_ADMIN_TOKEN", "environment variable holding the admin token for /api/export (unset: export disabled)")
	verify := fs.String("verify", "wasm", "how runs are replayed: wasm (sim.wasm under wazero) or native (the Go core, checked against sim.wasm at start; several times faster: make bench-serve measures both)")
	replayTimeout := fs.Duration("replay-timeout", 10*time.Second, "longest time one replay may take")
	fsync := fs.Bool("fsync", false, "fsync every commit (synchronous=FULL): survive power loss, not just a crash, at some speed")
	// Limits for a public server (README: "Running a public server").
	limits := limitFlag(server.DefaultLimits())
	fs.Var(limits, "limit", "a client's rate limit for a class of request, CLASS=N/UNIT:BURST or CLASS=off (repeatable; classes "+
		"read, write, lookup, rooms and static, which is unlimited unless set)")
	clientHeader := fs.String("trust-proxy-header", "", "header in which a trusted reverse proxy passes the client's address (e.g. X-Forwarded-For: its last address); "+
		"set it only if every request comes through that proxy (empty: the connection's peer is the client)")
	maxBody := fs.Int64("max-body", server.DefaultMaxBody, "largest request body in bytes (the largest honest submission is about 58 KB)")
	maxConns := fs.Int("max-conns", 1024, "most connections open at once (more wait to be accepted; 0: no bound)")
	maxConnsPerIP := fs.Int("max-conns-per-ip", 256, "most connections open at once from one address (more are closed; 0: no bound; off with --trust-proxy-header)")
	readHeaderTimeout := fs.Duration("read-header-timeout", 5*time.Second, "longest time to read a request's headers")
	readTimeout := fs.Duration("read-timeout", 20*time.Second, "longest time to read a whole request, body included")
	writeTimeout := fs.Duration("write-timeout", time.Minute, "longest time to write an answer (exports extend it page by page)")
	idleTimeout := fs.Duration("idle-timeout", time.Minute, "how long an idle keep-alive connection stays open")
	openRooms := fs.Bool("open-rooms", false, "let anyone create a classroom: for a local or classroom-only server (default: only holders of a teacher key, see --teacher-keys); a room's runs are its class's, never the public human row")
	teacherKeys := fs.String("teacher-keys", "", "file of teacher keys (lines \"LABEL SHA256\" from normgym teacher-key LABEL; re-read when it changes) that may create classrooms")
	roomTTL := fs.Duration("room-ttl", server.DefaultRoomTTL, "how long a classroom takes students after it is created (its teacher can read it after)")
	step := fs.String("step", "wasm", "how sessions are stepped: wasm (sim.wasm under wazero) or native (the Go core, checked against sim.wasm at start; about 1.7x the steps per second)")
	sessionTTL := fs.Duration("session-ttl", session.DefaultTTL, "how long a session waits for its next action before it expires (a visit is played once: an expired one is lost)")
	submitterKeys := fs.String("submitter-keys", "", "file of submitter keys (lines \"LABEL SHA256\" from normgym submitter-key LABEL; re-read when it changes): "+
		"their holders' sessions are stored under LABEL as server-stepped model runs")
	baselines := fs.String("baselines", "mini,standard", "suites whose baseline rows the server computes itself, in the background after start "+
		"(natively, the runs it lacks; standard takes about four minutes of one core the first time); \"none\" for none")
	studyKeys := studyKeysFlag(fs)
	privateCatalog := fs.String("private-catalog", "", "file of a private suite (norms and seeds that are never served; README: \"A private suite\"): played through submitter keys' sessions only")
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
	if *step != "wasm" && *step != "native" {
		return usageError("--step must be wasm or native, not %q", *step)
	}
	if *replayTimeout <= 0 {
		return usageError("--replay-timeout must be positive")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"read-header-timeout", *readHeaderTimeout}, {"read-timeout", *readTimeout}, {"write-timeout", *writeTimeout},
		{"idle-timeout", *idleTimeout}, {"room-ttl", *roomTTL}, {"session-ttl", *sessionTTL}} {
		if d.v <= 0 {
			return usageError("--%s must be positive", d.name)
		}
	}
	if *maxBody < 1024 {
		return usageError("--max-body must be at least 1024 bytes")
	}
	perIP := *maxConnsPerIP
	if *clientHeader != "" && !flagSet(fs, "max-conns-per-ip") {
		perIP = 0 // every connection comes from the proxy
	}
	log := slog.New(slog.NewJSONHandler(e.stderr, nil))
	var keys server.TeacherKeys
	if *teacherKeys != "" {
		if keys, err = server.TeacherKeyFile(*teacherKeys, func(err error) { log.Error("teacher keys", "err", err) }); err != nil {
			return err
		}
	}
	var subKeys server.TeacherKeys
	if *submitterKeys != "" {
		if subKeys, err = server.TeacherKeyFile(*submitterKeys, func(err error) { log.Error("submitter keys", "err", err) }); err != nil {
			return err
		}
	}
	stKeys, err := studyKeys(log)
	if err != nil {
		return err
	}
	var private *server.PrivateSuite
	if *privateCatalog != "" {
		b, err := os.ReadFile(*privateCatalog)
		if err != nil {
			return err
		}
		if private, err = server.LoadPrivateSuite(b); err != nil {
			return err
		}
	}
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
	if err := simwasm.Err(); err != nil {
		return err
	}
	rt, err := host.New(ctx, simwasm.Bytes(), opts)
	if err != nil {
		return err
	}
	defer rt.Close(context.Background())
	v := server.Wasm(rt)
	var baselineSuites []string
	if *baselines != "none" && *baselines != "" {
		baselineSuites = strings.Split(*baselines, ",")
		for _, name := range baselineSuites {
			if _, err := sim.LookupSuite(name); err != nil && (private == nil || name != private.Name) {
				return usageError("--baselines: unknown suite %q", name)
			}
		}
	}
	if *verify == "native" || *step == "native" || private != nil {
		// The native core steps or verifies: check it against sim.wasm first.
		if err := server.CrossCheck(ctx, v, server.Native(rt.SHA256()), sampleRecords(rt.SHA256())); err != nil {
			return err
		}
	}
	if *verify == "native" {
		v = server.Native(rt.SHA256())
	}
	engine := session.Wasm(rt)
	if *step == "native" {
		engine = session.Native(rt.SHA256())
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
	site, siteName := dist.FS(), "embedded"
	if !dist.Built() {
		siteName = "not built: run make build"
	}
	if *web != "" {
		if fi, err := os.Stat(*web); err != nil || !fi.IsDir() {
			return usageError("--web %s: not a directory", *web)
		}
		site, siteName = os.DirFS(*web), *web
	}
	srv, err := server.New(server.Options{Store: st, Verifier: v, Web: site, AdminToken: os.Getenv(*tokenEnv),
		AdminTokenEnv: *tokenEnv, Logger: log, ReplayTimeout: *replayTimeout, MaxBody: *maxBody,
		Limiter: limit.NewBuckets(limits, nil), ClientHeader: *clientHeader, OpenRooms: *openRooms, TeacherKeys: keys, RoomTTL: *roomTTL,
		Engine: engine, Private: private, SessionTTL: *sessionTTL, SubmitterKeys: subKeys, StudyKeys: stKeys,
		// Half of what sim.wasm can hold open; the rest is the verifier's.
		// Sessions beyond stay stored and are rebuilt when they act.
		SessionsLive: rt.Capacity() / 2})
	if err != nil {
		return err
	}
	defer srv.Close()
	raw, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	ln := limit.Listen(raw, *maxConns, perIP)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: *readHeaderTimeout, ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout,
		IdleTimeout: *idleTimeout, MaxHeaderBytes: 16 << 10, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	export := "disabled (set $" + *tokenEnv + ")"
	if os.Getenv(*tokenEnv) != "" {
		export = "enabled"
	}
	rooms := "teacher keys only"
	switch {
	case *openRooms:
		rooms = "open to anyone"
	case keys == nil:
		rooms = "closed (no --teacher-keys)"
	}
	fmt.Fprintf(e.stdout, "normgym: serving on http://%s (db %s, web %s, verify %s with sim.wasm %.12s, export %s, rooms %s)\n",
		ln.Addr(), *dbPath, siteName, v.Kind(), rt.SHA256(), export, rooms)
	priv := "none"
	if private != nil {
		priv = fmt.Sprintf("%s (%d visits, version %s)", private.Name, len(private.Visits), private.Version)
	}
	fmt.Fprintf(e.stdout, "normgym: sessions stepped by %s, idle expiry %s; private suite %s\n", engine.Kind(), *sessionTTL, priv)
	fmt.Fprintf(e.stdout, "normgym: limits per client %s; body %d bytes; connections %d (%d per address); timeouts header %s, read %s, write %s\n",
		limits, *maxBody, *maxConns, perIP, *readHeaderTimeout, *readTimeout, *writeTimeout)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if len(baselineSuites) > 0 {
		go func() {
			// The baselines run natively: check the core against sim.wasm
			// first (a few seconds), unless that was done above.
			if *verify != "native" && *step != "native" && private == nil {
				if err := server.CrossCheck(ctx, server.Wasm(rt), server.Native(rt.SHA256()), sampleRecords(rt.SHA256())); err != nil {
					log.Error("baselines: the native core disagrees with sim.wasm: not computed", "err", err)
					return
				}
			}
			start := time.Now()
			n, err := srv.ComputeBaselines(ctx, baselineSuites, func(suite, agent string, stored int) {
				if stored > 0 {
					log.Info("baselines", "suite", suite, "agent", agent, "stored", stored)
				}
			})
			if err != nil && ctx.Err() == nil {
				log.Error("baselines", "err", err)
				return
			}
			log.Info("baselines done", "suites", strings.Join(baselineSuites, ","), "stored", n, "seconds", int(time.Since(start).Seconds()))
		}()
	}
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

// limitFlag is the --limit flag: rates by class, set one class at a time.
type limitFlag map[string]limit.Rate

func (f limitFlag) String() string {
	classes := make([]string, 0, len(f))
	for c := range f {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	parts := make([]string, len(classes))
	for i, c := range classes {
		parts[i] = c + "=" + f[c].String()
	}
	return strings.Join(parts, " ")
}

func (f limitFlag) Set(s string) error {
	class, rate, ok := strings.Cut(s, "=")
	if !slices.Contains(server.Classes(), class) {
		return fmt.Errorf("want CLASS=RATE with CLASS one of %s, not %q", strings.Join(server.Classes(), ", "), s)
	}
	if !ok {
		return fmt.Errorf("want CLASS=RATE such as %s=5/s:60", class)
	}
	r, err := limit.ParseRate(rate)
	if err != nil {
		return err
	}
	f[class] = r
	return nil
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func init() {
	commands["teacher-key"] = command{"make a teacher key for a server's --teacher-keys file", cmdTeacherKey}
	commands["submitter-key"] = command{"make a submitter key for a server's --submitter-keys file", cmdSubmitterKey}
}

func cmdSubmitterKey(e *env) error {
	fs := e.flags("submitter-key", "LABEL",
		"Makes a random submitter key. Give the key to whoever runs the model (it opens server-stepped sessions whose runs\n"+
			"are stored under LABEL and shown as server-stepped on the leaderboard) and add the line it prints to the file of\n"+
			"normgym serve --submitter-keys: the file holds the key's hash, not the key. LABEL is the name of the key's row\n"+
			"(the model: gpt-5-mini, lab-7.agent; letters, digits, '.', '_', '-'). Remove the line to revoke the key.")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("submitter-key needs one LABEL")
	}
	key, line, err := server.NewSubmitterKey(pos[0])
	if err != nil {
		return usageError("%s", strings.TrimPrefix(err.Error(), "server: "))
	}
	fmt.Fprintf(e.stdout, "key (give it to the model's runner; it is not stored anywhere): %s\nline for the --submitter-keys file:\n%s\n", key, line)
	return nil
}

func cmdTeacherKey(e *env) error {
	fs := e.flags("teacher-key", "LABEL",
		"Makes a random teacher key. Give the key to the teacher (it lets them create classrooms on the /teach page)\n"+
			"and add the line it prints to the file of normgym serve --teacher-keys: the file holds the key's hash, not\n"+
			"the key. LABEL names the key for you (school-3, period-2; letters, digits, '.', '_', '-'; no email): rooms keep it.\n"+
			"Remove the line to revoke the key; the server re-reads the file when it changes.")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("teacher-key needs one LABEL")
	}
	key, line, err := server.NewTeacherKey(pos[0])
	if err != nil {
		return usageError("%s", strings.TrimPrefix(err.Error(), "server: "))
	}
	fmt.Fprintf(e.stdout, "key (give it to the teacher; it is not stored anywhere): %s\nline for the --teacher-keys file:\n%s\n", key, line)
	return nil
}
