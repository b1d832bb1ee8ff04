//go:build js && wasm

package main

import (
	"math/rand/v2"
	"strconv"

	"github.com/normgym/normgym/web/internal/ui"
)

// renderPicker shows or hides the visit picker under the header.
func (a *app) renderPicker(open bool) {
	el := a.byID("picker")
	btn := a.query(".visit-btn")
	if el == nil {
		return
	}
	if !open {
		el.SetAttribute("hidden", "")
		if btn != nil {
			btn.SetAttribute("aria-expanded", "false")
		}
		return
	}
	el.SetInnerHTML(ui.PickerHTML(a.info, a.catalog(), a.visit))
	el.RemoveAttribute("hidden")
	if btn != nil {
		btn.SetAttribute("aria-expanded", "true")
	}
	a.focus("#p-suite")
}

func (a *app) value(id string) string {
	if el := a.byID(id); el != nil {
		return value(el)
	}
	return ""
}

func (a *app) pickerAction(act string) {
	switch act {
	case "p-random":
		suite := a.value("p-suite")
		for _, s := range a.info.Suites {
			if s.Name == suite && s.Visits > 0 {
				if el := a.byID("p-n"); el != nil {
					setValue(el, strconv.Itoa(1+rand.IntN(s.Visits)))
				}
			}
		}
	case "p-suite":
		n, _ := strconv.Atoi(a.value("p-n"))
		a.renderPicker(false)
		a.go_(ui.Route{Mode: a.mode, Suite: a.value("p-suite"), N: max(n, 1), Agent: a.route.Agent})
	case "p-custom":
		seed, _ := strconv.Atoi(a.value("p-seed"))
		id := ui.CustomVisit(a.value("p-world"), a.value("p-cond"), a.value("p-norm"), seed)
		a.renderPicker(false)
		a.go_(ui.Route{Mode: a.mode, Visit: id, Agent: a.route.Agent})
	}
}
