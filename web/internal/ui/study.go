package ui

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// A study (issue 23): a participant comes from a recruiting platform with
// the study link, /s/CODE?PROLIFIC_PID=…, which the server turns into
// this page's #study=CODE&PROLIFIC_PID=…; the page reads the parameters
// once, takes them out of the address bar and enters the study with
// them (POST /api/study/CODE/enter), keeping the study token it gets
// (StudyMarks). Then consent, a practice visit and three questions, the
// sealed visit (a ui.Sealed opened through the study), its probe, the
// debrief and the completion code or the platform's redirect. The types
// mirror serve/api's (TestMirrors).

// DataStudy: Play in a study (#study=CODE): the site's sealed visit, for
// a researcher's study, with the platform's id.
const DataStudy DataMode = "study"

// studyStory is DataStudy's story (Story).
const studyStory = "A research study: the id your platform put in the link is sent to this site once and kept only as a salted hash, " +
	"so that nobody takes part twice; it is never shown. The practice before the questions runs in this browser and nothing of it is " +
	"kept. In the visit, this site runs the community and sends this page only what you see; your answers and moves are kept on the " +
	"site under a random pseudonym, for this study's researcher, who receives them with the hashed id."

// StudyPublic mirrors api.StudyPublic (GET /api/study/CODE).
type StudyPublic struct {
	Code             string `json:"code"`
	Name             string `json:"name"`
	Status           string `json:"status"`
	Platform         string `json:"platform"`
	IDParam          string `json:"id_param,omitempty"`
	ConsentVersion   string `json:"consent_version"`
	ConsentText      string `json:"consent_text"`
	TimeLimitMinutes int    `json:"time_limit_minutes"`
	PaymentNote      string `json:"payment_note,omitempty"`
	RedirectNeedsID  bool   `json:"redirect_needs_id,omitempty"`
}

// StudyEnter mirrors api.StudyEnter.
type StudyEnter struct {
	Params map[string]string `json:"params"`
}

// StudyState mirrors api.StudyState: where the participant stands.
type StudyState struct {
	Code           string            `json:"code"`
	Name           string            `json:"name"`
	Stage          string            `json:"stage"`
	Token          string            `json:"token,omitempty"`
	Resumed        bool              `json:"resumed,omitempty"`
	ConsentVersion string            `json:"consent_version,omitempty"`
	ConsentText    string            `json:"consent_text,omitempty"`
	Tutorial       string            `json:"tutorial,omitempty"`
	Questions      []StudyQuestion   `json:"questions,omitempty"`
	Check          *StudyCheckResult `json:"check,omitempty"`
	Expires        string            `json:"expires,omitempty"`
	Debrief        string            `json:"debrief,omitempty"`
	CompletionCode string            `json:"completion_code,omitempty"`
	RedirectURL    string            `json:"redirect_url,omitempty"`
	Platform       string            `json:"platform,omitempty"`
	Message        string            `json:"message,omitempty"`
}

// StudyQuestion mirrors api.StudyQuestion.
type StudyQuestion struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
}

// StudyCheckResult mirrors api.StudyCheckResult.
type StudyCheckResult struct {
	Correct int   `json:"correct"`
	Of      int   `json:"of"`
	Passed  bool  `json:"passed"`
	Right   []int `json:"right"`
}

// StudyConsent mirrors api.StudyConsent.
type StudyConsent struct {
	Consent        bool   `json:"consent"`
	ConsentVersion string `json:"consent_version"`
}

// StudyCheck mirrors api.StudyCheck.
type StudyCheck struct {
	Answers []int `json:"answers"`
}

// Participant stages (api.StudyStage…).
const (
	StudyConsentStage = "consent"
	StudyCheckStage   = "check"
	StudyPlayStage    = "play"
	StudyDebriefStage = "debrief"
	StudyDoneStage    = "done"
	StudyExpiredStage = "expired"
)

// StudyLink is what the page's address says of a study: its code and
// the platform's parameters the link carried (none once the page has
// taken them out of the address bar).
type StudyLink struct {
	Code   string
	Params map[string]string
}

// ParseStudyLink reads #study=CODE&NAME=VALUE… (the fragment the study
// link leads to). ok is false when the fragment names no study.
func ParseStudyLink(frag string) (StudyLink, bool) {
	q := map[string]string{}
	for _, kv := range strings.Split(strings.TrimPrefix(frag, "#"), "&") {
		k, v, _ := strings.Cut(kv, "=")
		k, v = formValue(k), formValue(v)
		if _, seen := q[k]; k != "" && !seen && len(q) < 21 {
			q[k] = v
		}
	}
	code := RoomCode(q["study"])
	if len(code) != len("7K3M-Q9XD-2WFA") {
		return StudyLink{}, false
	}
	l := StudyLink{Code: code, Params: map[string]string{}}
	for k, v := range q {
		if k != "study" {
			l.Params[k] = v
		}
	}
	return l, true
}

// formValue decodes a value of a URL's query or fragment: '+' is a space
// and %XX a byte. (net/url would do it, at some 100 kB of app.wasm.)
func formValue(s string) string { return unescape(strings.ReplaceAll(s, "+", " ")) }

// queryEscape encodes s for a URL's query: letters, digits and -_.~ stay,
// the rest is %XX.
func queryEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(strconv.FormatInt(int64(c)|0x100, 16)[1:]))
	}
	return b.String()
}

// Fragment is the address the page keeps once it has read the link: the
// study's code, no platform id.
func (l StudyLink) Fragment() string { return "#study=" + l.Code }

// StudyMark is what the page keeps of a study it entered: the study
// token (the participant's only credential, which resumes it after a
// reload) and, only when the study's redirect carries it, the platform id.
type StudyMark struct {
	Token string `json:"token"`
	ID    string `json:"id,omitempty"`
	// Visit: the visit was opened; a reload goes straight back to it.
	Visit bool `json:"visit,omitempty"`
}

// StudyMarks are the marks the page keeps, by study code.
type StudyMarks map[string]StudyMark

// ParseStudyMarks reads the kept marks (none for anything else).
func ParseStudyMarks(s string) StudyMarks {
	m := StudyMarks{}
	if json.Unmarshal([]byte(s), &m) != nil {
		return StudyMarks{}
	}
	return m
}

// String is the marks as the page keeps them.
func (m StudyMarks) String() string {
	b, _ := json.Marshal(m)
	return string(b)
}

// StudyRedirect fills the platform id into a redirect URL ({id}); ""
// when there is none to go to.
func StudyRedirect(st StudyState, id string) string {
	if st.RedirectURL == "" {
		return ""
	}
	return strings.ReplaceAll(st.RedirectURL, "{id}", queryEscape(id))
}

// OpenStudyPlay opens (or resumes) a study participant's sealed visit as
// a Play: POST /api/study/CODE/session with the study token answers with
// the session, whose own token then names it. resumed reports that the
// visit was open already (a reload).
func OpenStudyPlay(fetch Fetch, code, studyToken string, v Resolved) (p *Play, resumed bool, err error) {
	s := &Sealed{fetch: fetch, token: studyToken}
	if err := s.state("POST", "/api/study/"+code+"/session", nil); err != nil {
		return nil, false, err
	}
	if s.Last.Session == "" {
		return nil, false, errors.New("the server opened no visit")
	}
	s.token = s.Last.Session
	t, err := s.turn()
	if err != nil {
		return nil, false, err
	}
	first, err := Shown(s, t)
	if err != nil {
		return nil, false, err
	}
	p, err = sealedPlay(s, first, v)
	return p, s.Last.Resumed, err
}
