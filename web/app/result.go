//go:build js && wasm

package main

import (
	"context"
	"encoding/json"
	"strings"
	"syscall/js"
	"time"

	"github.com/normgym/normgym/web/internal/ui"
)

// The result screen. Its heavy work, the rule's catalog entry and every
// baseline's run of the visit (about a second of CPU, several under load),
// runs in a worker over its own sim.wasm (boot.js offThread, worker.js),
// never on the page's thread: the screen stays responsive while it runs,
// and the baselines' table is filled in place (#baselines), so that the
// focus stays where the player put it. A sealed visit needs no sim in the
// page for it at all.
//
// In a class where everyone plays the same visit, the server holds the
// result back until the teacher reveals the rule (ui.Sealed.Held): the
// screen shows the scores only, and asks the server again now and then
// (and when the student presses the button) until it is released.

// revealPoll is how often a held result asks whether it was released.
const revealPoll = 10 * time.Second

// offThread starts the worker's work for visit: the catalog's entry of
// norm and the baselines' outcomes (two promises, boot.js).
func offThread(visit, norm string) (rule, baselines js.Value) {
	h := js.Global().Get("normgymSim").Call("offThread", visit, norm)
	return h.Get("rule"), h.Get("baselines")
}

// awaitRule waits for the worker's catalog entry (nil: no rule); an
// error says the worker could not run (a browser without module workers).
func awaitRule(p js.Value) (*ui.Norm, error) {
	v, err := await(p)
	if err != nil {
		return nil, err
	}
	var n ui.Norm
	if v.String() == "" || json.Unmarshal([]byte(v.String()), &n) != nil {
		return nil, nil
	}
	return &n, nil
}

// awaitBaselines waits for the worker's baselines; a failure to run them
// is one row that says so, with the error.
func awaitBaselines(p js.Value) ([]ui.Outcome, error) {
	v, err := await(p)
	if err != nil {
		return []ui.Outcome{{Name: "baselines", Err: "could not run: " + err.Error()}}, err
	}
	var rows []struct {
		Name   string    `json:"name"`
		Record ui.Record `json:"record"`
		Err    string    `json:"err"`
	}
	if err := json.Unmarshal([]byte(v.String()), &rows); err != nil {
		return []ui.Outcome{{Name: "baselines", Err: "unreadable: " + err.Error()}}, nil
	}
	out := make([]ui.Outcome, 0, len(rows))
	for _, r := range rows {
		out = append(out, ui.Outcome{Name: r.Name, Record: r.Record, Err: r.Err})
	}
	return out, nil
}

// showResult draws the result screen of p (the rule norm, nil for none)
// with the baselines still running, and fills them in when the worker
// has them. keep keeps the focus where it is (a screen that replaces an
// earlier result); otherwise the heading takes it, as on a new screen.
func (a *app) showResult(p *ui.Play, norm *ui.Norm, baselines js.Value, keep bool) {
	rec := *p.Record
	a.publish(p.Record) // before the screen says "result": tests read it then
	h := ui.ResultHTML(rec, norm, p.Probe, nil, a.story())
	if a.site != nil && p.Visit.Assigned && a.site.submit != "" {
		// Under the heading, where it is seen first.
		h = underHeading(h, a.submitHTML(p))
		a.data("submit", a.site.submit)
	}
	a.screen(h, keep, "#res-h")
	a.set("visit-label", escape(rec.Visit))
	a.stage("result")
	perfMark("normgym-result")
	go func() {
		others, _ := awaitBaselines(baselines) // an error is a row that says so
		if a.play == p && p.Stage == ui.StageResult {
			a.set("baselines", ui.BaselinesHTML(rec, others))
			a.data("baselines", "done")
			perfMark("normgym-baselines")
		}
	}()
}

// submitHTML says where p's run stands: a class's sealed visit is saved
// for the class.
func (a *app) submitHTML(p *ui.Play) string {
	if p.Visit.Class && a.site.submit == ui.SubmitStored {
		return ui.StoredInClassHTML()
	}
	return ui.SubmitHTML(a.site.submit, a.site.submitMsg)
}

// perfMark marks a moment on the page's performance timeline (for
// tests and curious users: the result drawn, the baselines in).
func perfMark(name string) { js.Global().Get("performance").Call("mark", name) } // not the DOM

// underHeading puts html just under the screen's heading.
func underHeading(screen, html string) string {
	if i := strings.Index(screen, "</h2>"); i >= 0 {
		return screen[:i+5] + html + screen[i+5:]
	}
	return screen
}

// localResult draws the result of a visit played in the page's own sim:
// the rule from the page's catalog, the baselines from the worker.
func (a *app) localResult(p *ui.Play) {
	if a.site != nil && p.Visit.Assigned && a.site.submit == "" {
		a.site.submit = ui.SubmitReady
	}
	a.data("baselines", "")
	_, runs := offThread(p.Record.Visit, "")
	a.showResult(p, ui.FindNorm(a.catalog(), p.Record.Norm), runs, false)
}

// sealedResult draws the result screen of a sealed visit. The server
// stored the run when the probe was answered; the rule and the baselines
// come from the worker, which runs sim.wasm now that the visit is over
// (the page itself still runs none). A held result shows the scores and
// waits for the reveal. keep keeps the focus (a result released by the
// reveal replaces the held one).
func (a *app) sealedResult(p *ui.Play, keep bool) {
	s, _ := p.Env.(*ui.Sealed)
	if s != nil && s.Last.Result != nil && s.Last.Result.RunID != "" {
		a.site.submit, a.site.submitMsg = ui.SubmitStored, ""
	}
	a.keepSealedMark(p)
	a.data("baselines", "")
	if s != nil && s.Held() {
		a.heldResult(p, s, keep)
		return
	}
	if !keep {
		a.set("screen", `<section class="card" role="status"><h2>Your visit is over</h2><p>Loading your result…</p></section>`)
		a.stage("loading")
	}
	rule, runs := offThread(p.Record.Visit, p.Record.Norm)
	go func() {
		norm, err := awaitRule(rule)
		if err != nil && a.startSim() == nil {
			// No worker in this browser: the page runs the sim itself.
			norm = ui.FindNorm(a.catalog(), p.Record.Norm)
		}
		if a.play == p && p.Stage == ui.StageResult {
			a.showResult(p, norm, runs, keep)
		}
	}()
}

// heldResult draws a held result and asks the server, every revealPoll,
// whether the teacher has revealed the rule.
func (a *app) heldResult(p *ui.Play, s *ui.Sealed, keep bool) {
	h := ui.ResultHeldHTML(p.Record.Scores, p.Picked(), a.story())
	h = underHeading(h, a.submitHTML(p))
	a.data("submit", a.site.submit)
	a.screen(h, keep, "#res-h")
	a.set("visit-label", "your class's visit")
	a.stage("result-held")
	go func() {
		for {
			time.Sleep(revealPoll)
			if a.play != p || !s.Held() || p.Stage != ui.StageResult {
				return
			}
			a.checkReveal(p, false)
		}
	}()
}

// checkReveal asks the server whether p's held result was released and,
// if so, draws it whole. asked: the student pressed the button, who is
// told the answer either way. It runs in its own goroutine.
func (a *app) checkReveal(p *ui.Play, asked bool) {
	s, ok := p.Env.(*ui.Sealed)
	if !ok || !s.Held() || a.asking {
		return
	}
	a.asking = true
	defer func() { a.asking = false }()
	if asked {
		a.set("reveal-status", "Asking the server…")
	}
	released, err := s.Refresh()
	if a.play != p {
		return
	}
	switch {
	case err != nil && asked:
		a.set("reveal-status", escape("The server could not say: "+err.Error()))
	case err == nil && !released && asked:
		a.set("reveal-status", "Not yet: your teacher has not shown the rule. This screen will show it when they do.")
	case released:
		rec, err := s.Record(context.Background(), p.Agent, p.Client)
		if err != nil {
			a.set("reveal-status", escape(err.Error()))
			return
		}
		p.Record = &rec
		a.sealedResult(p, true)
	}
}

// heldDownload is what a student may download before the reveal: how
// they did, and nothing that names the visit or its rule.
func heldDownload(p *ui.Play) []byte {
	out := struct {
		Note   string    `json:"note"`
		RunID  string    `json:"run_id,omitempty"`
		Scores ui.Scores `json:"scores"`
	}{Note: "NormGym classroom result, before the teacher revealed the rule: the visit and the rule are not in it yet."}
	if s, ok := p.Env.(*ui.Sealed); ok && s.Last.Result != nil {
		out.RunID, out.Scores = s.Last.Result.RunID, s.Last.Result.Scores
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	return append(b, '\n')
}

// download offers the finished visit's record, or a held result's scores.
func (a *app) downloadResult(p *ui.Play) {
	if s, ok := p.Env.(*ui.Sealed); ok && s.Held() {
		a.download("normgym-class-result.json", "application/json", heldDownload(p))
		return
	}
	a.downloadRecord(p.Record)
}

// screen replaces the screen's markup. With keep, the element that had
// the focus inside it (known by its id or data-act) has it again
// afterwards; otherwise first takes it, as on a new screen.
func (a *app) screen(html string, keep bool, first string) {
	sel := ""
	if keep {
		sel = a.focusedSelector()
	}
	a.set("screen", html)
	if el := a.query(first); el != nil {
		el.SetAttribute("tabindex", "-1")
	}
	switch {
	case sel != "" && a.query(sel) != nil:
		a.focus(sel)
	case !keep || sel != "":
		// A new screen, or the focused control is gone from it.
		if !keep {
			a.top()
		}
		a.focus(first)
	}
}

// focusedSelector names the element that has the focus inside #screen
// by its id or data-act ("" for none).
func (a *app) focusedSelector() string {
	act := js.Global().Get("document").Get("activeElement") // dom/v2's ActiveElement wraps any type: read the value
	if act.IsNull() || act.IsUndefined() || !act.InstanceOf(js.Global().Get("Element")) {
		return ""
	}
	el := wrap(act)
	if el.Closest("#screen") == nil {
		return ""
	}
	if id := el.ID(); id != "" {
		return "#" + id
	}
	if d := el.GetAttribute("data-act"); d != "" {
		return `[data-act="` + d + `"]`
	}
	return ""
}
