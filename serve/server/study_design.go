package server

import (
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
)

// A study's design, checked (checkDesign) and turned into its cells
// (designCells): each cell is a norm (or family) × condition with the
// visits of the study's suite that fill it; the quota plays those visits'
// cells under secret seeds.

// studyCell is one cell of a study's design.
type studyCell struct {
	// Key names the cell: "norm/condition", "family/condition", or
	// "control".
	Key                     string
	Norm, Family, Condition string
	// Visits are the suite's visits of the cell.
	Visits []string
}

// Bounds of a design.
const (
	maxStudyCells  = 500
	maxStudyTarget = 10000
	maxStudyRules  = 10
)

// checkDesign checks every field of d and fills in its defaults; the
// error says what is wrong. It returns the design's cells.
func checkDesign(d *api.StudyDesign) ([]studyCell, suiteRef, error) {
	if d.Suite == "" {
		d.Suite = assignSuite
	}
	if err := checkDesignTexts(d); err != nil {
		return nil, suiteRef{}, err
	}
	if err := checkPlatform(d); err != nil {
		return nil, suiteRef{}, err
	}
	if d.Target < 1 || d.Target > maxStudyTarget {
		return nil, suiteRef{}, errf(api.CodeInvalid, "target must be 1 to %d participants per cell", maxStudyTarget)
	}
	if d.TimeLimitMinutes < 5 || d.TimeLimitMinutes > 24*60 {
		return nil, suiteRef{}, errf(api.CodeInvalid, "time_limit_minutes must be 5 to 1440 (a visit takes about 10 to 20 minutes)")
	}
	if err := checkRules(d.Rules); err != nil {
		return nil, suiteRef{}, err
	}
	return designCells(*d)
}

// checkDesignTexts checks the design's texts.
func checkDesignTexts(d *api.StudyDesign) error {
	switch {
	case !validName(d.Name):
		return errf(api.CodeInvalid, "name must be 1 to 100 printable characters")
	case d.ConsentVersion == "" || len(d.ConsentVersion) > 40 || !validName(d.ConsentVersion):
		return errf(api.CodeInvalid, "consent_version must name the consent text in 1 to 40 printable characters (the version your ethics board approved)")
	case strings.TrimSpace(d.ConsentText) == "" || len(d.ConsentText) > 20000 || !utf8.ValidString(d.ConsentText):
		return errf(api.CodeInvalid, "consent_text must be the consent text participants agree to (1 to 20,000 characters)")
	case len(d.PaymentNote) > 500 || !utf8.ValidString(d.PaymentNote):
		return errf(api.CodeInvalid, "payment_note must be at most 500 characters")
	case len(d.Debrief) > 5000 || !utf8.ValidString(d.Debrief):
		return errf(api.CodeInvalid, "debrief must be at most 5,000 characters")
	}
	return nil
}

// checkPlatform checks the platform, its id parameter and the end of the
// study (completion code, redirect).
func checkPlatform(d *api.StudyDesign) error {
	switch d.Platform {
	case api.PlatformProlific, api.PlatformMTurk, api.PlatformNone:
		if d.IDParam != "" {
			return errf(api.CodeInvalid, "id_param is for SONA, whose study URL names its own parameter; %s's is fixed", d.Platform)
		}
	case api.PlatformSONA:
		if d.IDParam == "" {
			d.IDParam = "id"
		}
		if !validParam(d.IDParam) {
			return errf(api.CodeInvalid, "id_param must be 1 to 40 letters, digits or '_' (the parameter of %%SURVEY_CODE%% in SONA's study URL)")
		}
	default:
		return errf(api.CodeInvalid, "platform must be prolific, mturk, sona or none, not %q", clip(d.Platform))
	}
	if d.CompletionCode != "" && !validParam(strings.ReplaceAll(d.CompletionCode, "-", "_")) {
		return errf(api.CodeInvalid, "completion_code must be 1 to 40 letters, digits, '-' or '_'")
	}
	if d.RedirectURL != "" {
		if err := checkRedirect(d.RedirectURL); err != nil {
			return err
		}
	}
	if d.Platform != api.PlatformNone && d.CompletionCode == "" && d.RedirectURL == "" {
		return errf(api.CodeInvalid, "a study on %s needs a completion_code or a redirect_url: it is how participants get paid", d.Platform)
	}
	return nil
}

// checkRedirect checks a redirect URL: https, or http to this machine
// (for testing), with no user info and at most 500 bytes.
func checkRedirect(s string) error {
	u, err := url.Parse(strings.NewReplacer("{code}", "CODE", "{id}", "ID").Replace(s))
	bad := err != nil || len(s) > 500 || u.Host == "" || u.User != nil
	if !bad {
		h := u.Hostname()
		local := h == "localhost" || h == "127.0.0.1" || h == "::1"
		bad = !(u.Scheme == "https" || u.Scheme == "http" && local)
	}
	if bad {
		return errf(api.CodeInvalid, "redirect_url must be an https URL of at most 500 characters ({code} is replaced by the completion code, {id} by the participant's platform id)")
	}
	return nil
}

// validParam reports whether s is 1 to 40 letters, digits or '_'.
func validParam(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// checkRules checks a rule set.
func checkRules(rules []api.StudyRule) error {
	if len(rules) > maxStudyRules {
		return errf(api.CodeInvalid, "at most %d exclusion rules", maxStudyRules)
	}
	seen := map[string]bool{}
	for _, r := range rules {
		if !validParam(strings.ReplaceAll(r.Name, "-", "_")) {
			return errf(api.CodeInvalid, "a rule's name must be 1 to 40 letters, digits, '-' or '_', not %q", clip(r.Name))
		}
		if seen[r.Name] {
			return errf(api.CodeInvalid, "two rules are named %q", r.Name)
		}
		seen[r.Name] = true
		lo, hi, ok := ruleBounds(r.Kind)
		if !ok {
			return errf(api.CodeInvalid, "rule %s: kind must be one of %s, not %q", r.Name, strings.Join(api.RuleKinds(), ", "), clip(r.Kind))
		}
		if r.Value < lo || r.Value > hi {
			return errf(api.CodeInvalid, "rule %s (%s): value must be %g to %g", r.Name, r.Kind, lo, hi)
		}
	}
	return nil
}

// ruleBounds are the values a rule kind takes.
func ruleBounds(kind string) (lo, hi float64, ok bool) {
	switch kind {
	case api.RuleComprehension:
		return 0, float64(len(checkQuestions)), true
	case api.RuleMinActions:
		return 0, 400, true
	case api.RuleMaxIdle:
		return 0.5, 24 * 60, true
	case api.RuleMaxRepeat:
		return 1, 400, true
	}
	return 0, 0, false
}

// designCells lists d's cells with the visits of its suite that fill
// them.
func designCells(d api.StudyDesign) ([]studyCell, suiteRef, error) {
	su, err := sim.LookupSuite(d.Suite)
	if err != nil {
		return nil, suiteRef{}, errf(api.CodeInvalid, "unknown suite %q (want one of %s)", clip(d.Suite), strings.Join(sim.SuiteNames(), ", "))
	}
	cat := norms.Default()
	var rows []string // norms or families
	switch d.Cells {
	case api.StudyCellsNorms:
		rows = d.Norms
		if len(d.Families) > 0 {
			return nil, suiteRef{}, errf(api.CodeInvalid, "a design of norms lists norms, not families")
		}
		for _, n := range rows {
			if _, err := cat.Lookup(n); err != nil || n == norms.NoNorm {
				return nil, suiteRef{}, errf(api.CodeInvalid, "unknown norm %q (normgym norms lists them)", clip(n))
			}
		}
	case api.StudyCellsFamilies:
		rows = d.Families
		if len(d.Norms) > 0 {
			return nil, suiteRef{}, errf(api.CodeInvalid, "a design of families lists families, not norms")
		}
		for _, f := range rows {
			if !slices.Contains(cat.Families(), f) {
				return nil, suiteRef{}, errf(api.CodeInvalid, "unknown family %q (want some of %s)", clip(f), strings.Join(cat.Families(), ", "))
			}
		}
	default:
		return nil, suiteRef{}, errf(api.CodeInvalid, "cells must be norms or families (cells are norms × conditions or families × conditions)")
	}
	if len(rows) == 0 && !(len(d.Conditions) == 1 && d.Conditions[0] == sim.Control) {
		return nil, suiteRef{}, errf(api.CodeInvalid, "list the %s the cells cross with the conditions", d.Cells)
	}
	if len(d.Conditions) == 0 {
		return nil, suiteRef{}, errf(api.CodeInvalid, "list the conditions (observe, peers, solo, told; control adds one cell of visits without a norm)")
	}
	if dup := firstDuplicate(rows); dup != "" {
		return nil, suiteRef{}, errf(api.CodeInvalid, "%q is listed twice", clip(dup))
	}
	if dup := firstDuplicate(d.Conditions); dup != "" {
		return nil, suiteRef{}, errf(api.CodeInvalid, "condition %q is listed twice", clip(dup))
	}
	cells, err := crossCells(su, d.Cells, rows, d.Conditions)
	if err != nil {
		return nil, suiteRef{}, err
	}
	return cells, suiteRef{su.Name, su.Version}, nil
}

// crossCells makes the cells of rows (norms or families) × conditions
// and fills each with the suite's visits; a cell the suite has no visit
// of is an error.
func crossCells(su sim.Suite, kind string, rows, conditions []string) ([]studyCell, error) {
	var cells []studyCell
	byKey := map[string]int{}
	for _, c := range conditions {
		if c == sim.Control {
			byKey["control"] = len(cells)
			cells = append(cells, studyCell{Key: "control", Norm: norms.NoNorm, Condition: sim.Control})
			continue
		}
		for _, r := range rows {
			cell := studyCell{Key: r + "/" + c, Condition: c}
			if kind == api.StudyCellsNorms {
				cell.Norm = r
				cell.Family, _, _, _ = norms.ParseID(r)
			} else {
				cell.Family = r
			}
			byKey[cell.Key] = len(cells)
			cells = append(cells, cell)
		}
	}
	if len(cells) > maxStudyCells {
		return nil, errf(api.CodeInvalid, "the design has %d cells; at most %d", len(cells), maxStudyCells)
	}
	for _, v := range su.Visits {
		if i, ok := byKey[visitCellKey(kind, v)]; ok {
			cells[i].Visits = append(cells[i].Visits, v)
		}
	}
	for _, c := range cells {
		if len(c.Visits) == 0 {
			return nil, errf(api.CodeInvalid, "the %s suite has no visit of the cell %s (conditions it holds: %s)", su.Name, c.Key,
				strings.Join(suiteConditions(su), ", "))
		}
	}
	return cells, nil
}

// visitCellKey is the key of the cell a visit fills in a design of kind.
func visitCellKey(kind, visit string) string {
	id, err := sim.ParseVisitID(visit)
	if err != nil {
		return ""
	}
	_, cond, fam := session.VisitParts(visit, id.Norm)
	switch {
	case id.Norm == norms.NoNorm:
		return "control"
	case kind == api.StudyCellsNorms:
		return id.Norm + "/" + cond
	}
	return fam + "/" + cond
}

// suiteConditions lists the conditions (with variants) of a suite's
// visits.
func suiteConditions(su sim.Suite) []string {
	var out []string
	for _, v := range su.Visits {
		id, err := sim.ParseVisitID(v)
		if err != nil {
			continue
		}
		if _, c, _ := session.VisitParts(v, id.Norm); !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// firstDuplicate returns the first string listed twice ("" for none).
func firstDuplicate(xs []string) string {
	seen := map[string]bool{}
	for _, x := range xs {
		if seen[x] {
			return x
		}
		seen[x] = true
	}
	return ""
}
