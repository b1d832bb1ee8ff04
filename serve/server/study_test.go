package server_test

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/store/storetest"
	"github.com/normgym/normgym/sim"
)

const studyAdmin = "study-admin-token"

// withStudies gives the server sessions, an admin token and a study key
// (returned in *key).
func withStudies(key *string) option {
	return func(o *server.Options) {
		withSessions(nil)(o)
		o.AdminToken = studyAdmin
		k, line, err := server.NewStudyKey("lab-1")
		if err != nil {
			panic(err)
		}
		keys, err := server.ParseTeacherKeys(line)
		if err != nil {
			panic(err)
		}
		o.StudyKeys = keys
		if key != nil {
			*key = k
		}
	}
}

// studyDesign is a small valid design: two norms under observe, target 1,
// Prolific, a redirect and the three kinds of rule the issue names.
func studyDesign() api.StudyDesign {
	return api.StudyDesign{Name: "Pilot 1", Cells: api.StudyCellsNorms, Norms: []string{"place.color=red", "order.bow=market"},
		Conditions: []string{"observe"}, Target: 1, ConsentVersion: "irb-7", ConsentText: "You agree to take part.",
		Platform: api.PlatformProlific, CompletionCode: "C0DE42", RedirectURL: "https://app.prolific.com/submissions/complete?cc={code}",
		TimeLimitMinutes: 60, PaymentNote: "£3", Debrief: "Thank you.",
		Rules: []api.StudyRule{{Name: "understood", Kind: api.RuleComprehension}, {Name: "tried", Kind: api.RuleMinActions, Value: 5},
			{Name: "awake", Kind: api.RuleMaxIdle, Value: 10}}}
}

// createStudy creates a study with the admin token.
func (e *env) createStudy(d api.StudyDesign) api.StudyCreated {
	e.t.Helper()
	st, b, _ := e.do("POST", "/api/studies", d, "Authorization", "Bearer "+studyAdmin)
	var c api.StudyCreated
	if st != http.StatusCreated || json.Unmarshal(b, &c) != nil {
		e.t.Fatalf("creating a study: %d %s", st, b)
	}
	return c
}

// studyCall sends a participant's (or researcher's) request with a token
// and decodes a 2xx answer into v (if not nil); it returns the status.
func (e *env) studyCall(method, path, token string, body, v any) (int, []byte) {
	e.t.Helper()
	var h []string
	if token != "" {
		h = []string{"Authorization", "Bearer " + token}
	}
	st, b, _ := e.do(method, path, body, h...)
	if st < 300 && v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			e.t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return st, b
}

// enter enters a study as a Prolific participant and wants status want.
func (e *env) enter(code, pid, token string, want int) api.StudyState {
	e.t.Helper()
	var s api.StudyState
	params := map[string]string{"PROLIFIC_PID": pid, "STUDY_ID": "study-1", "SESSION_ID": "sess-" + pid}
	if st, b := e.studyCall("POST", "/api/study/"+code+"/enter", token, api.StudyEnter{Params: params}, &s); st != want {
		e.t.Fatalf("entering as %s: %d %s, want %d", pid, st, b, want)
	}
	return s
}

// participate takes a participant from consent to the visit's session:
// the check's answers are answers.
func (e *env) participate(code, token string, answers []int) api.SessionState {
	e.t.Helper()
	var s api.StudyState
	if st, b := e.studyCall("POST", "/api/study/"+code+"/consent", token, api.StudyConsent{Consent: true, ConsentVersion: "irb-7"}, &s); st != 200 || s.Stage != api.StudyStageCheck {
		e.t.Fatalf("consent: %d %s", st, b)
	}
	if len(s.Questions) != 3 || s.Tutorial == "" {
		e.t.Fatalf("the check has %d questions and tutorial %q", len(s.Questions), s.Tutorial)
	}
	if st, b := e.studyCall("POST", "/api/study/"+code+"/check", token, api.StudyCheck{Answers: answers}, &s); st != 200 || s.Stage != api.StudyStagePlay || s.Check == nil {
		e.t.Fatalf("check: %d %s", st, b)
	}
	var ss api.SessionState
	if st, b := e.studyCall("POST", "/api/study/"+code+"/session", token, nil, &ss); st != http.StatusCreated || !ss.Sealed || ss.Visit != "" {
		e.t.Fatalf("opening the study's visit: %d %.300s", st, b)
	}
	return ss
}

// waitOut plays a session with waits only and answers the probe.
func (e *env) waitOut(token string, s api.SessionState) {
	e.t.Helper()
	for s.Stage == api.StagePlay {
		st, b := e.sessionDo("POST", "/api/session/step", token, api.SessionStep{Action: "wait"})
		if st != 200 {
			e.t.Fatalf("wait: %d %s", st, b)
		}
		s = decodeState(e.t, b)
	}
	if st, b := e.sessionDo("POST", "/api/session/answer", token, api.SessionAnswer{Answer: 0}); st != 200 {
		e.t.Fatalf("answer: %d %s", st, b)
	}
}

func (e *env) advance(d time.Duration) {
	e.mu.Lock()
	e.now = e.now.Add(d)
	e.mu.Unlock()
}

// TestStudyDesignRefused: a bad design, or a creator without the admin
// token or a study key, is refused with its reason and stores nothing.
func TestStudyDesignRefused(t *testing.T) {
	var key string
	e := newEnv(t, withStudies(&key))
	tests := []struct {
		name   string
		token  string
		edit   func(*api.StudyDesign)
		status int
		msg    string
	}{
		{"no token", "", nil, 401, "admin token or a study key"},
		{"wrong token", "nope", nil, 403, "neither"},
		{"no name", studyAdmin, func(d *api.StudyDesign) { d.Name = "" }, 400, "name"},
		{"unknown norm", studyAdmin, func(d *api.StudyDesign) { d.Norms = []string{"place.color=plaid"} }, 400, "unknown norm"},
		{"norm twice", studyAdmin, func(d *api.StudyDesign) { d.Norms = []string{"place.color=red", "place.color=red"} }, 400, "twice"},
		{"no conditions", studyAdmin, func(d *api.StudyDesign) { d.Conditions = nil }, 400, "conditions"},
		{"a cell the suite lacks", studyAdmin, func(d *api.StudyDesign) { d.Conditions = []string{"observe+noisy"} }, 400, "no visit of the cell"},
		{"unknown family", studyAdmin, func(d *api.StudyDesign) {
			d.Cells, d.Norms, d.Families = api.StudyCellsFamilies, nil, []string{"dance"}
		}, 400, "unknown family"},
		{"target 0", studyAdmin, func(d *api.StudyDesign) { d.Target = 0 }, 400, "target"},
		{"unknown platform", studyAdmin, func(d *api.StudyDesign) { d.Platform = "mechanical" }, 400, "platform"},
		{"no way to be paid", studyAdmin, func(d *api.StudyDesign) { d.CompletionCode, d.RedirectURL = "", "" }, 400, "completion_code or a redirect_url"},
		{"plain http redirect", studyAdmin, func(d *api.StudyDesign) { d.RedirectURL = "http://example.org/done" }, 400, "https"},
		{"short time limit", studyAdmin, func(d *api.StudyDesign) { d.TimeLimitMinutes = 1 }, 400, "time_limit_minutes"},
		{"unknown rule kind", studyAdmin, func(d *api.StudyDesign) { d.Rules = []api.StudyRule{{Name: "x", Kind: "vibes"}} }, 400, "kind"},
		{"rule out of range", studyAdmin, func(d *api.StudyDesign) {
			d.Rules = []api.StudyRule{{Name: "x", Kind: api.RuleComprehension, Value: 9}}
		}, 400, "value"},
		{"rules with one name", studyAdmin, func(d *api.StudyDesign) {
			d.Rules = []api.StudyRule{{Name: "x", Kind: api.RuleMinActions}, {Name: "x", Kind: api.RuleMaxRepeat, Value: 3}}
		}, 400, "two rules"},
		{"no consent text", studyAdmin, func(d *api.StudyDesign) { d.ConsentText = " " }, 400, "consent_text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := studyDesign()
			if tt.edit != nil {
				tt.edit(&d)
			}
			st, b := e.studyCall("POST", "/api/studies", tt.token, d, nil)
			if st != tt.status || !strings.Contains(errorOf(t, b).Message, tt.msg) {
				t.Errorf("%d %s, want %d saying %q", st, b, tt.status, tt.msg)
			}
			if n := storetest.Count(t, e.store, "studies"); n != 0 {
				t.Errorf("%d studies stored after a refusal", n)
			}
		})
	}
	// A study key creates one.
	var c api.StudyCreated
	if st, b := e.studyCall("POST", "/api/studies", key, studyDesign(), &c); st != http.StatusCreated {
		t.Fatalf("with a study key: %d %s", st, b)
	}
	if !strings.HasPrefix(c.Link, "/s/"+c.Code+"?PROLIFIC_PID={{%PROLIFIC_PID%}}") || len(c.Cells) != 2 || c.Token == "" || len(c.Salt) != 64 {
		t.Errorf("created: %+v", c)
	}
}

// TestStudyLink: the study link sends the page to the app with its
// parameters in the fragment, which no server receives.
func TestStudyLink(t *testing.T) {
	e := newEnv(t, withStudies(nil))
	c := e.createStudy(studyDesign())
	req, _ := http.NewRequest("GET", e.http.URL+"/s/"+strings.ToLower(c.Code)+"?PROLIFIC_PID=abc123&STUDY_ID=s1&SESSION_ID=x9", nil)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/#study="+c.Code+"&") || !strings.Contains(loc, "PROLIFIC_PID=abc123") {
		t.Errorf("the link answers %d, Location %q", resp.StatusCode, loc)
	}
	var pub api.StudyPublic
	e.getJSON("/api/study/"+c.Code, &pub)
	if pub.Status != api.StudyOpen || pub.IDParam != "PROLIFIC_PID" || pub.ConsentVersion != "irb-7" {
		t.Errorf("public view: %+v", pub)
	}
	if b, _ := json.Marshal(pub); strings.Contains(string(b), "place.color") || strings.Contains(string(b), "observe") {
		t.Errorf("the public view names a cell: %s", b)
	}
}

// TestStudyParticipant plays a participant through a study: entry with
// Prolific's ids, the same id refused in another browser and resumed in
// the same one, consent, check, the sealed visit, the probe, the debrief
// and the redirect with the completion code; the dashboard shows the cell
// at 1/1 and the export the hashed id with every verdict.
func TestStudyParticipant(t *testing.T) {
	e := newEnv(t, withStudies(nil))
	c := e.createStudy(studyDesign())
	s := e.enter(c.Code, "5f1e2d3c4b5a69788796a5b4", "", http.StatusCreated)
	if s.Stage != api.StudyStageConsent || !strings.HasPrefix(s.Token, "stp_") || s.ConsentText == "" {
		t.Fatalf("entry: %+v", s)
	}
	// The same platform id again: refused kindly without the token, resumed with it.
	st, b := e.studyCall("POST", "/api/study/"+c.Code+"/enter", "", api.StudyEnter{Params: map[string]string{"PROLIFIC_PID": "5f1e2d3c4b5a69788796a5b4"}}, nil)
	if st != http.StatusConflict || !strings.Contains(errorOf(t, b).Message, "already taken part") {
		t.Errorf("a second entry: %d %s", st, b)
	}
	if again := e.enter(c.Code, "5f1e2d3c4b5a69788796a5b4", s.Token, http.StatusOK); !again.Resumed || again.Stage != api.StudyStageConsent {
		t.Errorf("re-entry with the token: %+v", again)
	}
	if n := storetest.Count(t, e.store, "study_participants"); n != 1 {
		t.Errorf("%d participants stored, want 1", n)
	}
	ss := e.participate(c.Code, s.Token, []int{1, 2, 0})
	// A reload resumes the visit under a new session token.
	var again api.SessionState
	if st, b := e.studyCall("POST", "/api/study/"+c.Code+"/session", s.Token, nil, &again); st != http.StatusOK || !again.Resumed {
		t.Fatalf("resuming the visit: %d %.200s", st, b)
	}
	e.finishSession(again.Session, ss)
	var me api.StudyState
	e.studyCall("GET", "/api/study/"+c.Code+"/me", s.Token, nil, &me)
	if me.Stage != api.StudyStageDebrief || me.Debrief != "Thank you." || me.CompletionCode != "" {
		t.Errorf("after the probe: %+v", me)
	}
	if st, b := e.studyCall("POST", "/api/study/"+c.Code+"/finish", s.Token, nil, &me); st != 200 || me.Stage != api.StudyStageDone ||
		me.CompletionCode != "C0DE42" || me.RedirectURL != "https://app.prolific.com/submissions/complete?cc=C0DE42" {
		t.Errorf("finish: %d %s", st, b)
	}
	// Not on the public leaderboard: the study's row is its own.
	var lb api.Leaderboard
	e.getJSON("/api/leaderboard?suite=standard", &lb)
	if h := humanRow(lb); h != nil {
		t.Errorf("a study's run reached the public human row: %+v", h)
	}
	var d api.StudyDashboard
	if st, b := e.studyCall("GET", "/api/study/"+c.Code+"/dashboard", c.Token, nil, &d); st != 200 {
		t.Fatalf("dashboard: %d %s", st, b)
	}
	played := 0
	for _, cell := range d.Cells {
		played += cell.N
		if cell.N == 1 && (cell.Target != 1 || !cell.Full || cell.Completion.K != 1 || cell.Joint.N != 1 || len(cell.Compare) == 0) {
			t.Errorf("the played cell: %+v", cell)
		}
	}
	if played != 1 || d.Totals.Entered != 1 || d.Totals.Completed != 1 {
		t.Errorf("dashboard: %d played, totals %+v", played, d.Totals)
	}
	if st, _ := e.studyCall("GET", "/api/study/"+c.Code+"/dashboard", "", nil, nil); st != 401 {
		t.Errorf("the dashboard without a token: %d", st)
	}
	export := e.studyExport(c, "csv")
	if strings.Contains(export, "5f1e2d3c4b5a69788796a5b4") || strings.Contains(export, "sess-5f1e") {
		t.Errorf("the export holds a raw platform id")
	}
	rows := csvRows(t, export)
	if len(rows) != 2 {
		t.Fatalf("CSV: %d lines, want a header and one participant", len(rows))
	}
	col := columnsOf(rows[0])
	for _, name := range []string{"participant", "id:SESSION_ID", "rule:understood", "rule:tried", "rule:awake", "excluded", "excluded_at_start"} {
		if _, ok := col[name]; !ok {
			t.Errorf("the CSV lacks the column %s: %v", name, rows[0])
		}
	}
	if p := rows[1][col["participant"]]; len(p) != 64 || rows[1][col["rule:understood"]] != "keep" || rows[1][col["outcome"]] != "completed" {
		t.Errorf("the participant's row: %v", rows[1])
	}
}

// studyExport reads a study's export.
func (e *env) studyExport(c api.StudyCreated, format string) string {
	e.t.Helper()
	st, b := e.studyCall("GET", "/api/study/"+c.Code+"/export?format="+format, c.Token, nil, nil)
	if st != 200 {
		e.t.Fatalf("export: %d %s", st, b)
	}
	return string(b)
}

// csvRows reads a CSV export after its comment lines.
func csvRows(t *testing.T, export string) [][]string {
	t.Helper()
	var body []string
	for _, l := range strings.SplitAfter(export, "\n") {
		if !strings.HasPrefix(l, "#") {
			body = append(body, l)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(strings.Join(body, ""))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func columnsOf(header []string) map[string]int {
	out := map[string]int{}
	for i, h := range header {
		out[h] = i
	}
	return out
}

// TestStudyQuota: each cell takes participants up to its target; a cell
// at its target (or held to it) is not assigned; an abandoned place is
// released after the time limit (and its participant cannot go on); the
// study closes when every cell is full.
func TestStudyQuota(t *testing.T) {
	e := newEnv(t, withStudies(nil))
	c := e.createStudy(studyDesign())
	a := e.enter(c.Code, "aaaaaaaaaaaa", "", http.StatusCreated)
	b := e.enter(c.Code, "bbbbbbbbbbbb", "", http.StatusCreated)
	// Both cells are held: a third is turned away for now.
	st, body := e.studyCall("POST", "/api/study/"+c.Code+"/enter", "", api.StudyEnter{Params: map[string]string{"PROLIFIC_PID": "cccccccccccc"}}, nil)
	if st != http.StatusConflict || !strings.Contains(errorOf(t, body).Message, "taken by someone playing now") {
		t.Fatalf("a third entry with every place held: %d %s", st, body)
	}
	var pub api.StudyPublic
	if e.getJSON("/api/study/"+c.Code, &pub); pub.Status != api.StudyBusy {
		t.Errorf("status %q, want busy", pub.Status)
	}
	cells := map[string]bool{}
	var d api.StudyDashboard
	e.studyCall("GET", "/api/study/"+c.Code+"/dashboard", c.Token, nil, &d)
	for _, cell := range d.Cells {
		if cell.InProgress > 1 {
			t.Errorf("cell %s holds %d participants, target 1", cell.Cell, cell.InProgress)
		}
		if cell.InProgress == 1 {
			cells[cell.Cell] = true
		}
	}
	if len(cells) != 2 {
		t.Errorf("two participants hold %d cells, want both", len(cells))
	}
	// b finishes; a leaves. After the time limit a's place is free again.
	e.waitOutStudy(c.Code, b.Token, []int{1, 2, 0}, 0)
	e.advance(61 * time.Minute)
	var me api.StudyState
	if e.studyCall("GET", "/api/study/"+c.Code+"/me", a.Token, nil, &me); me.Stage != api.StudyStageExpired || me.Message == "" {
		t.Errorf("a past the limit: %+v", me)
	}
	if st, _ := e.studyCall("POST", "/api/study/"+c.Code+"/session", a.Token, nil, nil); st != http.StatusGone {
		t.Errorf("a opening its visit past the limit: %d, want 410", st)
	}
	cc := e.enter(c.Code, "cccccccccccc", "", http.StatusCreated)
	e.waitOutStudy(c.Code, cc.Token, []int{1, 2, 0}, 10)
	// Every cell is full: the study is closed.
	if e.getJSON("/api/study/"+c.Code, &pub); pub.Status != api.StudyFull {
		t.Errorf("status %q, want full", pub.Status)
	}
	st, body = e.studyCall("POST", "/api/study/"+c.Code+"/enter", "", api.StudyEnter{Params: map[string]string{"PROLIFIC_PID": "dddddddddddd"}}, nil)
	if st != http.StatusGone || !strings.Contains(errorOf(t, body).Message, "complete") {
		t.Errorf("an entry into a full study: %d %s", st, body)
	}
}

// waitOutStudy takes a participant through the check and a visit played
// by the greedy baseline except for its first `waits` actions, which are
// waits.
func (e *env) waitOutStudy(code, token string, answers []int, waits int) {
	e.t.Helper()
	s := e.participate(code, token, answers)
	tok := s.Session
	for range waits {
		st, b := e.sessionDo("POST", "/api/session/step", tok, api.SessionStep{Action: "wait"})
		if st != 200 {
			e.t.Fatalf("wait: %d %s", st, b)
		}
		s = decodeState(e.t, b)
	}
	e.finishSession(tok, s)
}

// TestStudyExclusions: an all-wait visit and a failed comprehension check
// are excluded by the declared rules and shown as such; they do not fill
// their cell; a change of the rules after the first participant is in the
// data card, and the export applies both rule sets.
func TestStudyExclusions(t *testing.T) {
	e := newEnv(t, withStudies(nil))
	d := studyDesign()
	d.Target = 2
	c := e.createStudy(d)
	// Before anyone enters, a change is an amendment, not a change after start.
	d.Rules = d.Rules[:2]
	var dash api.StudyDashboard
	if st, b := e.studyCall("PUT", "/api/study/"+c.Code+"/rules", c.Token, api.StudyRulesUpdate{Rules: d.Rules, Note: "idle rule dropped before launch"}, &dash); st != 200 {
		t.Fatalf("changing the rules: %d %s", st, b)
	}
	waiter := e.enter(c.Code, "waiter000001", "", http.StatusCreated)
	ss := e.participate(c.Code, waiter.Token, []int{1, 2, 0})
	e.waitOut(ss.Session, ss)
	confused := e.enter(c.Code, "confused0001", "", http.StatusCreated)
	e.waitOutStudy(c.Code, confused.Token, []int{0, 0, 1}, 0)

	e.studyCall("GET", "/api/study/"+c.Code+"/dashboard", c.Token, nil, &dash)
	if tt := dash.Totals; tt.Completed != 2 || tt.Excluded != 2 || tt.N != 0 || tt.Reasons["tried"] != 1 || tt.Reasons["understood"] != 1 {
		t.Errorf("totals after an all-wait visit and a failed check: %+v", tt)
	}
	// A bad change changes nothing; a good one after the start is recorded.
	if st, _ := e.studyCall("PUT", "/api/study/"+c.Code+"/rules", c.Token, api.StudyRulesUpdate{Rules: []api.StudyRule{{Name: "x", Kind: "vibes"}}, Note: "oops"}, nil); st != 400 {
		t.Errorf("a bad rule change: %d", st)
	}
	if st, _ := e.studyCall("PUT", "/api/study/"+c.Code+"/rules", c.Token, api.StudyRulesUpdate{Rules: d.Rules[1:]}, nil); st != 400 {
		t.Errorf("a rule change without a note: %d", st)
	}
	if st, b := e.studyCall("PUT", "/api/study/"+c.Code+"/rules", c.Token, api.StudyRulesUpdate{Rules: d.Rules[1:], Note: "comprehension dropped"}, &dash); st != 200 {
		t.Fatalf("changing the rules after the start: %d %s", st, b)
	}
	if tt := dash.Totals; tt.Excluded != 1 || tt.N != 1 || tt.Reasons["tried"] != 1 {
		t.Errorf("totals under the new rules: %+v", tt)
	}
	if len(dash.Changes) != 2 || dash.Changes[0].AfterStart || !dash.Changes[1].AfterStart || dash.Changes[1].Participants != 2 {
		t.Errorf("changes: %+v", dash.Changes)
	}
	card, lines := jsonlExport(t, e.studyExport(c, "jsonl"))
	if len(card.RulesDeclared) != 3 || len(card.RulesAtStart) != 2 || len(card.Rules) != 1 || len(card.Changes) != 2 || card.Changes[1].Note != "comprehension dropped" {
		t.Errorf("data card rules: declared %v, at start %v, now %v, changes %+v", card.RulesDeclared, card.RulesAtStart, card.Rules, card.Changes)
	}
	var excludedNow, excludedAtStart int
	for _, l := range lines {
		excludedNow += b2i(l.Excluded)
		excludedAtStart += b2i(l.ExcludedAtStart)
		if l.Visit == "" || len(l.Verdicts) != 1 {
			t.Errorf("a completed line: %+v", l)
		}
	}
	if excludedNow != 1 || excludedAtStart != 2 {
		t.Errorf("excluded now %d (want 1), at start %d (want 2)", excludedNow, excludedAtStart)
	}
}

// jsonlExport reads a JSONL study export.
func jsonlExport(t *testing.T, body string) (api.StudyDataCard, []api.StudyExportRow) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader([]byte(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	var card api.StudyDataCard
	var rows []api.StudyExportRow
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			var head map[string]api.StudyDataCard
			if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
				t.Fatal(err)
			}
			card = head["data_card"]
			continue
		}
		var r api.StudyExportRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return card, rows
}

// TestStudyRefusals: each participant request out of order, with bad
// input or without its token is refused with its reason and changes
// nothing stored.
func TestStudyRefusals(t *testing.T) {
	e := newEnv(t, withStudies(nil))
	c := e.createStudy(studyDesign())
	base := "/api/study/" + c.Code
	s := e.enter(c.Code, "refusals0001", "", http.StatusCreated)
	tests := []struct {
		name, method, path, token string
		body                      any
		status                    int
		msg                       string
	}{
		{"unknown study", "POST", "/api/study/ABCD-EFGH-JKMN/enter", "", api.StudyEnter{Params: map[string]string{"PROLIFIC_PID": "x1"}}, 404, "no study"},
		{"no platform id", "POST", base + "/enter", "", api.StudyEnter{Params: map[string]string{"STUDY_ID": "s"}}, 400, "lacks your PROLIFIC_PID"},
		{"a placeholder left", "POST", base + "/enter", "", api.StudyEnter{Params: map[string]string{"PROLIFIC_PID": "{{%PROLIFIC_PID%}}"}}, 400, "not an id"},
		{"not JSON", "POST", base + "/enter", "", "PROLIFIC_PID=x", 400, "malformed JSON"},
		{"no token", "GET", base + "/me", "", nil, 401, "study token"},
		{"a wrong token", "GET", base + "/me", "stp_" + strings.Repeat("A", 43), nil, 404, "no such participant"},
		{"check before consent", "POST", base + "/check", s.Token, api.StudyCheck{Answers: []int{1, 2, 0}}, 409, "consent comes first"},
		{"visit before consent", "POST", base + "/session", s.Token, nil, 409, "comprehension check"},
		{"finish before the visit", "POST", base + "/finish", s.Token, nil, 409, "after the visit"},
		{"consent refused", "POST", base + "/consent", s.Token, api.StudyConsent{ConsentVersion: "irb-7"}, 400, "consent"},
		{"another consent version", "POST", base + "/consent", s.Token, api.StudyConsent{Consent: true, ConsentVersion: "irb-6"}, 400, "not this study's"},
		{"the researcher's dashboard with a participant's token", "GET", base + "/dashboard", s.Token, nil, 403, "researcher token"},
		{"rules without a token", "PUT", base + "/rules", "", api.StudyRulesUpdate{Note: "x"}, 401, "researcher token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := storetest.Count(t, e.store, "study_participants")
			st, b := e.studyCall(tt.method, tt.path, tt.token, tt.body, nil)
			if st != tt.status || !strings.Contains(errorOf(t, b).Message, tt.msg) {
				t.Errorf("%d %s, want %d saying %q", st, b, tt.status, tt.msg)
			}
			if after := storetest.Count(t, e.store, "study_participants"); after != before {
				t.Errorf("%d participants after a refusal, %d before", after, before)
			}
		})
	}
	var me api.StudyState
	if e.studyCall("GET", base+"/me", s.Token, nil, &me); me.Stage != api.StudyStageConsent {
		t.Errorf("after the refusals the participant is at %q, want consent", me.Stage)
	}
	// Answers out of range are refused; the check is taken once.
	e.studyCall("POST", base+"/consent", s.Token, api.StudyConsent{Consent: true, ConsentVersion: "irb-7"}, nil)
	if st, b := e.studyCall("POST", base+"/check", s.Token, api.StudyCheck{Answers: []int{1, 9, 0}}, nil); st != 400 {
		t.Errorf("an answer out of range: %d %s", st, b)
	}
	e.studyCall("POST", base+"/check", s.Token, api.StudyCheck{Answers: []int{0, 0, 0}}, &me)
	e.studyCall("POST", base+"/check", s.Token, api.StudyCheck{Answers: []int{1, 2, 0}}, &me)
	if me.Check == nil || me.Check.Correct != 1 || me.Stage != api.StudyStagePlay {
		t.Errorf("a second try changed the check: %+v", me.Check)
	}
}

// TestStudyFamilies: a design of families × conditions (control as a
// cell of its own) gives each entry a cell evenly, and a visit of a norm
// of the cell's family under its condition, sealed.
func TestStudyFamilies(t *testing.T) {
	e := newEnv(t, withStudies(nil))
	d := studyDesign()
	d.Cells, d.Norms, d.Families, d.Conditions = api.StudyCellsFamilies, nil, []string{"place", "order"}, []string{"solo", "control"}
	c := e.createStudy(d)
	if got := strings.Join(c.Cells, " "); got != "place/solo order/solo control" {
		t.Fatalf("cells %q", got)
	}
	for _, pid := range []string{"family000001", "family000002", "family000003"} {
		e.enter(c.Code, pid, "", http.StatusCreated)
	}
	rows, err := e.store.StudyRows(e.t.Context(), c.Code)
	if err != nil || len(rows) != 3 {
		t.Fatalf("%d participants (%v)", len(rows), err)
	}
	seen := map[string]bool{}
	for _, p := range rows {
		seen[p.Cell] = true
		id, err := sim.ParseVisitID(p.Visit)
		if err != nil || id.Seed < session.PublicSeeds {
			t.Errorf("cell %s: visit %q is not sealed (%v)", p.Cell, p.Visit, err)
			continue
		}
		fam, cond, _ := strings.Cut(p.Cell, "/")
		switch {
		case p.Cell == "control" && (id.Norm != "none" || id.Condition != "control"):
			t.Errorf("the control cell plays %s", p.Visit)
		case p.Cell != "control" && (!strings.HasPrefix(id.Norm, fam+".") || id.Condition != cond):
			t.Errorf("cell %s plays %s", p.Cell, p.Visit)
		}
	}
	if len(seen) != 3 {
		t.Errorf("three entries took cells %v, want one each", seen)
	}
}
