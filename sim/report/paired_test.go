package report_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

// TestPairedInterval checks Newcombe's method 10 against values worked
// out by hand. The small case, both = 3, A only = 4, B only = 1,
// neither = 2 (n = 10):
//
//	p1 = 7/10 = 0.7, Wilson [0.39678, 0.89221]; p2 = 4/10 = 0.4, Wilson [0.16818, 0.68733]
//	both·neither − Aonly·Bonly = 6 − 4 = 2 > 0, less n/2 = 5: max(−3, 0) = 0, so φ = 0
//	lo = 0.3 − √(0.30322² + 0.28733²) = 0.3 − 0.41773 = −0.11773
//	hi = 0.3 + √(0.19221² + 0.23182²) = 0.3 + 0.30114 =  0.60114
//
// The other cases are the paired tables of Newcombe's (1998) examples,
// where φ is not 0.
func TestPairedInterval(t *testing.T) {
	tests := []struct {
		name                      string
		both, aOnly, bOnly, neith int
		d, lo, hi                 float64
	}{
		{"hand-computed, phi 0", 3, 4, 1, 2, 0.3, -0.11773, 0.60114},
		{"A ahead, phi 0", 5, 6, 0, 1, 0.5, 0.12211, 0.73366},
		{"negative phi", 36, 12, 2, 0, 0.2, 0.05693, 0.34043},
		{"positive phi", 18, 12, 2, 18, 0.2, 0.05617, 0.32898},
		{"all concordant, phi 19/24", 4, 0, 0, 6, 0, -0.17560, 0.17560},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, lo, hi := report.PairedInterval(tt.both, tt.aOnly, tt.bOnly, tt.neith)
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"difference", d, tt.d}, {"lo", lo, tt.lo}, {"hi", hi, tt.hi}} {
				if math.Abs(c.got-c.want) > 5e-5 {
					t.Errorf("PairedInterval(%d, %d, %d, %d) %s = %.5f, want %.5f", tt.both, tt.aOnly, tt.bOnly, tt.neith, c.what, c.got, c.want)
				}
			}
		})
	}
}

// TestMcNemarExact: p = min(1, 2·P(X ≤ min(b, c))), X ~ Bin(b + c, ½),
// by hand: (4, 1): 2·(1 + 5)/32 = 0.375; (6, 0): 2/64; (12, 2):
// 2·(1 + 14 + 91)/16384 = 0.012939453125.
func TestMcNemarExact(t *testing.T) {
	tests := []struct {
		b, c int
		want float64
	}{{4, 1, 0.375}, {1, 4, 0.375}, {6, 0, 0.03125}, {12, 2, 0.012939453125}, {0, 0, 1}, {5, 5, 1}, {0, 1, 1}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d-%d", tt.b, tt.c), func(t *testing.T) {
			if got := report.McNemarExact(tt.b, tt.c); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("McNemarExact(%d, %d) = %v, want %v", tt.b, tt.c, got, tt.want)
			}
		})
	}
}

// pairedSeries builds two series over the same visits from a paired
// table: both, A only, B only and neither, in that order, under one
// condition and family.
func pairedSeries(cond, norm string, both, aOnly, bOnly, neither int) (a, b []sim.Record) {
	i := 0
	add := func(n int, ja, jb bool) {
		for ; n > 0; n-- {
			v := fmt.Sprintf("park/%s/%s/s%d", norm, cond, i)
			i++
			fam, _, _, _ := norms.ParseID(norm)
			a = append(a, sim.Record{Visit: v, Agent: "A", Client: "model", Condition: cond, Norm: norm, Family: fam, Scores: sim.Scores{Joint: ja}})
			b = append(b, sim.Record{Visit: v, Agent: "B", Client: "model", Condition: cond, Norm: norm, Family: fam, Scores: sim.Scores{Joint: jb}})
		}
	}
	add(both, true, true)
	add(aOnly, true, false)
	add(bOnly, false, true)
	add(neither, false, false)
	return a, b
}

func TestCompare(t *testing.T) {
	a1, b1 := pairedSeries(sim.Observe, "place.color=red", 5, 6, 0, 1)
	a2, b2 := pairedSeries(sim.Solo, "place.terrain=grass", 3, 1, 4, 2)
	for i := range a2 { // distinct visit ids from the first set
		a2[i].Visit += "0"
		b2[i].Visit += "0"
	}
	a := append(a1, a2...)
	b := append(b1, b2...)
	// One visit only A played, one only B, and a repeat of A's first.
	a = append(a, sim.Record{Visit: "park/place.color=red/observe/s999", Agent: "A", Condition: sim.Observe}, a[0])
	b = append(b, sim.Record{Visit: "park/place.color=red/observe/s998", Agent: "B", Condition: sim.Observe})
	c := report.Compare(report.Series{Label: "A", Records: a}, report.Series{Label: "B", Records: b}, norms.Default())
	if c.OnlyA != 1 || c.OnlyB != 1 || c.RepeatsA != 1 || c.RepeatsB != 0 {
		t.Errorf("only A %d, only B %d, repeats %d/%d; want 1, 1, 1/0", c.OnlyA, c.OnlyB, c.RepeatsA, c.RepeatsB)
	}
	if got, want := [4]int{c.All.Both, c.All.AOnly, c.All.BOnly, c.All.Neither}, [4]int{8, 7, 4, 3}; got != want {
		t.Errorf("all: counts %v, want %v", got, want)
	}
	if len(c.ByCondition) != 2 || c.ByCondition[0].Group != sim.Observe || c.ByCondition[1].Group != sim.Solo {
		t.Fatalf("by condition %+v, want observe then solo", c.ByCondition)
	}
	obs := c.ByCondition[0]
	if obs.N != 12 || obs.Diff != 0.5 || obs.Lo != 0.1221 || obs.Hi != 0.7337 || math.Abs(obs.P-0.03125) > 1e-12 {
		t.Errorf("observe: %+v, want n 12, 0.5 [0.1221, 0.7337], p 0.03125", obs)
	}
	tests := []struct {
		name string
		p    report.Paired
		want string
	}{
		{"A ahead", obs, "A beats B on observe by 0.50 [0.12, 0.73] (n = 12 paired visits; 6 won by A alone, 0 by B alone; exact McNemar p = 0.031)."},
		{"no difference", c.ByCondition[1], "No difference detected between A and B on solo: A − B = -0.30 [-0.60, +0.12] (n = 10 paired visits; 1 won by A alone, 4 by B alone; exact McNemar p = 0.375)."},
		{"B ahead", report.NewPaired("x", "on x", 0, 0, 9, 1), "B beats A on x by 0.90 ["},
		{"nothing shared", report.NewPaired("x", "on x", 0, 0, 0, 0), "A and B share no visits on x."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Sentence(tt.p); !strings.HasPrefix(got, tt.want) {
				t.Errorf("sentence\n %q\nwant it to start\n %q", got, tt.want)
			}
		})
	}
	if len(c.ByFamily) != 1 || c.ByFamily[0].Group != "place" || len(c.ByTag) != 2 {
		t.Errorf("by family %+v, by tag %+v; want place, and two tags", c.ByFamily, c.ByTag)
	}
	md := c.Markdown()
	for _, want := range []string{"# A vs B", "| observe | 12 | 5 | 6 | 0 | 1 |", "Left out: 1 visits only A played, 1 only B played.", "(1 later records of A, 0 of B left out)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
