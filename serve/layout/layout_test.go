// Package layout_test holds the module's import layout: which parts may
// depend on which. It has no code of its own; its test asks `go list` for
// the dependencies of each part, on each platform the part is built for,
// and fails on a dependency that crosses a boundary.
//
//   - web (the browser app and its build) imports nothing from serve: what
//     both need (the classroom nickname rules) lives under web.
//   - serve/store implements domain.Storage and never imports the HTTP
//     package serve/server.
//   - serve/domain (the stored things and their rules) imports none of
//     the packages that adapt it: the session manager, the stores, the
//     HTTP handlers, the Worker.
//   - the core (sim, norms) imports no adapter: nothing from wasm, web or
//     serve.
//   - nothing above the core steps a visit but through sim.Env
//     (TestOnlyEnvSteps, env_test.go).
package layout_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/normgym/normgym/"

func TestLayout(t *testing.T) {
	js := []string{"GOOS=js", "GOARCH=wasm"}
	tests := []struct {
		name string
		env  []string // added to the environment of go list
		pkgs string   // the pattern whose packages are checked
		// never are the packages (a trailing "/" a whole tree) that no
		// package of pkgs may depend on.
		never []string
	}{
		{"web imports nothing from serve", nil, "./web/...", []string{"serve/"}},
		{"web imports nothing from serve (js)", js, "./web/...", []string{"serve/"}},
		{"store does not import server", nil, "./serve/store/...", []string{"serve/server", "serve/server/"}},
		{"store does not import server (js)", js, "./serve/store/...", []string{"serve/server", "serve/server/"}},
		{"core imports no adapter", nil, "./sim/... ./norms/...", []string{"serve/", "web/", "wasm/"}},
		{"domain imports none of its adapters", nil, "./serve/domain", []string{"serve/session", "serve/store", "serve/store/", "serve/server", "serve/worker"}},
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"list", "-f", `{{.ImportPath}} {{join .Deps " "}}`}, strings.Fields(tt.pkgs)...)
			cmd := exec.Command("go", args...)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), tt.env...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) == 0 || lines[0] == "" {
				t.Fatalf("go list %s listed no packages", tt.pkgs)
			}
			for _, line := range lines {
				fields := strings.Fields(line)
				for _, dep := range fields[1:] {
					rel, ok := strings.CutPrefix(dep, module)
					if !ok {
						continue
					}
					for _, bad := range tt.never {
						if rel == bad || strings.HasSuffix(bad, "/") && strings.HasPrefix(rel, bad) {
							t.Errorf("%s depends on %s; want nothing from %s", fields[0], dep, bad)
						}
					}
				}
			}
		})
	}
}
