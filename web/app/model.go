//go:build js && wasm

package main

import (
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

// modelState is a model run on screen: its runner, whose loop runs in a
// goroutine of its own from the start (Runner.Run), and whether that loop
// is running now (not held).
type modelState struct {
	runner  *chat.Runner
	running bool
	ended   bool // the loop returned
}

func (s *modelState) close() { s.runner.Close() }

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
	a.renderGame(r.Last.Observation)
	a.set("controls", ui.ModelControlsHTML(cfg.Model))
	a.showObs(r.Last)
	a.modelRunning(s)
	go a.runModel(s)
}

// runModel runs the model's loop to the end of the visit; its hooks draw
// each turn, the waits before retries and the holds (a stop, or a failure
// that waits for Resume).
func (a *app) runModel(s *modelState) {
	r := s.runner
	err := r.Run(fetchPoster{}, chat.Hooks{
		Turn: func(t chat.Turn, shown ui.StepResponse) {
			if r.Closed() {
				return
			}
			a.set("m-error", "")
			if tr := a.byID("transcript"); tr != nil {
				insertHTML(tr, "afterbegin", chat.TurnHTML(t))
			}
			if t.Kind == "step" {
				a.showObs(shown)
			}
		},
		Wait: func(err error, d time.Duration, attempt int) bool { return a.modelWait(s, err, d, attempt) },
		Hold: func(err error) {
			if r.Closed() {
				return
			}
			if err == nil {
				a.modelStopped(s)
			} else {
				a.modelError(s, err)
			}
		},
	})
	s.ended = true
	if r.Closed() {
		return
	}
	if err != nil {
		a.modelError(s, err)
		return
	}
	a.modelDone()
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
			s.runner.Stop()
			a.set("m-state", "stopping after this step…")
		}
	case "m-resume":
		if s != nil && !s.running && !s.ended {
			a.modelRunning(s)
			s.runner.Resume()
		}
	case "m-settings":
		a.stop()
		a.openModel()
	case "download":
		if s != nil {
			a.downloadRecord(s.runner.Record)
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

// modelRunning shows the run going (again).
func (a *app) modelRunning(s *modelState) {
	s.running = true
	a.modelButtons(true)
	a.set("m-state", "running")
	a.set("m-error", "")
	a.stage("model-run")
}

// modelStopped shows a run held after Stop, until Resume.
func (a *app) modelStopped(s *modelState) {
	s.running = false
	a.modelButtons(false)
	a.set("m-state", "stopped")
	a.stage("model-stopped")
}

// modelWait shows why and how long the run waits before retrying, and
// counts down; it returns false if Stop was pressed (or the run closed)
// meanwhile.
func (a *app) modelWait(s *modelState, err error, d time.Duration, attempt int) bool {
	r := s.runner
	a.stage("model-wait")
	end := time.Now().Add(d)
	for left := d; left > 0; left = time.Until(end) {
		if r.Closed() || r.Stopping() {
			return false
		}
		a.set("m-state", escape(chat.WaitText(err, left, attempt, chat.Retry().Max)))
		time.Sleep(min(left, 250*time.Millisecond))
	}
	a.set("m-state", "running")
	a.stage("model-run")
	return !r.Closed() && !r.Stopping()
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
	rec := s.runner.Record
	s.running = false
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
	// The baselines run in the result screen's worker (result.go): this
	// runs in the model loop's goroutine, which may wait for them.
	_, runs := offThread(rec.Visit, "")
	others, _ := awaitBaselines(runs) // an error is a row that says so
	rows := append([]ui.Outcome{{Name: rec.Agent, Record: *rec}}, others...)
	if a.model != s {
		return // the page went elsewhere meanwhile
	}
	head := ui.OutcomeTableHTML(rows)
	a.set("m-result", head+norm+fmtErr+ui.StoryHTML(ui.DataModel)+`<div class="actions"><button type="button" class="btn primary" data-act="download">Download record (JSON)</button></div>`)
	a.stage("model-done")
}
