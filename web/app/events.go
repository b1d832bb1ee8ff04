//go:build js && wasm

package main

import (
	"honnef.co/go/js/dom/v2"

	"github.com/normgym/normgym/web/internal/ui"
)

// The page's event handlers: clicks, keys, forms.

func (a *app) onClick(ev dom.Event) {
	if tab := closest(ev, ".tabs a[data-mode]"); tab != nil {
		preventDefault(ev)
		r := a.route
		r.Mode = tab.GetAttribute("data-mode")
		a.go_(r)
		return
	}
	el := closest(ev, "[data-act]")
	if el == nil || disabled(el) {
		return
	}
	act := el.GetAttribute("data-act")
	switch act {
	case "picker":
		a.renderPicker(el.GetAttribute("aria-expanded") != "true")
		return
	case "random":
		a.go_(ui.Route{Mode: a.mode, Room: a.route.Room})
		return
	case "reassign":
		if a.site != nil {
			go a.openSitePlay(a.route)
		}
		return
	case "reclass":
		if a.site != nil {
			go a.openClass(a.route)
		}
		return
	case "p-random", "p-suite", "p-custom":
		preventDefault(ev)
		a.pickerAction(act)
		return
	case "where":
		// The tutorial first lets go of the sanction it asked about.
		a.tutorialClick("where")
		a.showWhere(el)
		if byPointer(ev) && a.byID("map") != nil {
			a.focus("#map") // a click: the keys stay the game's
		}
		return
	}
	if a.studyClick(act) {
		return
	}
	if a.mode == ui.ModePlay && a.tutorialClick(act) {
		if byPointer(ev) && a.class != nil && a.class.tut != nil {
			a.focus("#map")
		}
		return
	}
	switch a.mode {
	case ui.ModePlay:
		a.playClick(act, el)
		if byPointer(ev) && a.play != nil && a.play.Stage == ui.StagePlay {
			// A tap or click on the pad gives the keys back to the map.
			a.focus("#map")
		}
	case ui.ModeWatch:
		a.watchClick(act)
	case ui.ModeModel:
		a.modelClick(act)
	case ui.ModeTranscript:
		a.transcriptClick(act)
	}
}

// focusOf classifies where a key event's target is.
func focusOf(ev dom.Event) ui.Focus {
	t := target(ev)
	if t == nil {
		return ui.FocusNone
	}
	tag := t.TagName()
	typ := ""
	if in := input(t); in != nil {
		typ = in.Type()
	}
	id := t.ID()
	inPad := t.Closest(".controls") != nil
	isMap := id == "map" || id == "main" || t.Closest("#map") != nil
	return ui.FocusOf(tag, typ, inPad, isMap)
}

func (a *app) onKey(e dom.Event) {
	ev, ok := e.(*dom.KeyboardEvent)
	if !ok {
		return // a script's plain Event("keydown"): no key to read
	}
	if ev.Key() == "Escape" {
		if el := a.byID("picker"); el != nil && !el.HasAttribute("hidden") {
			a.renderPicker(false)
			a.focus(".visit-btn")
			return
		}
	}
	k := ui.KeyPress{Key: ev.Key(), Repeat: ev.Repeat(), Modified: ev.CtrlKey() || ev.MetaKey() || ev.AltKey(), Focus: focusOf(ev)}
	switch {
	case a.mode == ui.ModePlay && a.class != nil && a.class.tut != nil:
		in := ui.Intent(ui.StagePlay, k)
		if in.Prevent {
			ev.PreventDefault()
		}
		if in.Act {
			a.tutorialCommand(in.Command)
		}
	case a.mode == ui.ModePlay && a.play != nil:
		in := ui.Intent(a.play.Stage, k)
		if in.Prevent {
			ev.PreventDefault()
		}
		a.playIntent(in)
	case a.mode == ui.ModeWatch && a.watch != nil:
		act, prevent := ui.WatchIntent(k)
		if prevent {
			ev.PreventDefault()
		}
		if act != "" {
			a.watchClick(act)
		}
	default:
		if k.Repeat && (k.Focus == ui.FocusControl || k.Focus == ui.FocusPad) && (k.Key == "Enter" || k.Key == " ") {
			ev.PreventDefault() // a held key does not press a button again and again
		}
	}
}

func (a *app) onSubmit(ev dom.Event) {
	preventDefault(ev)
	t := target(ev)
	if t == nil {
		return
	}
	switch t.ID() {
	case "probe-form":
		a.submitProbe()
	case "model-form":
		a.startModel()
	case "join-form":
		go a.submitJoin()
	case "code-form":
		a.submitCode()
	case "study-check-form":
		a.submitStudyCheck()
	}
}

func (a *app) onInput(ev dom.Event) {
	if t := target(ev); t != nil && t.ID() == "confidence" {
		a.set("conf-out", value(t)+"%")
	}
}

func (a *app) onChange(ev dom.Event) {
	t := target(ev)
	if t == nil {
		return
	}
	switch t.ID() {
	case "tr-files":
		go a.loadResultFiles(t)
	case "w-agent":
		r := a.route
		r.Agent = value(t)
		a.go_(r)
	case "w-speed":
		if a.watch != nil {
			a.watch.retime(a)
		}
	case "p-suite":
		sel := selectElement(t)
		if n := a.byID("p-n"); n != nil && sel != nil {
			if opts := sel.SelectedOptions(); len(opts) > 0 {
				n.SetAttribute("max", opts[0].GetAttribute("data-visits"))
			}
		}
	}
}
