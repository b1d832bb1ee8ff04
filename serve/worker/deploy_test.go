//go:build !js

package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The deploy rehearsal: TestWorker follows README.md's "Deploying to
// Cloudflare" commands, in order, in a copy of the working tree (a clean
// clone: no build output, no node_modules), with the placeholders filled
// as the README's table says. The steps that need a Cloudflare account
// run as their offline twins:
//
//	git clone …                    a copy of the working tree
//	npx wrangler login             skipped (an account)
//	npx wrangler d1 create …       skipped; the placeholders are replaced with made-up values
//	npx wrangler secret put NAME   NAME="…" in .dev.vars, which wrangler dev reads as secrets
//	npx wrangler deploy            npx wrangler deploy --dry-run, then wrangler dev serves it
//
// A step the rehearsal does not know fails the test, so that the README
// and the test cannot drift apart.

// deployCommands returns the commands of README.md's deploy block: the
// fenced block after the line holding "<!-- deploy commands -->".
func deployCommands(t *testing.T, readme string) []string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "<!-- deploy commands -->")
	if !ok {
		t.Fatal("README.md has no <!-- deploy commands --> block")
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatal("README.md: no ```sh block after <!-- deploy commands -->")
	}
	block, _, _ = strings.Cut(block, "```")
	var out []string
	for _, l := range strings.Split(block, "\n") {
		l, _, _ = strings.Cut(l, "#")
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// placeholder is a value of wrangler.jsonc that a deploy replaces.
type placeholder struct {
	key, value, filled string
}

// placeholders reads wrangler.jsonc's values marked PLACEHOLDER (the keys
// database_id and namespace_id) and checks that README.md's table names
// each key and value.
func placeholders(t testing.TB, config, readme string) []placeholder {
	t.Helper()
	var out []placeholder
	re := regexp.MustCompile(`"(database_id|namespace_id)": "([^"]+)"`)
	n := 0
	for _, m := range re.FindAllStringSubmatch(config, -1) {
		p := placeholder{key: m[1], value: m[2]}
		if p.key == "database_id" {
			p.filled = "7b7e4c1e-0d2a-4c8e-9a55-" + randomHex(6)
		} else {
			n++
			p.filled = fmt.Sprint(4200 + n)
		}
		if !strings.Contains(readme, "`"+p.key+"`") || !strings.Contains(readme, p.value) {
			t.Errorf("README.md's placeholder table lacks %s %s of wrangler.jsonc", p.key, p.value)
		}
		out = append(out, p)
	}
	if strings.Count(config, "PLACEHOLDER") == 0 || len(out) == 0 {
		t.Fatal("wrangler.jsonc marks no PLACEHOLDER")
	}
	return out
}

// rehearse follows the README's deploy commands and leaves the Worker
// built and configured in w.workerDir (secrets in its .dev.vars), ready
// for wrangler dev.
func (w *worker) rehearse(t *testing.T) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cwd := ""
	for _, c := range deployCommands(t, string(readme)) {
		f := strings.Fields(c)
		switch {
		case strings.HasPrefix(c, "git clone ") && strings.HasSuffix(c, "&& cd normgym"):
			cwd = filepath.Join(w.dir, "normgym")
			copyTree(t, root, cwd)
		case c == "make worker":
			out := w.exec(cwd, nil, "make", "--no-print-directory", "worker")
			size := regexp.MustCompile(`Total Upload: .*`).Find(out)
			if size == nil {
				t.Fatalf("make worker printed no size:\n%s", out)
			}
			t.Logf("make worker: %s", size)
		case len(f) == 2 && f[0] == "cd":
			cwd = filepath.Join(cwd, f[1])
		case c == "npx wrangler login":
			// An account: nothing to rehearse offline.
		case strings.HasPrefix(c, "npx wrangler d1 create "):
			w.fillPlaceholders(filepath.Join(cwd, "wrangler.jsonc"), string(readme))
		case len(f) == 5 && strings.HasPrefix(c, "npx wrangler secret put "):
			w.putSecret(filepath.Join(cwd, ".dev.vars"), f[4])
		case c == "npx wrangler deploy":
			w.exec(cwd, w.env(), filepath.Join(cwd, "node_modules", ".bin", "wrangler"), "deploy", "--dry-run",
				"--outdir", filepath.Join(w.dir, "bundle"))
			w.workerDir = cwd
		default:
			t.Fatalf("README.md's deploy commands: %q has no offline twin in deploy_test.go", c)
		}
	}
	if w.workerDir == "" {
		t.Fatal("README.md's deploy commands never deploy")
	}
	w.assets = filepath.Join(w.workerDir, "build", "assets")
	if _, err := os.Stat(filepath.Join(w.assets, "index.html")); err != nil {
		t.Errorf("the deployed assets hold no app (build/assets/index.html): %v", err)
	}
	// Variables of the test only: the baselines of mini, a few seconds at a time.
	f, err := os.OpenFile(filepath.Join(w.workerDir, ".dev.vars"), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "NORMGYM_BASELINES=\"mini\"\nNORMGYM_BASELINE_BUDGET=\"3s\"\n")
}

// fillPlaceholders replaces wrangler.jsonc's placeholders, as the README
// says an operator does after `wrangler d1 create`.
func (w *worker) fillPlaceholders(path, readme string) {
	b, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	cfg := string(b)
	for _, p := range placeholders(w.t, cfg, readme) {
		old := fmt.Sprintf("%q: %q", p.key, p.value)
		cfg = strings.Replace(cfg, old, fmt.Sprintf("%q: %q", p.key, p.filled), 1)
	}
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// putSecret is `wrangler secret put NAME` offline: a line of .dev.vars.
func (w *worker) putSecret(path, name string) {
	v, ok := map[string]string{adminTokenVar: w.adminToken, "NORMGYM_TEACHER_KEYS": w.teacherKeyLine,
		"NORMGYM_SUBMITTER_KEYS": w.submitterKeyLine}[name]
	if !ok {
		w.t.Fatalf("README.md puts a secret %s that the test has no value for", name)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "%s=%q\n", name, v)
}

// copyTree copies the working tree of the repository at root (tracked
// files and new ones git does not ignore) to dst: a clean clone of what
// is being tested, uncommitted changes included.
func copyTree(t *testing.T, root, dst string) {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	n := 0
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, name)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or a link
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, fi.Mode().Perm()|fs.FileMode(0o200)); err != nil {
			t.Fatal(err)
		}
		n++
	}
	t.Logf("copied the working tree: %d files", n)
}

// exec runs a command to completion in dir with env (nil: this
// process's), within five minutes, and returns its output.
func (w *worker) exec(dir string, env []string, name string, args ...string) []byte {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		w.t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out.Bytes())
	}
	return out.Bytes()
}
