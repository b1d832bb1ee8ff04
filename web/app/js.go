//go:build js && wasm

package main

import (
	"errors"
	"syscall/js"

	"github.com/normgym/normgym/web/internal/chat"
)

// jsSim is ui.Sim over the page's bridge (boot.js).
type jsSim struct{ bridge js.Value }

func (s jsSim) Call(export string, req []byte) []byte {
	return []byte(s.bridge.Call("call", export, string(req)).String())
}

// await waits for a promise. Call it from a goroutine, never from inside
// an event callback: the callback would block the event loop it needs.
func await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- result{v: args[0]}
		return nil
	})
	catch := js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "promise rejected"
		if len(args) > 0 {
			msg = args[0].Call("toString").String()
		}
		ch <- result{err: errors.New(msg)}
		return nil
	})
	defer then.Release()
	defer catch.Release()
	p.Call("then", then, catch)
	r := <-ch
	return r.v, r.err
}

// fetchPoster is chat.Poster over the browser's fetch: no cookies, no
// referrer, no cache.
type fetchPoster struct{}

func (fetchPoster) Post(url string, header map[string]string, body []byte) (chat.HTTPResponse, error) {
	obj := js.Global().Get("Object")
	h := obj.New()
	for k, v := range header {
		h.Set(k, v)
	}
	opts := obj.New()
	opts.Set("method", "POST")
	opts.Set("headers", h)
	opts.Set("body", string(body))
	opts.Set("mode", "cors")
	opts.Set("credentials", "omit")
	opts.Set("cache", "no-store")
	opts.Set("referrerPolicy", "no-referrer")
	resp, err := await(js.Global().Call("fetch", url, opts))
	if err != nil {
		return chat.HTTPResponse{}, err
	}
	r := chat.HTTPResponse{Status: resp.Get("status").Int(), RetryAfter: str(resp.Get("headers").Call("get", "Retry-After"))}
	text, err := await(resp.Call("text"))
	if err != nil {
		return r, err
	}
	r.Body = []byte(text.String())
	return r, nil
}

// storage is the browser's localStorage (it may be missing or refuse,
// e.g. in private windows: then nothing is kept).
func storageGet(key string) (v string) {
	defer func() {
		if recover() != nil {
			v = "" // a browser that refuses storage throws
		}
	}()
	ls := js.Global().Get("localStorage")
	if ls.IsUndefined() || ls.IsNull() {
		return ""
	}
	return str(ls.Call("getItem", key))
}

func storageSet(key, value string) {
	defer func() { _ = recover() }()
	ls := js.Global().Get("localStorage")
	if ls.IsUndefined() || ls.IsNull() {
		return
	}
	if value == "" {
		ls.Call("removeItem", key)
		return
	}
	ls.Call("setItem", key, value)
}

// download offers data as a file.
func download(name, mime string, data []byte) {
	doc := js.Global().Get("document")
	arr := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(arr, data)
	blob := js.Global().Get("Blob").New([]any{arr}, map[string]any{"type": mime})
	url := js.Global().Get("URL").Call("createObjectURL", blob)
	a := doc.Call("createElement", "a")
	a.Set("href", url)
	a.Set("download", name)
	a.Get("style").Set("display", "none")
	doc.Get("body").Call("appendChild", a)
	a.Call("click")
	a.Call("remove")
	js.Global().Call("setTimeout", js.FuncOf(func(js.Value, []js.Value) any {
		js.Global().Get("URL").Call("revokeObjectURL", url)
		return nil
	}), 10000)
}

// closest returns the nearest ancestor-or-self of ev's target matching
// sel, or a null value.
func closest(ev event, sel string) js.Value {
	t := ev.Underlying().Get("target")
	if t.IsNull() || t.IsUndefined() || t.Get("closest").IsUndefined() {
		return js.Null()
	}
	return t.Call("closest", sel)
}

func attr(v js.Value, name string) string {
	if v.IsNull() || v.IsUndefined() {
		return ""
	}
	a := v.Call("getAttribute", name)
	if a.IsNull() {
		return ""
	}
	return a.String()
}
