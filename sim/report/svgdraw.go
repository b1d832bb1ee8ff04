package report

import (
	"cmp"
	"fmt"
	"math"
	"strings"
)

// drawAxes draws the group bands, the grid with its tick labels and the
// y axis's title.
func (f Figure) drawAxes(b *strings.Builder, l layout) {
	bottom := l.plotTop + l.plotH
	for gi := range f.Groups {
		if gi%2 == 1 {
			fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#f3f3f3"/>`+"\n", l.groupX[gi], l.plotTop, l.groupW[gi], l.plotH)
		}
	}
	right := l.groupX[len(l.groupX)-1] + l.groupW[len(l.groupW)-1]
	for _, t := range l.ticks {
		y := l.y(t)
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#d0d0d0"/>`, l.axisX, right, y, y)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", l.axisX-6, y+4, l.tickLabel(t))
	}
	fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#333"/>`, l.axisX, l.axisX, l.plotTop, bottom)
	fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#333"/>`+"\n", l.axisX, right, bottom, bottom)
	cy := l.plotTop + l.plotH/2
	fmt.Fprintf(b, `<text transform="translate(%.1f %.1f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", margin+fontPx-2, cy, esc(l.yTitle))
}

// slotX returns the centre of series si's slot in group gi.
func (f Figure) slotX(l layout, gi, si int) float64 {
	inner := float64(len(f.Series)) * l.slot
	return l.groupX[gi] + (l.groupW[gi]-inner)/2 + l.slot*(float64(si)+0.5)
}

// drawSeries draws one series: in each group its interval and point, or
// a hatched slot where it has no visits.
func (f Figure) drawSeries(b *strings.Builder, l layout, si int) {
	color, shape := Style(si)
	fmt.Fprintf(b, `<g class="series" data-agent="%s" data-color="%s">`+"\n", esc(f.Series[si]), color)
	for gi, g := range f.Groups {
		c := f.Cells[si][gi]
		x := f.slotX(l, gi, si)
		if c.N == 0 {
			fmt.Fprintf(b, `<rect class="missing" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="url(#hatch-%s)"><title>%s, %s: no visits</title></rect>`+"\n",
				x-l.slot/2+1.5, l.plotTop, l.slot-3, l.plotH, esc(f.Name), esc(f.Series[si]), esc(g))
			continue
		}
		tip := fmt.Sprintf("%s, %s: %s [%s, %s], n = %d", f.Series[si], g, f.num(c.Value), f.num(c.Lo), f.num(c.Hi), c.N)
		fmt.Fprintf(b, `<g class="point"><title>%s</title>`, esc(tip))
		ylo, yhi := l.y(c.Lo), l.y(c.Hi)
		fmt.Fprintf(b, `<path d="M%.1f %.1fV%.1fM%.1f %.1fh7M%.1f %.1fh7" stroke="%s" stroke-width="1.6" fill="none"/>`,
			x, ylo, yhi, x-3.5, ylo, x-3.5, yhi, color)
		b.WriteString(marker(shape, x, l.y(c.Value), color))
		b.WriteString("</g>\n")
	}
	b.WriteString("</g>\n")
}

// num formats a cell's value: two decimals.
func (f Figure) num(v float64) string { return fmt.Sprintf("%.2f", v) }

// marker returns the SVG of a marker of the named shape centred on x, y.
func marker(shape string, x, y float64, color string) string {
	const r = 4.6
	style := fmt.Sprintf(`fill="%s" stroke="#222" stroke-width="0.7"`, color)
	poly := func(pts ...[2]float64) string {
		var p strings.Builder
		for i, q := range pts {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&p, "%s%.1f %.1f", cmd, x+q[0], y+q[1])
		}
		return fmt.Sprintf(`<path class="marker" data-shape="%s" d="%sZ" %s/>`, shape, p.String(), style)
	}
	switch shape {
	case "square":
		return poly([2]float64{-r * .85, -r * .85}, [2]float64{r * .85, -r * .85}, [2]float64{r * .85, r * .85}, [2]float64{-r * .85, r * .85})
	case "triangle":
		return poly([2]float64{0, -r * 1.15}, [2]float64{r, r * .75}, [2]float64{-r, r * .75})
	case "triangle-down":
		return poly([2]float64{0, r * 1.15}, [2]float64{r, -r * .75}, [2]float64{-r, -r * .75})
	case "diamond":
		return poly([2]float64{0, -r * 1.2}, [2]float64{r, 0}, [2]float64{0, r * 1.2}, [2]float64{-r, 0})
	case "plus":
		a, c := r*.4, r*1.1
		return poly([2]float64{-a, -c}, [2]float64{a, -c}, [2]float64{a, -a}, [2]float64{c, -a}, [2]float64{c, a}, [2]float64{a, a},
			[2]float64{a, c}, [2]float64{-a, c}, [2]float64{-a, a}, [2]float64{-c, a}, [2]float64{-c, -a}, [2]float64{-a, -a})
	case "star":
		var pts [][2]float64
		for i := 0; i < 10; i++ {
			rad := r * 1.3
			if i%2 == 1 {
				rad = r * .55
			}
			a := -math.Pi/2 + float64(i)*math.Pi/5
			pts = append(pts, [2]float64{rad * math.Cos(a), rad * math.Sin(a)})
		}
		return poly(pts...)
	}
	return fmt.Sprintf(`<circle class="marker" data-shape="circle" cx="%.1f" cy="%.1f" r="%.1f" %s/>`, x, y, r, style)
}

// drawGroupLabels writes each group's name (wrapped) and n under the
// plot, then the x axis's title.
func (f Figure) drawGroupLabels(b *strings.Builder, l layout) {
	maxLines := 1
	for gi, lines := range l.groupLines {
		cx := l.groupX[gi] + l.groupW[gi]/2
		for i, line := range lines {
			fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", cx, l.labelTop+lineGap*float64(i), esc(line))
		}
		maxLines = max(maxLines, len(lines))
	}
	for gi := range f.Groups {
		cx := l.groupX[gi] + l.groupW[gi]/2
		fmt.Fprintf(b, `<text class="n" x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%s</text>`+"\n", cx, l.labelTop+lineGap*float64(maxLines), esc(f.nLabel(gi)))
	}
	right := l.groupX[len(l.groupX)-1] + l.groupW[len(l.groupW)-1]
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-weight="bold">%s</text>`+"\n",
		(l.axisX+right)/2, l.labelTop+lineGap*float64(maxLines+1)+8, esc(f.XTitle))
}

// drawLegend writes each series' marker and label, and the hatched
// swatch of "no visits" when some cell has none, in rows that wrap.
func (f Figure) drawLegend(b *strings.Builder, l layout) {
	b.WriteString(`<g class="legend">` + "\n")
	at := func(i int) (float64, float64) { return l.legendAt[i][0], l.legendAt[i][1] }
	for si, s := range f.Series {
		color, shape := Style(si)
		x, y := at(si)
		fmt.Fprintf(b, `<g class="legend-item" data-agent="%s" data-color="%s" data-x="%.1f" data-y="%.1f">`, esc(s), color, x+8, y+6)
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.6"/>`, x+8, x+8, y-2, y+14, color)
		b.WriteString(marker(shape, x+8, y+6, color))
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f">%s</text></g>`+"\n", x+22, y+10, esc(s))
	}
	if l.missing {
		x, y := at(len(f.Series))
		fmt.Fprintf(b, `<g class="legend-missing"><rect x="%.1f" y="%.1f" width="12" height="14" fill="url(#hatch-%s)" stroke="#aaa"/><text x="%.1f" y="%.1f">no visits</text></g>`+"\n",
			x+2, y-1, esc(f.Name), x+22, y+10)
	}
	b.WriteString("</g>\n")
}

// noData is the message of a figure without data that names none.
const noData = "No visits of this kind in these records."

// drawEmpty writes a figure without data: its message in a framed box.
func (f Figure) drawEmpty(b *strings.Builder, l layout) {
	fmt.Fprintf(b, `<rect x="%.0f" y="%.1f" width="%.0f" height="50" fill="#f6f6f6" stroke="#ccc"/>`+"\n", margin, l.plotTop, l.W-2*margin)
	fmt.Fprintf(b, `<text class="empty" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", l.W/2, l.plotTop+29, esc(cmp.Or(f.Empty, noData)))
}
