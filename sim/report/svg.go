package report

import (
	"fmt"
	"html"
	"strings"

	"github.com/normgym/normgym/sim"
)

var palette = []string{"#1b6ca8", "#d1495b", "#edae49", "#00798c", "#6a4c93", "#30638e", "#8d6a9f"}

// JointByConditionSVG draws grouped bars: joint success (with Wilson
// intervals) by condition, one bar per agent.
func JointByConditionSVG(sums []Summary) string {
	conds := sim.Conditions()
	return bars("Joint success by condition", conds, sums, func(s Summary, key string) (float64, float64, float64, bool) {
		b, ok := s.ByCondition[key]
		return b.Joint.Rate, b.Joint.Lo, b.Joint.Hi, ok
	}, 1)
}

// ViolationsByDaySVG draws grouped bars: mean violations per visit on
// each day, one bar per agent.
func ViolationsByDaySVG(sums []Summary) string {
	days := []string{"practice", "test"}
	top := 0.5
	for _, s := range sums {
		for _, v := range s.Violations {
			if v > top {
				top = v
			}
		}
	}
	return bars("Newcomer violations per visit, by day", days, sums, func(s Summary, key string) (float64, float64, float64, bool) {
		d := 0
		if key == "test" {
			d = 1
		}
		if d >= len(s.Violations) {
			return 0, 0, 0, false
		}
		v := s.Violations[d]
		return v, v, v, true
	}, top)
}

// FindingsSVG draws the seed's findings as grouped bars with Wilson
// intervals: test-day compliance after an own practice-day sanction, after
// witnessing only others' sanctions, after neither, and the share of
// own sanctions followed by another violation the same day.
func FindingsSVG(sums []Summary) string {
	keys := []string{"after own sanction", "after witnessing only", "after neither", "repeat after own"}
	return bars("Test-day compliance by what the practice day taught", keys, sums, func(s Summary, key string) (float64, float64, float64, bool) {
		var r Rate
		switch key {
		case keys[0]:
			r = s.Findings.AfterOwn
		case keys[1]:
			r = s.Findings.AfterWitnessOnly
		case keys[2]:
			r = s.Findings.AfterNeither
		default:
			r = s.Findings.RepeatAfterOwn
		}
		return r.Rate, r.Lo, r.Hi, r.N > 0
	}, 1)
}

func bars(title string, keys []string, sums []Summary, get func(Summary, string) (float64, float64, float64, bool), top float64) string {
	const (
		W, H          = 760, 360
		left, right   = 50, 150
		topM, bottomM = 40, 40
	)
	pw, ph := float64(W-left-right), float64(H-topM-bottomM)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<title>%s</title><rect width="100%%" height="100%%" fill="white"/>`+"\n", html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		y := float64(topM) + ph - ph*float64(i)/4
		fmt.Fprintf(&b, `<line x1="%d" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%.2f</text>`+"\n",
			left, float64(left)+pw, y, y, left-6, y+4, v)
	}
	gw := pw / float64(len(keys))
	bw := (gw - 16) / float64(max(1, len(sums)))
	for ki, k := range keys {
		gx := float64(left) + gw*float64(ki) + 8
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", gx+(gw-16)/2, H-bottomM+18, html.EscapeString(k))
		for si, s := range sums {
			v, lo, hi, ok := get(s, k)
			if !ok {
				continue
			}
			x := gx + bw*float64(si)
			h := ph * v / top
			y := float64(topM) + ph - h
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %.2f</title></rect>`+"\n",
				x, y, bw-2, h, palette[si%len(palette)], html.EscapeString(s.Agent), html.EscapeString(k), v)
			if hi > lo {
				cx := x + (bw-2)/2
				fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#222"/>`+"\n",
					cx, cx, float64(topM)+ph-ph*lo/top, float64(topM)+ph-ph*hi/top)
			}
		}
	}
	for si, s := range sums {
		y := topM + 10 + 18*si
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			W-right+14, y, palette[si%len(palette)], W-right+32, y+11, html.EscapeString(s.Agent))
	}
	b.WriteString("</svg>\n")
	return b.String()
}
