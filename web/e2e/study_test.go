//go:build !js

package e2e

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	sessions "github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/store"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/host"
	"github.com/normgym/normgym/wasm/simwasm"
	"github.com/normgym/normgym/web/internal/ui"
	"github.com/normgym/normgym/web/internal/wasmtest"
)

const studyAdmin = "e2e-study-admin-token"

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// studyServer is the real server (sessions in sim.wasm, SQLite on disk)
// with an admin token, logging to the returned buffer.
func studyServer(t *testing.T) (*httptest.Server, *store.Store, *lockedBuffer) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "normgym.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rt, err := host.New(ctx, simwasm.Bytes(), host.Options{CacheDir: filepath.Join(os.TempDir(), "normgym-web-wazero-cache")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	logs := &lockedBuffer{}
	srv, err := server.New(server.Options{Store: st, Verifier: server.Wasm(wasmtest.Runtime(t)), Engine: sessions.Wasm(rt),
		Web: os.DirFS(builtSite(t)), AdminToken: studyAdmin, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs, st, logs
}

// fakePlatform is a recruiting platform's completion page: it records
// the addresses it was sent to.
type fakePlatform struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newFakePlatform(t *testing.T) *fakePlatform {
	p := &fakePlatform{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" {
			http.NotFound(w, r)
			return
		}
		p.mu.Lock()
		p.hits = append(p.hits, r.URL.RequestURI())
		p.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><title>Submission complete</title><p>Thanks, your submission is complete.</p>`)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *fakePlatform) got() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.hits...)
}

// TestStudyChromium is issue 23's "done when": a participant comes from a
// fake Prolific with its URL parameters, which the page takes out of the
// address bar; consents, takes the practice and passes the three
// questions, plays the sealed visit by keyboard (a reload resumes it),
// answers the probe, reads the debrief and lands on the platform's
// redirect carrying the completion code. The researcher's page shows the
// cell at 1/target; the export holds the participant's hashed id and every
// rule's verdict; no log line holds the platform id or the pseudonym.
func TestStudyChromium(t *testing.T) {
	needChromium(t)
	srv, st, logs := studyServer(t)
	platform := newFakePlatform(t)
	d := api.StudyDesign{Name: "Chromium study", Cells: api.StudyCellsNorms, Norms: []string{"place.color=red", "order.bow=market"},
		Conditions: []string{"observe"}, Target: 2, ConsentVersion: "irb-e2e-1", ConsentText: "You agree to take part in this test study.\n\nYou may stop at any time.",
		Platform: api.PlatformProlific, CompletionCode: "NG-E2E-42", RedirectURL: platform.URL + "/complete?cc={code}", TimeLimitMinutes: 60,
		PaymentNote: "£2.50", Debrief: "This study asked how people find unwritten rules.",
		Rules: []api.StudyRule{{Name: "understood", Kind: api.RuleComprehension}, {Name: "tried", Kind: api.RuleMinActions, Value: 5},
			{Name: "awake", Kind: api.RuleMaxIdle, Value: 10}}}
	c := createStudy(t, srv.URL, d)
	const pid, session = "5f1e2d3c4b5a69788796a5b4", "6a7b8c9d0e1f"

	s := openSite(t, srv, 1280, 800)
	s.do(30*time.Second, chromedp.Navigate(srv.URL+"/s/"+c.Code+"?PROLIFIC_PID="+pid+"&STUDY_ID=st-1&SESSION_ID="+session))
	s.poll(30*time.Second, `document.documentElement.dataset.ready === "1"`)
	s.waitStage(20*time.Second, "study-consent")
	if found := s.pageHolds([]string{pid, session}); len(found) > 0 {
		t.Errorf("after reading the link the page still holds the platform's ids %q (address %s)", found, s.eval(`location.href`))
	}
	if got := s.eval(`location.hash`); got != "#study="+c.Code {
		t.Errorf("the address bar keeps %q, want #study=%s", got, c.Code)
	}
	checkStory(t, s, "study consent", ui.DataStudy, 2)
	if !strings.Contains(s.eval(`document.body.innerText`), "You may stop at any time.") {
		t.Error("the consent screen does not show the study's consent text")
	}
	s.shot("study-consent")
	s.axe("study consent")
	s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="study-consent"]`)))
	s.waitStage(20*time.Second, "study-practice")
	s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="study-tutorial"]`)))
	s.waitStage(20*time.Second, "tutorial")
	step := s.eval(`document.body.dataset.step`)
	s.key(keyName("ArrowRight"))
	s.poll(5*time.Second, `document.body.dataset.step !== `+strconv.Quote(step))
	if got := s.eval(`[...document.querySelectorAll(".tabs, .visit-btn")].filter(e => e.offsetParent !== null).length + ""`); got != "0" {
		t.Errorf("%s of the site's tabs and visit button are on a study's page", got)
	}
	s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="tut-skip"]`)))
	s.waitStage(20*time.Second, "study-check")
	for _, id := range []string{"q0o1", "q1o2", "q2o0"} {
		s.do(5*time.Second, chromedp.Click(chromedp.CSS("#"+id)))
	}
	s.shot("study-questions")
	s.axe("study questions")
	s.do(5*time.Second, chromedp.Click(chromedp.CSS(`#study-check-form button[type="submit"]`)))
	s.waitStage(20*time.Second, "study-checked")
	if got := s.eval(`document.getElementById("study-h").textContent`); !strings.Contains(got, "3 of 3") {
		t.Errorf("the check's outcome: %q", got)
	}
	s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="study-play"]`)))
	s.waitStage(20*time.Second, "day")

	rows, err := st.StudyRows(context.Background(), c.Code)
	if err != nil || len(rows) != 1 || rows[0].Session == nil {
		t.Fatalf("the study's participants: %+v (%v), want one with an open session", rows, err)
	}
	visit, pseudonym := rows[0].Visit, rows[0].Pseudonym
	own, _ := sim.ParseVisitID(visit)
	rule, err := norms.Default().Lookup(own.Norm)
	if err != nil {
		t.Fatal(err)
	}
	// Sealed: nothing names the visit, its norm or its rule before the probe.
	hidden := []string{visit, pseudonym, own.Norm, rule.Statement}
	if found := s.pageHolds(hidden); len(found) > 0 {
		t.Errorf("the page holds %q before the visit is over", found)
	}
	s.sealed = true
	playStudyVisit(t, s, visit, func() {
		if found := s.pageHolds(hidden); len(found) > 0 {
			t.Errorf("the page holds %q after a reload in the visit", found)
		}
	})
	s.shot("study-debrief")
	s.axe("study debrief")
	if txt := s.eval(`document.body.innerText`); !strings.Contains(txt, "The rule was") || !strings.Contains(txt, rule.Statement) || !strings.Contains(txt, d.Debrief) {
		t.Errorf("the debrief does not show the rule and the study's words: %.400s", txt)
	}
	s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="study-finish"]`)))
	s.waitStage(20*time.Second, "study-done")
	s.shot("study-done")
	want := "/complete?cc=NG-E2E-42"
	for end := time.Now().Add(20 * time.Second); len(platform.got()) == 0 && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
	}
	s.poll(20*time.Second, `document.title === "Submission complete" && location.href === `+strconv.Quote(platform.URL+want))
	if hits := platform.got(); len(hits) != 1 || hits[0] != want {
		t.Errorf("the platform was sent to %q, want [%s]", hits, want)
	}
	// The same platform id in another browser: refused, kindly.
	other := openSite(t, srv, 1280, 800)
	other.do(30*time.Second, chromedp.Navigate(srv.URL+"/s/"+c.Code+"?PROLIFIC_PID="+pid+"&STUDY_ID=st-1&SESSION_ID=other"))
	other.poll(30*time.Second, `document.documentElement.dataset.ready === "1"`)
	other.waitStage(20*time.Second, "study-stop")
	if txt := other.eval(`document.body.innerText`); !strings.Contains(txt, "already taken part") || !strings.Contains(txt, "Thank you") {
		t.Errorf("a second attempt with the same id: %.300s", txt)
	}
	other.shot("study-second-attempt")
	checkStudyResearcher(t, srv.URL, c, pid)
	researcherPage(t, s, srv.URL, c)
	for _, secret := range []string{pid, session, pseudonym, "PROLIFIC_PID"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the server's log holds %q", secret)
		}
	}
}

// createStudy creates a study with the admin token.
func createStudy(t *testing.T, base string, d api.StudyDesign) api.StudyCreated {
	t.Helper()
	b, _ := json.Marshal(d)
	req, _ := http.NewRequest("POST", base+"/api/studies", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+studyAdmin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var c api.StudyCreated
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &c) != nil {
		t.Fatalf("creating the study: %d %s", resp.StatusCode, body)
	}
	return c
}

// playStudyVisit plays the study's sealed visit from its first day's
// screen by keyboard, with the greedy baseline's actions, reloading once
// in the middle of the first day; it ends on the debrief.
func playStudyVisit(t *testing.T, s *session, visit string, resumed func()) {
	t.Helper()
	base := greedy(t, visit)
	env, _, err := sim.NewVisit(visit)
	if err != nil {
		t.Fatal(err)
	}
	s.key(keyName("Enter"))
	s.waitStage(10*time.Second, "play")
	for n, a := range base.Actions {
		act, err := sim.ParseAction(a)
		if err != nil {
			t.Fatal(err)
		}
		k := ui.ActionKey(act.Verb)
		if act.Verb == "give" {
			k = strconv.Itoa(env.Observe().Frame.AgentIndex(act.Target))
		}
		s.key(keyName(k))
		s.poll(10*time.Second, `document.body.dataset.busy !== "1"`)
		r, err := env.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		if n == 6 {
			step := s.eval(`document.body.dataset.step`)
			s.reload()
			if got := s.waitStage(30*time.Second, "play", "study-checked", "day"); got != "play" || s.eval(`document.body.dataset.step`) != step {
				t.Fatalf("after a reload at step %s the study's visit is at %s, step %s", step, got, s.eval(`document.body.dataset.step`))
			}
			resumed()
		}
		if r.DayOver && !r.Done() {
			s.waitStage(10*time.Second, "day")
			s.key(keyName("Enter"))
			s.waitStage(10*time.Second, "play")
		}
	}
	if base.Probe != nil {
		s.waitStage(10*time.Second, "probe")
		s.key(strconv.Itoa(base.Probe.Answer + 1))
		s.key(keyName("Enter"))
	}
	s.waitStage(20*time.Second, "study-debrief")
}

// checkStudyResearcher reads the dashboard and the export as the
// researcher: the played cell at 1/2, the participant as the HMAC of its
// platform id under the study's salt, with every rule's verdict.
func checkStudyResearcher(t *testing.T, base string, c api.StudyCreated, pid string) {
	t.Helper()
	var d api.StudyDashboard
	getJSON(t, base+"/api/study/"+c.Code+"/dashboard", c.Token, &d)
	n := 0
	for _, cell := range d.Cells {
		if cell.N == 1 {
			n++
			if cell.Target != 2 || cell.Completed != 1 || cell.Joint.N != 1 || len(cell.Compare) == 0 {
				t.Errorf("the played cell: %+v", cell)
			}
		}
	}
	if n != 1 || d.Totals.N != 1 || d.Totals.Entered != 1 {
		t.Errorf("the dashboard: %d cells at 1, totals %+v", n, d.Totals)
	}
	req, _ := http.NewRequest("GET", base+"/api/study/"+c.Code+"/export?format=jsonl", nil)
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	lines := strings.Split(strings.TrimSpace(string(body)), "\n")
	if resp.StatusCode != 200 || len(lines) != 2 || strings.Contains(string(body), pid) {
		t.Fatalf("export: %d, %d lines (want the data card and one participant), raw id in it: %v", resp.StatusCode, len(lines), strings.Contains(string(body), pid))
	}
	var row api.StudyExportRow
	if err := json.Unmarshal([]byte(lines[1]), &row); err != nil {
		t.Fatal(err)
	}
	key, _ := hex.DecodeString(c.Salt)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(pid))
	if want := hex.EncodeToString(m.Sum(nil)); row.Participant != want {
		t.Errorf("the export's participant %q, want HMAC(salt, id) %q", row.Participant, want)
	}
	for _, r := range []string{"understood", "tried", "awake"} {
		if v, ok := row.Verdicts[r]; !ok || v.Exclude {
			t.Errorf("rule %s: verdict %+v (present %v), want keep", r, v, ok)
		}
	}
	if row.Outcome != "completed" || row.Excluded || row.CheckCorrect != 3 || row.Joint == nil {
		t.Errorf("the participant's line: %+v", row)
	}
}

// researcherPage opens the study's dashboard on /study with its code and
// researcher token, as a researcher does, and finds the played cell at
// 1 / 2.
func researcherPage(t *testing.T, s *session, base string, c api.StudyCreated) {
	t.Helper()
	s.do(30*time.Second, chromedp.Navigate(base+"/study"))
	s.do(10*time.Second, chromedp.WaitVisible(`#ocode`), chromedp.SendKeys(`#ocode`, c.Code), chromedp.SendKeys(`#otoken`, c.Token),
		chromedp.Click(`#go`))
	s.poll(20*time.Second, `[...document.querySelectorAll("#cells tr")].some(tr => tr.children[1].textContent === "1 / 2")`)
	s.shot("study-dashboard")
	s.axe("study dashboard")
}
