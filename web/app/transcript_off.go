//go:build js && wasm && !viewer

package main

import (
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/normgym/normgym/web/internal/ui"
)

// app.wasm has no transcript viewer (transcript.go, built into
// viewer.wasm): its route goes to viewer.html, which loads the app with
// the viewer.

// viewerState is viewer.wasm's.
type viewerState struct{}

// openTranscript sends the route to viewer.html.
func (a *app) openTranscript(r ui.Route) {
	js.Global().Get("location").Call("replace", "viewer.html"+r.String()) // not the DOM
}

func (a *app) closeViewer()                          {}
func (a *app) transcriptClick(string)                {}
func (a *app) loadResultFiles(*dom.BasicHTMLElement) {}
