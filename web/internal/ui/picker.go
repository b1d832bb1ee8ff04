package ui

import "strings"

// Conditions are the visit conditions, in the sim's canonical order.
var Conditions = []string{"observe", "peers", "solo", "told", "control"}

// PickerHTML is the visit picker: a suite and a number (the rule stays
// hidden), or world, condition, norm and seed (naming the rule). norms
// may be nil until the catalog is loaded.
func PickerHTML(info Info, norms []Norm, cur Resolved) string {
	var b strings.Builder
	b.WriteString(`<form id="pick-form">`)
	b.WriteString(`<fieldset><legend>From a suite — the rule stays hidden</legend><label for="p-suite">Suite <select id="p-suite">`)
	for _, s := range info.Suites {
		sel := ""
		if s.Name == cur.Suite || (cur.Suite == "" && s.Name == "standard") {
			sel = " selected"
		}
		b.WriteString(`<option value="` + esc(s.Name) + `" data-visits="` + itoa(s.Visits) + `"` + sel + `>` + esc(s.Name) + ` (` + itoa(s.Visits) + ` visits)</option>`)
	}
	n := cur.N
	if n < 1 {
		n = 1
	}
	b.WriteString(`</select></label><label for="p-n">Visit number <input id="p-n" type="number" min="1" value="` + itoa(n) + `" inputmode="numeric" style="width:7em"></label>`)
	b.WriteString(`<button type="button" class="btn" data-act="p-random">Random</button><button type="button" class="btn primary" data-act="p-suite">Open</button></fieldset>`)

	b.WriteString(`<fieldset><legend>Choose everything — this names the rule</legend><label for="p-world">World <select id="p-world">`)
	for _, w := range info.Worlds {
		b.WriteString(`<option value="` + esc(w.Name) + `">` + esc(w.Name) + `</option>`)
	}
	b.WriteString(`</select></label><label for="p-cond">Condition <select id="p-cond">`)
	for _, c := range Conditions {
		b.WriteString(`<option value="` + c + `">` + c + `</option>`)
	}
	b.WriteString(`</select></label><label for="p-norm">Rule <select id="p-norm">`)
	if norms == nil {
		b.WriteString(`<option value="">(loading)</option>`)
	}
	fam := ""
	for _, nm := range norms {
		if nm.Family != fam {
			if fam != "" {
				b.WriteString(`</optgroup>`)
			}
			fam = nm.Family
			b.WriteString(`<optgroup label="` + esc(fam) + `">`)
		}
		b.WriteString(`<option value="` + esc(nm.ID) + `">` + esc(nm.Statement) + `</option>`)
	}
	if fam != "" {
		b.WriteString(`</optgroup>`)
	}
	b.WriteString(`</select></label><label for="p-seed">Seed <input id="p-seed" type="number" min="0" value="1" style="width:7em"></label>`)
	b.WriteString(`<button type="button" class="btn primary" data-act="p-custom">Open</button></fieldset>`)
	b.WriteString(`<p class="share hint">The address bar names the visit, so a link to this page opens the same visit. Control visits have no rule (any rule chosen is ignored).</p></form>`)
	return b.String()
}

// CustomVisit builds a visit id from the picker's choices; control visits
// take the norm "none".
func CustomVisit(world, cond, norm string, seed int) string {
	if cond == "control" || norm == "" {
		norm = "none"
		cond = "control"
	}
	if seed < 0 {
		seed = 0
	}
	return world + "/" + norm + "/" + cond + "/s" + itoa(seed)
}
