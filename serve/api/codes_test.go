package api

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodes pins every error code: its wire string (a client compares
// it), its HTTP status, its JSON form (a plain string) and its doc comment
// (which starts with the name and the status).
// A code added to codes.go and not here fails, and so does a code no
// producer under serve/ uses.
func TestCodes(t *testing.T) {
	tests := []struct {
		name   string
		code   Code
		wire   string
		status int
	}{
		{"CodeInvalid", CodeInvalid, "invalid", http.StatusBadRequest},
		{"CodeConsent", CodeConsent, "consent", http.StatusBadRequest},
		{"CodeUnauthorized", CodeUnauthorized, "unauthorized", http.StatusUnauthorized},
		{"CodeForbidden", CodeForbidden, "forbidden", http.StatusForbidden},
		{"CodeNotFound", CodeNotFound, "not_found", http.StatusNotFound},
		{"CodeMethod", CodeMethod, "method", http.StatusMethodNotAllowed},
		{"CodeConflict", CodeConflict, "conflict", http.StatusConflict},
		{"CodeVersion", CodeVersion, "version", http.StatusConflict},
		{"CodeGone", CodeGone, "gone", http.StatusGone},
		{"CodeTooLarge", CodeTooLarge, "too_large", http.StatusRequestEntityTooLarge},
		{"CodeMismatch", CodeMismatch, "mismatch", http.StatusUnprocessableEntity},
		{"CodeUpgrade", CodeUpgrade, "upgrade", http.StatusUpgradeRequired},
		{"CodeRateLimited", CodeRateLimited, "rate_limited", http.StatusTooManyRequests},
		{"CodeInternal", CodeInternal, "internal", http.StatusInternalServerError},
		{"CodeNotImplemented", CodeNotImplemented, "not_implemented", http.StatusNotImplemented},
		{"CodeUnavailable", CodeUnavailable, "unavailable", http.StatusServiceUnavailable},
		{"CodeBusy", CodeBusy, "busy", http.StatusServiceUnavailable},
		{"CodeTimeout", CodeTimeout, "timeout", http.StatusServiceUnavailable},
	}
	declared := declaredCodes(t)
	used := producerSources(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := string(tt.code), tt.wire; got != want {
				t.Errorf("%s = %q, want %q", tt.name, got, want)
			}
			if !tt.code.Known() {
				t.Errorf("%s is not in the status table", tt.name)
			}
			if got, want := tt.code.Status(), tt.status; got != want {
				t.Errorf("%s.Status() = %d, want %d", tt.name, got, want)
			}
			b, err := json.Marshal(ErrorDetail{Code: tt.code, Message: "m"})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(b), `{"code":"`+tt.wire+`","error":"m"}`; got != want {
				t.Errorf("ErrorDetail as JSON = %s, want %s", got, want)
			}
			doc, ok := declared[tt.name]
			switch {
			case !ok:
				t.Errorf("%s is not declared in codes.go", tt.name)
			case !strings.HasPrefix(doc, fmt.Sprintf("%s (%d)", tt.name, tt.status)):
				t.Errorf("%s's doc comment %q does not start with %q", tt.name, doc, fmt.Sprintf("%s (%d)", tt.name, tt.status))
			}
			if !strings.Contains(used, "api."+tt.name) {
				t.Errorf("no producer under serve/ uses api.%s", tt.name)
			}
			delete(declared, tt.name)
		})
	}
	for name := range declared {
		t.Errorf("%s is declared in codes.go but not in this test", name)
	}
	if got, want := len(statuses), len(tests); got != want {
		t.Errorf("the status table has %d codes, this test %d", got, want)
	}
	if got, want := Code("no such code").Status(), http.StatusInternalServerError; got != want {
		t.Errorf("an unknown code's Status() = %d, want %d", got, want)
	}
}

// declaredCodes returns the doc comment of every constant of type Code
// that codes.go declares, by name.
func declaredCodes(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Code" {
				continue
			}
			for _, n := range v.Names {
				out[n.Name] = strings.TrimSpace(v.Doc.Text())
			}
		}
	}
	return out
}

// producerSources returns the Go source under serve/ outside this package
// and outside tests: where the codes are produced.
func producerSources(t *testing.T) string {
	t.Helper()
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	err = filepath.WalkDir(filepath.Dir(here), func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (p == here || d.Name() == "node_modules" || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go"):
			return nil
		}
		src, err := os.ReadFile(p)
		b.Write(src)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
