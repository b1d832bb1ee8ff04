package cli

import (
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
)

// serveFlags are normgym serve's flags.
type serveFlags struct {
	fs *flag.FlagSet

	addr, dbPath, web, tokenEnv, verify, step, baselines, privateCatalog *string
	teacherKeys, submitterKeys, clientHeader                             *string
	studyKeys                                                            func(*slog.Logger) (server.TeacherKeys, error)
	fsync, openRooms                                                     *bool
	replayTimeout, roomTTL, sessionTTL, sessionsIdle                     *time.Duration
	readHeaderTimeout, readTimeout, writeTimeout, idleTimeout            *time.Duration
	wsIdle, wsPing                                                       *time.Duration
	maxBody                                                              *int64
	maxConns, perIP, per56, maxWS, wsPerIP, sessionsLive, rebuilds       *int
	limits                                                               limitFlag
}

func newServeFlags(e *env) *serveFlags {
	fs := e.flags("serve", "[flags]",
		"Serves the web app and the API on --addr with an embedded SQLite database (--db). Submitted runs are\n"+
			"replayed through the embedded sim.wasm and stored only if they match. Stops cleanly on SIGINT or SIGTERM.")
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
		strings.Join(server.Classes(), ", ")+"; static is unlimited unless set; a /ws message draws from its HTTP twin's class)")
	f.clientHeader = fs.String("trust-proxy-header", "", "header in which a trusted reverse proxy passes the client's address (e.g. X-Forwarded-For: its last address); "+
		"set it only if every request comes through that proxy (empty: the connection's peer is the client)")
	f.maxBody = fs.Int64("max-body", server.DefaultMaxBody, "largest request body in bytes (the largest honest submission is about 58 KB)")
	f.maxConns = fs.Int("max-conns", server.DefaultMaxConns, "most connections open at once: beyond, a new one takes the place of an idle keep-alive connection "+
		"of the address holding the most, or waits (0: no bound)")
	f.perIP = fs.Int("max-conns-per-ip", server.DefaultPerClient, "most connections open at once from one address (IPv4, or IPv6 /64; beyond, its idle ones make room, "+
		"else the new one is closed); with --trust-proxy-header, most requests in flight from one forwarded address (0: no bound)")
	f.per56 = fs.Int("max-conns-per-56", -1, "most connections (requests in flight behind a proxy) from one IPv6 /56 (-1: twice --max-conns-per-ip; 0: no bound)")
	f.maxWS = fs.Int("max-ws", server.DefaultMaxWebSockets, "most /ws WebSockets open at once (0: no bound)")
	f.wsPerIP = fs.Int("max-ws-per-ip", server.DefaultWebSocketsPerClient, "most /ws WebSockets open at once from one address or forwarded address "+
		"(twice that per IPv6 /56; 0: no bound)")
	f.wsIdle = fs.Duration("ws-idle", server.DefaultWSIdle, "close a /ws WebSocket that sends no message for this long (its session lives on)")
	f.wsPing = fs.Duration("ws-ping", server.DefaultWSPing, "ping a /ws WebSocket idle for this long, and as often (keeps proxies from closing it; a pong is not a message)")
	f.readHeaderTimeout = fs.Duration("read-header-timeout", 5*time.Second, "longest time to read a request's headers")
	f.readTimeout = fs.Duration("read-timeout", 20*time.Second, "longest time to read a whole request, body included")
	f.writeTimeout = fs.Duration("write-timeout", time.Minute, "longest time to write an answer (exports extend it page by page)")
	f.idleTimeout = fs.Duration("idle-timeout", time.Minute, "how long an idle keep-alive connection stays open (sooner when a new connection needs its place)")
	f.openRooms = fs.Bool("open-rooms", false, "let anyone create a classroom: for a local or classroom-only server (default: only holders of a teacher key, see --teacher-keys); a room's runs are its class's, never the public human row")
	f.teacherKeys = fs.String("teacher-keys", "", "file of teacher keys (lines \"LABEL SHA256\" from normgym teacher-key LABEL; re-read when it changes) that may create classrooms")
	f.roomTTL = fs.Duration("room-ttl", server.DefaultRoomTTL, "how long a classroom takes students after it is created (its teacher can read it after)")
	f.step = fs.String("step", "wasm", "how sessions are stepped: wasm (sim.wasm under wazero) or native (the Go core, checked against sim.wasm at start; about 1.7x the steps per second)")
	f.sessionTTL = fs.Duration("session-ttl", session.DefaultTTL, "how long a session waits for its next action before it expires (a visit is played once: an expired one is lost)")
	f.sessionsLive = fs.Int("sessions-live", 0, fmt.Sprintf("most sessions kept in memory (about 0.3 MB each in sim.wasm); others are rebuilt from the store when they act, "+
		"the client holding the most losing its least recently used first (0: half of what sim.wasm holds open, at most %d)", maxSessionsLive))
	f.sessionsIdle = fs.Duration("sessions-idle", session.DefaultIdle, "how long a session's visit stays in memory without an action (it is rebuilt when it acts again)")
	f.rebuilds = fs.Int("rebuilds", runtime.GOMAXPROCS(0), "most sessions rebuilt into memory at once (after a restart or an eviction); clients wait in turn")
	f.submitterKeys = fs.String("submitter-keys", "", "file of submitter keys (lines \"LABEL SHA256\" from normgym submitter-key LABEL; re-read when it changes): "+
		"their holders' sessions are stored under LABEL as server-stepped model runs")
	f.baselines = fs.String("baselines", "mini,standard", "suites whose baseline rows the server computes itself, in the background after start "+
		"(natively, the runs it lacks; standard takes about four minutes of one core the first time); \"none\" for none")
	f.studyKeys = studyKeysFlag(fs)
	f.privateCatalog = fs.String("private-catalog", "", "file of a private suite (norms and seeds that are never served; README: \"A private suite\"): played through submitter keys' sessions only")
	return f
}

// maxSessionsLive bounds --sessions-live's default.
const maxSessionsLive = 1024

// check refuses flags out of range.
func (f *serveFlags) check(pos []string) error {
	if len(pos) > 0 {
		return usageError("serve takes no arguments, got %q", pos[0])
	}
	if *f.verify != "wasm" && *f.verify != "native" {
		return usageError("--verify must be wasm or native, not %q", *f.verify)
	}
	if *f.step != "wasm" && *f.step != "native" {
		return usageError("--step must be wasm or native, not %q", *f.step)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"replay-timeout", *f.replayTimeout}, {"read-header-timeout", *f.readHeaderTimeout}, {"read-timeout", *f.readTimeout},
		{"write-timeout", *f.writeTimeout}, {"idle-timeout", *f.idleTimeout}, {"room-ttl", *f.roomTTL}, {"session-ttl", *f.sessionTTL},
		{"ws-idle", *f.wsIdle}, {"ws-ping", *f.wsPing}, {"sessions-idle", *f.sessionsIdle}} {
		if d.v <= 0 {
			return usageError("--%s must be positive", d.name)
		}
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"max-conns", *f.maxConns}, {"max-conns-per-ip", *f.perIP}, {"max-ws", *f.maxWS}, {"max-ws-per-ip", *f.wsPerIP},
		{"sessions-live", *f.sessionsLive}, {"rebuilds", *f.rebuilds}} {
		if n.v < 0 {
			return usageError("--%s must be 0 or more", n.name)
		}
	}
	if *f.per56 < -1 {
		return usageError("--max-conns-per-56 must be -1, 0 or more")
	}
	if *f.rebuilds == 0 {
		return usageError("--rebuilds must be at least 1")
	}
	if *f.maxBody < 1024 {
		return usageError("--max-body must be at least 1024 bytes")
	}
	return nil
}

// conns returns the listener's bounds and the bound of one client's
// requests in flight. Behind a proxy every connection is the proxy's: the
// listener then bounds connections in all only (unless the per-address
// flags are set), and the per-address bounds go to each forwarded client's
// requests instead.
func (f *serveFlags) conns() (limit.ListenOptions, int) {
	per56 := *f.per56
	if per56 < 0 {
		per56 = 2 * *f.perIP
	}
	o := limit.ListenOptions{Max: *f.maxConns, PerAddr: *f.perIP, Per56: per56}
	if *f.clientHeader != "" {
		if !flagSet(f.fs, "max-conns-per-ip") {
			o.PerAddr = 0
		}
		if !flagSet(f.fs, "max-conns-per-56") {
			o.Per56 = 0
		}
	}
	perClient := *f.perIP
	if perClient == 0 {
		perClient = -1 // no bound
	}
	return o, perClient
}

// httpOptions are the listener's and the http.Server's settings.
func (f *serveFlags) httpOptions(errorLog *log.Logger) server.HTTPOptions {
	conns, _ := f.conns()
	return server.HTTPOptions{Conns: conns, ReadHeaderTimeout: *f.readHeaderTimeout, ReadTimeout: *f.readTimeout,
		WriteTimeout: *f.writeTimeout, IdleTimeout: *f.idleTimeout, ErrorLog: errorLog}
}

// sessionOptions sets the server's bounds of sessions and of what clients
// hold open; capacity is what the engine can hold open.
func (f *serveFlags) sessionOptions(o *server.Options, capacity int) {
	_, perClient := f.conns()
	noBound := func(n int) int {
		if n == 0 {
			return -1
		}
		return n
	}
	o.SessionTTL, o.SessionsIdle, o.Rebuilds = *f.sessionTTL, *f.sessionsIdle, *f.rebuilds
	// Half of what sim.wasm can hold open; the rest is the verifier's.
	o.SessionsLive = min(capacity/2, maxSessionsLive)
	if *f.sessionsLive > 0 {
		o.SessionsLive = min(*f.sessionsLive, capacity/2)
	}
	o.MaxRequestsPerClient, o.MaxWebSockets, o.MaxWebSocketsPerClient = perClient, noBound(*f.maxWS), noBound(*f.wsPerIP)
	o.WSIdle, o.WSPing = *f.wsIdle, *f.wsPing
}

// banner prints how the server is bounded.
func (f *serveFlags) banner(w io.Writer, o server.Options) {
	conns, _ := f.conns()
	fmt.Fprintf(w, "normgym: limits per client %s; body %d bytes; connections %s (%s per address, %s per IPv6 /56, %s requests in flight per client); "+
		"timeouts header %s, read %s, write %s, idle %s\n",
		f.limits, *f.maxBody, bound(conns.Max), bound(conns.PerAddr), bound(conns.Per56), bound(o.MaxRequestsPerClient),
		*f.readHeaderTimeout, *f.readTimeout, *f.writeTimeout, *f.idleTimeout)
	fmt.Fprintf(w, "normgym: WebSockets %s (%s per client), idle %s, ping %s; sessions in memory %d (idle %s), %d rebuilt at once\n",
		bound(o.MaxWebSockets), bound(o.MaxWebSocketsPerClient), o.WSIdle, o.WSPing, o.SessionsLive, o.SessionsIdle, o.Rebuilds)
}

// bound prints a bound (≤ 0: none).
func bound(n int) string {
	if n <= 0 {
		return "unbounded"
	}
	return fmt.Sprint(n)
}
