package report

import (
	"encoding/csv"
	"fmt"
	"strings"
)

// HTML returns the report as one self-contained HTML page: the same
// text and tables as Markdown, each figure's SVG inline.
func (d *Document) HTML() string {
	var b strings.Builder
	b.WriteString(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>NormGym report</title>
<style>
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.4}
table{border-collapse:collapse;margin:1em 0;font-size:14px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3}td{font-variant-numeric:tabular-nums}figure{margin:1.5em 0;overflow-x:auto}
code{background:#f3f3f3;padding:0 3px}
</style></head><body>
<h1>NormGym report</h1>
`)
	fmt.Fprintf(&b, "<p>%s</p>\n", inlineCode(esc(d.inputsLine())))
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "<p>%s</p>\n", esc(n))
	}
	fmt.Fprintf(&b, "<h2>Headline</h2>\n<p>%s</p>\n", esc(headlineAbout))
	writeHTMLTable(&b, d.overallTable())
	if s := d.NotDrawn(); s != "" {
		fmt.Fprintf(&b, "<p>%s</p>\n", esc(s))
	}
	for _, f := range d.Figures {
		fmt.Fprintf(&b, "<h2 id=\"%s\">%s</h2>\n<figure>\n%s</figure>\n", esc(f.Name), esc(f.Title), f.SVG())
		if f.HasData() {
			writeHTMLTable(&b, figureTable(f))
		}
	}
	if len(d.Links) > 0 {
		fmt.Fprintf(&b, "<h2 id=\"transcripts\">Transcripts</h2>\n<p>%s</p>\n", esc(transcriptsAbout))
		t := linksTable(d.Links, func(l VisitLink) string { return l.URL })
		t.linkCol = len(t.head)
		writeHTMLTable(&b, t)
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// inlineCode turns `x` spans of escaped text into <code>x</code>.
func inlineCode(s string) string {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<code>" + p + "</code>")
		} else {
			if i%2 == 1 {
				b.WriteString("`")
			}
			b.WriteString(p)
		}
	}
	return b.String()
}

func writeHTMLTable(b *strings.Builder, t table) {
	b.WriteString("<table><thead><tr>")
	for _, h := range t.head {
		fmt.Fprintf(b, "<th>%s</th>", esc(h))
	}
	b.WriteString("</tr></thead><tbody>\n")
	for _, r := range t.rows {
		b.WriteString("<tr>")
		for i, c := range r {
			if i+1 == t.linkCol {
				// One viewer window for every link: the files it read stay.
				fmt.Fprintf(b, `<td><a href="%s" target="normgym-viewer">replay</a></td>`, esc(c))
				continue
			}
			fmt.Fprintf(b, "<td>%s</td>", esc(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>\n")
}

// TablesCSV returns every number of the report as CSV, one row per
// series × table × group: the headline rates of every series (drawn or
// not: tables "joint", "task", "compliance", "probe"), then each figure's
// cells for the drawn series. A cell with no visits has n = 0 and empty
// value, lo and hi: never a zero that reads as a result.
func (d *Document) TablesCSV() (string, error) {
	var b strings.Builder
	cw := csv.NewWriter(&b)
	write := func(cells ...string) { cw.Write(CSVRow(cells)) }
	write("table", "group", "agent_label", "agent", "client", "provenance", "source", "n", "k", "value", "lo", "hi", "sim_sha256")
	for _, s := range d.Series {
		for _, m := range []struct {
			name string
			r    Rate
		}{{"joint", s.Summary.Joint}, {"task", s.Summary.Task}, {"compliance", s.Summary.Compliance}, {"probe", s.Summary.Probe}} {
			c := Cell{Value: m.r.Rate, Lo: m.r.Lo, Hi: m.r.Hi, K: m.r.K, N: m.r.N}
			write(append([]string{m.name, "all", s.Label, s.Agent, s.Client, s.Provenance, s.Source}, append(cellCSV(c, false), s.Summary.SimSHA256)...)...)
		}
	}
	byLabel := map[string]Series{}
	for _, s := range d.Series {
		byLabel[s.Label] = s
	}
	for _, f := range d.Figures {
		for si, label := range f.Series {
			s := byLabel[label]
			for gi, g := range f.Groups {
				write(append([]string{f.Name, g, s.Label, s.Agent, s.Client, s.Provenance, s.Source}, append(cellCSV(f.Cells[si][gi], f.Mean), s.Summary.SimSHA256)...)...)
			}
		}
	}
	cw.Flush()
	return b.String(), cw.Error()
}

// cellCSV returns a cell's n, k, value, lo and hi; k, value, lo and hi
// are empty without visits, and k is empty for a mean.
func cellCSV(c Cell, mean bool) []string {
	if c.N == 0 {
		return []string{"0", "", "", "", ""}
	}
	k := fmt.Sprint(c.K)
	if mean {
		k = ""
	}
	return []string{fmt.Sprint(c.N), k, f4(c.Value), f4(c.Lo), f4(c.Hi)}
}
