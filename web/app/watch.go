//go:build js && wasm

package main

import (
	"strconv"

	"github.com/normgym/normgym/web/internal/ui"
)

// watchState is a baseline replay on screen with its timer.
type watchState struct {
	w       *ui.Watch
	timer   *timer
	playing bool
}

func (a *app) openWatch() {
	agent := a.route.Agent
	if agent == "" {
		agent = "observer"
	}
	w, err := ui.NewWatch(a.client, a.visit, agent)
	if err != nil {
		a.set("screen", `<section class="card" role="alert"><h2>This replay cannot be opened</h2><p>`+escape(err.Error())+`</p></section>`)
		a.stage("error")
		return
	}
	a.watch = &watchState{w: w}
	a.renderGame(w.Last.Observation)
	a.set("controls", ui.WatchBarHTML(a.info.Agents, agent))
	a.showObs(w.Last)
	a.watchProgress()
	a.stage("watch")
}

func (s *watchState) close(a *app) {
	s.pause(a)
	s.w.Close()
}

func (s *watchState) pause(a *app) {
	if s.timer != nil {
		s.timer.stop()
		s.timer = nil
	}
	s.playing = false
	if el := a.byID("w-play"); el != nil {
		el.SetAttribute("aria-pressed", "false")
		el.SetInnerHTML("▶ Play")
	}
}

func (s *watchState) speed(a *app) int {
	if el := a.byID("w-speed"); el != nil {
		if n, err := strconv.Atoi(value(el)); err == nil && n > 0 {
			return n
		}
	}
	return 3
}

func (s *watchState) start(a *app) {
	s.playing = true
	if el := a.byID("w-play"); el != nil {
		el.SetAttribute("aria-pressed", "true")
		el.SetInnerHTML("❚❚ Pause")
	}
	s.timer = every(a.win, 1000/s.speed(a), a.watchStep)
}

// retime applies a new speed to a running replay.
func (s *watchState) retime(a *app) {
	if s.playing {
		s.pause(a)
		s.start(a)
	}
}

func (a *app) watchStep() {
	s := a.watch
	if s == nil {
		return
	}
	if s.w.Done() {
		s.pause(a)
		return
	}
	r, err := s.w.Step()
	if err != nil {
		s.pause(a)
		a.set("status", escape(err.Error()))
		return
	}
	a.showObs(r)
	a.watchProgress()
	if s.w.Done() {
		s.pause(a)
	}
}

func (a *app) watchProgress() {
	s := a.watch
	a.set("w-progress", ui.WatchProgressHTML(s.w))
	if !s.w.Done() {
		a.set("w-result", "")
		return
	}
	ok, err := s.w.Verified()
	check := `<p class="verified">✓ Replayed step by step: the trajectory hash matches the module's run.</p>`
	if err != nil || !ok {
		check = `<p class="alert">The replayed trajectory differs from the module's run.</p>`
	}
	var norm *ui.Norm
	if s.w.Record.Norm != "none" {
		norm = ui.FindNorm(a.catalog(), s.w.Record.Norm)
	}
	rule := `<p>Control visit: no rule.</p>`
	if norm != nil {
		rule = `<details><summary>Show the rule</summary><p class="rule">` + escape(norm.Statement) + `</p></details>`
	}
	a.set("w-result", check+ui.OutcomeTableHTML([]ui.Outcome{{Name: s.w.Agent, Record: s.w.Record}})+rule)
	a.stage("watch-done")
}

func (a *app) watchClick(act string) {
	s := a.watch
	if s == nil {
		return
	}
	switch act {
	case "w-play":
		if s.playing {
			s.pause(a)
		} else {
			if s.w.Done() {
				a.watchRestart()
			}
			s.start(a)
		}
	case "w-step":
		s.pause(a)
		a.watchStep()
	case "w-restart":
		s.pause(a)
		a.watchRestart()
	}
}

func (a *app) watchRestart() {
	s := a.watch
	if err := s.w.Restart(); err != nil {
		a.set("status", escape(err.Error()))
		return
	}
	a.resetFeed()
	a.set("feed", "")
	a.showObs(s.w.Last)
	a.watchProgress()
	a.stage("watch")
}
