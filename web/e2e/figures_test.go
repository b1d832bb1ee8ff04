//go:build !js

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/report"
	"github.com/normgym/normgym/web/internal/browser"
	"github.com/normgym/normgym/web/internal/site"
)

// figureRuns plays every baseline natively over the mini suite and the
// first visits of transfer and hard, and adds four series of other
// provenances (two models, a person, a self-reported model with a long
// name): 16 series, enough to need every colour of the palette.
// figureOthers are the series figureRuns adds beside the baselines: models
// and people of an export, each playing like a baseline.
var figureOthers = []struct{ like, agent, client, prov string }{
	{"observer", "acme/norm-reader-70b-instruct-2026-01", "model", api.ProvenanceStepped},
	{"self", "human", "human", api.ProvenanceStepped},
	{"greedy", "tiny-model", "model", api.ProvenanceSelfReported},
	{"random", "human", "human", api.ProvenanceSelfReported},
}

func figureRuns(t *testing.T) []report.Run {
	t.Helper()
	var visits []string
	for _, name := range []string{"mini", "transfer", "hard"} {
		su, err := sim.LookupSuite(name)
		if err != nil {
			t.Fatal(err)
		}
		n := len(su.Visits)
		if name != "mini" {
			n = 12
		}
		visits = append(visits, su.Visits[:n]...)
	}
	var runs []report.Run
	byAgent := map[string][]sim.Record{}
	for _, a := range agents.Names() {
		for _, v := range visits {
			env, err := agents.Play(v, a)
			if err != nil {
				t.Fatal(err)
			}
			r := env.Record(a, "baseline")
			byAgent[a] = append(byAgent[a], r)
			runs = append(runs, report.Run{Record: r, Provenance: report.ProvenanceFile, Source: "baselines.jsonl"})
		}
	}
	for _, o := range figureOthers {
		for _, r := range byAgent[o.like] {
			r.Agent, r.Client = o.agent, o.client
			runs = append(runs, report.Run{Record: r, Provenance: o.prov, Source: "export.jsonl"})
		}
	}
	return runs
}

// svgLayout is what the page reports of a drawn figure: its size, every
// text's box, and each legend item's colour and marker centre.
type svgLayout struct {
	W, H  float64
	Texts []struct {
		Text           string
		X0, Y0, X1, Y1 float64
	}
	Legend []struct {
		Agent, Color string
		X, Y         float64
	}
}

const layoutJS = `(() => {
  const svg = document.documentElement;
  const out = {W: +svg.getAttribute("width"), H: +svg.getAttribute("height"), Texts: [], Legend: []};
  for (const t of document.querySelectorAll("text")) {
    const r = t.getBoundingClientRect();
    out.Texts.push({Text: t.textContent, X0: r.left, Y0: r.top, X1: r.right, Y1: r.bottom});
  }
  for (const g of document.querySelectorAll(".legend-item")) {
    out.Legend.push({Agent: g.dataset.agent, Color: g.dataset.color, X: +g.dataset.x, Y: +g.dataset.y});
  }
  return JSON.stringify(out);
})()`

// TestFigures draws every figure of two reports in Chromium — the
// default one and one with every series (--agents all) — and checks
// what a reviewer would: no text leaves the canvas or overlaps another
// text, and every series' colour is its own, as rendered on screen.
// The screenshots go to build/test-artifacts/report/.
func TestFigures(t *testing.T) {
	needChromium(t)
	root, err := site.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "build", "test-artifacts", "report")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	runs := figureRuns(t)
	ctx, cancel, err := browser.Start(context.Background(), browser.Options{UserDataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	srv := browser.Serve(dir)
	defer srv.Close()
	for _, variant := range []struct {
		name   string
		agents []string
		series int
	}{
		{"default", nil, len(agents.Names()) - len(agents.RitualNames()) + len(figureOthers)},
		{"all", []string{"all"}, len(agents.Names()) + len(figureOthers)},
	} {
		doc, err := report.NewDocument(runs, nil, report.Options{Catalog: norms.Default(), Rituals: agents.RitualNames(), Agents: variant.agents})
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Drawn) != variant.series {
			t.Fatalf("%s: %d series drawn, want %d", variant.name, len(doc.Drawn), variant.series)
		}
		for _, f := range doc.Figures {
			t.Run(variant.name+"/"+f.Name, func(t *testing.T) {
				name := variant.name + "-" + f.Name
				if err := os.WriteFile(filepath.Join(dir, name+".svg"), []byte(f.SVG()), 0o644); err != nil {
					t.Fatal(err)
				}
				l, shot := drawFigure(t, ctx, srv.URL+"/"+name+".svg")
				if err := os.WriteFile(filepath.Join(dir, name+".png"), shot, 0o644); err != nil {
					t.Fatal(err)
				}
				checkTexts(t, l)
				if f.HasData() {
					checkColours(t, l, shot, len(f.Series))
				}
			})
		}
	}
}

// drawFigure opens the SVG at url in a viewport of its size and returns
// its layout and a screenshot.
func drawFigure(t *testing.T, ctx context.Context, url string) (svgLayout, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	var l svgLayout
	js, err := chromedp.Run(ctx, chromedp.Evaluate[string](layoutJS))
	if err == nil {
		err = json.Unmarshal([]byte(js), &l)
	}
	if err != nil {
		t.Fatalf("layout: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(l.W), int64(l.H))); err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	return l, shot
}

// checkTexts fails for a text outside the canvas or overlapping another.
func checkTexts(t *testing.T, l svgLayout) {
	t.Helper()
	const slack = 0.5
	for i, a := range l.Texts {
		if a.X0 < -slack || a.Y0 < -slack || a.X1 > l.W+slack || a.Y1 > l.H+slack {
			t.Errorf("%q ([%.1f, %.1f]–[%.1f, %.1f]) leaves the %gx%g canvas", a.Text, a.X0, a.Y0, a.X1, a.Y1, l.W, l.H)
		}
		for _, b := range l.Texts[i+1:] {
			w := math.Min(a.X1, b.X1) - math.Max(a.X0, b.X0)
			h := math.Min(a.Y1, b.Y1) - math.Max(a.Y0, b.Y0)
			if w > 1 && h > 1 {
				t.Errorf("%q overlaps %q by %.1f×%.1f px", a.Text, b.Text, w, h)
			}
		}
	}
}

// checkColours fails unless the legend names every series, each with a
// colour of its own, and the screenshot shows that colour at the centre
// of its marker, far enough from every other series' to tell apart. The
// palette has len(report.Palette()) colours: beyond them a series shares
// its colour with one that has another marker (report.Style), and only
// that pair may look alike.
func checkColours(t *testing.T, l svgLayout, shot []byte, series int) {
	t.Helper()
	if len(l.Legend) != series {
		t.Fatalf("legend has %d items, want %d", len(l.Legend), series)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	var seen [][3]float64
	for _, it := range l.Legend {
		want := hexRGB(t, it.Color)
		got := pixel(img, it.X, it.Y)
		if dist(got, want) > 24 {
			t.Errorf("%s: the marker shows %v, not its colour %s", it.Agent, got, it.Color)
		}
		i := len(seen)
		for j, other := range seen {
			_, mi := report.Style(i)
			_, mj := report.Style(j)
			if (i-j)%len(report.Palette()) == 0 && mi != mj {
				continue // the palette came round: told apart by the marker
			}
			if d := dist(got, other); d < 40 {
				t.Errorf("%s and %s look alike on screen (%v vs %v, distance %.0f)", it.Agent, l.Legend[j].Agent, got, other, d)
			}
		}
		seen = append(seen, got)
	}
}

func pixel(img image.Image, x, y float64) [3]float64 {
	r, g, b, _ := img.At(int(math.Round(x)), int(math.Round(y))).RGBA()
	return [3]float64{float64(r >> 8), float64(g >> 8), float64(b >> 8)}
}

func hexRGB(t *testing.T, s string) [3]float64 {
	t.Helper()
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil || len(s) != 7 {
		t.Fatalf("colour %q is not #rrggbb", s)
	}
	return [3]float64{float64(v >> 16), float64(v >> 8 & 0xff), float64(v & 0xff)}
}

func dist(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}
