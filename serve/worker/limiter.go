//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"syscall/js"
	"time"

	"github.com/syumai/workers/cloudflare"

	"github.com/normgym/normgym/serve/server"
)

// bindingLimiter is the server's per-client limiter on the Workers rate
// limiting binding: one binding per class, named LIMIT_ and the class in
// capitals (wrangler.jsonc "ratelimits"). Its counts live outside the Go
// runtime, which starts anew for every request. A class without a binding
// is unlimited; a binding that fails lets the request through (and logs
// it): the limits guard against floods, not a single request.
type bindingLimiter struct {
	log      *slog.Logger
	bindings map[string]js.Value
}

// retryAfter is the answer's Retry-After: the binding counts per 10 or
// 60 s window and does not say which.
const retryAfter = 60 * time.Second

func newBindingLimiter(log *slog.Logger) bindingLimiter {
	l := bindingLimiter{log: log, bindings: map[string]js.Value{}}
	for _, class := range server.Classes() {
		if b := cloudflare.GetBinding("LIMIT_" + strings.ToUpper(class)); b.Type() == js.TypeObject {
			l.bindings[class] = b
		}
	}
	return l
}

// unlimited is the context key of a request that the Worker itself
// sends (durable.go: warm): no client's limit counts it.
type unlimited struct{}

// Allow implements limit.Limiter.
func (l bindingLimiter) Allow(ctx context.Context, class, client string) (bool, time.Duration) {
	b, ok := l.bindings[class]
	if !ok || ctx.Value(unlimited{}) != nil {
		return true, 0
	}
	res, err := await(ctx, func() js.Value {
		return b.Call("limit", js.ValueOf(map[string]any{"key": class + "|" + client}))
	})
	if err != nil {
		l.log.Error("rate limit binding", "class", class, "err", err)
		return true, 0
	}
	if res.Type() != js.TypeObject || res.Get("success").Type() != js.TypeBoolean {
		l.log.Error("rate limit binding", "class", class, "err", "the answer has no success field")
		return true, 0
	}
	if res.Get("success").Bool() {
		return true, 0
	}
	return false, retryAfter
}

// await calls start and waits for the promise it returns, from a
// goroutine (never from a JS callback). A JS exception thrown by start is
// an error.
func await(ctx context.Context, start func() js.Value) (v js.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			je, ok := p.(js.Error)
			if !ok {
				panic(p)
			}
			v, err = js.Value{}, fmt.Errorf("worker: %s", je.Error())
		}
	}()
	p := start()
	type settled struct {
		v   js.Value
		err error
	}
	ch := make(chan settled, 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		var v js.Value
		if len(args) > 0 {
			v = args[0]
		}
		ch <- settled{v: v}
		return nil
	})
	catch := js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "rejected"
		if len(args) > 0 {
			msg = args[0].Call("toString").String()
		}
		ch <- settled{err: errors.New("worker: " + msg)}
		return nil
	})
	p.Call("then", then, catch)
	select {
	case s := <-ch:
		then.Release()
		catch.Release()
		return s.v, s.err
	case <-ctx.Done():
		return js.Value{}, fmt.Errorf("worker: %w", ctx.Err())
	}
}
