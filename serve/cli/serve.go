package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
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
	"github.com/normgym/normgym/web/dist"
)

const serveAbout = "Serves the web app and the API on --addr with an embedded SQLite database (--db). Submitted runs are\n" +
	"replayed through the embedded sim.wasm and stored only if they match. Stops cleanly on SIGINT or SIGTERM."

// serveFlags are serve's flags.
type serveFlags struct {
	fs                                                                  *flag.FlagSet
	addr, dbPath, web, tokenEnv, verify, clientHeader, teacherKeys      *string
	step, submitterKeys, baselines, privateCatalog                      *string
	studyKeys                                                           func(*slog.Logger) (server.TeacherKeys, error)
	replayTimeout, readHeaderTimeout, readTimeout, writeTimeout, idleTO *time.Duration
	roomTTL, sessionTTL                                                 *time.Duration
	fsync, openRooms                                                    *bool
	maxBody                                                             *int64
	maxConns, maxConnsPerIP                                             *int
	limits                                                              limitFlag
}

// addServeFlags registers serve's flags on a FlagSet of e.
func addServeFlags(e *env) *serveFlags {
	fs := e.flags("serve", "[flags]", serveAbout)
	f := &serveFlags{fs: fs, limits: limitFlag(server.DefaultLimits())}
	f.addr = fs.String("addr", "127.0.0.1:8080", "listen address (port 0: any free port)")
	f.dbPath = fs.String("db", "normgym.db", "SQLite database file (created if missing)")
	f.web = fs.String("web", "", "serve the web app from this directory (development) instead of the one built into the binary")
	f.tokenEnv = fs.String("admin-token-env", "NORMGYM_ADMIN_TOKEN", "environment variable holding the admin token for /api/export (unset: export disabled)")
	f.verify = fs.String("verify", "wasm", "how runs are replayed: wasm (sim.wasm under wazero) or native (the Go core, checked against sim.wasm at start; several times faster: make bench-serve measures both)")
	f.replayTimeout = fs.Duration("replay-timeout", 10*time.Second, "longest time one replay may take")
	f.fsync = fs.Bool("fsync", false, "fsync every commit (synchronous=FULL): survive power loss, not just a crash, at some speed")
	// Limits for a public server (README: "Running a public server").
	fs.Var(f.limits, "limit", "a client's rate limit for a class of request, CLASS=N/UNIT:BURST or CLASS=off (repeatable; classes "+
		"read, write, lookup, rooms and static, which is unlimited unless set)")
	f.clientHeader = fs.String("trust-proxy-header", "", "header in which a trusted reverse proxy passes the client's address (e.g. X-Forwarded-For: its last address); "+
		"set it only if every request comes through that proxy (empty: the connection's peer is the client)")
	f.maxBody = fs.Int64("max-body", server.DefaultMaxBody, "largest request body in bytes (the largest honest submission is about 58 KB)")
	f.maxConns = fs.Int("max-conns", 1024, "most connections open at once (more wait to be accepted; 0: no bound)")
	f.maxConnsPerIP = fs.Int("max-conns-per-ip", 256, "most connections open at once from one address (more are closed; 0: no bound; off with --trust-proxy-header)")
	f.readHeaderTimeout = fs.Duration("read-header-timeout", 5*time.Second, "longest time to read a request's headers")
	f.readTimeout = fs.Duration("read-timeout", 20*time.Second, "longest time to read a whole request, body included")
	f.writeTimeout = fs.Duration("write-timeout", time.Minute, "longest time to write an answer (exports extend it page by page)")
	f.idleTO = fs.Duration("idle-timeout", time.Minute, "how long an idle keep-alive connection stays open")
	f.openRooms = fs.Bool("open-rooms", false, "let anyone create a classroom: for a local or classroom-only server (default: only holders of a teacher key, see --teacher-keys); a room's runs are its class's, never the public human row")
	f.teacherKeys = fs.String("teacher-keys", "", "file of teacher keys (lines \"LABEL SHA256\" from normgym teacher-key LABEL; re-read when it changes) that may create classrooms")
	f.roomTTL = fs.Duration("room-ttl", server.DefaultRoomTTL, "how long a classroom takes students after it is created (its teacher can read it after)")
	f.step = fs.String("step", "wasm", "how sessions are stepped: wasm (sim.wasm under wazero) or native (the Go core, checked against sim.wasm at start; about 1.7x the steps per second)")
	f.sessionTTL = fs.Duration("session-ttl", session.DefaultTTL, "how long a session waits for its next action before it expires (a visit is played once: an expired one is lost)")
	f.submitterKeys = fs.String("submitter-keys", "", "file of submitter keys (lines \"LABEL SHA256\" from normgym submitter-key LABEL; re-read when it changes): "+
		"their holders' sessions are stored under LABEL as server-stepped model runs")
	f.baselines = fs.String("baselines", "mini,standard", "suites whose baseline rows the server computes itself, in the background after start "+
		"(natively, the runs it lacks; standard takes about four minutes of one core the first time); \"none\" for none")
	f.studyKeys = studyKeysFlag(fs)
	f.privateCatalog = fs.String("private-catalog", "", "file of a private suite (norms and seeds that are never served; README: \"A private suite\"): played through submitter keys' sessions only")
	return f
}

// check refuses flags that do not go together.
func (f *serveFlags) check(pos []string) error {
	switch {
	case len(pos) > 0:
		return usageError("serve takes no arguments, got %q", pos[0])
	case *f.verify != "wasm" && *f.verify != "native":
		return usageError("--verify must be wasm or native, not %q", *f.verify)
	case *f.step != "wasm" && *f.step != "native":
		return usageError("--step must be wasm or native, not %q", *f.step)
	case *f.replayTimeout <= 0:
		return usageError("--replay-timeout must be positive")
	case *f.maxBody < 1024:
		return usageError("--max-body must be at least 1024 bytes")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"read-header-timeout", *f.readHeaderTimeout}, {"read-timeout", *f.readTimeout}, {"write-timeout", *f.writeTimeout},
		{"idle-timeout", *f.idleTO}, {"room-ttl", *f.roomTTL}, {"session-ttl", *f.sessionTTL}} {
		if d.v <= 0 {
			return usageError("--%s must be positive", d.name)
		}
	}
	return nil
}

// perIP is --max-conns-per-ip, off behind a trusted proxy unless given:
// every connection then comes from the proxy.
func (f *serveFlags) perIP() int {
	if *f.clientHeader != "" && !flagSet(f.fs, "max-conns-per-ip") {
		return 0
	}
	return *f.maxConnsPerIP
}

// serverRun is what cmdServe runs: the module, the engines, the store, the
// site and the server, with what the keys and the private suite say.
type serverRun struct {
	f                   *serveFlags
	log                 *slog.Logger
	keys, subs, studies server.TeacherKeys
	private             *server.PrivateSuite
	suites              []string // the baselines' suites
	rt                  *host.Runtime
	verifier            server.Verifier
	engine              session.Engine
	st                  *store.Store
	site                fs.FS
	siteName            string
	srv                 *server.Server
}

func cmdServe(e *env) error {
	f := addServeFlags(e)
	pos, err := e.parse(f.fs)
	if err != nil {
		return err
	}
	if err := f.check(pos); err != nil {
		return err
	}
	s := &serverRun{f: f, log: slog.New(slog.NewJSONHandler(e.stderr, nil))}
	if err := s.readFiles(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer s.close()
	if err := s.open(ctx); err != nil {
		return err
	}
	return s.serve(ctx, e)
}

// readFiles reads the keys' files and the private suite.
func (s *serverRun) readFiles() error {
	var err error
	if path := *s.f.teacherKeys; path != "" {
		if s.keys, err = server.TeacherKeyFile(path, func(err error) { s.log.Error("teacher keys", "err", err) }); err != nil {
			return err
		}
	}
	if path := *s.f.submitterKeys; path != "" {
		if s.subs, err = server.TeacherKeyFile(path, func(err error) { s.log.Error("submitter keys", "err", err) }); err != nil {
			return err
		}
	}
	if s.studies, err = s.f.studyKeys(s.log); err != nil {
		return err
	}
	if path := *s.f.privateCatalog; path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if s.private, err = server.LoadPrivateSuite(b); err != nil {
			return err
		}
	}
	if b := *s.f.baselines; b != "none" && b != "" {
		s.suites = strings.Split(b, ",")
		for _, name := range s.suites {
			if _, err := sim.LookupSuite(name); err != nil && (s.private == nil || name != s.private.Name) {
				return usageError("--baselines: unknown suite %q", name)
			}
		}
	}
	return nil
}

// open loads sim.wasm, chooses the verifier and the engine, and opens the
// store, the site and the server.
func (s *serverRun) open(ctx context.Context) error {
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
	var err error
	if s.rt, err = host.New(ctx, simwasm.Bytes(), opts); err != nil {
		return err
	}
	if err := s.engines(ctx); err != nil {
		return err
	}
	syncMode := ""
	if *s.f.fsync {
		syncMode = "FULL"
	}
	if s.st, err = store.Open(ctx, *s.f.dbPath, store.Options{Synchronous: syncMode}); err != nil {
		return err
	}
	if err := s.webFiles(); err != nil {
		return err
	}
	f := s.f
	s.srv, err = server.New(server.Options{Store: s.st, Verifier: s.verifier, Web: s.site, AdminToken: os.Getenv(*f.tokenEnv),
		AdminTokenEnv: *f.tokenEnv, Logger: s.log, ReplayTimeout: *f.replayTimeout, MaxBody: *f.maxBody,
		Limiter: limit.NewBuckets(f.limits, nil), ClientHeader: *f.clientHeader, OpenRooms: *f.openRooms, TeacherKeys: s.keys,
		RoomTTL: *f.roomTTL, Engine: s.engine, Private: s.private, SessionTTL: *f.sessionTTL, SubmitterKeys: s.subs, StudyKeys: s.studies,
		// Half of what sim.wasm can hold open; the rest is the verifier's.
		// Sessions beyond stay stored and are rebuilt when they act.
		SessionsLive: s.rt.Capacity() / 2})
	return err
}

// native reports whether the native core steps or verifies.
func (s *serverRun) native() bool {
	return *s.f.verify == "native" || *s.f.step == "native" || s.private != nil
}

// engines chooses how runs are verified and sessions stepped; the native
// core is checked against sim.wasm first.
func (s *serverRun) engines(ctx context.Context) error {
	sha := s.rt.SHA256()
	s.verifier, s.engine = server.Wasm(s.rt), session.Wasm(s.rt)
	if s.native() {
		if err := server.CrossCheck(ctx, s.verifier, server.Native(sha), sampleRecords(sha)); err != nil {
			return err
		}
	}
	if *s.f.verify == "native" {
		s.verifier = server.Native(sha)
	}
	if *s.f.step == "native" {
		s.engine = session.Native(sha)
	}
	return nil
}

// webFiles chooses the site's files: the embedded build, or --web.
func (s *serverRun) webFiles() error {
	s.site, s.siteName = dist.FS(), "embedded"
	if !dist.Built() {
		s.siteName = "not built: run make build"
	}
	if dir := *s.f.web; dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return usageError("--web %s: not a directory", dir)
		}
		s.site, s.siteName = os.DirFS(dir), dir
	}
	return nil
}

// close closes what open opened.
func (s *serverRun) close() {
	if s.srv != nil {
		s.srv.Close()
	}
	if s.st != nil {
		s.st.Close()
	}
	if s.rt != nil {
		s.rt.Close(context.Background())
	}
}

// serve listens, says so, computes the baselines in the background and
// serves until ctx ends, then shuts down.
func (s *serverRun) serve(ctx context.Context, e *env) error {
	f := s.f
	raw, err := net.Listen("tcp", *f.addr)
	if err != nil {
		return err
	}
	ln := limit.Listen(raw, *f.maxConns, f.perIP())
	hs := &http.Server{Handler: s.srv, ReadHeaderTimeout: *f.readHeaderTimeout, ReadTimeout: *f.readTimeout, WriteTimeout: *f.writeTimeout,
		IdleTimeout: *f.idleTO, MaxHeaderBytes: 16 << 10, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	s.announce(e, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if len(s.suites) > 0 {
		go s.computeBaselines(ctx)
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	fmt.Fprintln(e.stdout, "normgym: stopped")
	return nil
}

// announce prints what the server serves and how.
func (s *serverRun) announce(e *env, addr net.Addr) {
	f := s.f
	export := "disabled (set $" + *f.tokenEnv + ")"
	if os.Getenv(*f.tokenEnv) != "" {
		export = "enabled"
	}
	rooms := "teacher keys only"
	switch {
	case *f.openRooms:
		rooms = "open to anyone"
	case s.keys == nil:
		rooms = "closed (no --teacher-keys)"
	}
	fmt.Fprintf(e.stdout, "normgym: serving on http://%s (db %s, web %s, verify %s with sim.wasm %.12s, export %s, rooms %s)\n",
		addr, *f.dbPath, s.siteName, s.verifier.Kind(), s.rt.SHA256(), export, rooms)
	priv := "none"
	if p := s.private; p != nil {
		priv = fmt.Sprintf("%s (%d visits, version %s)", p.Name, len(p.Visits), p.Version)
	}
	fmt.Fprintf(e.stdout, "normgym: sessions stepped by %s, idle expiry %s; private suite %s\n", s.engine.Kind(), *f.sessionTTL, priv)
	fmt.Fprintf(e.stdout, "normgym: limits per client %s; body %d bytes; connections %d (%d per address); timeouts header %s, read %s, write %s\n",
		f.limits, *f.maxBody, *f.maxConns, f.perIP(), *f.readHeaderTimeout, *f.readTimeout, *f.writeTimeout)
}

// computeBaselines computes the baselines' rows the store lacks, natively:
// the core is checked against sim.wasm first (a few seconds), unless that
// was done at start.
func (s *serverRun) computeBaselines(ctx context.Context) {
	if !s.native() {
		sha := s.rt.SHA256()
		if err := server.CrossCheck(ctx, server.Wasm(s.rt), server.Native(sha), sampleRecords(sha)); err != nil {
			s.log.Error("baselines: the native core disagrees with sim.wasm: not computed", "err", err)
			return
		}
	}
	start := time.Now()
	n, err := s.srv.ComputeBaselines(ctx, s.suites, func(suite, agent string, stored int) {
		if stored > 0 {
			s.log.Info("baselines", "suite", suite, "agent", agent, "stored", stored)
		}
	})
	if err != nil && ctx.Err() == nil {
		s.log.Error("baselines", "err", err)
		return
	}
	s.log.Info("baselines done", "suites", strings.Join(s.suites, ","), "stored", n, "seconds", int(time.Since(start).Seconds()))
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
