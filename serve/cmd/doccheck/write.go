package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// writeFigures rewrites every marked figure of the documents under root
// with the median of the benchmark output's samples of its metric, to as
// many significant digits as the document gave it, and
// returns what it changed, a line each. A figure whose metric the output
// lacks is left as it is and reported as a problem, as checkFigures does.
func writeFigures(root, bench string) (changed, problems []string, err error) {
	samples := parseBench(bench)
	docs, err := documents(root)
	if err != nil {
		return nil, nil, err
	}
	for _, doc := range docs {
		path := filepath.Join(root, doc)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		text := string(b)
		figs, _ := figures(text)
		// From the last figure back, so earlier offsets stay right.
		var docChanges, docProblems []string
		for k := len(figs) - 1; k >= 0; k-- {
			f := figs[k]
			got, ok := measured(samples, f)
			if !ok {
				docProblems = append([]string{missing(doc, f)}, docProblems...)
				continue
			}
			fig := formatFigure(got, significantDigits(f.figure))
			if fig == f.figure {
				continue
			}
			text = text[:f.start] + fig + text[f.end:]
			docChanges = append([]string{fmt.Sprintf("%s:%d: %s %s: %s → %s", doc, f.line, f.name, f.unit, f.figure, fig)}, docChanges...)
		}
		if len(docChanges) > 0 {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				return nil, nil, err
			}
		}
		changed, problems = append(changed, docChanges...), append(problems, docProblems...)
	}
	return changed, problems, nil
}

// significantDigits counts the significant digits of a document's figure:
// "4" has one, "8.7", "0.30" and "1,500" two, "397,000" three. A whole
// number's trailing zeros do not count, but one of two digits or more
// keeps two ("20" stays a two-digit figure).
func significantDigits(figure string) int {
	digits := strings.TrimLeft(strings.NewReplacer(",", "", ".", "").Replace(figure), "0")
	if strings.Contains(figure, ".") {
		return max(len(digits), 1)
	}
	n := len(strings.TrimRight(digits, "0"))
	if len(digits) >= 2 {
		n = max(n, 2)
	}
	return max(n, 1)
}

// formatFigure writes v rounded to sig significant digits, with commas
// between thousands ("1,500", "0.30", "8.7", "397,000").
func formatFigure(v float64, sig int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	exp := int(math.Floor(math.Log10(math.Abs(v))))
	scale := math.Pow10(exp - sig + 1)
	r := math.Round(v/scale) * scale
	if e := int(math.Floor(math.Log10(math.Abs(r)))); e > exp { // rounded up to the next power of ten
		exp = e
	}
	s := strconv.FormatFloat(r, 'f', max(0, sig-1-exp), 64)
	intPart, frac, _ := strings.Cut(s, ".")
	sign := ""
	if strings.HasPrefix(intPart, "-") {
		sign, intPart = "-", intPart[1:]
	}
	for i := len(intPart) - 3; i > 0; i -= 3 {
		intPart = intPart[:i] + "," + intPart[i:]
	}
	if frac != "" {
		return sign + intPart + "." + frac
	}
	return sign + intPart
}
