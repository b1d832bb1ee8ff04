//go:build js && wasm

package main

import (
	"syscall/js"

	"honnef.co/go/js/dom/v2"
)

// The app's DOM layer is honnef.co/go/js/dom/v2: the window, the
// document, elements (dom.Element, and the concrete *dom.HTMLInputElement,
// *dom.HTMLSelectElement, … where a field's value or state is read) and
// events (dom.Event, *dom.KeyboardEvent). The helpers below cover the few
// things dom/v2 has no API for; each says so and goes to the element's or
// event's underlying JS value. What is not the DOM (the sim's bridge,
// fetch and promises, localStorage, Blob and object URLs, performance
// marks) is in js.go over syscall/js.

// focusNoScroll focuses el without scrolling the page. dom/v2 has no API
// for it: HTMLElement.Focus takes no FocusOptions, and a plain focus()
// would scroll the page, which only a new screen may do.
func focusNoScroll(el dom.Element) {
	opts := js.Global().Get("Object").New()
	opts.Set("preventScroll", true)
	el.Underlying().Call("focus", opts)
}

// insertHTML parses markup into el at where ("afterbegin", "beforeend",
// …). dom/v2 has no API for Element.insertAdjacentHTML.
func insertHTML(el dom.Element, where, html string) {
	el.Underlying().Call("insertAdjacentHTML", where, html)
}

// scrollNearest scrolls the page as little as shows el. dom/v2 has no
// API for it: its ScrollIntoView is missing, and the boolean form of
// scrollIntoView cannot say "nearest".
func scrollNearest(el dom.Element) {
	opts := js.Global().Get("Object").New()
	opts.Set("block", "nearest")
	el.Underlying().Call("scrollIntoView", opts)
}

// target is the element an event happened on, or nil when its target is
// not an element (the document, the window). dom/v2's Event.Target wraps
// any target as an element, and the element methods of a window would
// throw; it has no API to tell the two apart, so the check reads the
// underlying value.
func target(ev dom.Event) dom.Element {
	t := ev.Underlying().Get("target")
	if t.IsNull() || t.IsUndefined() || !t.InstanceOf(js.Global().Get("Element")) {
		return nil
	}
	return ev.Target()
}

// closest returns the nearest ancestor-or-self of ev's target matching
// sel, or nil.
func closest(ev dom.Event, sel string) dom.Element {
	if t := target(ev); t != nil {
		return t.Closest(sel)
	}
	return nil
}

// byPointer reports whether a click came from a pointer (UIEvent.detail
// counts its clicks) rather than from a key or a script. dom/v2 has no
// API for UIEvent.detail.
func byPointer(ev dom.Event) bool { return ev.Underlying().Get("detail").Int() > 0 }

// setReturnValue sets a beforeunload event's returnValue, which older
// browsers need to ask before leaving. dom/v2's BeforeUnloadEvent has no
// API for it.
func setReturnValue(ev dom.Event) { ev.Underlying().Set("returnValue", "") }

// value is the value of a form control; "" for other elements.
func value(el dom.Element) string {
	switch c := el.(type) {
	case *dom.HTMLInputElement:
		return c.Value()
	case *dom.HTMLSelectElement:
		return c.Value()
	case *dom.HTMLTextAreaElement:
		return c.Value()
	}
	return ""
}

// setValue sets the value of a form control.
func setValue(el dom.Element, v string) {
	switch c := el.(type) {
	case *dom.HTMLInputElement:
		c.SetValue(v)
	case *dom.HTMLSelectElement:
		c.SetValue(v)
	case *dom.HTMLTextAreaElement:
		c.SetValue(v)
	}
}

// checked reports whether el is a checked checkbox or radio button.
func checked(el dom.Element) bool {
	c, ok := el.(*dom.HTMLInputElement)
	return ok && c.Checked()
}

// check checks a checkbox or radio button.
func check(el dom.Element) {
	if c, ok := el.(*dom.HTMLInputElement); ok {
		c.SetChecked(true)
	}
}

// disabled reports whether el is a disabled control.
func disabled(el dom.Element) bool {
	switch c := el.(type) {
	case *dom.HTMLButtonElement:
		return c.Disabled()
	case *dom.HTMLInputElement:
		return c.Disabled()
	case *dom.HTMLSelectElement:
		return c.Disabled()
	}
	return false
}

// setDisabled enables or disables a button.
func setDisabled(el dom.Element, v bool) {
	if b, ok := el.(*dom.HTMLButtonElement); ok {
		b.SetDisabled(v)
	}
}

// timer is a running setInterval. dom/v2's Window.SetInterval never
// releases its callback (its own TODO); a replay restarts its timer at
// every pause and change of speed, so the timer is made here, where
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
