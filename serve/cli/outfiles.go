package cli

import (
	"os"
	"path/filepath"
	"strings"
)

// The commands that write files (run, eval, demos) write into out/ by
// default: a folder the repository ignores, so that a command run in a
// checkout leaves its top level as it was.
const (
	defaultRunOut   = "out/results.jsonl"
	defaultDemosOut = "out/demos.jsonl"
)

// defaultEvalOut is eval's --out for a model: out/MODEL.jsonl, each
// character of the name that is not a letter, a digit, '.', '-' or '_'
// (a '/' of "org/model", a space) replaced by '_'.
func defaultEvalOut(model string) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, model)
	return "out/" + name + ".jsonl"
}

// createOut creates (or truncates) the file at path, and its folder.
func createOut(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return os.Create(path)
}

// appendOut opens the file at path for appending, creating it and its
// folder if need be.
func appendOut(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
}
