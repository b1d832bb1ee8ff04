//go:build !js

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/web/internal/ui"
)

// traffic keeps what the server's API routes received and answered: the
// dynamic part of what the page's network carries. (The rest is the
// site's static files, the same bytes for every visitor and visit, so
// they can say nothing about a visit's norm.)
type traffic struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// list holds the exchanges in order, each as request line, request
	// body and answer.
	list [][3]string
	// delay holds every session step back this long (ns), as a slow
	// network does.
	delay atomic.Int64
}

// wrap records the bodies of h's /api/ requests and answers.
func (tr *traffic) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			h.ServeHTTP(w, r)
			return
		}
		var req bytes.Buffer
		if r.Body != nil {
			req.ReadFrom(r.Body)
			r.Body.Close()
			r.Body = readCloser{bytes.NewReader(req.Bytes())}
		}
		if d := tr.delay.Load(); d > 0 && r.URL.Path == "/api/session/step" {
			time.Sleep(time.Duration(d))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		tr.mu.Lock()
		tr.list = append(tr.list, [3]string{r.Method + " " + r.URL.String(), req.String(), rec.Body.String()})
		tr.buf.WriteString(r.Method + " " + r.URL.String() + "\n")
		tr.buf.Write(req.Bytes())
		tr.buf.WriteString("\n")
		tr.buf.Write(rec.Body.Bytes())
		tr.buf.WriteString("\n")
		tr.mu.Unlock()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// exchanges returns the exchanges recorded so far.
func (tr *traffic) exchanges() [][3]string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([][3]string(nil), tr.list...)
}

// String returns everything recorded so far.
func (tr *traffic) String() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.buf.String()
}

// wasmMemories searches the bytes of every WebAssembly.Memory in the
// page's JavaScript heap (the app's own Go memory, and sim.wasm's when it
// runs) for the needles. It returns how many memories there are and the
// needles found.
func (s *session) wasmMemories(needles []string) (int, []string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 60*time.Second)
	defer cancel()
	proto, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: "WebAssembly.Memory.prototype"})
	if err != nil || proto.Result == nil {
		s.t.Fatalf("browser: WebAssembly.Memory.prototype: %v", err)
	}
	objs, err := chromedp.Call(ctx, runtime.QueryObjects, runtime.QueryObjectsParams{PrototypeObjectID: proto.Result.ObjectID})
	if err != nil || objs.Objects == nil {
		s.t.Fatalf("browser: queryObjects: %v", err)
	}
	js, _ := json.Marshal(needles)
	yes := true
	res, err := chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{ObjectID: objs.Objects.ObjectID, ReturnByValue: &yes,
		FunctionDeclaration: `function() {
			const needles = ` + string(js) + `, found = new Set();
			// latin1 maps each byte to one character: ASCII needles match
			// exactly where their UTF-8 bytes are.
			const dec = new TextDecoder("latin1");
			for (const m of this) {
				const text = dec.decode(new Uint8Array(m.buffer));
				for (const n of needles) if (text.includes(n)) found.add(n);
			}
			return JSON.stringify({count: this.length, found: [...found]});
		}`})
	if err != nil || res.Result == nil {
		s.t.Fatalf("browser: searching the memories: %v", err)
	}
	var text string
	var out struct {
		Count int      `json:"count"`
		Found []string `json:"found"`
	}
	if err := json.Unmarshal(res.Result.Value, &text); err != nil || json.Unmarshal([]byte(text), &out) != nil {
		s.t.Fatalf("browser: the memory search answered %s", res.Result.Value)
	}
	return out.Count, out.Found
}

// pageHolds returns the needles found in the page's markup and text, its
// title and address, its storage and its string globals.
func (s *session) pageHolds(needles []string) []string {
	s.t.Helper()
	js, _ := json.Marshal(needles)
	v := s.eval(`(() => {
		const needles = ` + string(js) + `, found = new Set();
		const places = [document.documentElement.outerHTML, document.body.innerText, document.title, location.href, decodeURIComponent(location.href)];
		for (const st of [localStorage, sessionStorage]) {
			for (let i = 0; i < st.length; i++) places.push(st.key(i), st.getItem(st.key(i)) || "");
		}
		for (const k of Object.keys(globalThis)) {
			let v;
			try { v = globalThis[k]; } catch (e) { continue; }
			if (typeof v === "string") places.push(v);
		}
		for (const p of places) for (const n of needles) if (p.includes(n)) found.add(n);
		return JSON.stringify([...found]);
	})()`)
	var found []string
	json.Unmarshal([]byte(v), &found)
	return found
}

// TestSealedSite plays the site's sealed visit, the human baseline's, in
// Chromium by keyboard, and at every screen before the probe searches the
// four places a rule could reach the page — its DOM (markup, text,
// title, address, globals), its storage, its network (every API request
// and answer) and its WebAssembly memories — for every norm id of the
// catalog, the visit's id and every norm's statement. Only sim.wasm's
// catalog could put them there, and it does not run until the visit is
// over: the page has one WebAssembly memory, its own, until the result.
// At the probe the four options may name statements (ids still not); on
// the result screen the rule is shown, which the same search must find
// (so the search finds what it looks for). A reload in the middle
// resumes the visit at the same step; the run is stored server-stepped,
// and its actions replay to the hash the wazero host computes.
func TestSealedSite(t *testing.T) {
	needChromium(t)
	srv, st, tr := siteServerWith(t)
	s := openSite(t, srv, 1280, 800)
	s.sealed = true

	var ids, statements []string
	for _, n := range norms.Default().Norms() {
		ids = append(ids, n.ID)
		statements = append(statements, n.Statement)
	}
	check := func(where string, needles []string) {
		t.Helper()
		if found := s.pageHolds(needles); len(found) > 0 {
			t.Errorf("%s: the page holds %q", where, found)
		}
		if n, found := s.wasmMemories(needles); len(found) > 0 || n != 1 {
			t.Errorf("%s: %d WebAssembly memories (want 1: the app's, no sim), holding %q", where, n, found)
		}
		traffic := tr.String()
		for _, n := range needles {
			if strings.Contains(traffic, n) {
				t.Errorf("%s: the network carried %q", where, n)
			}
		}
	}

	s.do(30*time.Second, chromedp.Navigate(srv.URL+"/"))
	s.poll(30*time.Second, `document.documentElement.dataset.ready === "1"`)
	s.waitStage(20*time.Second, "consent")
	if got := s.eval(`document.getElementById("visit-label").textContent`); !strings.HasPrefix(got, "sealed") {
		t.Errorf("the page does not say the visit is sealed: label %q", got)
	}
	checkStory(t, s, "consent", ui.DataSite, 2)
	check("consent", append(append([]string{}, ids...), statements...))
	s.shot("sealed-consent")

	participant := s.eval(`localStorage.getItem("normgym.participant") || ""`)
	s.key(keyName("Enter"))
	s.waitStage(10*time.Second, "day")
	open, err := st.OpenSessions(context.Background(), participant, "")
	if err != nil || len(open) != 1 {
		t.Fatalf("the server has %d open sessions for the page's participant (%v), want 1", len(open), err)
	}
	visit := open[0].Visit
	id, err := sim.ParseVisitID(visit)
	if err != nil {
		t.Fatal(err)
	}
	// Under the told condition the rule is the task text, by design.
	hidden := append([]string{visit}, ids...)
	for _, n := range statements {
		if own, _ := norms.Default().Lookup(id.Norm); id.Condition == "told" && own.Statement == n {
			continue
		}
		hidden = append(hidden, n)
	}

	base := greedy(t, visit)
	resumed := false
	playFromDay(t, s, visit, base, func(stage string, n int) {
		switch {
		case stage == "probe":
			check("probe", append([]string{visit}, ids...))
		default:
			check(stage+" after "+strconv.Itoa(n)+" actions", hidden)
		}
		if stage == "play" && n > 0 && !resumed {
			resumed = true
			step := s.eval(`document.body.dataset.step`)
			s.reload()
			if got := s.waitStage(20*time.Second, "play", "consent"); got != "play" || s.eval(`document.body.dataset.step`) != step {
				t.Fatalf("after a reload at step %s the sealed visit is at %s, step %s", step, got, s.eval(`document.body.dataset.step`))
			}
			check("resumed", hidden)
		}
	})
	s.waitStage(20*time.Second, "result")
	s.poll(30*time.Second, `document.body.dataset.submit === "stored"`)
	s.shot("sealed-result")
	// The visit is over: the rule is on screen now, and the search finds it.
	own, _ := norms.Default().Lookup(id.Norm)
	if found := s.pageHolds([]string{own.Statement, visit}); len(found) != 2 {
		t.Errorf("the result screen shows %q of the rule %q and the visit %q", found, own.Statement, visit)
	}

	var runs api.Runs
	getJSONAs(t, srv.URL+"/api/runs", participant, &runs)
	if len(runs.Runs) != 1 || runs.Runs[0].Visit != visit || runs.Runs[0].Client != "human" {
		t.Fatalf("stored runs of the participant: %+v, want its sealed visit's", runs.Runs)
	}
	var rec ui.Record
	if err := json.Unmarshal([]byte(s.eval(`globalThis.normgymLastRecord`)), &rec); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(rec.Actions, ","), strings.Join(base.Actions, ","); got != want {
		t.Fatalf("the server recorded actions\n%s\nwant\n%s", got, want)
	}
	if got, want := rec.Hash, hostHash(t, visit, base.Actions); got != want {
		t.Errorf("sealed run's hash %s, wazero host %s", got, want)
	}
}
