package report

import (
	"strings"
)

// The figures' font: DejaVu Sans (Debian's default sans-serif) or Verdana,
// whose metrics it shares; narrower fonts that stand in elsewhere only
// leave more room. Layout never measures text: it estimates each
// character's advance in ems, a little wide, and the Chromium test
// (web/e2e/figures_test.go) checks that no text leaves its box.
const fontFamily = "DejaVu Sans, Verdana, Geneva, sans-serif"

// lowerEm holds the advances of a to z in DejaVu Sans, in ems (measured
// in Chromium).
var lowerEm = [26]float64{0.613, 0.635, 0.550, 0.635, 0.615, 0.345, 0.635, 0.634, 0.278, 0.278, 0.579, 0.278, 0.974,
	0.634, 0.612, 0.635, 0.635, 0.395, 0.521, 0.392, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525}

// advance returns a character's advance in ems in DejaVu Sans, or a
// little more.
func advance(r rune) float64 {
	switch {
	case r >= 'a' && r <= 'z':
		return lowerEm[r-'a']
	case r == 'M' || r == 'W' || r == '—' || r == '…' || r == '%':
		return 1.0
	case r >= 'A' && r <= 'Z':
		return 0.7
	case r >= '0' && r <= '9':
		return 0.64
	case strings.ContainsRune(" .,:;'|!·", r):
		return 0.34
	case strings.ContainsRune("()[]-/", r):
		return 0.42
	case r == '–':
		return 0.5
	case r < 128:
		return 0.84
	}
	return 0.9
}

// textWidth estimates the width in pixels of s at size px (bold 15% wider).
func textWidth(s string, size float64, bold bool) float64 {
	w := 0.0
	for _, r := range s {
		w += advance(r)
	}
	w *= size * 1.04
	if bold {
		w *= 1.15
	}
	return w
}

// wrap breaks s at spaces into lines no wider than width (a single word
// wider than width stays whole on its line).
func wrap(s string, size, width float64) []string {
	words := strings.Fields(s)
	var lines []string
	cur := ""
	for _, w := range words {
		next := w
		if cur != "" {
			next = cur + " " + w
		}
		if cur != "" && textWidth(next, size, false) > width {
			lines = append(lines, cur)
			cur = w
			continue
		}
		cur = next
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}
