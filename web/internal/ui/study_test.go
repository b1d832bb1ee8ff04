//go:build !js

package ui_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/web/internal/ui"
)

// TestStudyMirrors: the study's wire types are the server's, field by
// field.
func TestStudyMirrors(t *testing.T) {
	for _, tc := range []struct {
		name         string
		mine, theirs any
	}{
		{"StudyPublic", ui.StudyPublic{}, api.StudyPublic{}},
		{"StudyEnter", ui.StudyEnter{}, api.StudyEnter{}},
		{"StudyState", ui.StudyState{}, api.StudyState{}},
		{"StudyQuestion", ui.StudyQuestion{}, api.StudyQuestion{}},
		{"StudyCheckResult", ui.StudyCheckResult{}, api.StudyCheckResult{}},
		{"StudyConsent", ui.StudyConsent{}, api.StudyConsent{}},
		{"StudyCheck", ui.StudyCheck{}, api.StudyCheck{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want := strings.Join(jsonFields(reflect.TypeOf(tc.mine)), " "), strings.Join(jsonFields(reflect.TypeOf(tc.theirs)), " ")
			if got != want {
				t.Errorf("ui.%s JSON fields\n got  %s\n want %s", tc.name, got, want)
			}
		})
	}
	stages := map[string]string{ui.StudyConsentStage: api.StudyStageConsent, ui.StudyCheckStage: api.StudyStageCheck,
		ui.StudyPlayStage: api.StudyStagePlay, ui.StudyDebriefStage: api.StudyStageDebrief, ui.StudyDoneStage: api.StudyStageDone,
		ui.StudyExpiredStage: api.StudyStageExpired}
	for mine, theirs := range stages {
		if mine != theirs {
			t.Errorf("stage %q is %q on the server", mine, theirs)
		}
	}
}

func TestParseStudyLink(t *testing.T) {
	tests := []struct {
		name, frag string
		ok         bool
		code       string
		params     map[string]string
	}{
		{"prolific", "#study=7K3M-Q9XD-2WFA&PROLIFIC_PID=5f1e&STUDY_ID=s1&SESSION_ID=x%2B9", true, "7K3M-Q9XD-2WFA",
			map[string]string{"PROLIFIC_PID": "5f1e", "STUDY_ID": "s1", "SESSION_ID": "x+9"}},
		{"code in any case, no params", "study=7k3mq9xd2wfa", true, "7K3M-Q9XD-2WFA", map[string]string{}},
		{"a space as +, a value twice", "#study=7K3M-Q9XD-2WFA&id=a+b&id=c", true, "7K3M-Q9XD-2WFA", map[string]string{"id": "a b"}},
		{"no study", "#mode=watch", false, "", nil},
		{"not a code", "#study=hello", false, "", nil},
		{"empty", "", false, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, ok := ui.ParseStudyLink(tt.frag)
			if ok != tt.ok || l.Code != tt.code || ok && !reflect.DeepEqual(l.Params, tt.params) {
				t.Errorf("ParseStudyLink(%q) = %+v, %v; want %s %v, %v", tt.frag, l, ok, tt.code, tt.params, tt.ok)
			}
			if ok && (l.Fragment() != "#study="+tt.code || strings.Contains(l.Fragment(), "PROLIFIC")) {
				t.Errorf("the kept address %q holds more than the code", l.Fragment())
			}
		})
	}
}

func TestStudyMarksAndRedirect(t *testing.T) {
	m := ui.StudyMarks{"7K3M-Q9XD-2WFA": {Token: "stp_x", ID: "42"}}
	if got := ui.ParseStudyMarks(m.String()); !reflect.DeepEqual(got, m) {
		t.Errorf("marks round trip: %v, want %v", got, m)
	}
	if got := ui.ParseStudyMarks("not json"); len(got) != 0 {
		t.Errorf("garbage reads as %v", got)
	}
	tests := []struct{ url, id, want string }{
		{"https://app.prolific.com/submissions/complete?cc=C0DE", "", "https://app.prolific.com/submissions/complete?cc=C0DE"},
		{"https://u.sona-systems.com/webstudy_credit.aspx?experiment_id=1&credit_token=t&survey_code={id}", "a b&c",
			"https://u.sona-systems.com/webstudy_credit.aspx?experiment_id=1&credit_token=t&survey_code=a%20b%26c"},
		{"", "x", ""},
	}
	for _, tt := range tests {
		if got := ui.StudyRedirect(ui.StudyState{RedirectURL: tt.url}, tt.id); got != tt.want {
			t.Errorf("StudyRedirect(%q, %q) = %q, want %q", tt.url, tt.id, got, tt.want)
		}
	}
}

// TestStudyScreensEscape: what a researcher wrote is text on the page,
// never markup.
func TestStudyScreensEscape(t *testing.T) {
	evil := `<img src=x onerror=alert(1)>`
	st := ui.StudyState{Name: evil, ConsentVersion: evil, ConsentText: evil + "\n\n" + evil, CompletionCode: evil, Debrief: evil}
	for name, h := range map[string]string{
		"consent":   ui.StudyConsentHTML(st, ui.StudyPublic{PaymentNote: evil, TimeLimitMinutes: 60}),
		"questions": ui.StudyQuestionsHTML([]ui.StudyQuestion{{Question: evil, Options: []string{evil}}}, evil),
		"debrief":   ui.StudyDebriefHTML(ui.Record{}, nil, st.Debrief),
		"done":      ui.StudyDoneHTML(st, "https://x.example/?a="+evil),
		"stop":      ui.StudyStopHTML(evil, evil, true),
	} {
		if strings.Contains(h, "<img") {
			t.Errorf("%s: the researcher's text became markup: %s", name, h)
		}
	}
	if h := ui.StudyConsentHTML(st, ui.StudyPublic{}); !strings.Contains(h, `data-story="study"`) || strings.Count(h, `<p class="consent">`) != 2 {
		t.Errorf("the consent screen lacks its story or paragraphs: %s", h)
	}
}
