//go:build !js

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
	"github.com/normgym/normgym/web/internal/ui"
	"github.com/normgym/normgym/web/internal/wasmtest"
)

// TestTranscriptViewer opens a model's results file and transcripts file
// in the viewer (#mode=transcript, as a report's link does: the site's
// page sends it to viewer.html, whose app has the viewer), jumps to the
// first action the newcomer was sanctioned after and finds on screen the
// reply of that step as the endpoint returned it, the action and the
// sanction; the list of visits and a link back keep the files loaded.
func TestTranscriptViewer(t *testing.T) {
	needChromium(t)
	visit := wasmtest.SanctionedVisit(t, "mini")
	rec, tr, _ := wasmtest.ModelRun(t, visit)
	dir := t.TempDir()
	results, transcripts := filepath.Join(dir, "m.jsonl"), filepath.Join(dir, "m.transcripts.jsonl")
	writeLine(t, results, rec)
	writeLine(t, transcripts, tr)
	want := firstSanctioned(rec, tr)
	if want.action < 0 {
		t.Fatalf("%s: no action followed by the newcomer's sanction", visit)
	}

	s := open(t, 1280, 900)
	// As a report's link: the site's page sends the route on to viewer.html.
	route := ui.TranscriptRoute(rec).String()
	s.load(route)
	s.poll(30*time.Second, `location.pathname.endsWith("/viewer.html") && document.documentElement.dataset.ready === "1"`)
	s.waitStage(20*time.Second, "transcript-open")
	s.do(20*time.Second, chromedp.SetUploadFiles(chromedp.CSS("#tr-files"), []string{results, transcripts}))
	s.waitStage(30*time.Second, "transcript")
	s.eval(`(document.querySelector('[data-act="t-sanction"]').click(), "")`)
	s.poll(30*time.Second, `document.body.dataset.tNext === "`+strconv.Itoa(want.action+1)+`"`)
	if got := s.eval(`document.getElementById("t-reply").textContent`); got != want.reply {
		t.Errorf("the reply on screen after the first sanction:\n%q\nwant the transcript's %q", got, want.reply)
	}
	if got := s.eval(`document.getElementById("t-action").textContent`); got != rec.Actions[want.action] {
		t.Errorf("the action on screen %q, want %q", got, rec.Actions[want.action])
	}
	if got := s.eval(`String(document.querySelectorAll(".t-followed .t-sanction").length)`); got == "0" {
		t.Errorf("no sanction of the newcomer shown after action %d", want.action+1)
	}
	if got := s.eval(`document.querySelector("#feed").textContent.includes("Sanction") ? "yes" : "no"`); got != "yes" {
		t.Errorf("the feed shows no sanction")
	}
	s.shot("transcript-sanction")
	// The list of the files' visits, then back to the visit: still loaded.
	s.eval(`(location.hash = "#mode=transcript", "")`)
	s.waitStage(20*time.Second, "transcript-list")
	s.eval(`(document.querySelector(".tr-list a").click(), "")`)
	s.waitStage(20*time.Second, "transcript")
	if got := s.eval(`document.body.dataset.tNext`); got != "0" {
		t.Errorf("the visit reopened at action %s, want its start", got)
	}
}

// sanctioned is the first action followed by the newcomer's sanction and
// the reply that chose it.
type sanctioned struct {
	action int
	reply  string
}

// firstSanctioned finds it in a transcript (action -1: none).
func firstSanctioned(rec sim.Record, tr prompt.Transcript) sanctioned {
	k := 0
	for _, st := range tr.Steps {
		if st.Kind != string(prompt.AskStep) {
			continue
		}
		for _, ev := range st.Events {
			if ev.Kind == "sanction" && ev.To == sim.NewcomerID {
				return sanctioned{action: k, reply: st.Reply}
			}
		}
		k++
	}
	return sanctioned{action: -1}
}

// writeLine writes v as one JSON line to path.
func writeLine(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
