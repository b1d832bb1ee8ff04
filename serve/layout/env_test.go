package layout_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stepsDirectly are the files above sim that still start or step the
// native core's visits themselves rather than through sim.Env, each with
// why. Issue 19 moves them to the contract; the list only shrinks.
var stepsDirectly = map[string]string{
	"serve/server/baselines.go":   "plays the server's baseline rows in a private catalog (to become an agents function over sim.Native)",
	"serve/server/room_reveal.go": "reads a tutorial visit's probe from a fresh visit (to become sim.Native's Probe)",
}

// TestOnlyEnvSteps holds the rule of sim.Env: nothing above the core
// (outside sim/..., and the module's own side of the ABI,
// wasm/internal/guest) starts a native visit (sim.NewVisit, NewVisitIn) or
// steps one (sim.Visit's Step, StepInto), on any platform it is built for:
// every host steps a visit through an Env. It type-checks each package's
// files against the compiler's export data.
func TestOnlyEnvSteps(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, env := range [][]string{nil, {"GOOS=js", "GOARCH=wasm"}} {
		pkgs := listExports(t, root, env)
		exports := map[string]string{}
		for _, p := range pkgs {
			exports[p.ImportPath] = p.Export
		}
		imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
			return os.Open(exports[path])
		})
		for _, p := range pkgs {
			rel, ok := strings.CutPrefix(p.ImportPath, module)
			if !ok || p.Standard || p.Incomplete || p.Export == "" || strings.HasPrefix(rel, "sim") || strings.HasPrefix(rel, "norms") || rel == "wasm/internal/guest" {
				continue
			}
			for _, v := range directSteps(t, imp, p) {
				file := filepath.ToSlash(strings.TrimPrefix(v.file, root+string(filepath.Separator)))
				if _, ok := stepsDirectly[file]; ok {
					seen[file] = true
					continue
				}
				t.Errorf("%s:%d: %s outside the core: step visits through sim.Env (sim.Native for the native core)", file, v.line, v.what)
			}
		}
	}
	for file, why := range stepsDirectly {
		if !seen[file] {
			t.Errorf("%s no longer steps visits itself (%s): take it off stepsDirectly", file, why)
		}
	}
}

// listed is a package as go list -export describes it.
type listed struct {
	ImportPath, Dir, Export string
	GoFiles                 []string
	Standard, Incomplete    bool
}

// listExports lists the packages above the core with their dependencies,
// compiled for env, and their export data (none for a package that is not
// built there).
func listExports(t *testing.T, root string, env []string) []listed {
	t.Helper()
	args := []string{"list", "-e", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles,Standard,Incomplete", "./serve/...", "./web/...", "./wasm/..."}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// violation is a direct use of the core's stepping.
type violation struct {
	file, what string
	line       int
}

// directSteps type-checks package p and returns its calls of
// sim.NewVisit, sim.NewVisitIn and sim.Visit's Step and StepInto.
func directSteps(t *testing.T, imp types.Importer, p listed) []violation {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp, Error: func(error) {}}
	if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
		t.Fatalf("type-checking %s: %v", p.ImportPath, err)
	}
	core := module + "sim"
	var out []violation
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			obj := info.Uses[sel.Sel]
			if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != core {
				return true
			}
			name := obj.Name()
			if s, ok := info.Selections[sel]; ok && s.Kind() == types.MethodVal {
				recv := types.TypeString(s.Recv(), nil)
				if (name == "Step" || name == "StepInto") && strings.HasSuffix(recv, "sim.Visit") {
					pos := fset.Position(sel.Pos())
					out = append(out, violation{pos.Filename, "sim.Visit." + name, pos.Line})
				}
				return true
			}
			if name == "NewVisit" || name == "NewVisitIn" {
				pos := fset.Position(sel.Pos())
				out = append(out, violation{pos.Filename, "sim." + name, pos.Line})
			}
			return true
		})
	}
	return out
}
