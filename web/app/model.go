//go:build js && wasm

package main

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/normgym/normgym/web/internal/chat"
	"github.com/normgym/normgym/web/internal/ui"
)

// The model settings kept in the browser's localStorage. The key is kept
// nowhere else and sent only to the endpoint.
const (
	keyURL   = "normgym.model.baseURL"
	keyModel = "normgym.model.name"
	keyKey   = "normgym.model.apiKey"
)

// modelState is a model run on screen.
type modelState struct {
	runner  *chat.Runner
	running bool
	stopReq bool
	closed  bool
}

func (s *modelState) close() {
	s.stopReq, s.closed = true, true
	s.runner.Play.Close()
}

func (a *app) openModel() {
	a.set("screen", ui.ModelFormHTML(storageGet(keyURL), storageGet(keyModel), storageGet(keyKey) != "", a.visit.Label()))
	a.stage("model-form")
	a.setStory(ui.DataModel)
}

func (a *app) startModel() {
	cfg := chat.Config{BaseURL: strings.TrimSpace(a.value("m-url")), Model: strings.TrimSpace(a.value("m-model"))}
	if k := strings.TrimSpace(a.value("m-key")); k != "" {
		storageSet(keyKey, k)
	}
	cfg.APIKey = storageGet(keyKey)
	if cfg.BaseURL == "" || cfg.Model == "" {
		return
	}
	storageSet(keyURL, cfg.BaseURL)
	storageSet(keyModel, cfg.Model)
	if a.model != nil {
		a.model.close()
	}
	r, err := chat.NewRunner(a.client, a.visit, cfg)
	if err != nil {
		a.set("screen", `<section class="card" role="alert"><p>`+escape(err.Error())+`</p></section>`)
		return
	}
	s := &modelState{runner: r}
	a.model = s
	a.resetFeed()
	a.renderGame(r.Play.Obs())
	a.set("controls", ui.ModelControlsHTML(cfg.Model))
	a.showObs(r.Play.Last)
	a.resume()
}

func (a *app) modelClick(act string) {
	s := a.model
	switch act {
	case "m-forget":
		storageSet(keyKey, "")
		if el := a.byID("m-key"); el != nil {
			setValue(el, "")
		}
		a.set("m-key-note", "Forgotten: no key is stored in this browser.")
	case "m-stop":
		if s != nil && s.running {
			s.stopReq = true
			a.set("m-state", "stopping after this step…")
		}
	case "m-resume":
		a.resume()
	case "m-settings":
		a.stop()
		a.openModel()
	case "download":
		if s != nil {
			a.downloadRecord(s.runner.Play.Record)
		}
	}
}

func (a *app) modelButtons(running bool) {
	if b := button(a.byID("m-stop")); b != nil {
		b.SetDisabled(!running)
	}
	if b := button(a.byID("m-resume")); b != nil {
		b.SetDisabled(running)
	}
}

// resume runs the model until the visit ends, Stop is pressed or the
// endpoint fails; then Resume retries from the same step.
func (a *app) resume() {
	s := a.model
	if s == nil || s.running || s.runner.Done() {
		return
	}
	s.running, s.stopReq = true, false
	a.modelButtons(true)
	a.set("m-state", "running")
	a.set("m-error", "")
	a.stage("model-run")
	r := s.runner
	go func() {
		attempt := 0
		for !r.Done() && !s.stopReq {
			t, err := r.Next(fetchPoster{})
			if s.closed {
				return
			}
			if err != nil {
				if d, ok := chat.DefaultRetry.Wait(err, attempt, time.Now(), rand.Int64N); ok {
					attempt++
					if !a.modelWait(s, err, d, attempt) {
						break // stopped while waiting
					}
					continue
				}
				a.modelError(s, err)
				return
			}
			attempt = 0
			a.set("m-error", "")
			a.set("m-state", "running")
			if tr := a.byID("transcript"); tr != nil {
				insertHTML(tr, "afterbegin", chat.TurnHTML(t))
			}
			if t.Kind == "step" {
				a.showObs(r.Play.Last)
			}
		}
		s.running = false
		a.modelButtons(false)
		if !r.Done() {
			a.set("m-state", "stopped")
			a.stage("model-stopped")
			return
		}
		a.modelDone()
	}()
}

// modelWait shows why and how long the run waits before retrying, and
// counts down; it returns false if Stop was pressed meanwhile.
func (a *app) modelWait(s *modelState, err error, d time.Duration, attempt int) bool {
	a.stage("model-wait")
	end := time.Now().Add(d)
	for left := d; left > 0; left = time.Until(end) {
		if s.closed || s.stopReq {
			return false
		}
		a.set("m-state", escape(chat.WaitText(err, left, attempt, chat.DefaultRetry.Max)))
		time.Sleep(min(left, 250*time.Millisecond))
	}
	a.set("m-state", "running")
	a.stage("model-run")
	return !s.closed && !s.stopReq
}

// modelError pauses the run and says why; a request that got no answer
// at all is explained as the CORS refusal it usually is.
func (a *app) modelError(s *modelState, err error) {
	s.running = false
	a.modelButtons(false)
	msg := escape(ui.Title(err.Error())) + `. The run is paused at this step: press <b>Resume</b> to try it again.`
	if e, ok := err.(*chat.EndpointError); ok && e.Status == 0 {
		msg = chat.ExplainNoAnswer(s.runner.Config.BaseURL, a.win.Location().Origin(), e.Message)
	}
	a.set("m-error", msg)
	a.set("m-state", "paused after an error")
	if el := a.byID("m-error"); el != nil {
		scrollNearest(el)
	}
	a.stage("model-error")
}

func (a *app) modelDone() {
	s := a.model
	rec := s.runner.Play.Record
	a.publish(rec)
	if b := button(a.byID("m-resume")); b != nil {
		b.SetDisabled(true)
	}
	if b := button(a.byID("m-stop")); b != nil {
		b.SetDisabled(true)
	}
	a.set("m-state", "finished")
	a.set("visit-label", escape(rec.Visit))
	var norm string
	if n := ui.FindNorm(a.catalog(), rec.Norm); n != nil {
		norm = `<p>The rule was: <b>` + escape(n.Statement) + `</b></p>`
	}
	fmtErr := ""
	if s.runner.FormatErrors > 0 {
		fmtErr = `<p class="hint">Replies without a usable ACTION/ANSWER line: ` + strconv.Itoa(s.runner.FormatErrors) + `.</p>`
	}
	rows := append([]ui.Outcome{{Name: rec.Agent, Record: *rec}}, a.client.Baselines(rec.Visit, a.info.Agents)...)
	head := ui.OutcomeTableHTML(rows)
	a.set("m-result", head+norm+fmtErr+ui.StoryHTML(ui.DataModel)+`<div class="actions"><button type="button" class="btn primary" data-act="download">Download record (JSON)</button></div>`)
	a.stage("model-done")
}
