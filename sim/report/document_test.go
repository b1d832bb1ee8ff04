package report_test

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

func testDocument(t *testing.T, agents ...string) *report.Document {
	t.Helper()
	var runs []report.Run
	add := func(r sim.Record) {
		runs = append(runs, report.Run{Record: r, Provenance: report.ProvenanceFile, Source: "r.jsonl"})
	}
	for i, a := range []string{"greedy", "observer", "ritual-bow", "ritual-wash"} {
		add(visit(a, "park/place.color=red/observe/s1", a == "observer", 1, true))
		add(visit(a, "park/place.color=red/solo/s2", i == 3, 1, true))
	}
	add(visit("observer", "park/none/control/s3", true, 0, false))
	d, err := report.NewDocument(runs, []report.Input{{Name: "r.jsonl", Kind: "results file", Records: len(runs)}},
		report.Options{Catalog: norms.Default(), Rituals: []string{"ritual-bow", "ritual-wash"}, Agents: agents})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDocumentMarkdownAndHTML(t *testing.T) {
	d := testDocument(t)
	md := d.Markdown()
	for _, want := range []string{
		"| greedy | baseline | file | 2 | 0.00 [0.00, 0.66] |",
		"| observer | baseline | file | 3 | 0.67 [0.21, 0.94] |",
		"+1.00 |", // observer's gap: 1 under observe − 0 under solo
		"Not drawn: 2 rituals (fixed caution that needs no learning) reach joint success 0.00 [0.00, 0.66] (ritual-bow) to 0.50 [0.09, 0.91] (ritual-wash).",
		"![Joint success by condition](joint-by-condition.svg)",
		"| observer | 1.00 [0.21, 1.00] n=1 | 0.00 [0.00, 0.79] n=1 | 1.00 [0.21, 1.00] n=1 |",
		"| greedy | 0.00 [0.00, 0.79] n=1 | 0.00 [0.00, 0.79] n=1 | – |",
		"No transfer visits in these records",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "| ritual-bow |") {
		t.Errorf("report.md draws a ritual by default")
	}
	html := d.HTML()
	if got, want := strings.Count(html, "<svg "), len(d.Figures); got != want {
		t.Errorf("report.html holds %d SVGs, want %d (one per figure)", got, want)
	}
	for _, want := range []string{"<!doctype html>", "<code>r.jsonl</code>", "<td>observer</td>", `id="hatch-joint-by-condition"`} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	drawn := testDocument(t, "all")
	if !strings.Contains(drawn.Markdown(), "| ritual-bow |") || drawn.NotDrawn() != "" {
		t.Errorf("--agents all leaves a series out: %q", drawn.NotDrawn())
	}
}

func TestTablesCSVLeavesNoDataEmpty(t *testing.T) {
	d := testDocument(t)
	text, err := d.TablesCSV()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Join(rows[0], ",")
	if head != "table,group,agent_label,agent,client,provenance,source,n,k,value,lo,hi,sim_sha256" {
		t.Fatalf("header %q", head)
	}
	find := func(table, group, agent string) []string {
		for _, r := range rows {
			if r[0] == table && r[1] == group && r[2] == agent {
				return r
			}
		}
		t.Fatalf("no row %s/%s/%s", table, group, agent)
		return nil
	}
	tests := []struct {
		name, table, group, agent string
		want                      string // n,k,value,lo,hi
	}{
		{"a share", "joint-by-condition", "observe", "observer", "1,1,1.0000,0.2065,1.0000"},
		{"no visits", "joint-by-condition", "control", "greedy", "0,,,,"},
		{"probe with no answer", "probe", "all", "greedy", "0,,,,"},
		{"a mean has no k", "violations-by-day", "practice day", "greedy", "2,,1.0000,1.0000,1.0000"},
		{"a ritual's headline", "joint", "all", "ritual-wash", "2,1,0.5000,0.0945,0.9055"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(find(tt.table, tt.group, tt.agent)[7:12], ","); got != tt.want {
				t.Errorf("n,k,value,lo,hi = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestCSVLeavesNoDataEmpty(t *testing.T) {
	var b strings.Builder
	sums := report.Summarize([]sim.Record{visit("greedy", "park/place.color=red/solo/s2", false, 1, true)})
	if err := report.CSV(&b, sums); err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	all := rows[1]
	for _, c := range []struct{ name, want string }{
		{"joint", "0.0000"}, {"probe", ""}, {"probe_told", ""}, {"after_witnessing_only", ""}, {"after_own_sanction", "0.0000"}, {"violations_practice", "1.0000"},
	} {
		if got := all[col[c.name]]; got != c.want {
			t.Errorf("%s = %q, want %q", c.name, got, c.want)
		}
	}
}
