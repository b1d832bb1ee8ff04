//go:build js && wasm && viewer

package main

import (
	"strconv"

	"honnef.co/go/js/dom/v2"

	"github.com/normgym/normgym/web/internal/ui"
)

// The transcript viewer (#mode=transcript, ui.TranscriptView) is built
// into viewer.wasm only (go build -tags viewer; viewer.html loads it), so
// that a first visit of the site does not carry a researcher's tool:
// app.wasm sends the route to viewer.html (transcript_off.go).

// viewerState is the files the viewer read, kept while the page lives so
// that a report's links, which change only the fragment, open their
// visits in the same page, and the replay on screen.
type viewerState struct {
	results *ui.Results
	v       *ui.TranscriptView
}

// closeViewer ends the replay on screen; the files stay loaded.
func (a *app) closeViewer() {
	if a.viewer != nil && a.viewer.v != nil {
		a.viewer.v.Close()
		a.viewer.v = nil
	}
}

// openTranscript shows the viewer for route r: the files to open, the
// visits they hold, or the visit r names.
func (a *app) openTranscript(r ui.Route) {
	a.route, a.mode = r, r.Mode
	a.markTab()
	a.resetFeed()
	a.set("visit-label", "transcripts")
	if a.viewer == nil {
		a.viewer = &viewerState{results: &ui.Results{}}
	}
	res := a.viewer.results
	if len(res.Records) == 0 {
		a.set("screen", ui.TranscriptOpenHTML(""))
		a.stage("transcript-open")
		return
	}
	if r.Visit == "" {
		a.set("screen", ui.TranscriptListHTML(res))
		a.stage("transcript-list")
		return
	}
	rec, ok := res.Find(r.Visit, r.Agent)
	t, has := res.Transcript(rec)
	if !ok || !has {
		a.set("screen", ui.TranscriptOpenHTML("The files loaded hold no transcript of "+r.Visit+" by "+r.Agent+": open its results file and transcripts file."))
		a.stage("transcript-open")
		return
	}
	v, err := ui.NewTranscriptView(a.client, rec, t)
	if err != nil {
		a.set("screen", ui.TranscriptOpenHTML(err.Error()))
		a.stage("transcript-open")
		return
	}
	a.viewer.v = v
	a.set("visit-label", escape(rec.Visit))
	a.renderGame(v.Last.Observation)
	a.set("controls", ui.TranscriptBarHTML(v))
	a.showObs(v.Last)
	a.transcriptShow()
	a.stage("transcript")
}

// transcriptShow draws the replay's progress and the last exchange.
func (a *app) transcriptShow() {
	v := a.viewer.v
	a.set("t-progress", ui.TranscriptProgressHTML(v))
	a.set("t-panel", ui.TranscriptPanelHTML(v))
	a.data("t-next", strconv.Itoa(v.Next))
}

func (a *app) transcriptClick(act string) {
	if a.viewer == nil || a.viewer.v == nil {
		return
	}
	s := a.viewer
	var err error
	switch act {
	case "t-step":
		var r ui.StepResponse
		if r, err = s.v.Step(); err == nil {
			a.showObs(r)
		}
	case "t-sanction":
		var seen []ui.StepResponse
		_, seen, err = s.v.NextSanction()
		for _, r := range seen {
			a.showObs(r)
		}
	case "t-restart":
		if err = s.v.Restart(); err == nil {
			a.resetFeed()
			a.set("feed", "")
			a.showObs(s.v.Last)
		}
	default:
		return
	}
	if err != nil {
		a.set("status", escape(err.Error()))
		return
	}
	a.transcriptShow()
}

// loadResultFiles reads the files chosen in input (a goroutine: it awaits
// their text) into the loaded results, then opens the route again.
func (a *app) loadResultFiles(in *dom.BasicHTMLElement) {
	files := in.Underlying().Get("files")
	if a.viewer == nil {
		a.viewer = &viewerState{results: &ui.Results{}}
	}
	for i := 0; i < files.Length(); i++ {
		f := files.Index(i)
		v, err := await(f.Call("text"))
		if err == nil {
			err = a.viewer.results.Add(f.Get("name").String(), []byte(v.String()))
		}
		if err != nil {
			a.set("screen", ui.TranscriptOpenHTML(err.Error()))
			a.stage("transcript-open")
			return
		}
	}
	a.openTranscript(a.route)
}
