//go:build !js

package main

import (
	"encoding/json"

	"github.com/normgym/normgym/serve/api"
)

// studySteps are the parity walk's steps of the study routes: a study
// created on each build, a participant taken to its visit, the
// researcher's dashboard, export and rule change, the pages and the link.
func studySteps(w *worker) []step {
	type studyOf struct{ code, researcher, participant string }
	st := map[*target]*studyOf{}
	of := func(tg *target) *studyOf {
		if st[tg] == nil {
			st[tg] = &studyOf{}
		}
		return st[tg]
	}
	design := api.StudyDesign{Name: "Parity study", Cells: api.StudyCellsNorms, Norms: []string{"place.color=red"}, Conditions: []string{"observe"},
		Target: 1, ConsentVersion: "p-1", ConsentText: "You agree.", Platform: api.PlatformProlific, CompletionCode: "PAR1TY", TimeLimitMinutes: 60,
		Rules: []api.StudyRule{{Name: "tried", Kind: api.RuleMinActions, Value: 5}}}
	path := func(suffix string) func(*target) string {
		return func(tg *target) string { return "/api/study/" + of(tg).code + suffix }
	}
	admin := func(*target) []string { return []string{"Authorization", "Bearer " + w.adminToken} }
	researcher := func(tg *target) []string { return []string{"Authorization", "Bearer " + of(tg).researcher} }
	participant := func(tg *target) []string { return []string{"Authorization", "Bearer " + of(tg).participant} }
	body := func(v any) func(*target) any { return func(*target) any { return v } }
	enter := api.StudyEnter{Params: map[string]string{"PROLIFIC_PID": "parity-pid-1"}}
	return []step{
		{pattern: "/api/studies", method: "POST", body: body(design), status: 401},
		{pattern: "/api/studies", method: "POST", body: body(design), header: admin, status: 201,
			after: func(tg *target, b []byte) {
				var c api.StudyCreated
				json.Unmarshal(b, &c)
				of(tg).code, of(tg).researcher = c.Code, c.Token
			}},
		{pattern: "/api/study/{code}", method: "GET", path: path(""), status: 200, contains: "consent_text"},
		{pattern: "/api/study/{code}", method: "GET", path: func(*target) string { return "/api/study/ABCD-EFGH-JKMN" }, status: 404},
		{pattern: "/api/study/{code}/enter", method: "POST", path: path("/enter"), body: body(enter), status: 201,
			after: func(tg *target, b []byte) {
				var s api.StudyState
				json.Unmarshal(b, &s)
				of(tg).participant = s.Token
			}},
		{pattern: "/api/study/{code}/enter", method: "POST", path: path("/enter"), body: body(enter), status: 409},
		{pattern: "/api/study/{code}/me", method: "GET", path: path("/me"), header: participant, status: 200, contains: "consent"},
		{pattern: "/api/study/{code}/me", method: "GET", path: path("/me"), status: 401},
		{pattern: "/api/study/{code}/consent", method: "POST", path: path("/consent"), header: participant, status: 200,
			body: body(api.StudyConsent{Consent: true, ConsentVersion: "p-1"})},
		{pattern: "/api/study/{code}/check", method: "POST", path: path("/check"), header: participant, status: 400, body: body(api.StudyCheck{Answers: []int{9}})},
		{pattern: "/api/study/{code}/check", method: "POST", path: path("/check"), header: participant, status: 200,
			body: body(api.StudyCheck{Answers: []int{1, 2, 0}})},
		{pattern: "/api/study/{code}/session", method: "POST", path: path("/session"), header: participant, status: 201},
		{pattern: "/api/study/{code}/finish", method: "POST", path: path("/finish"), header: participant, status: 409},
		{pattern: "/api/study/{code}/dashboard", method: "GET", path: path("/dashboard"), status: 401},
		{pattern: "/api/study/{code}/dashboard", method: "GET", path: path("/dashboard"), header: researcher, status: 200, contains: "place.color=red/observe"},
		{pattern: "/api/study/{code}/export", method: "GET", path: path("/export?format=csv"), header: researcher, status: 200, contains: "rule:tried"},
		{pattern: "/api/study/{code}/rules", method: "PUT", path: path("/rules"), header: researcher, status: 400,
			body: body(api.StudyRulesUpdate{Rules: design.Rules})},
		{pattern: "/api/study/{code}/rules", method: "PUT", path: path("/rules"), header: researcher, status: 200,
			body: body(api.StudyRulesUpdate{Rules: []api.StudyRule{}, Note: "no exclusions"})},
		{pattern: "/study", method: "GET", status: 200, contains: "Create a study"},
		{pattern: "/study.js", method: "GET", status: 200, contains: "/api/studies"},
		// The client follows the link's redirect to the app's page.
		{pattern: "/s/{code}", method: "GET", path: func(tg *target) string { return "/s/" + of(tg).code + "?PROLIFIC_PID=parity-pid-2" }, status: 200},
	}
}
