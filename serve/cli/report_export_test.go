package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/harness"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/store"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/simwasm"
)

// TestReportReadsTheServersExport: what GET /api/export?format=jsonl
// answers — a person's sealed run, a model's submitted run and a
// baseline the server computed — goes into one report with a local
// baselines file, each series labelled with its provenance.
func TestReportReadsTheServersExport(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "runs.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const token = "export-token-for-the-report"
	srv, err := server.New(server.Options{Store: st, Verifier: server.Native(simwasm.SHA256()), AdminToken: token})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()

	su, _ := sim.LookupSuite("mini")
	var models, local []sim.Record
	for i, v := range su.Visits[:4] {
		play := func(agent string) sim.Record {
			r, err := nativeEngine{}.RunBaseline(ctx, v, agent)
			if err != nil {
				t.Fatal(err)
			}
			r.SimSHA256 = simwasm.SHA256()
			return r
		}
		m := play("observer")
		m.Agent, m.Client = "my-model", "model"
		models = append(models, m)
		local = append(local, play("greedy"))
		for _, put := range []struct {
			rec         sim.Record
			participant string
			prov        string
		}{{play("self"), "human-participant-" + string(rune('a'+i)), api.ProvenanceStepped}, {play("observer"), "", api.ProvenanceServer}} {
			if put.participant != "" {
				put.rec.Agent, put.rec.Client = "human", "human"
			}
			if _, _, err := st.PutRun(ctx, domain.Run{RunID: harness.NewRunID(), ContentSHA256: "x", CreatedAt: time.Now(), Participant: put.participant,
				ConsentVersion: server.ConsentVersion, Verifier: "native", Provenance: put.prov, Record: put.rec}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := submitRecords(ctx, hs.URL, models, ""); err != nil {
		t.Fatal(err)
	}
	// A person's sealed session abandoned hours ago: a visit of the human
	// row without success, in the export and so in the report.
	ab := su.Visits[5]
	then := time.Now().Add(-3 * time.Hour)
	abandoned := session.Session{ID: "abandoned-session-1", SessionSpec: session.Spec{Kind: api.KindHuman, Participant: "human-participant-z",
		Agent: "human", Visit: ab, Suite: su.Name, SuiteVersion: su.Version, Sealed: true}, Norm: strings.Split(ab, "/")[1],
		CreatedAt: then, TouchedAt: then}
	abandoned.World, abandoned.Condition, abandoned.Family = session.VisitParts(ab, abandoned.Norm)
	if err := st.CreateSession(ctx, abandoned, "token-hash-of-the-abandoned-session"); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", hs.URL+"/api/export?format=jsonl", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("export: %d %s", res.StatusCode, body)
	}
	dir := t.TempDir()
	export := filepath.Join(dir, "export.jsonl")
	os.WriteFile(export, body, 0o644)
	var lb bytes.Buffer
	for _, r := range local {
		writeRecord(&lb, r)
	}
	baselines := filepath.Join(dir, "baselines.jsonl")
	os.WriteFile(baselines, lb.Bytes(), 0o644)

	out := filepath.Join(dir, "report")
	code, stdout, stderr := runCLI(t, "", "report", export, baselines, "--out", out)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "4 series drawn of 4") {
		t.Errorf("report says %q, want 4 series drawn of 4", stdout)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !bytes.Contains(md, []byte("/5")) && !bytes.Contains(md, []byte("n = 5")) && !bytes.Contains(md, []byte("n=5")) {
		t.Errorf("report.md shows no human figure over 5 visits (4 finished, 1 abandoned):\n%s", md)
	}
	svg, _ := os.ReadFile(filepath.Join(out, "joint-by-condition.svg"))
	for _, row := range []string{
		"| human · server-stepped | human | server-stepped | 5 |",
		"| my-model · self-reported | model | self-reported | 4 |",
		"| observer · server | baseline | server | 4 |",
		"| greedy · file | baseline | file | 4 |",
	} {
		if !bytes.Contains(md, []byte(row)) {
			t.Errorf("report.md lacks the row %q:\n%s", row, md)
		}
		label := strings.TrimSpace(strings.Split(row, "|")[1])
		if !bytes.Contains(svg, []byte(`class="legend-item" data-agent="`+label+`"`)) {
			t.Errorf("joint-by-condition.svg has no legend item for %q", label)
		}
	}
}
