package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

func cmdReport(e *env) error {
	fs := e.flags("report", "F.jsonl… [--format md|csv|json] [--svg DIR]",
		"Tables by agent × condition × family × world with Wilson 95% intervals and the\n"+
			"observational-learning gap (joint(observe) − joint(solo)); optional SVG charts.")
	format := fs.String("format", "md", "md, csv or json")
	svgDir := fs.String("svg", "", "write joint-by-condition.svg and violations-by-day.svg here")
	files, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usageError("report needs at least one results file")
	}
	if *format != "md" && *format != "csv" && *format != "json" {
		return usageError("--format must be md, csv or json, not %q", *format)
	}
	var recs []sim.Record
	for _, f := range files {
		r, err := readRecords(f)
		if err != nil {
			return err
		}
		recs = append(recs, r...)
	}
	if len(recs) == 0 {
		return fmt.Errorf("no records in %v", files)
	}
	sums := report.Summarize(recs)
	if *svgDir != "" {
		if err := os.MkdirAll(*svgDir, 0o755); err != nil {
			return err
		}
		charts := map[string]string{
			"joint-by-condition.svg": report.JointByConditionSVG(sums),
			"violations-by-day.svg":  report.ViolationsByDaySVG(sums),
			"findings.svg":           report.FindingsSVG(sums),
		}
		for _, name := range []string{"joint-by-condition.svg", "violations-by-day.svg"} {
			if err := os.WriteFile(filepath.Join(*svgDir, name), []byte(charts[name]), 0o644); err != nil {
				return err
			}
		}
	}
	switch *format {
	case "csv":
		return report.CSV(e.stdout, sums)
	case "json":
		return writeJSON(e.stdout, sums)
	}
	return report.Markdown(e.stdout, sums)
}
