//go:build js && wasm

package main

import (
	"syscall/js"

	"honnef.co/go/js/dom/v2"
)

// The app's DOM layer is honnef.co/go/js/dom/v2: the window
// (dom.Window), the document (dom.HTMLDocument), elements and events
// (dom.Event, *dom.KeyboardEvent) and their listeners. What is not the
// DOM (the sim's bridge, fetch and promises, localStorage, Blob and
// object URLs, performance marks) is in js.go over syscall/js. The few
// DOM calls dom/v2 has no API for are below, each saying so.
//
// Elements are held as dom/v2's *dom.BasicHTMLElement (and the concrete
// *dom.HTMLInputElement, *dom.HTMLSelectElement, *dom.HTMLButtonElement
// where a control's value or state is read), so that their methods are
// called directly, not through the dom.Element interface. The reason is
// size: dom/v2 may return any of its ~70 element types behind that
// interface, so every method called through it is linked once per type
// (~75 kB of app.wasm, ~5 kB with brotli, per method; see
// web/RATIONALE.md), while a direct call links it once. For the same
// reason selectors are queried on the <html> element (a.root), not
// through the dom.Document interface, whose QuerySelector shares its name
// and type with every element's, and events are cancelled through
// preventDefault below.

// element is e as a *dom.BasicHTMLElement, or nil when e is nil. Every
// element the app touches is an HTML element.
func element(e dom.Element) *dom.BasicHTMLElement {
	if e == nil {
		return nil
	}
	return wrap(e.Underlying())
}

// wrap makes dom/v2's element type around an element's JS value.
func wrap(v js.Value) *dom.BasicHTMLElement {
	return &dom.BasicHTMLElement{BasicElement: &dom.BasicElement{BasicNode: &dom.BasicNode{Value: v}}}
}

// preventDefault cancels the browser's default action for ev, calling
// dom/v2's BasicEvent.PreventDefault directly (not through the dom.Event
// interface: see above).
func preventDefault(ev dom.Event) { (&dom.BasicEvent{Value: ev.Underlying()}).PreventDefault() }

// focusNoScroll focuses el without scrolling the page. dom/v2 has no API
// for it: HTMLElement.Focus takes no FocusOptions, and a plain focus()
// would scroll the page, which only a new screen may do.
func focusNoScroll(el *dom.BasicHTMLElement) {
	opts := js.Global().Get("Object").New()
	opts.Set("preventScroll", true)
	el.Underlying().Call("focus", opts)
}

// insertHTML parses markup into el at where ("afterbegin", "beforeend",
// …). dom/v2 has no API for Element.insertAdjacentHTML.
func insertHTML(el *dom.BasicHTMLElement, where, html string) {
	el.Underlying().Call("insertAdjacentHTML", where, html)
}

// scrollNearest scrolls the page as little as shows el. dom/v2 has no
// API for Element.scrollIntoView.
func scrollNearest(el *dom.BasicHTMLElement) {
	opts := js.Global().Get("Object").New()
	opts.Set("block", "nearest")
	el.Underlying().Call("scrollIntoView", opts)
}

// target is the element an event happened on, or nil when its target is
// not an element (the document, the window). dom/v2's Event.Target wraps
// any target as an element, whose methods would throw on a window, and
// it has no API to tell the two apart: the check reads the JS value.
func target(ev dom.Event) *dom.BasicHTMLElement {
	t := ev.Underlying().Get("target")
	if t.IsNull() || t.IsUndefined() || !t.InstanceOf(js.Global().Get("Element")) {
		return nil
	}
	return wrap(t)
}

// closest returns the nearest ancestor-or-self of ev's target matching
// sel, or nil.
func closest(ev dom.Event, sel string) *dom.BasicHTMLElement {
	if t := target(ev); t != nil {
		return element(t.Closest(sel))
	}
	return nil
}

// byPointer reports whether a click came from a pointer (UIEvent.detail
// counts its clicks) rather than from a key or a script. dom/v2 has no
// API for UIEvent.detail.
func byPointer(ev dom.Event) bool { return ev.Underlying().Get("detail").Int() > 0 }

// setReturnValue sets a beforeunload event's returnValue, which some
// browsers need to ask before leaving. dom/v2's BeforeUnloadEvent has no
// API for it.
func setReturnValue(ev dom.Event) { ev.Underlying().Set("returnValue", "") }

// The controls the app reads, as dom/v2's types for them, chosen by tag
// as dom/v2 chooses by constructor.

func input(el *dom.BasicHTMLElement) *dom.HTMLInputElement {
	if el == nil || el.TagName() != "INPUT" {
		return nil
	}
	return &dom.HTMLInputElement{BasicHTMLElement: el}
}

func selectElement(el *dom.BasicHTMLElement) *dom.HTMLSelectElement {
	if el == nil || el.TagName() != "SELECT" {
		return nil
	}
	return &dom.HTMLSelectElement{BasicHTMLElement: el}
}

func button(el *dom.BasicHTMLElement) *dom.HTMLButtonElement {
	if el == nil || el.TagName() != "BUTTON" {
		return nil
	}
	return &dom.HTMLButtonElement{BasicHTMLElement: el}
}

// value is the value of an input or a select; "" for other elements.
func value(el *dom.BasicHTMLElement) string {
	if in := input(el); in != nil {
		return in.Value()
	}
	if s := selectElement(el); s != nil {
		return s.Value()
	}
	return ""
}

// setValue sets the value of an input or a select.
func setValue(el *dom.BasicHTMLElement, v string) {
	if in := input(el); in != nil {
		in.SetValue(v)
	} else if s := selectElement(el); s != nil {
		s.SetValue(v)
	}
}

// disabled reports whether el is a disabled button, input or select.
func disabled(el *dom.BasicHTMLElement) bool {
	if b := button(el); b != nil {
		return b.Disabled()
	}
	if in := input(el); in != nil {
		return in.Disabled()
	}
	if s := selectElement(el); s != nil {
		return s.Disabled()
	}
	return false
}

// timer is a running setInterval. dom/v2's Window.SetInterval never
// releases its callback (a TODO of its own); a replay restarts its timer
// at every pause and change of speed, so the timer is made here, where
// stop can release it.
type timer struct {
	win dom.Window
	id  int
	f   js.Func
}

// every calls f every ms milliseconds until stopped.
func every(win dom.Window, ms int, f func()) *timer {
	t := &timer{win: win, f: js.FuncOf(func(js.Value, []js.Value) any { f(); return nil })}
	t.id = js.Global().Call("setInterval", t.f, ms).Int()
	return t
}

// stop clears the interval and releases its callback.
func (t *timer) stop() {
	t.win.ClearInterval(t.id)
	t.f.Release()
}
