package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// moduleRoot finds the folder holding go.mod, from the working directory up.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// skipDirs are never documents of the project.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "build": true, "bin": true, "files": true, "testdata": true}

// documents lists the project's Markdown files, relative to root.
func documents(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

var (
	mdLink = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	mdName = regexp.MustCompile("[A-Za-z0-9_./-]+\\.md\\b")
	url    = regexp.MustCompile(`[a-z]+://[^\s)>\]]+`)
)

// checkLinks reports relative links that lead nowhere and *.md names that
// are no file of the project (resolved from the document's folder, the
// root, or any file of that base name).
func checkLinks(root string) ([]string, error) {
	docs, err := documents(root)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, d := range docs {
		names[filepath.Base(d)] = true
	}
	exists := func(doc, target string) bool {
		for _, base := range []string{filepath.Dir(filepath.Join(root, doc)), root} {
			if _, err := os.Stat(filepath.Join(base, filepath.FromSlash(target))); err == nil {
				return true
			}
		}
		return false
	}
	var problems []string
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			return nil, err
		}
		for n, line := range strings.Split(string(b), "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "/") {
					continue
				}
				if !exists(doc, target) {
					problems = append(problems, fmt.Sprintf("%s:%d: the link %s leads to no file", doc, n+1, target))
				}
			}
			for _, name := range mdName.FindAllString(url.ReplaceAllString(line, ""), -1) {
				if !exists(doc, name) && !names[filepath.Base(name)] {
					problems = append(problems, fmt.Sprintf("%s:%d: %s names %s, which is not in the repository", doc, n+1, doc, name))
				}
			}
		}
	}
	return problems, nil
}

// marker is a figure a document copies from the benchmarks: a number,
// maybe its unit, then the comment, on one line or across a line break.
var marker = regexp.MustCompile(`([0-9][0-9,]*(?:\.[0-9]+)?)\s*(?:×|x|%|[a-zA-Zµ/]+)?\**\s*<!--\s*bench:\s*(\S+)\s+(.+?)\s*-->`)

// benchComment is any bench comment, marker or not.
var benchComment = regexp.MustCompile(`<!--\s*bench:`)

// figure is one marked figure of a document.
type figure struct {
	figure, name, unit string
	start, end         int // the figure's bytes in the document
	line               int // the figure's line, from 1
}

// figures finds the marked figures of a document, and the lines of the
// bench comments that follow no number (which no check would read).
func figures(doc string) (figs []figure, orphans []int) {
	lineAt := func(off int) int { return strings.Count(doc[:off], "\n") + 1 }
	marked := map[int]bool{}
	for _, m := range marker.FindAllStringSubmatchIndex(doc, -1) {
		figs = append(figs, figure{figure: doc[m[2]:m[3]], name: doc[m[4]:m[5]], unit: doc[m[6]:m[7]],
			start: m[2], end: m[3], line: lineAt(m[2])})
		marked[m[1]] = true // the end of the whole match: the comment's end
	}
	for _, c := range benchComment.FindAllStringIndex(doc, -1) {
		end := strings.Index(doc[c[0]:], "-->")
		if end < 0 || !marked[c[0]+end+3] {
			orphans = append(orphans, lineAt(c[0]))
		}
	}
	return figs, orphans
}

// checkFigures compares every marked figure with the median of the
// benchmark output's samples of that metric.
func checkFigures(root, bench string) ([]string, error) {
	samples := parseBench(bench)
	docs, err := documents(root)
	if err != nil {
		return nil, err
	}
	var problems []string
	marked := 0
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			return nil, err
		}
		figs, orphans := figures(string(b))
		for _, at := range orphans {
			problems = append(problems, fmt.Sprintf("%s:%d: a bench comment that follows no number", doc, at))
		}
		for _, f := range figs {
			marked++
			doc1 := fmt.Sprintf("%s:%d", doc, f.line)
			want, err := strconv.ParseFloat(strings.ReplaceAll(f.figure, ",", ""), 64)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: cannot read the figure %q", doc1, f.figure))
				continue
			}
			got, ok := measured(samples, f)
			if !ok {
				problems = append(problems, missing(doc, f))
				continue
			}
			if r := want / got; !(r >= 0.5 && r <= 2) {
				problems = append(problems, fmt.Sprintf("%s: the document says %s for %s %s, the benchmarks measure %.4g: more than 2× apart, update the document", doc1, f.figure, f.name, f.unit, got))
			}
		}
	}
	if marked == 0 {
		problems = append(problems, "no document marks a figure from the benchmarks (<!-- bench: NAME UNIT -->)")
	}
	return problems, nil
}

func key(name, unit string) string { return name + "\x00" + unit }

// measured returns the median of the samples of f's metric, and whether
// the output has any.
func measured(samples map[string][]float64, f figure) (float64, bool) {
	vals := samples[key(f.name, f.unit)]
	if len(vals) == 0 {
		return 0, false
	}
	return median(vals), true
}

// missing is the problem of a figure of doc whose metric the benchmark
// output lacks.
func missing(doc string, f figure) string {
	return fmt.Sprintf("%s:%d: the benchmark output has no %s %s (the document's figure %s)", doc, f.line, f.name, f.unit, f.figure)
}

// cpuSuffix is the -GOMAXPROCS suffix of a benchmark's name.
var cpuSuffix = regexp.MustCompile(`-\d+$`)

// parseBench reads `go test -bench` output: metric samples by benchmark
// name (without its -N suffix) and unit.
func parseBench(out string) map[string][]float64 {
	samples := map[string][]float64{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := cpuSuffix.ReplaceAllString(f[0], "")
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			samples[key(name, f[i+1])] = append(samples[key(name, f[i+1])], v)
		}
	}
	return samples
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
