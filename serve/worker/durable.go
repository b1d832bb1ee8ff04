//go:build js && wasm

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"syscall/js"

	"github.com/syumai/workers"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/store"
)

// durable is the Go side of a Session Durable Object (entry.mjs, class
// Session): one Go runtime for the object's life, one server made when
// it starts, so that the session.Manager inside keeps the visits of the
// object's sessions live between requests, and the WebSockets the object
// holds. Requests reach it through binding.serve, WebSocket messages
// through binding.wsMessage (see RATIONALE.md: Sessions).
type durable struct {
	mu  sync.Mutex
	h   http.Handler
	srv *server.Server // nil when the server could not be made (h answers why)
	st  *store.Store
	// kinds holds the kind of the session of each token hash served.
	kinds map[string]string
	conns map[int]*server.WSConn
	next  int
}

// start makes the server (again: a server made afresh holds no session
// in memory).
func (d *durable) start() {
	srv, st, msg := newServer()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.srv, d.st, d.h, d.kinds = srv, st, unavailable(msg), map[string]string{}
	if srv != nil {
		d.h = srv
	}
}

// current makes sure that the session of a token hash the object serves
// is still that token's. Only a submitter key's session (kind model) is
// ever given a new token (a key asking for its suite again resumes it
// under a new one, wherever that request runs): its token is checked in
// D1 before every request, and when it names no session any more the
// server is made afresh, so that the old token finds nothing (404), as on
// normgym serve. A person's or a practice session keeps its token: it is
// read once. (entry.mjs sends an object only tokens that D1 has named a
// session, so remaking the server on a token that names none is rare.)
func (d *durable) current(ctx context.Context, hash string) {
	d.mu.Lock()
	kind, seen := d.kinds[hash]
	st := d.st
	d.mu.Unlock()
	if st == nil || seen && kind != api.KindModel {
		return
	}
	s, err := st.SessionByToken(ctx, hash)
	switch {
	case errors.Is(err, session.ErrNotFound):
		d.start()
	case err == nil:
		d.mu.Lock()
		d.kinds[hash] = s.Kind
		d.mu.Unlock()
	}
}

// serveDurable runs a Durable Object's Go runtime: it sets the binding's
// functions, says it is ready and never returns (the object ends it).
func serveDurable() {
	d := &durable{conns: map[int]*server.WSConn{}}
	d.start()
	b := runtimeContext().Get("binding")
	b.Set("serve", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return promise(func() (js.Value, error) { return d.serve(args) })
	}))
	b.Set("wsMessage", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return promise(func() (js.Value, error) { return d.wsMessage(args) })
	}))
	b.Set("warm", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return promise(func() (js.Value, error) {
			if len(args) == 1 {
				d.warm(args[0].String())
			}
			return js.Undefined(), nil
		})
	}))
	b.Set("wsClose", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 1 {
			d.mu.Lock()
			delete(d.conns, args[0].Int())
			d.mu.Unlock()
		}
		return nil
	}))
	workers.Ready()
	select {}
}

// serve answers one request: args are the method, the URL, the headers
// (an array of [name, value]), the body (a Uint8Array, or null) and the
// SHA-256 of the session token the request acts with ("" for a /ws
// connection's object). The answer is {status, headers, body}; an
// accepted GET /ws (101) also carries ws, the connection's number for
// wsMessage, and its limits.
func (d *durable) serve(args []js.Value) (js.Value, error) {
	if len(args) != 5 {
		return js.Value{}, errors.New("worker: serve takes method, url, headers, body and token hash")
	}
	if hash := args[4].String(); hash != "" {
		d.current(context.Background(), hash)
	}
	var body []byte
	if b := args[3]; b.Type() == js.TypeObject {
		body = make([]byte, b.Get("length").Int())
		js.CopyBytesToGo(body, b)
	}
	r, err := http.NewRequestWithContext(context.Background(), args[0].String(), args[1].String(), bytes.NewReader(body))
	if err != nil {
		return js.Value{}, fmt.Errorf("worker: %w", err)
	}
	r.ContentLength = int64(len(body))
	hs := args[2]
	for i := range hs.Length() {
		kv := hs.Index(i)
		r.Header.Add(kv.Index(0).String(), kv.Index(1).String())
	}
	d.mu.Lock()
	h, srv := d.h, d.srv
	d.mu.Unlock()
	rec := &recorder{h: http.Header{}}
	h.ServeHTTP(rec, r)
	out := map[string]any{"status": rec.status, "headers": headerPairs(rec.h), "body": jsBytes(rec.body.Bytes())}
	if rec.status == http.StatusSwitchingProtocols && srv != nil {
		max, idle := server.WSLimits()
		d.mu.Lock()
		d.next++
		d.conns[d.next] = srv.NewWSConn(r)
		out["ws"] = d.next
		d.mu.Unlock()
		out["maxMessage"], out["idleMs"] = max, idle.Milliseconds()
	}
	return js.ValueOf(out), nil
}

// warm loads the session of token into the server's memory, as GET
// /api/session does (entry.mjs asks for it when the session is opened):
// the Worker asks, not a client, so no rate limit counts it.
func (d *durable) warm(token string) {
	d.current(context.Background(), session.TokenHash(token))
	ctx := context.WithValue(context.Background(), unlimited{}, true)
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://normgym.internal/api/session", nil)
	if err != nil {
		return
	}
	r.Header.Set("Authorization", "Bearer "+token)
	d.mu.Lock()
	h := d.h
	d.mu.Unlock()
	h.ServeHTTP(&recorder{h: http.Header{}}, r)
}

// wsMessage answers one message of a connection: args are the
// connection's number, the message (a string, or a Uint8Array) and
// whether it is text. The answer is {reply} (a string), or {close: true}.
func (d *durable) wsMessage(args []js.Value) (js.Value, error) {
	if len(args) != 3 {
		return js.Value{}, errors.New("worker: wsMessage takes the connection, the message and whether it is text")
	}
	d.mu.Lock()
	c := d.conns[args[0].Int()]
	d.mu.Unlock()
	if c == nil {
		return js.Value{}, errors.New("worker: no such WebSocket connection")
	}
	var msg []byte
	if m := args[1]; m.Type() == js.TypeString {
		msg = []byte(m.String())
	} else if m.Type() == js.TypeObject {
		msg = make([]byte, m.Get("length").Int())
		js.CopyBytesToGo(msg, m)
	}
	reply, closing, err := c.Message(context.Background(), msg, args[2].Truthy())
	if err != nil {
		return js.Value{}, fmt.Errorf("worker: %w", err)
	}
	if closing {
		return js.ValueOf(map[string]any{"close": true}), nil
	}
	return js.ValueOf(map[string]any{"reply": string(reply)}), nil
}

// recorder is the http.ResponseWriter of a Durable Object's request: the
// whole answer in memory (the server's answers are small).
type recorder struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.h }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// headerPairs is h as an array of [name, value] for JavaScript's Headers.
func headerPairs(h http.Header) []any {
	var out []any
	for k, vs := range h {
		for _, v := range vs {
			out = append(out, []any{k, v})
		}
	}
	return out
}

// jsBytes copies b into a new Uint8Array.
func jsBytes(b []byte) js.Value {
	a := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}

// promise runs f in a goroutine and returns a Promise that settles with
// its result (a panic rejects it: the runtime lives on).
func promise(f func() (js.Value, error)) js.Value {
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, args []js.Value) any {
		executor.Release()
		resolve, reject := args[0], args[1]
		go func() {
			defer func() {
				if p := recover(); p != nil {
					reject.Invoke(js.Global().Get("Error").New(fmt.Sprint("worker: panic: ", p)))
				}
			}()
			v, err := f()
			if err != nil {
				reject.Invoke(js.Global().Get("Error").New(err.Error()))
				return
			}
			resolve.Invoke(v)
		}()
		return nil
	})
	return js.Global().Get("Promise").New(executor)
}
