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
// ("DB" in serve/worker/wrangler.jsonc). The schema must have been applied
// with `wrangler d1 migrations apply DB` (serve/store/migrations): Open does
// not check it, because the Go runtime restarts for every request. It must
// run inside the Worker's fetch handler, where the binding is visible.
// Closing the store leaves the binding alone.
func Open(ctx context.Context, binding string) (*store.Store, error) {
	c, err := Connector(binding)
	if err != nil {
		return nil, err
	}
	return store.Attach(sql.OpenDB(c)), nil
}

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
