package report_test

import (
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

// visit returns a record of agent on a visit id, scored joint or not,
// with v practice-day violations and an own practice-day sanction when
// sanctioned.
func visit(agent, id string, joint bool, v int, sanctioned bool) sim.Record {
	parts := strings.Split(id, "/")
	cond, variant, _ := strings.Cut(parts[2], "+")
	world, _, _ := strings.Cut(parts[0], ">")
	fam, _, _, _ := norms.ParseID(parts[1])
	if cond == sim.Control {
		fam = ""
	}
	s := sim.Scores{Joint: joint, Compliance: joint, Task: true, Violations: []int{v, 0}, Sanctions: []int{0, 0}, DayRepeats: []int{0, 0}}
	if sanctioned {
		s.Sanctions[0], s.DayRepeats[0] = 1, 1
	}
	return sim.Record{Visit: id, World: world, Norm: parts[1], Family: fam, Condition: cond, Variant: variant, Agent: agent, Client: "baseline", Scores: s}
}

func figure(t *testing.T, figs []report.Figure, name string) report.Figure {
	t.Helper()
	for _, f := range figs {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no figure %q", name)
	return report.Figure{}
}

func TestFigures(t *testing.T) {
	x := report.Series{Label: "x", Records: []sim.Record{
		visit("x", "park/place.color=red/observe/s1", true, 2, true),       // counterintuitive
		visit("x", "park/place.terrain=grass/observe/s2", false, 4, false), // commonsense
		visit("x", "park/place.color=red/observe+noisy/s3", true, 0, false),
		visit("x", "park>market/place.color=red/observe/s4", false, 0, false),
	}}
	y := report.Series{Label: "y", Records: []sim.Record{visit("y", "park/place.color=red/solo/s5", true, 0, true)}}
	figs := report.Figures([]report.Series{x, y}, norms.Default())
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
	}
	if got, want := strings.Join(names, " "), "joint-by-condition findings repeats joint-by-family commonsense transfer hard violations-by-day"; got != want {
		t.Fatalf("figures %q, want %q", got, want)
	}
	tests := []struct {
		figure string
		groups []string
		// cells: "k/n" per series and group, "-" for none.
		cells [][]string
	}{
		{"joint-by-condition", []string{"observe", "solo"}, [][]string{{"1/2", "-"}, {"-", "1/1"}}},
		{"findings", []string{report.LearnOwn, report.LearnWitness, report.LearnNeither}, [][]string{{"1/1", "-", "0/1"}, {"1/1", "-", "-"}}},
		{"repeats", []string{"all conditions", "observe", "solo"}, [][]string{{"1/1", "1/1", "-"}, {"1/1", "-", "1/1"}}},
		{"joint-by-family", []string{"place"}, [][]string{{"1/2"}, {"1/1"}}},
		{"commonsense", []string{"commonsense", "counterintuitive"}, [][]string{{"0/1", "1/1"}, {"-", "1/1"}}},
		{"transfer", []string{"observe · same world", "observe · new world"}, [][]string{{"1/2", "0/1"}, {"-", "-"}}},
		{"hard", []string{"observe", "observe+noisy"}, [][]string{{"1/2", "1/1"}, {"-", "-"}}},
	}
	for _, tt := range tests {
		t.Run(tt.figure, func(t *testing.T) {
			f := figure(t, figs, tt.figure)
			if !slices.Equal(f.Groups, tt.groups) {
				t.Fatalf("groups %q, want %q", f.Groups, tt.groups)
			}
			for si := range tt.cells {
				for gi, want := range tt.cells[si] {
					c := f.Cells[si][gi]
					got := fmt.Sprintf("%d/%d", c.K, c.N)
					if c.N == 0 {
						got = "-"
					}
					if got != want {
						t.Errorf("%s in %s: %s, want %s", f.Series[si], f.Groups[gi], got, want)
					}
				}
			}
		})
	}
	v := figure(t, figs, "violations-by-day")
	if c := v.Cells[0][0]; c.N != 2 || c.Value != 3 || c.Lo != 1.04 || c.Hi != 4.96 {
		// 2 and 4: standard deviation √2, standard error 1, ± 1.96.
		t.Errorf("x's practice-day violations %+v, want mean 3 of 2 visits, [1.04, 4.96]", c)
	}
	empty := report.Figures([]report.Series{y}, norms.Default())
	if f := figure(t, empty, "transfer"); f.HasData() || !strings.Contains(f.Empty, "--suite transfer") || !strings.Contains(f.SVG(), "--suite transfer") {
		t.Errorf("transfer without transfer visits: data %v, message %q; want none, naming the suite to run", f.HasData(), f.Empty)
	}
}

// wellFormed fails unless svg parses as XML.
func wellFormed(t *testing.T, svg string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
	}
}

func TestSVGSixteenSeries(t *testing.T) {
	var ss []report.Series
	for i := range 16 {
		name := fmt.Sprintf("agent-%d <with a long & odd name>", i)
		recs := []sim.Record{visit(name, "park/place.color=red/observe/s1", i%2 == 0, i, true)}
		if i != 3 { // agent 3 never played solo: a missing cell
			recs = append(recs, visit(name, "park/place.color=red/solo/s2", true, 0, false))
		}
		ss = append(ss, report.Series{Label: name, Records: recs})
	}
	f := figure(t, report.Figures(ss, norms.Default()), "joint-by-condition")
	svg := f.SVG()
	wellFormed(t, svg)
	colors := regexp.MustCompile(`class="legend-item" data-agent="[^"]*" data-color="(#[0-9A-Fa-f]{6})"`).FindAllStringSubmatch(svg, -1)
	seen := map[string]bool{}
	for _, c := range colors {
		seen[strings.ToLower(c[1])] = true
	}
	if len(colors) != 16 || len(seen) != 16 {
		t.Errorf("%d legend items with %d distinct colours, want 16 and 16", len(colors), len(seen))
	}
	for _, want := range []string{`class="missing"`, "no visits", ">n = 1<", "joint success (share of visits)", ">condition<",
		"agent-3 &lt;with a long &amp; odd name&gt;, solo: no visits", `data-shape="star"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
		t.Errorf("SVG holds NaN or Inf")
	}
}

func TestAxes(t *testing.T) {
	for _, tt := range []struct {
		hi    float64
		top   float64
		ticks int
	}{{0.9, 1, 6}, {13.2, 15, 4}, {45.17, 50, 6}, {0.07, 0.08, 5}, {0, 1, 6}} {
		top, ticks, _ := report.NiceTicks(tt.hi)
		if top != tt.top || len(ticks) != tt.ticks {
			t.Errorf("NiceTicks(%v) = top %v, %v; want top %v and %d ticks", tt.hi, top, ticks, tt.top, tt.ticks)
		}
	}
	c, top, ticks := report.LogTicks(0.06, 13.2)
	if c != 0.01 || top != 100 || !slices.Equal(ticks, []float64{0, 0.01, 0.1, 1, 10, 100}) {
		t.Errorf("LogTicks(0.06, 13.2) = %v, %v, %v; want 0.01, 100 and decades", c, top, ticks)
	}
	c, top, ticks = report.LogTicks(0.3, 13.2)
	if c != 0.1 || top != 20 || !slices.Equal(ticks, []float64{0, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20}) {
		t.Errorf("LogTicks(0.3, 13.2) = %v, %v, %v; want 0.1, 20 and 1-2-5 steps", c, top, ticks)
	}
	// Violations from 0.06 to 13 a visit: the axis is logarithmic and says so.
	f := report.Figure{Name: "v", Title: "t", YTitle: "violations per visit (mean)", Mean: true, Groups: []string{"d"}, Series: []string{"a", "b"},
		Cells: [][]report.Cell{{{Value: 13, Lo: 12, Hi: 13.2, N: 9}}, {{Value: 0.06, Lo: 0, Hi: 0.1, N: 9}}}}
	if svg := f.SVG(); !strings.Contains(svg, "violations per visit (mean, log scale)") {
		t.Errorf("a count axis over 200-fold is not logarithmic")
	}
}

func TestTextWidthIsNeverNarrow(t *testing.T) {
	// Widths Chromium measured for DejaVu Sans at 12 px: the estimate
	// must not fall below them, nor be more than a sixth wider.
	for _, tt := range []struct {
		s  string
		px float64
	}{
		{"abcdefghijklmnopqrstuvwxyz", 175.8}, {"ABCDEFGHIJKLMNOPQRSTUVWXYZ", 209.7}, {"0123456789", 76.4},
		{"Test-day task done with no violation; visits without a sanction variant, test day in the practice day's world.", 639.2},
		{"joint success (share of visits)", 173.7}, {"ritual-onething · server-stepped", 190.6},
	} {
		if got := report.TextWidth(tt.s, 12, false); got < tt.px || got > tt.px*7/6 {
			t.Errorf("TextWidth(%q) = %.1f, want %.1f to %.1f", tt.s, got, tt.px, tt.px*7/6)
		}
	}
}

// TestFiguresTakeUnknownFamilies: a norm the catalog does not hold (a
// newer catalog's) is drawn under its own family, after the catalog's,
// and as untagged: nothing is hard-coded.
func TestFiguresTakeUnknownFamilies(t *testing.T) {
	known := visit("a", "park/place.color=red/observe/s1", true, 0, false)
	unknown := known
	unknown.Visit, unknown.Norm, unknown.Family = "park/crowd.size=3/observe/s2", "crowd.size=3", "crowd"
	figs := report.Figures([]report.Series{{Label: "a", Records: []sim.Record{known, unknown}}}, norms.Default())
	if got := figure(t, figs, "joint-by-family").Groups; !slices.Equal(got, []string{"place", "crowd"}) {
		t.Errorf("families %q, want place then crowd", got)
	}
	if got := figure(t, figs, "commonsense").Groups; !slices.Equal(got, []string{"commonsense", "counterintuitive", "untagged"}) {
		t.Errorf("tags %q, want commonsense, counterintuitive, untagged", got)
	}
}
