//go:build !js

package site

import (
	"math"
	"regexp"
	"strconv"
	"testing"
)

// luminance is WCAG 2's relative luminance of a #rrggbb colour.
func luminance(hex string) float64 {
	var c [3]float64
	for i := range c {
		v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		s := float64(v) / 255
		if s <= 0.03928 {
			c[i] = s / 12.92
		} else {
			c[i] = math.Pow((s+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
}

func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// TestContrast checks the text/background pairs of style.css against WCAG
// AA (4.5:1 for text): the colour letters on their colours, tags, muted
// text, buttons and the terrain a member's name sits on.
func TestContrast(t *testing.T) {
	css, err := static.ReadFile("static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`--([a-z-]+):\s*(#[0-9a-f]{6})`).FindAllStringSubmatch(string(css), -1) {
		if _, ok := vars[m[1]]; !ok {
			vars[m[1]] = m[2]
		}
	}
	v := func(name string) string {
		c, ok := vars[name]
		if !ok {
			t.Fatalf("style.css has no --%s", name)
		}
		return c
	}
	white, ink := "#ffffff", "#1a1a1a"
	for _, tc := range []struct{ name, fg, bg string }{
		{"R on red", white, v("red")},
		{"B on blue", white, v("blue")},
		{"G on green", white, v("green")},
		{"Y on yellow", ink, v("yellow")},
		{"text", v("fg"), v("bg")},
		{"muted text", v("muted"), v("bg")},
		{"muted text on cards", v("muted"), white},
		{"sanction tag", white, v("bad")},
		{"primary button", v("accent-fg"), v("accent")},
		{"header", white, v("ink")},
		{"sanction text", ink, "#f9d3cf"},
		{"impossible tag", white, "#6e5700"},
		{"grey tag", white, "#5f6368"},
		{"stock badge", white, "#1a1a1a"},
		{"item badge", white, "#6b4423"},
		{"zone label", white, "#20233a"},
		{"low steps", "#8c1d17", "#fde8e8"},
		{"error box", "#7d1a14", "#fdecea"},
		{"ok mark", v("good"), white},
		{"no mark", v("bad"), white},
	} {
		if r := contrast(tc.fg, tc.bg); r < 4.5 {
			t.Errorf("%s: %s on %s has contrast %.2f, below 4.5", tc.name, tc.fg, tc.bg, r)
		}
	}
}
