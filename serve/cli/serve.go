package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
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
	opts                server.Options
	srv                 *server.Server
}

func cmdServe(e *env) error {
	f := newServeFlags(e)
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
	s.opts = server.Options{Store: s.st, Verifier: s.verifier, Web: s.site, AdminToken: os.Getenv(*f.tokenEnv),
		AdminTokenEnv: *f.tokenEnv, Logger: s.log, ReplayTimeout: *f.replayTimeout, MaxBody: *f.maxBody,
		Limiter: limit.NewBuckets(f.limits, nil), ClientHeader: *f.clientHeader, OpenRooms: *f.openRooms, TeacherKeys: s.keys,
		RoomTTL: *f.roomTTL, Engine: s.engine, Private: s.private, SubmitterKeys: s.subs, StudyKeys: s.studies}
	// Sessions beyond SessionsLive stay stored and are rebuilt when they act.
	f.sessionOptions(&s.opts, s.rt.Capacity())
	s.srv, err = server.New(s.opts)
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
	hs, ln := s.srv.HTTPServer(raw, f.httpOptions(slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)))
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
	f.banner(e.stdout, s.opts)
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
