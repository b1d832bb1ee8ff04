//go:build js && wasm

package main

import "syscall/js"

// The few DOM calls the app makes, straight over syscall/js. A DOM
// binding library (honnef.co/go/js/dom/v2) was used at first; it wraps
// every element and event type and cost about 1.2 MB of app.wasm (≈130
// kB brotli), which the first-visit budget of 2.0 MB could not afford.

// element is a DOM element.
type element struct{ v js.Value }

// wrap returns v as an element, or nil for null and undefined.
func wrap(v js.Value) *element {
	if v.IsNull() || v.IsUndefined() {
		return nil
	}
	return &element{v}
}

// Underlying is the element's JS value.
func (e *element) Underlying() js.Value { return e.v }

// SetInnerHTML replaces the element's content with markup.
func (e *element) SetInnerHTML(h string) { e.v.Set("innerHTML", h) }

// SetAttribute sets an attribute.
func (e *element) SetAttribute(name, value string) { e.v.Call("setAttribute", name, value) }

// RemoveAttribute removes an attribute.
func (e *element) RemoveAttribute(name string) { e.v.Call("removeAttribute", name) }

// GetAttribute returns an attribute's value, "" when it is missing.
func (e *element) GetAttribute(name string) string { return attr(e.v, name) }

// HasAttribute reports whether the element has the attribute.
func (e *element) HasAttribute(name string) bool { return e.v.Call("hasAttribute", name).Bool() }

// document is the page's document.
type document struct{ v js.Value }

func (d document) Underlying() js.Value { return d.v }

// GetElementByID returns the element with the id, or nil.
func (d document) GetElementByID(id string) *element { return wrap(d.v.Call("getElementById", id)) }

// QuerySelector returns the first element matching sel, or nil.
func (d document) QuerySelector(sel string) *element { return wrap(d.v.Call("querySelector", sel)) }

// QuerySelectorAll returns every element matching sel.
func (d document) QuerySelectorAll(sel string) []*element {
	l := d.v.Call("querySelectorAll", sel)
	out := make([]*element, l.Length())
	for i := range out {
		out[i] = &element{l.Index(i)}
	}
	return out
}

// AddEventListener calls f for every event of the type. The callback
// is never released: listeners live as long as the page.
func (d document) AddEventListener(typ string, f func(event)) { listen(d.v, typ, f) }

// event is a DOM event (a KeyboardEvent for key events).
type event struct{ v js.Value }

func (e event) Underlying() js.Value { return e.v }

// PreventDefault cancels the browser's default action.
func (e event) PreventDefault() { e.v.Call("preventDefault") }

// Key is KeyboardEvent.key.
func (e event) Key() string { return str(e.v.Get("key")) }

// Repeat reports an auto-repeated key press (KeyboardEvent.repeat).
func (e event) Repeat() bool { return e.v.Get("repeat").Truthy() }

// Modified reports whether Ctrl, Meta or Alt was held.
func (e event) Modified() bool {
	return e.v.Get("ctrlKey").Truthy() || e.v.Get("metaKey").Truthy() || e.v.Get("altKey").Truthy()
}

// listen adds an event listener to a JS object.
func listen(target js.Value, typ string, f func(event)) {
	target.Call("addEventListener", typ, js.FuncOf(func(_ js.Value, args []js.Value) any {
		f(event{args[0]})
		return nil
	}))
}

// str is a JS value as a Go string; "" for null and undefined.
func str(v js.Value) string {
	if v.IsNull() || v.IsUndefined() {
		return ""
	}
	return v.String()
}

// timer is a running setInterval.
type timer struct {
	id int
	f  js.Func
}

// every calls f every ms milliseconds until stopped.
func every(ms int, f func()) *timer {
	t := &timer{f: js.FuncOf(func(js.Value, []js.Value) any { f(); return nil })}
	t.id = js.Global().Call("setInterval", t.f, ms).Int()
	return t
}

// stop clears the interval and releases its callback.
func (t *timer) stop() {
	js.Global().Call("clearInterval", t.id)
	t.f.Release()
}
