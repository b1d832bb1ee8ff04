//go:build !js

package ui_test

import (
	"encoding/json"
	"html"
	"strings"
	"testing"

	"github.com/normgym/normgym/web/internal/ui"
	"github.com/normgym/normgym/web/internal/wasmtest"
)

// TestTranscriptView replays a model's visit with its transcript in the
// module: each action's exchange has the new user turn the model loop sent
// (rebuilt from the visit) and the reply as returned, the probe's too, and
// NextSanction stops at the first action followed by the newcomer's
// sanction, showing its reply.
func TestTranscriptView(t *testing.T) {
	visit := wasmtest.SanctionedVisit(t, "mini")
	rec, tr, prompts := wasmtest.ModelRun(t, visit)
	var res ui.Results
	rl, _ := json.Marshal(rec)
	tl, _ := json.Marshal(tr)
	if err := res.Add("m.jsonl", append(rl, '\n')); err != nil {
		t.Fatal(err)
	}
	if err := res.Add("m.transcripts.jsonl", tl); err != nil {
		t.Fatal(err)
	}
	if err := res.Add("bad.jsonl", []byte(`{"hello": 1}`)); err == nil || !strings.Contains(err.Error(), "bad.jsonl:1") {
		t.Errorf("a line of neither: %v", err)
	}
	got, ok := res.Find(visit, rec.Agent)
	tgot, has := res.Transcript(got)
	if !ok || !has {
		t.Fatalf("Find/Transcript: %v %v", ok, has)
	}
	v, err := ui.NewTranscriptView(wasmtest.Client(t), got, tgot)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	k := 0 // the request
	for !v.Done() {
		if _, err := v.Step(); err != nil {
			t.Fatal(err)
		}
		e := v.Shown
		if e.Prompt != prompts[k] || e.Request.Reply != tr.Steps[k].Reply || e.Request.Reasoning == "" {
			t.Fatalf("action %d: the exchange differs from the loop's request %d", e.Index+1, k+1)
		}
		k++
		if e.Notes != nil {
			k++
		}
	}
	p, s := v.ProbeExchange()
	if rec.Probe != nil && (s == nil || p != prompts[k] || s.Reply != tr.Steps[k].Reply) {
		t.Fatalf("the probe's exchange differs from the loop's last request")
	}
	if html := ui.TranscriptPanelHTML(v); !strings.Contains(html, "The probe") {
		t.Errorf("the last panel shows no probe")
	}
	// Next sanction: the first action the newcomer was sanctioned after.
	if err := v.Restart(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := v.NextSanction(); err != nil {
		t.Fatal(err)
	}
	e := v.Shown
	if e == nil || !e.Sanctioned() {
		t.Fatalf("NextSanction stopped at %+v, not after a sanction", e)
	}
	html := ui.TranscriptPanelHTML(v)
	if !strings.Contains(html, `class="ev-sanction t-sanction"`) || !strings.Contains(html, esc(e.Request.Reply)) {
		t.Errorf("the panel after the sanction lacks the sanction or the reply:\n%s", html)
	}
	if list := ui.TranscriptListHTML(&res); !strings.Contains(list, `href="#mode=transcript&amp;visit=`) {
		t.Errorf("the list links no replay:\n%s", list)
	}
}

// esc is the page's escaping of text.
var esc = html.EscapeString
