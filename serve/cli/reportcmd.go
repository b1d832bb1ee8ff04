package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/harness"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/report"
)

func cmdReport(e *env) error {
	fs := e.flags("report", "FILE… [--out DIR] [--agents a,b,c] [--format md|csv|json] [--svg DIR] [--compare]",
		"Tables and figures from results files (normgym run, eval) and server exports (GET /api/export?format=jsonl),\n"+
			"in any mix: each agent is a series, labelled with its provenance when the inputs mix them.\n"+
			"With --out, a self-contained report: report.md, report.html, tables.csv and the figures (SVG).\n"+
			"Without it, tables by agent × condition × family × world on stdout (--format) and, with --svg, the figures.\n"+
			"--compare: a paired comparison of two series (two files of one agent each, or --agents A,B) over the\n"+
			"visits both played: the difference in joint success with its interval and McNemar's exact test.")
	format := fs.String("format", "md", "md, csv or json")
	svgDir := fs.String("svg", "", "write the figures (SVG) here")
	outDir := fs.String("out", "", "write the whole report here: report.md, report.html, tables.csv and the SVGs")
	agentList := fs.String("agents", "", "series to draw, by agent name or label, comma-separated, or all (default: all but the rituals)")
	compare := fs.Bool("compare", false, "compare two series pairwise over the visits both played")
	viewer := fs.String("viewer", "http://127.0.0.1:8080/viewer.html", "with --out: the transcript viewer the report links each visit to, when a results file has\nits transcripts file beside it (normgym serve's /viewer.html, or the static site's; \"\": no links)")
	files, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usageError("report needs at least one results file or server export")
	}
	if *format != "md" && *format != "csv" && *format != "json" {
		return usageError("--format must be md, csv or json, not %q", *format)
	}
	runs, inputs, err := readReportInputs(files)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return fmt.Errorf("no records in %v", files)
	}
	opts := report.Options{Catalog: norms.Default(), Rituals: agents.RitualNames(), Agents: splitList(*agentList)}
	if *outDir != "" && *viewer != "" {
		opts.Viewer = *viewer
		if opts.Transcripts, err = transcriptIDs(files); err != nil {
			return err
		}
	}
	if *compare {
		return reportCompare(e, runs, opts, *format)
	}
	doc, err := report.NewDocument(runs, inputs, opts)
	if err != nil {
		return usageError("%v", err)
	}
	if *svgDir != "" {
		if err := writeFigures(*svgDir, doc); err != nil {
			return err
		}
	}
	if *outDir != "" {
		doc.Command = "normgym report " + strings.Join(e.args, " ")
		return writeReport(e, *outDir, doc)
	}
	sums := make([]report.Summary, len(doc.Series))
	for i, s := range doc.Series {
		sums[i] = s.Summary
	}
	switch *format {
	case "csv":
		return report.CSV(e.stdout, sums)
	case "json":
		return writeJSON(e.stdout, sums)
	}
	return report.Markdown(e.stdout, sums)
}

// transcriptIDs reads the transcripts files beside the inputs (eval's
// harness.TranscriptPath) and returns the run ids they hold.
func transcriptIDs(files []string) (map[string]bool, error) {
	ids := map[string]bool{}
	for _, f := range files {
		trs, err := harness.LoadTranscripts(harness.TranscriptPath(f))
		if err != nil {
			return nil, err
		}
		for id := range trs {
			ids[id] = true
		}
	}
	return ids, nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// writeFigures writes each figure of doc as NAME.svg into dir.
func writeFigures(dir string, doc *report.Document) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range doc.Figures {
		if err := os.WriteFile(filepath.Join(dir, f.Name+".svg"), []byte(f.SVG()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeReport writes the whole report into dir and says what it wrote.
func writeReport(e *env, dir string, doc *report.Document) error {
	if err := writeFigures(dir, doc); err != nil {
		return err
	}
	csv, err := doc.TablesCSV()
	if err != nil {
		return err
	}
	files := map[string]string{"report.md": doc.Markdown(), "report.html": doc.HTML(), "tables.csv": csv}
	for _, name := range []string{"report.md", "report.html", "tables.csv"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(files[name]), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "wrote %s: report.md, report.html, tables.csv and %d figures (%d series drawn of %d)\n",
		dir, len(doc.Figures), len(doc.Drawn), len(doc.Series))
	if s := doc.NotDrawn(); s != "" {
		fmt.Fprintln(e.stdout, s)
	}
	return nil
}

// reportCompare compares two series pairwise: the two named by --agents,
// or the only two the inputs hold.
func reportCompare(e *env, runs []report.Run, opts report.Options, format string) error {
	all := report.GroupSeries(runs, opts.Rituals)
	pick := all
	if len(opts.Agents) > 0 {
		var err error
		if pick, err = report.Choose(all, opts.Agents); err != nil {
			return usageError("%v", err)
		}
	}
	if len(pick) != 2 {
		labels := make([]string, len(pick))
		for i, s := range pick {
			labels[i] = s.Label
		}
		return usageError("--compare needs exactly two series, not %d (%s): give two files of one agent each, or --agents A,B",
			len(pick), strings.Join(labels, ", "))
	}
	c := report.Compare(pick[0], pick[1], opts.Catalog)
	if c.All.N == 0 {
		return fmt.Errorf("%s and %s played no visit in common", c.A, c.B)
	}
	if format == "json" {
		return writeJSON(e.stdout, c)
	}
	_, err := fmt.Fprint(e.stdout, c.Markdown())
	return err
}
