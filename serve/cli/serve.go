package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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

func init() {
	commands["serve"] = command{"run the NormGym site: web app, verified runs, leaderboard, classrooms", cmdServe}
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
	log := slog.New(slog.NewJSONHandler(e.stderr, nil))
	keys, subKeys, private, err := f.load(log)
	if err != nil {
		return err
	}
	baselineSuites, err := f.baselineSuites(private)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	rt, v, engine, err := f.engines(ctx, private)
	if err != nil {
		return err
	}
	defer rt.Close(context.Background())
	syncMode := ""
	if *f.fsync {
		syncMode = "FULL"
	}
	st, err := store.Open(ctx, *f.dbPath, store.Options{Synchronous: syncMode})
	if err != nil {
		return err
	}
	defer st.Close()
	site, siteName, err := f.site()
	if err != nil {
		return err
	}
	opts := server.Options{Store: st, Verifier: v, Web: site, AdminToken: os.Getenv(*f.tokenEnv),
		AdminTokenEnv: *f.tokenEnv, Logger: log, ReplayTimeout: *f.replayTimeout, MaxBody: *f.maxBody,
		Limiter: limit.NewBuckets(f.limits, nil), ClientHeader: *f.clientHeader, OpenRooms: *f.openRooms, TeacherKeys: keys, RoomTTL: *f.roomTTL,
		Engine: engine, Private: private, SubmitterKeys: subKeys}
	// Sessions beyond SessionsLive stay stored and are rebuilt when they act.
	f.sessionOptions(&opts, rt.Capacity())
	srv, err := server.New(opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	raw, err := net.Listen("tcp", *f.addr)
	if err != nil {
		return err
	}
	hs, ln := srv.HTTPServer(raw, f.httpOptions(slog.NewLogLogger(log.Handler(), slog.LevelWarn)))
	f.describe(e.stdout, ln.Addr().String(), siteName, v, rt, engine, private, keys != nil, opts)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if len(baselineSuites) > 0 {
		go f.computeBaselines(ctx, log, srv, rt, private, baselineSuites)
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

// load reads the teacher and submitter keys and the private suite.
func (f *serveFlags) load(log *slog.Logger) (keys, subKeys server.TeacherKeys, private *server.PrivateSuite, err error) {
	if *f.teacherKeys != "" {
		if keys, err = server.TeacherKeyFile(*f.teacherKeys, func(err error) { log.Error("teacher keys", "err", err) }); err != nil {
			return nil, nil, nil, err
		}
	}
	if *f.submitterKeys != "" {
		if subKeys, err = server.TeacherKeyFile(*f.submitterKeys, func(err error) { log.Error("submitter keys", "err", err) }); err != nil {
			return nil, nil, nil, err
		}
	}
	if *f.privateCatalog != "" {
		b, err := os.ReadFile(*f.privateCatalog)
		if err != nil {
			return nil, nil, nil, err
		}
		if private, err = server.LoadPrivateSuite(b); err != nil {
			return nil, nil, nil, err
		}
	}
	return keys, subKeys, private, nil
}

// baselineSuites are the suites of --baselines.
func (f *serveFlags) baselineSuites(private *server.PrivateSuite) ([]string, error) {
	if *f.baselines == "none" || *f.baselines == "" {
		return nil, nil
	}
	suites := strings.Split(*f.baselines, ",")
	for _, name := range suites {
		if _, err := sim.LookupSuite(name); err != nil && (private == nil || name != private.Name) {
			return nil, usageError("--baselines: unknown suite %q", name)
		}
	}
	return suites, nil
}

// engines loads sim.wasm and returns it with the verifier and the
// session engine the flags ask for (the native core checked against
// sim.wasm first if it verifies or steps anything).
func (f *serveFlags) engines(ctx context.Context, private *server.PrivateSuite) (*host.Runtime, server.Verifier, session.Engine, error) {
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
		return nil, nil, nil, err
	}
	rt, err := host.New(ctx, simwasm.Bytes(), opts)
	if err != nil {
		return nil, nil, nil, err
	}
	v := server.Wasm(rt)
	if f.nativeChecked(private) {
		// The native core steps or verifies: check it against sim.wasm first.
		if err := server.CrossCheck(ctx, v, server.Native(rt.SHA256()), sampleRecords(rt.SHA256())); err != nil {
			rt.Close(context.Background())
			return nil, nil, nil, err
		}
	}
	if *f.verify == "native" {
		v = server.Native(rt.SHA256())
	}
	engine := session.Wasm(rt)
	if *f.step == "native" {
		engine = session.Native(rt.SHA256())
	}
	return rt, v, engine, nil
}

// nativeChecked reports whether engines checks the native core at start.
func (f *serveFlags) nativeChecked(private *server.PrivateSuite) bool {
	return *f.verify == "native" || *f.step == "native" || private != nil
}

// site is the web app the server serves, and its name.
func (f *serveFlags) site() (fs.FS, string, error) {
	site, siteName := dist.FS(), "embedded"
	if !dist.Built() {
		siteName = "not built: run make build"
	}
	if *f.web != "" {
		if fi, err := os.Stat(*f.web); err != nil || !fi.IsDir() {
			return nil, "", usageError("--web %s: not a directory", *f.web)
		}
		site, siteName = os.DirFS(*f.web), *f.web
	}
	return site, siteName, nil
}

// describe prints where the server serves and how.
func (f *serveFlags) describe(w io.Writer, addr, siteName string, v server.Verifier, rt *host.Runtime, engine session.Engine,
	private *server.PrivateSuite, hasKeys bool, opts server.Options) {
	export := "disabled (set $" + *f.tokenEnv + ")"
	if os.Getenv(*f.tokenEnv) != "" {
		export = "enabled"
	}
	rooms := "teacher keys only"
	switch {
	case *f.openRooms:
		rooms = "open to anyone"
	case !hasKeys:
		rooms = "closed (no --teacher-keys)"
	}
	fmt.Fprintf(w, "normgym: serving on http://%s (db %s, web %s, verify %s with sim.wasm %.12s, export %s, rooms %s)\n",
		addr, *f.dbPath, siteName, v.Kind(), rt.SHA256(), export, rooms)
	priv := "none"
	if private != nil {
		priv = fmt.Sprintf("%s (%d visits, version %s)", private.Name, len(private.Visits), private.Version)
	}
	fmt.Fprintf(w, "normgym: sessions stepped by %s, idle expiry %s; private suite %s\n", engine.Kind(), *f.sessionTTL, priv)
	f.banner(w, opts)
}

// computeBaselines computes the baseline rows of suites in the background.
func (f *serveFlags) computeBaselines(ctx context.Context, log *slog.Logger, srv *server.Server, rt *host.Runtime,
	private *server.PrivateSuite, suites []string) {
	// The baselines run natively: check the core against sim.wasm first
	// (a few seconds), unless that was done at start.
	if !f.nativeChecked(private) {
		if err := server.CrossCheck(ctx, server.Wasm(rt), server.Native(rt.SHA256()), sampleRecords(rt.SHA256())); err != nil {
			log.Error("baselines: the native core disagrees with sim.wasm: not computed", "err", err)
			return
		}
	}
	start := time.Now()
	n, err := srv.ComputeBaselines(ctx, suites, func(suite, agent string, stored int) {
		if stored > 0 {
			log.Info("baselines", "suite", suite, "agent", agent, "stored", stored)
		}
	})
	if err != nil && ctx.Err() == nil {
		log.Error("baselines", "err", err)
		return
	}
	log.Info("baselines done", "suites", strings.Join(suites, ","), "stored", n, "seconds", int(time.Since(start).Seconds()))
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
