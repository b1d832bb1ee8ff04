//go:build js && wasm

// Package d1 opens NormGym's store (serve/store) on a Cloudflare D1
// database, for the Workers build (serve/worker). It shares everything
// with the SQLite store: the schema (serve/store/migrations), every query
// and the domain.Storage contract; only the database/sql handle differs.
//
// D1 has no transactions and ignores named arguments; the store needs
// neither: each write is one statement (the aggregate tables are kept by
// triggers inside it, inserts are INSERT … ON CONFLICT DO NOTHING), so a
// Worker stopped at any point leaves whole runs or nothing, and arguments
// are positional '?'.
package d1

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"syscall/js"

	"github.com/syumai/workers/cloudflare"
	"github.com/syumai/workers/cloudflare/d1"

	"github.com/normgym/normgym/serve/store"
)

// Open returns the store on the D1 database bound to the Worker as binding
// ("DB" in serve/worker/wrangler.jsonc), with its schema brought up to
// date: it applies the migrations (serve/store/migrations) that neither it
// nor `wrangler d1 migrations apply DB` has applied, and keeps both
// ledgers, the store's schema_migrations and wrangler's d1_migrations, so
// that either may apply the next ones. Every statement is idempotent, so
// two Workers opening a fresh database at once do no harm. It fails when
// the database's schema is newer than this program's. It costs a few
// queries: a Worker opens the store once per isolate and Attaches it
// afterwards. It must run inside the Worker's handler (fetch, scheduled,
// or a Durable Object), where the binding is visible. Closing the store
// leaves the binding alone.
func Open(ctx context.Context, binding string) (*store.Store, error) {
	c, err := Connector(binding)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	for _, q := range adopt {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("d1: reading wrangler's migrations: %w", err)
		}
	}
	st, err := store.New(ctx, db)
	if err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, record); err != nil {
		return nil, fmt.Errorf("d1: recording the migrations for wrangler: %w", err)
	}
	return st, nil
}

// Attach returns the store on the D1 database without touching its
// schema: for a Worker that has Opened it in the same isolate already.
func Attach(binding string) (*store.Store, error) {
	c, err := Connector(binding)
	if err != nil {
		return nil, err
	}
	return store.Attach(sql.OpenDB(c)), nil
}

// The two ledgers of applied migrations. wrangler's d1_migrations holds
// file names ("0006_sessions.sql"), created as wrangler creates it; the
// store's schema_migrations holds versions and names without ".sql"
// (serve/store/migrate.go), created here as the store creates it, so that
// wrangler's entries can be copied in before the store looks.
var adopt = []string{
	`CREATE TABLE IF NOT EXISTS d1_migrations(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
)`,
	`CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT    NOT NULL,
  applied_at INTEGER NOT NULL
)`,
	`INSERT OR IGNORE INTO schema_migrations (version, name, applied_at)
SELECT CAST(substr(name, 1, instr(name, '_') - 1) AS INTEGER), substr(name, 1, length(name) - 4),
       COALESCE(CAST(strftime('%s', applied_at) AS INTEGER) * 1000, 0)
FROM d1_migrations WHERE name LIKE '%.sql' AND instr(name, '_') > 1`,
}

// record copies the store's applied migrations into wrangler's ledger.
const record = `INSERT OR IGNORE INTO d1_migrations (name) SELECT name || '.sql' FROM schema_migrations`

// Connector returns a database/sql connector for the D1 binding: the
// connector of github.com/syumai/workers/cloudflare/d1 for queries, and
// this package's Exec, which reads D1's result metadata (meta.changes,
// meta.last_row_id). syumai/workers v0.30.2's own Exec result reads a
// top-level "changes" that D1 does not return, and its RowsAffected
// panics.
func Connector(binding string) (driver.Connector, error) {
	c, err := d1.OpenConnector(binding)
	if err != nil {
		return nil, fmt.Errorf("d1: binding %q: %w", binding, err)
	}
	return connector{c, cloudflare.GetBinding(binding)}, nil
}

type connector struct {
	driver.Connector
	db js.Value // the D1Database object
}

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	inner, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return conn{inner, c.db}, nil
}

// conn is syumai's connection plus ExecContext, which database/sql calls
// instead of preparing a statement.
type conn struct {
	driver.Conn
	db js.Value
}

var _ driver.ExecerContext = conn{}

// ExecContext runs query with positional arguments (names are refused:
// D1 ignores them) and returns D1's counts.
func (c conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	vals := make([]any, len(args))
	for i, a := range args {
		if a.Name != "" {
			return nil, fmt.Errorf("d1: named argument %q: D1 takes positional '?' arguments only", a.Name)
		}
		v, err := jsValue(a.Value)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	res, err := await(ctx, func() js.Value { return c.db.Call("prepare", query).Call("bind", vals...).Call("run") })
	if err != nil {
		return nil, err
	}
	meta := res.Get("meta")
	if meta.Type() != js.TypeObject {
		return nil, errors.New("d1: the result of run() has no meta")
	}
	return result{changes: number(meta.Get("changes")), lastID: number(meta.Get("last_row_id"))}, nil
}

// jsValue converts a driver.Value (int64, float64, bool, []byte, string,
// time.Time or nil) into what D1's bind takes.
func jsValue(v driver.Value) (any, error) {
	switch v := v.(type) {
	case nil, int64, float64, bool, string:
		return v, nil
	case []byte:
		a := js.Global().Get("Uint8Array").New(len(v))
		js.CopyBytesToJS(a, v)
		return a, nil
	default:
		return nil, fmt.Errorf("d1: cannot bind a %T (store times as integers)", v)
	}
}

// number returns a JS number as an int64, or -1 if it is not a number.
func number(v js.Value) int64 {
	if v.Type() != js.TypeNumber {
		return -1
	}
	return int64(v.Float())
}

type result struct{ changes, lastID int64 }

func (r result) RowsAffected() (int64, error) {
	if r.changes < 0 {
		return 0, errors.New("d1: the result has no meta.changes")
	}
	return r.changes, nil
}

func (r result) LastInsertId() (int64, error) {
	if r.lastID < 0 {
		return 0, errors.New("d1: the result has no meta.last_row_id")
	}
	return r.lastID, nil
}

// await calls start and waits for the promise it returns, from a
// goroutine (never from a JS callback: the callbacks that settle the
// promise could not run). A JS exception thrown by start is an error.
func await(ctx context.Context, start func() js.Value) (v js.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			je, ok := p.(js.Error)
			if !ok {
				panic(p)
			}
			v, err = js.Value{}, fmt.Errorf("d1: %s", message(je.Value))
		}
	}()
	p := start()
	type settled struct {
		v   js.Value
		err error
	}
	ch := make(chan settled, 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{v: arg0(args)}
		return nil
	})
	catch := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{err: fmt.Errorf("d1: %s", message(arg0(args)))}
		return nil
	})
	p.Call("then", then, catch)
	select {
	case s := <-ch:
		then.Release()
		catch.Release()
		return s.v, s.err
	case <-ctx.Done():
		// The callbacks stay: the promise may still settle.
		return js.Value{}, fmt.Errorf("d1: %w", ctx.Err())
	}
}

// message is a JS error's message.
func message(e js.Value) string {
	if e.Type() == js.TypeObject && e.Get("message").Type() == js.TypeString {
		return e.Get("message").String()
	}
	return e.String()
}

func arg0(args []js.Value) js.Value {
	if len(args) == 0 {
		return js.Undefined()
	}
	return args[0]
}
