package report

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Palette holds the series' colours, in the order they are given: the
// Okabe–Ito colours (yellow left out: too faint on white), then Paul
// Tol's muted scheme, both chosen to stay apart under the common colour
// vision deficiencies. Sixteen series get sixteen colours; each also gets
// its own marker (Markers), so that the 17th differs from the 1st by its
// shape.
func Palette() []string {
	return []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
		"#882255", "#999933", "#332288", "#44AA99", "#AA4499", "#DDCC77", "#CC6677", "#117733", "#88CCEE"}
}

// Markers names the marker shapes, one per series in turn.
func Markers() []string {
	return []string{"circle", "square", "triangle", "diamond", "triangle-down", "plus", "star"}
}

// Style returns series i's colour and marker.
func Style(i int) (color, marker string) {
	p, m := Palette(), Markers()
	return p[i%len(p)], m[i%len(m)]
}

// Layout constants of a figure, in pixels.
const (
	fontPx   = 12.0
	titlePx  = 15.0
	lineGap  = 15.0
	margin   = 16.0
	minPlotH = 240.0
	legendH  = 20.0
)

// layout is where a figure's parts go.
type layout struct {
	W, H           float64
	caption        []string
	plotTop, plotH float64
	axisX          float64
	groupX, groupW []float64
	groupLines     [][]string
	slot           float64
	labelTop       float64
	legendTop      float64
	// legendAt holds each legend item's top left corner: the series in
	// order, then the "no visits" swatch when there is one.
	legendAt [][2]float64
	ticks    []float64
	top      float64
	decimals int
	missing  bool
	// logC is 0 for a linear y axis; otherwise the axis is logarithmic
	// in 1 + v/logC, so that 0 stays on it (a mean count may be 0).
	logC   float64
	yTitle string
}

// SVG draws the figure as a standalone SVG: a point (with its series'
// colour and marker) and its 95% interval for each series in each group,
// a hatched slot where a series has no visits in a group, axis titles,
// each group's n under it, and a legend. Nothing is cut: the canvas grows
// to hold its labels.
func (f Figure) SVG() string {
	l := f.layout()
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="%s" font-size="%.0f" data-figure="%s" role="img" aria-label="%s">`+"\n",
		l.W, l.H, l.W, l.H, fontFamily, fontPx, esc(f.Name), esc(f.Title))
	fmt.Fprintf(&b, "<title>%s</title>\n<desc>%s</desc>\n", esc(f.Title), esc(f.Caption))
	fmt.Fprintf(&b, `<defs><pattern id="hatch-%s" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/><line x1="0" y1="0" x2="0" y2="6" stroke="#aaa" stroke-width="2"/></pattern></defs>`+"\n", esc(f.Name))
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fff"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="%.0f" font-weight="bold">%s</text>`+"\n", margin, margin+titlePx-2, titlePx, esc(f.Title))
	for i, line := range l.caption {
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" fill="#444">%s</text>`+"\n", margin, margin+titlePx+6+lineGap*float64(i+1)-3, esc(line))
	}
	if !f.HasData() {
		f.drawEmpty(&b, l)
		b.WriteString("</svg>\n")
		return b.String()
	}
	f.drawAxes(&b, l)
	for si := range f.Series {
		f.drawSeries(&b, l, si)
	}
	f.drawGroupLabels(&b, l)
	f.drawLegend(&b, l)
	b.WriteString("</svg>\n")
	return b.String()
}

func esc(s string) string { return html.EscapeString(s) }

// layout sizes the figure: groups as wide as their points and labels
// need, a canvas as wide as the title needs, a plot as tall as the y
// title needs, and a legend in as many columns as fit.
func (f Figure) layout() layout {
	var l layout
	l.top, l.ticks, l.decimals = 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, 1
	l.yTitle = f.YTitle
	if f.Mean {
		l.top, l.ticks, l.decimals = niceTicks(f.maxHi())
		if lo := f.minPositive(); lo > 0 && f.maxHi()/lo > 20 {
			l.logC, l.top, l.ticks = logTicks(lo, f.maxHi())
			l.yTitle = strings.TrimSuffix(f.YTitle, ")") + ", log scale)"
		}
	}
	tickW := 0.0
	for _, t := range l.ticks {
		tickW = math.Max(tickW, textWidth(l.tickLabel(t), fontPx, false))
	}
	l.axisX = margin + lineGap + 8 + tickW + 6
	n := len(f.Series)
	l.slot = 22
	if n > 6 {
		l.slot = 15
	}
	plotW := 0.0
	for gi, g := range f.Groups {
		// Room for the points, the n, the longest word, and the whole
		// name unless it is long (then it wraps).
		w := math.Max(float64(n)*l.slot+16, 76)
		w = math.Max(w, textWidth(f.nLabel(gi), fontPx, false)+12)
		w = math.Max(w, math.Min(textWidth(g, fontPx, false), 170)+12)
		for _, word := range strings.Fields(g) {
			w = math.Max(w, textWidth(word, fontPx, false)+12)
		}
		l.groupW = append(l.groupW, w)
		plotW += w
	}
	need := math.Max(textWidth(f.Title, titlePx, true)+2*margin, 520)
	if !f.HasData() {
		need = math.Max(need, textWidth(cmp.Or(f.Empty, noData), fontPx, false)+2*margin+24)
	}
	l.W = math.Ceil(math.Max(l.axisX+plotW+margin, need))
	if extra := l.W - (l.axisX + plotW + margin); extra > 0 && plotW > 0 {
		for gi := range l.groupW {
			l.groupW[gi] += extra * l.groupW[gi] / plotW
		}
	}
	x := l.axisX
	for gi, w := range l.groupW {
		l.groupX = append(l.groupX, x)
		l.groupLines = append(l.groupLines, wrap(f.Groups[gi], fontPx, w-12))
		x += w
	}
	l.caption = wrap(f.Caption, fontPx, l.W-2*margin)
	l.plotTop = margin + titlePx + 6 + lineGap*float64(len(l.caption)) + 22
	l.plotH = math.Max(minPlotH, textWidth(l.yTitle, fontPx, false)+24)
	maxLines := 1
	for _, ls := range l.groupLines {
		maxLines = max(maxLines, len(ls))
	}
	l.labelTop = l.plotTop + l.plotH + 22
	xTitleY := l.labelTop + lineGap*float64(maxLines+1) + 8
	l.legendTop = xTitleY + 14
	l.missing = f.hasMissing()
	items := append([]string(nil), f.Series...)
	if l.missing {
		items = append(items, "no visits")
	}
	x, y := margin, l.legendTop
	for _, s := range items {
		w := 22 + textWidth(s, fontPx, false) + 20
		if x > margin && x+w > l.W-margin {
			x, y = margin, y+legendH
		}
		l.legendAt = append(l.legendAt, [2]float64{x, y})
		x += w
	}
	l.H = math.Ceil(y + legendH + 8)
	if !f.HasData() {
		l.H = math.Ceil(l.plotTop + 90)
	}
	return l
}

// niceTicks returns ticks from 0 in steps of 1, 2, 2.5 or 5 times a
// power of ten, about five of them, the last at or above hi.
func niceTicks(hi float64) (top float64, ticks []float64, decimals int) {
	if hi <= 0 || math.IsNaN(hi) {
		hi = 1
	}
	raw := hi / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw-1e-12 {
			step = m * mag
			break
		}
	}
	n := int(math.Ceil(hi/step - 1e-9))
	for i := 0; i <= n; i++ {
		ticks = append(ticks, math.Round(float64(i)*step/mag*10)/10*mag)
	}
	decimals = max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	if s := strconv.FormatFloat(step, 'f', -1, 64); strings.Contains(s, ".") {
		decimals = max(decimals, len(s)-strings.Index(s, ".")-1)
	}
	return ticks[len(ticks)-1], ticks, decimals
}

// logTicks returns a logarithmic axis for values from lo (> 0) to hi:
// its constant c (a power of ten at or below lo, from 0.01 to 1), its
// top, and ticks at 0 and 1, 2 and 5 times the powers of ten from c (1
// alone over more than three decades) up to the first at or above hi.
func logTicks(lo, hi float64) (c, top float64, ticks []float64) {
	e0 := min(0, max(-2, int(math.Floor(math.Log10(lo)))))
	c = math.Pow10(e0)
	mults := []float64{1, 2, 5}
	if hi/c > 1000 {
		mults = []float64{1}
	}
	ticks = []float64{0}
	for e := e0; ; e++ {
		for _, m := range mults {
			v := m * math.Pow10(e)
			ticks = append(ticks, v)
			if v >= hi {
				return c, v, ticks
			}
		}
	}
}

func (l layout) tickLabel(v float64) string {
	if l.logC > 0 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', l.decimals, 64)
}

// y maps a value to its height on the canvas.
func (l layout) y(v float64) float64 {
	v = math.Min(math.Max(v, 0), l.top)
	frac := v / l.top
	if l.logC > 0 {
		frac = math.Log10(1+v/l.logC) / math.Log10(1+l.top/l.logC)
	}
	return l.plotTop + l.plotH - l.plotH*frac
}

// minPositive returns the smallest positive value of a cell, or 0.
func (f Figure) minPositive() float64 {
	lo := 0.0
	for _, row := range f.Cells {
		for _, c := range row {
			if c.N > 0 && c.Value > 0 && (lo == 0 || c.Value < lo) {
				lo = c.Value
			}
		}
	}
	return lo
}

func (f Figure) maxHi() float64 {
	hi := 0.0
	for _, row := range f.Cells {
		for _, c := range row {
			if c.N > 0 {
				hi = math.Max(hi, c.Hi)
			}
		}
	}
	return hi
}

func (f Figure) hasMissing() bool {
	for _, row := range f.Cells {
		for _, c := range row {
			if c.N == 0 {
				return true
			}
		}
	}
	return false
}

// nLabel says how many visits each point of group gi is over: "n = 152",
// or the range "n = 12–152" when the series differ.
func (f Figure) nLabel(gi int) string {
	lo, hi := -1, -1
	for _, row := range f.Cells {
		if n := row[gi].N; n > 0 {
			if lo < 0 || n < lo {
				lo = n
			}
			hi = max(hi, n)
		}
	}
	switch {
	case lo < 0:
		return "no visits"
	case lo == hi:
		return fmt.Sprintf("n = %d", lo)
	}
	return fmt.Sprintf("n = %d–%d", lo, hi)
}
