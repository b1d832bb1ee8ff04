package server_test

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/simwasm"
)

func TestClassroom(t *testing.T) {
	e := newEnv(t)
	var room api.RoomCreated
	st, b, _ := e.do("POST", "/api/rooms", api.RoomRequest{Name: "Year 9 — Tuesday", Suite: "mini"})
	if st != http.StatusCreated || json.Unmarshal(b, &room) != nil {
		t.Fatalf("creating a room: %d %s", st, b)
	}
	mini, _ := sim.LookupSuite("mini")
	if !api.ValidRoomCode(room.Code) || len(room.TeacherToken) < 32 || room.Visits != len(mini.Visits) || room.JoinURL != "/#room="+room.Code {
		t.Fatalf("room: %+v", room)
	}
	// Two students join with nicknames and play what the room assigns them.
	students := []string{"student-ana-0001", "student-ben-0002"}
	nicks := []string{"Blue Fox", "Seat 7"}
	runsOf := map[string][]string{}
	for i, s := range students {
		e.join(room.Code, s, []string{"Blue Fox", "07"}[i], http.StatusOK)
		for k := 0; k < 2-i; k++ {
			a := e.assign(s, room.Code)
			sub := submission(record(t, a.Visit, []string{"greedy", "observer"}[k], "human"), s)
			sub.Room = strings.ToLower(room.Code)
			got := e.mustSubmit(sub)
			runsOf[s] = append(runsOf[s], got.RunID)
		}
	}
	// Students see their own runs only.
	for _, s := range students {
		var runs api.Runs
		e.getJSON("/api/runs", &runs, api.ParticipantHeader, s)
		if len(runs.Runs) != len(runsOf[s]) {
			t.Errorf("%s sees %d runs, want %d", s, len(runs.Runs), len(runsOf[s]))
		}
		for _, r := range runs.Runs {
			if r.Room != room.Code {
				t.Errorf("%s's run in room %q", s, r.Room)
			}
		}
	}
	// Everyone sees the class aggregates, with no pseudonyms in them.
	st, b, _ = e.do("GET", "/api/rooms/"+room.Code, nil)
	var pub api.Room
	if st != 200 || json.Unmarshal(b, &pub) != nil {
		t.Fatalf("public room: %d %s", st, b)
	}
	if pub.Stats.Participants != 2 || pub.Stats.Runs != 3 || pub.Name != "Year 9 — Tuesday" || len(pub.Stats.ViolationsPerDay) != sim.Days {
		t.Errorf("public room: %+v", pub)
	}
	for _, s := range students {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("the public room view names %s", s)
		}
	}
	answered := 0
	for _, n := range pub.Stats.Probe.Answers {
		answered += n
	}
	if answered != pub.Stats.Probe.Answered {
		t.Errorf("probe answers %v sum to %d, want %d", pub.Stats.Probe.Answers, answered, pub.Stats.Probe.Answered)
	}
	// The teacher's dashboard and export need the token.
	auth := []string{"Authorization", "Bearer " + room.TeacherToken}
	for _, p := range []string{"/dashboard", "/export.csv"} {
		if st, b, h := e.do("GET", "/api/rooms/"+room.Code+p, nil); st != http.StatusUnauthorized || h.Get("WWW-Authenticate") == "" {
			t.Errorf("%s without a token: %d %s", p, st, b)
		}
		if st, b, _ := e.do("GET", "/api/rooms/"+room.Code+p, nil, "Authorization", "Bearer nope"); st != http.StatusForbidden {
			t.Errorf("%s with a wrong token: %d %s", p, st, b)
		}
	}
	var d api.Dashboard
	e.getJSON("/api/rooms/"+room.Code+"/dashboard", &d, auth...)
	if len(d.Students) != 2 || d.Students[0].Nickname != nicks[0] || d.Students[0].Runs != 2 || d.Students[1].Runs != 1 ||
		d.Students[1].Nickname != nicks[1] || d.Members != 2 {
		t.Errorf("dashboard students: %+v", d.Students)
	}
	// The teacher's views show nicknames, never the pseudonyms (each is
	// its student's private key).
	for _, p := range []string{"/dashboard", "/export.csv", "/reveal"} {
		_, b, _ := e.do("GET", "/api/rooms/"+room.Code+p, nil, auth...)
		for _, s := range students {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s names the pseudonym %s", p, s)
			}
		}
	}
	if d.Stats.Runs != 3 {
		t.Errorf("dashboard stats: %+v", d.Stats)
	}
	for _, p := range d.Probes {
		if len(p.Options) != 4 || p.Correct < 0 || p.Correct > 3 || len(p.Answers) != 4 {
			t.Errorf("probe of %s: %+v", p.Visit, p)
		}
	}
	st, b, h := e.do("GET", "/api/rooms/"+room.Code+"/export.csv", nil, auth...)
	if st != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") {
		t.Fatalf("export: %d %s", st, b)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) != 4 || rows[0][0] != "run_id" || rows[0][2] != "nickname" || rows[1][2] != nicks[0] {
		t.Fatalf("export: %v %q", err, rows)
	}
	// A room that the teacher gives as visits; bad requests.
	for _, tc := range []struct {
		body string
		code int
	}{
		{`{"visits":["orchard/none/control/s1","orchard/none/control/s1"]}`, 201},
		{`{"visits":["moon/none/control/s1"]}`, 400},
		{`{"suite":"mini","visits":["orchard/none/control/s1"]}`, 400},
		{`{"suite":"nope"}`, 400},
		{`{"name":"` + strings.Repeat("n", 81) + `"}`, 400},
		{`{"teacher":"x"}`, 400},
	} {
		if st, b, _ := e.do("POST", "/api/rooms", tc.body); st != tc.code {
			t.Errorf("POST /api/rooms %s: %d %s, want %d", tc.body, st, b, tc.code)
		}
	}
}

func TestExport(t *testing.T) {
	// Disabled without a token.
	e := newEnv(t, func(o *server.Options) { o.AdminTokenEnv = "NORMGYM_ADMIN_TOKEN" })
	st, b, _ := e.do("GET", "/api/export", nil, "Authorization", "Bearer x")
	if got := errorOf(t, b); st != http.StatusForbidden || !strings.Contains(got.Message, "NORMGYM_ADMIN_TOKEN") {
		t.Errorf("disabled export: %d %s", st, b)
	}

	e = newEnv(t, func(o *server.Options) { o.AdminToken = "s3cret-token" })
	e.mustSubmit(submission(record(t, normVisit, "oracle", "model"), ""))
	e.mustSubmit(inRoom(submission(record(t, controlVisit, "greedy", "human"), "person-00000001"), e.newRoom(controlVisit)))
	for _, hdr := range [][]string{nil, {"Authorization", "Bearer wrong"}} {
		if st, b, _ := e.do("GET", "/api/export", nil, hdr...); st != http.StatusUnauthorized {
			t.Errorf("export with %v: %d %s", hdr, st, b)
		}
	}
	auth := []string{"Authorization", "Bearer s3cret-token"}
	st, b, h := e.do("GET", "/api/export?format=jsonl", nil, auth...)
	if st != 200 || h.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("jsonl export: %d %s", st, h.Get("Content-Type"))
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 3 {
		t.Fatalf("%d lines, want a data card and 2 runs", len(lines))
	}
	var head struct {
		Card api.DataCard `json:"data_card"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &head); err != nil {
		t.Fatal(err)
	}
	c := head.Card
	if c.Counts.Runs != 2 || c.Counts.Participants != 1 || c.Counts.ByClient["human"] != 1 || c.Versions.SimSHA256 == "" ||
		c.Versions.Suites["standard"] == "" || c.Versions.Consent != server.ConsentVersion || c.Fields["record"] == "" || len(c.Versions.Sims) != 1 {
		t.Errorf("data card: %+v", c)
	}
	var run api.ExportRun
	if err := json.Unmarshal([]byte(lines[2]), &run); err != nil || run.Participant != "person-00000001" || run.Record.Agent != "human" ||
		run.Date != "2026-03-02" || run.Verifier != "wasm" {
		t.Errorf("exported run: %+v %v", run, err)
	}
	if run.Provenance != "self-reported" || c.Counts.ByProvenance["self-reported"] != 2 || c.Fields["provenance"] == "" {
		t.Errorf("provenance in the export: run %q, card %+v", run.Provenance, c.Counts.ByProvenance)
	}
	if c.Versions.Verifier != "wasm" || c.Counts.ByVerifier["wasm"] != 2 || c.Fields["verifier"] == "" ||
		!strings.Contains(c.Description, "verifies by replaying each run inside sim.wasm "+c.Versions.SimSHA256) {
		t.Errorf("data card on the verifier: %+v", c)
	}
	st, b, _ = e.do("GET", "/api/export?format=csv", nil, auth...)
	if st != 200 || !bytes.HasPrefix(b, []byte("# ")) {
		t.Fatalf("csv export: %d %.200s", st, b)
	}
	var body []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(l, "# ") {
			body = append(body, l)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(strings.Join(body, "\n"))).ReadAll()
	if err != nil || len(rows) != 3 || rows[0][0] != "run_id" || !strings.Contains(string(b), `"data_card"`) && !strings.Contains(string(b), "data_card:") {
		t.Errorf("csv export: %v %q", err, rows)
	}
	if st, _, _ := e.do("GET", "/api/export?format=xml", nil, auth...); st != 400 {
		t.Errorf("format xml: %d", st)
	}
	vcol, pcol := slices.Index(rows[0], "verifier"), slices.Index(rows[0], "provenance")
	if vcol < 0 || rows[1][vcol] != "wasm" || pcol < 0 || rows[1][pcol] != "self-reported" {
		t.Errorf("csv export: the verifier column: %q %q", rows[0], rows[1])
	}

	// A natively verified run says so, and the card claims no sim.wasm
	// replay for it.
	e = newEnv(t, func(o *server.Options) { o.AdminToken = "s3cret-token"; o.Verifier = server.Native(simwasm.SHA256()) })
	e.mustSubmit(submission(record(t, normVisit, "oracle", "model"), ""))
	_, b, _ = e.do("GET", "/api/export?format=jsonl", nil, auth...)
	lines = strings.Split(strings.TrimSpace(string(b)), "\n")
	if err := json.Unmarshal([]byte(lines[0]), &head); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &run); err != nil || run.Verifier != "native" || run.Record.SimSHA256 != simwasm.SHA256() {
		t.Errorf("natively verified run: %+v %v", run, err)
	}
	c = head.Card
	if c.Versions.Verifier != "native" || c.Counts.ByVerifier["native"] != 1 || strings.Contains(c.Description, "replaying each run inside sim.wasm") ||
		!strings.Contains(c.Description, "native Go core, pinned to sim.wasm "+simwasm.SHA256()+" but not running it") {
		t.Errorf("data card of a native server: %+v", c)
	}
}

func TestStatic(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, func(o *server.Options) { o.Web = os.DirFS(dir) })
	// No app built yet: the built-in page.
	st, b, h := e.do("GET", "/", nil)
	if st != 200 || !strings.Contains(string(b), "make build") || !strings.Contains(string(b), "/api/runs") || h.Get("Cache-Control") != "no-cache" {
		t.Errorf("page without the app: %d %s %.100s", st, h, b)
	}
	wasm := bytes.Repeat([]byte("\x00asm some wasm bytes "), 4000)
	files := map[string][]byte{
		"index.html":            []byte("<!doctype html><title>NormGym</title>" + strings.Repeat(" ", 1000)),
		"sim.0123abcd4567.wasm": wasm,
		"app.js":                []byte(strings.Repeat("console.log(1);\n", 100)),
		"style.css":             []byte("body{}"),
		".secret":               []byte("x"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		path, encoding   string
		status           int
		ctype, cache, ce string
	}{
		{"/", "gzip", 200, "text/html; charset=utf-8", "no-cache", "gzip"},
		{"/index.html", "", 200, "text/html; charset=utf-8", "no-cache", ""},
		{"/play", "", 200, "text/html; charset=utf-8", "no-cache", ""},
		{"/sim.0123abcd4567.wasm", "gzip, br", 200, "application/wasm", "public, max-age=31536000, immutable", "gzip"},
		{"/sim.0123abcd4567.wasm", "identity", 200, "application/wasm", "public, max-age=31536000, immutable", ""},
		{"/app.js", "gzip;q=0", 200, "text/javascript; charset=utf-8", "no-cache", ""},
		{"/style.css", "gzip", 200, "text/css; charset=utf-8", "no-cache", ""},
		{"/.secret", "", 404, "", "", ""},
		{"/missing.js", "", 404, "", "", ""},
		{"/../main_test.go", "", 404, "", "", ""},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest("GET", e.http.URL+tc.path, nil)
		req.Header.Set("Accept-Encoding", tc.encoding)
		tr := &http.Transport{DisableCompression: true}
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d", tc.path, resp.StatusCode, tc.status)
			continue
		}
		if tc.status != 200 {
			continue
		}
		h := resp.Header
		if h.Get("Content-Type") != tc.ctype || h.Get("Cache-Control") != tc.cache || h.Get("Content-Encoding") != tc.ce || h.Get("ETag") == "" {
			t.Errorf("%s (%s): type %q cache %q encoding %q etag %q", tc.path, tc.encoding, h.Get("Content-Type"), h.Get("Cache-Control"), h.Get("Content-Encoding"), h.Get("ETag"))
		}
		// Revalidation answers 304.
		req.Header.Set("If-None-Match", h.Get("ETag"))
		resp, err = (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("%s with its ETag: %d, want 304", tc.path, resp.StatusCode)
		}
	}
}
