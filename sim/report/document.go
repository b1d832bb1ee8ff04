package report

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/normgym/normgym/sim"
)

// Input describes one file a report was made from.
type Input struct {
	Name string `json:"name"`
	// Kind is "results file" or "server export".
	Kind    string `json:"kind"`
	Records int    `json:"records"`
}

// Document is a whole report: every series the records hold, those
// drawn, and the figures of the drawn ones. Its writers (Markdown, HTML,
// TablesCSV) return text: the caller writes the files.
type Document struct {
	Inputs  []Input  `json:"inputs"`
	Series  []Series `json:"series"`
	Drawn   []Series `json:"-"`
	Figures []Figure `json:"figures"`
	Catalog string   `json:"catalog_version"`
	Notes   []string `json:"notes,omitempty"`
	// Command is the command line that made the report, if the caller
	// gives it: the report prints it so that a reader can remake it.
	Command string `json:"command,omitempty"`
	// Links are the visits with a transcript, each linked to the viewer
	// (Options.Viewer); none without one.
	Links []VisitLink `json:"links,omitempty"`
}

// NewDocument groups runs into series (GroupSeries), chooses those drawn
// (Choose with o.Agents) and computes the figures. It fails when a name
// in o.Agents matches no series or when there are no runs.
func NewDocument(runs []Run, inputs []Input, o Options) (*Document, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("report: no records")
	}
	cat := o.catalog()
	all := GroupSeries(runs, o.Rituals)
	drawn, err := Choose(all, o.Agents)
	if err != nil {
		return nil, err
	}
	d := &Document{Inputs: inputs, Series: all, Drawn: drawn, Catalog: cat.Version(), Links: visitLinks(runs, o)}
	d.Figures = Figures(drawn, cat)
	for _, s := range all {
		if s.Summary.SimSHA256 != all[0].Summary.SimSHA256 {
			d.Notes = append(d.Notes, "The records come from more than one sim.wasm (see sim_sha256 in tables.csv): compare them only if the sim version is the same.")
			break
		}
	}
	return d, nil
}

// headlineAbout says what the headline table holds.
const headlineAbout = "Joint success (test-day task done with no violation) over every visit of each series, with Wilson 95% intervals; " +
	"the probe over visits whose task did not state the rule (chance 0.25); the observational-learning gap is joint(observe) − joint(solo), " +
	"over visits without a sanction variant whose test day is in the practice day's world."

// table is a table's text cells, for Markdown, HTML and CSV alike.
type table struct {
	head []string
	rows [][]string
	// linkCol is the 1-based column whose cells are URLs, made links in
	// HTML (0: none).
	linkCol int
}

// overallTable holds each drawn series' headline rates.
func (d *Document) overallTable() table {
	t := table{head: []string{"agent", "client", "provenance", "visits", "joint [95% CI]", "task", "compliance", "probe (not told)", "obs. gap"}}
	for _, s := range d.Drawn {
		sm := s.Summary
		gap := "–"
		if g, ok := plainGap(s.Records); ok {
			gap = fmt.Sprintf("%+.2f", g)
		}
		t.rows = append(t.rows, []string{s.Label, s.Client, s.Provenance, fmt.Sprint(sm.Visits), FormatRate(sm.Joint),
			FormatRate(sm.Task), FormatRate(sm.Compliance), FormatRate(sm.Probe), gap})
	}
	return t
}

// plainGap returns the observational-learning gap, joint(observe) −
// joint(solo), over visits without a sanction variant whose test day is
// in the practice day's world; ok is false unless both conditions have
// such visits.
func plainGap(recs []sim.Record) (gap float64, ok bool) {
	var n, k [2]int
	for _, r := range recs {
		i := slices.Index([]string{sim.Observe, sim.Solo}, r.Condition)
		if i < 0 || !plain(r) {
			continue
		}
		n[i]++
		if r.Scores.Joint {
			k[i]++
		}
	}
	if n[0] == 0 || n[1] == 0 {
		return 0, false
	}
	return round(float64(k[0])/float64(n[0]) - float64(k[1])/float64(n[1])), true
}

// figureTable holds a figure's cells: rate [interval] and n.
func figureTable(f Figure) table {
	t := table{head: append([]string{"agent"}, f.Groups...)}
	for si, s := range f.Series {
		row := []string{s}
		for _, c := range f.Cells[si] {
			if c.N == 0 {
				row = append(row, "–")
				continue
			}
			row = append(row, fmt.Sprintf("%.2f [%.2f, %.2f] n=%d", c.Value, c.Lo, c.Hi, c.N))
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// NotDrawn returns a sentence on the series the figures leave out: the
// rituals, summarised by their lowest and highest joint success, and any
// other series by name. It is "" when every series is drawn.
func (d *Document) NotDrawn() string {
	drawn := map[string]bool{}
	for _, s := range d.Drawn {
		drawn[s.Label] = true
	}
	var rituals, others []Series
	for _, s := range d.Series {
		switch {
		case drawn[s.Label]:
		case s.Ritual:
			rituals = append(rituals, s)
		default:
			others = append(others, s)
		}
	}
	var parts []string
	if len(rituals) > 0 {
		sort.SliceStable(rituals, func(i, j int) bool { return rituals[i].Summary.Joint.Rate < rituals[j].Summary.Joint.Rate })
		lo, hi := rituals[0], rituals[len(rituals)-1]
		s := fmt.Sprintf("%d rituals (fixed caution that needs no learning) reach joint success %s (%s)", len(rituals), FormatRate(lo.Summary.Joint), lo.Label)
		if len(rituals) > 1 {
			s += fmt.Sprintf(" to %s (%s)", FormatRate(hi.Summary.Joint), hi.Label)
		}
		parts = append(parts, s)
	}
	for _, s := range others {
		parts = append(parts, fmt.Sprintf("%s reaches %s", s.Label, FormatRate(s.Summary.Joint)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Not drawn: " + strings.Join(parts, "; ") + ". (--agents all draws every series.)"
}

// Markdown returns the report as Markdown: the inputs, the headline
// table, what is not drawn, then each figure (an image link to NAME.svg
// beside the file) with its caption and its table of rates, intervals
// and n.
func (d *Document) Markdown() string {
	var b strings.Builder
	b.WriteString("# NormGym report\n\n")
	b.WriteString(d.inputsLine() + "\n\n")
	for _, n := range d.Notes {
		b.WriteString(n + "\n\n")
	}
	b.WriteString("## Headline\n\n" + headlineAbout + "\n\n")
	writeMarkdownTable(&b, d.overallTable())
	if s := d.NotDrawn(); s != "" {
		b.WriteString("\n" + s + "\n")
	}
	for _, f := range d.Figures {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n![%s](%s.svg)\n\n", f.Title, f.Caption, f.Title, f.Name)
		if !f.HasData() {
			b.WriteString(cmp.Or(f.Empty, noData) + "\n")
			continue
		}
		writeMarkdownTable(&b, figureTable(f))
	}
	if len(d.Links) > 0 {
		b.WriteString("\n## Transcripts\n\n" + transcriptsAbout + "\n\n")
		writeMarkdownTable(&b, linksTable(d.Links, func(l VisitLink) string { return "[replay](" + l.URL + ")" }))
	}
	return b.String()
}

func (d *Document) inputsLine() string {
	var parts []string
	total := 0
	for _, in := range d.Inputs {
		parts = append(parts, fmt.Sprintf("`%s` (%s, %d records)", in.Name, in.Kind, in.Records))
		total += in.Records
	}
	line := fmt.Sprintf("From %s: %d records, %d series, catalog %s.", strings.Join(parts, ", "), total, len(d.Series), d.Catalog)
	if d.Command != "" {
		line += " Made by `" + d.Command + "`."
	}
	return line
}

func writeMarkdownTable(b *strings.Builder, t table) {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	b.WriteString("|")
	for _, h := range t.head {
		b.WriteString(" " + cell(h) + " |")
	}
	b.WriteString("\n|" + strings.Repeat("---|", len(t.head)) + "\n")
	for _, r := range t.rows {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + cell(c) + " |")
		}
		b.WriteString("\n")
	}
}
