//go:build js && wasm

package main

import (
	"errors"
	"syscall/js"

	"github.com/normgym/normgym/web/internal/chat"
)

// What the app reaches over syscall/js is not the DOM, and dom/v2 has no
// API for it: the sim's bridge, fetch and its promises, localStorage,
// Blob and object URLs. The DOM itself goes through dom/v2 (dom_js.go).

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

// str is a JS value as a Go string; "" for null and undefined.
func str(v js.Value) string {
	if v.IsNull() || v.IsUndefined() {
		return ""
	}
	return v.String()
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

// download offers data as a file: a link to a Blob's object URL,
// clicked. The link goes through dom/v2; Blob and object URLs are not
// the DOM and dom/v2 has no API for them.
func (a *app) download(name, mime string, data []byte) {
	arr := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(arr, data)
	blob := js.Global().Get("Blob").New([]any{arr}, map[string]any{"type": mime})
	url := js.Global().Get("URL").Call("createObjectURL", blob).String()
	link := element(a.doc.CreateElement("a"))
	link.SetAttribute("href", url)
	link.SetAttribute("download", name)
	link.Style().SetProperty("display", "none", "")
	element(a.doc.Body()).AppendChild(link)
	link.Click()
	link.Remove()
	a.win.SetTimeout(func() { js.Global().Get("URL").Call("revokeObjectURL", url) }, 10000)
}
