package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// writeJSONL writes one JSON value a line to a new file in dir.
func writeJSONL(t *testing.T, dir, name string, vals ...any) string {
	t.Helper()
	var b bytes.Buffer
	for _, v := range vals {
		line, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportOut: run every baseline, then report --out writes the whole
// report: the Markdown and HTML, the CSV and at least five figures,
// among them the findings, the families and commonsense vs
// counterintuitive; --svg writes the same figures, findings.svg too.
func TestReportOut(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "r.jsonl")
	if code, _, stderr := runCLI(t, "", "run", "--native", "--suite", "mini", "--agent", "all", "--limit", "8", "--out", res); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "report")
	code, stdout, stderr := runCLI(t, "", "report", res, "--out", out)
	if code != 0 {
		t.Fatalf("report --out: exit %d: %s", code, stderr)
	}
	all, rituals := len(agents.Names()), len(agents.RitualNames())
	want := fmt.Sprintf("%d series drawn of %d", all-rituals, all)
	if !strings.Contains(stdout, want) || !strings.Contains(stdout, fmt.Sprintf("Not drawn: %d rituals", rituals)) {
		t.Errorf("report --out says %q; want %s and the rituals in one line", stdout, want)
	}
	svgs, _ := filepath.Glob(filepath.Join(out, "*.svg"))
	if len(svgs) < 5 {
		t.Errorf("%d figures, want at least 5", len(svgs))
	}
	for _, f := range []string{"report.md", "report.html", "tables.csv", "findings.svg", "joint-by-family.svg", "commonsense.svg", "joint-by-condition.svg"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %v (%d bytes)", f, err, len(b))
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !bytes.Contains(md, []byte("![Test-day compliance by what the practice day taught](findings.svg)")) {
		t.Errorf("report.md does not embed findings.svg")
	}
	svgDir := filepath.Join(dir, "svg")
	if code, _, stderr := runCLI(t, "", "report", "--svg", svgDir, "--agents", "observer,ritual-bow", res); code != 0 {
		t.Fatalf("report --svg: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(svgDir, "findings.svg"))
	if err != nil || !bytes.Contains(b, []byte(`data-agent="ritual-bow"`)) || bytes.Contains(b, []byte(`data-agent="greedy"`)) {
		t.Errorf("--svg --agents observer,ritual-bow: findings.svg (%v) does not draw exactly the agents asked for", err)
	}
}

// exportRun plays visit with a baseline and labels it as the server's
// export would.
func exportRun(t *testing.T, visit, baseline, agent, client, prov string) api.ExportRun {
	t.Helper()
	env, err := agents.Play(visit, baseline)
	if err != nil {
		t.Fatal(err)
	}
	return api.ExportRun{RunID: fmt.Sprintf("run-%s-%s", agent, visit), Date: "2026-01-02", Verifier: "wasm", Provenance: prov, Record: env.Record(agent, client)}
}

// TestReportExportBesideBaselines: a server export (sealed humans, a
// keyed model, a self-reported model, the server's baselines) and a
// results file of baselines make one report whose table and figures
// label each series with its provenance.
func TestReportExportBesideBaselines(t *testing.T) {
	dir := t.TempDir()
	su, _ := sim.LookupSuite("mini")
	visits := su.Visits[:6]
	vals := []any{map[string]api.DataCard{"data_card": {Name: "NormGym verified runs"}}}
	var local []any
	for _, v := range visits {
		vals = append(vals, exportRun(t, v, "observer", "human", "human", api.ProvenanceStepped),
			exportRun(t, v, "self", "gpt-test", "model", api.ProvenanceStepped),
			exportRun(t, v, "greedy", "my-model", "model", api.ProvenanceSelfReported),
			exportRun(t, v, "observer", "observer", "baseline", api.ProvenanceServer))
		env, err := agents.Play(v, "observer")
		if err != nil {
			t.Fatal(err)
		}
		local = append(local, env.Record("observer", "baseline"))
	}
	export := writeJSONL(t, dir, "export.jsonl", vals...)
	baselines := writeJSONL(t, dir, "baselines.jsonl", local...)
	out := filepath.Join(dir, "report")
	if code, _, stderr := runCLI(t, "", "report", export, baselines, "--out", out); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	svg, _ := os.ReadFile(filepath.Join(out, "joint-by-condition.svg"))
	for _, label := range []string{"human · server-stepped", "gpt-test · server-stepped", "my-model · self-reported", "observer · server", "observer · file"} {
		if !bytes.Contains(md, []byte("| "+label+" |")) {
			t.Errorf("report.md has no row for %q", label)
		}
		if !bytes.Contains(svg, []byte(`data-agent="`+label+`"`)) {
			t.Errorf("joint-by-condition.svg does not draw %q", label)
		}
	}
	if !bytes.Contains(md, []byte("`"+export+"` (server export, 24 records)")) {
		t.Errorf("report.md does not name the export as its input")
	}
	f, _ := os.Open(filepath.Join(out, "tables.csv"))
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	provs := map[string]string{}
	for _, r := range rows[1:] {
		provs[r[2]] = r[5]
	}
	if provs["human · server-stepped"] != api.ProvenanceStepped || provs["observer · file"] != "file" {
		t.Errorf("tables.csv provenance column: %v", provs)
	}
}

// TestReportCompareHandCase: two files of one agent each over 12
// observe visits (5 both succeed, 6 only A, 0 only B, 1 neither) and 10
// solo visits (3, 1, 4, 2), worked out by hand in
// sim/report/paired_test.go.
func TestReportCompareHandCase(t *testing.T) {
	dir := t.TempDir()
	var a, b []any
	i := 0
	add := func(cond string, n int, ja, jb bool) {
		for ; n > 0; n-- {
			v := fmt.Sprintf("park/place.color=red/%s/s%d", cond, i)
			i++
			rec := func(agent string, j bool) sim.Record {
				return sim.Record{Visit: v, Agent: agent, Client: "model", World: "park", Norm: "place.color=red", Family: "place", Condition: cond,
					Scores: sim.Scores{Joint: j}}
			}
			a, b = append(a, rec("A", ja)), append(b, rec("B", jb))
		}
	}
	for _, c := range []struct {
		cond                   string
		both, aOnly, bOnly, no int
	}{{sim.Observe, 5, 6, 0, 1}, {sim.Solo, 3, 1, 4, 2}} {
		add(c.cond, c.both, true, true)
		add(c.cond, c.aOnly, true, false)
		add(c.cond, c.bOnly, false, true)
		add(c.cond, c.no, false, false)
	}
	fa, fb := writeJSONL(t, dir, "A.jsonl", a...), writeJSONL(t, dir, "B.jsonl", b...)
	code, stdout, stderr := runCLI(t, "", "report", "--compare", fa, fb)
	if code != 0 {
		t.Fatalf("report --compare: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"A beats B on observe by 0.50 [0.12, 0.73] (n = 12 paired visits; 6 won by A alone, 0 by B alone; exact McNemar p = 0.031).",
		"No difference detected between A and B on solo: A − B = -0.30 [-0.60, +0.12] (n = 10 paired visits; 1 won by A alone, 4 by B alone; exact McNemar p = 0.375).",
		"| observe | 12 | 5 | 6 | 0 | 1 | 0.92 | 0.42 | +0.50 [+0.12, +0.73] | p = 0.031 |",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report --compare lacks\n %s\nin\n%s", want, stdout)
		}
	}
	code, stdout, _ = runCLI(t, "", "report", "--compare", "--format", "json", fa, fb)
	var c struct {
		ByCondition []struct{ Lo, Hi float64 } `json:"by_condition"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &c) != nil || len(c.ByCondition) != 2 || c.ByCondition[0].Lo != 0.1221 {
		t.Errorf("report --compare --format json: exit %d, %+v", code, c)
	}
}

func TestReportRefusals(t *testing.T) {
	dir := t.TempDir()
	rec := sim.Record{Visit: "park/place.color=red/observe/s1", Agent: "A", Client: "model", Condition: sim.Observe}
	three := writeJSONL(t, dir, "three.jsonl", rec, func() sim.Record { r := rec; r.Agent = "B"; return r }(), func() sim.Record { r := rec; r.Agent = "C"; return r }())
	csvExport := filepath.Join(dir, "export.csv")
	os.WriteFile(csvExport, []byte("# NormGym verified runs: one row per run; the data card (JSON) follows.\nrun_id\n"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown agent", []string{"report", "--agents", "gpt", three}, 2, `no agent "gpt" in the records (they hold A, B, C)`},
		{"compare three", []string{"report", "--compare", three}, 2, "--compare needs exactly two series, not 3 (A, B, C)"},
		{"compare with agents", []string{"report", "--compare", "--agents", "A", three}, 2, "not 1 (A)"},
		{"the CSV export", []string{"report", csvExport}, 1, "lacks the events the findings need"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, tt.code, tt.want)
			}
		})
	}
}
