//go:build !js

// Package site assembles NormGym's static web app: index.html, the Go UI
// compiled with GOOS=js (app.wasm), Go's wasm_exec.js, the sim module
// (sim.wasm, the same file the headless tools run), browser_wasi_shim's
// ES modules and the loader (boot.js). Every asset but index.html has its
// content hash in its name, under assets/, so a cached page never mixes a
// new sim.wasm with an old UI; index.html names them all. Every text or
// wasm file has a brotli sibling (name.br) for hosts that send them (the
// NormGym server does, with Content-Encoding: br). The result works
// from any static host (python3 -m http.server will do) and, once loaded,
// needs no network.
package site

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed static
var static embed.FS

// ShimVersion is the pinned @bjorn3/browser_wasi_shim (web/package.json).
const ShimVersion = "0.4.2"

// Options configure Build.
type Options struct {
	// Out is the output directory; its previous contents are removed.
	Out string
	// Root is the Go module's root directory (holding go.mod and web/).
	Root string
	// Sim is sim.wasm.
	Sim []byte
	// ShimDir holds browser_wasi_shim's dist/*.js; empty means
	// Root/web/node_modules/@bjorn3/browser_wasi_shim/dist (npm ci in web/).
	ShimDir string
	// Go is the go command; empty means "go".
	Go string
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// Manifest describes a build (written as manifest.json beside index.html).
type Manifest struct {
	// Build is a short hash of every asset name.
	Build string `json:"build"`
	// SimSHA256 is the hex SHA-256 of sim.wasm.
	SimSHA256 string `json:"sim_sha256"`
	// Assets maps a logical name (app.wasm, sim.wasm, boot.js, bridge.js,
	// worker.js, style.css, wasm_exec.js, shim) to its path relative to
	// Out.
	Assets map[string]string `json:"assets"`
	// Files lists every file the page loads on a first visit, in no
	// particular order, with index.html first: sim.wasm and the shim too,
	// which every mode but the site's sealed play loads at once (the
	// result screen's worker.js is left out).
	Files []string `json:"files"`
	// Brotli maps each file with a precompressed .br sibling to the
	// sibling's size in bytes: what a host that sends the .br files
	// transfers (see FirstVisit).
	Brotli map[string]int `json:"brotli"`
}

// FirstVisit returns the bytes a first visit transfers from a host that
// sends the .br siblings (the NormGym server does): the .br size of each
// of Files that has one, the raw size of the others (raw sizes from
// dir). It is an upper bound: a browser may not fetch every shim module.
func (m *Manifest) FirstVisit(dir string) (int, error) {
	total := 0
	for _, f := range m.Files {
		if n, ok := m.Brotli[f]; ok {
			total += n
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return 0, err
		}
		total += int(fi.Size())
	}
	return total, nil
}

func short(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])[:8]
}

// hashed names a file by its content: name.<sha8>.ext.
func hashed(name string, b []byte) string {
	ext := filepath.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + short(b) + ext
}

// FindRoot returns the nearest directory at or above dir holding go.mod.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("site: no go.mod above " + dir)
		}
		dir = parent
	}
}

// Build writes the site into opt.Out.
func Build(ctx context.Context, opt Options) (*Manifest, error) {
	opt, err := opt.defaults()
	if err != nil {
		return nil, err
	}
	shim, err := readShim(opt.ShimDir)
	if err != nil {
		return nil, err
	}
	wasmExec, err := readWasmExec(ctx, opt.Go)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(opt.Log, "site: compiling the UI (GOOS=js GOARCH=wasm), and with the transcript viewer (-tags viewer)")
	app, err := buildApp(ctx, opt, "")
	if err != nil {
		return nil, err
	}
	viewer, err := buildApp(ctx, opt, "viewer")
	if err != nil {
		return nil, err
	}
	simSum := sha256.Sum256(opt.Sim)
	b := &siteFiles{m: &Manifest{SimSHA256: hex.EncodeToString(simSum[:]), Assets: map[string]string{}}, files: map[string][]byte{}}
	b.put("sim.wasm", "sim.wasm", opt.Sim)
	b.put("app.wasm", "app.wasm", app)
	b.put("viewer.wasm", "viewer.wasm", viewer)
	b.put("wasm_exec.js", "wasm_exec.js", wasmExec)
	b.addShim(shim)
	if err := b.addStatic(); err != nil {
		return nil, err
	}
	fmt.Fprintln(opt.Log, "site: brotli (quality 11, cached by content)")
	if err := b.finish(); err != nil {
		return nil, err
	}
	if err := b.write(opt.Out); err != nil {
		return nil, err
	}
	fmt.Fprintf(opt.Log, "site: wrote %d files to %s (build %s, sim %s)\n", len(b.files), opt.Out, b.m.Build, b.m.SimSHA256[:12])
	return b.m, nil
}

// defaults fills in the options left out, and refuses a build without
// sim.wasm.
func (opt Options) defaults() (Options, error) {
	if opt.Go == "" {
		opt.Go = "go"
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if len(opt.Sim) == 0 {
		return opt, errors.New("site: no sim.wasm (run make wasm)")
	}
	if opt.ShimDir == "" {
		opt.ShimDir = filepath.Join(opt.Root, "web", "node_modules", "@bjorn3", "browser_wasi_shim", "dist")
	}
	return opt, nil
}

// siteFiles are a build's files by path, and its manifest.
type siteFiles struct {
	m       *Manifest
	files   map[string][]byte
	shimDir string
	shim    []string // the shim's file names, sorted
}

// put adds an asset under a name hashed from its content and returns its
// path; logical is its name in the manifest.
func (b *siteFiles) put(logical, name string, content []byte) string {
	p := "assets/" + hashed(name, content)
	b.files[p] = content
	b.m.Assets[logical] = p
	return p
}

// addShim adds the shim's modules, which import each other by name: it
// keeps the names, in a directory named by version and content.
func (b *siteFiles) addShim(shim map[string][]byte) {
	var all []byte
	for n := range shim {
		b.shim = append(b.shim, n)
	}
	sort.Strings(b.shim)
	for _, n := range b.shim {
		all = append(all, n...)
		all = append(all, shim[n]...)
	}
	b.shimDir = "assets/shim-" + ShimVersion + "-" + short(all)
	for _, n := range b.shim {
		b.files[b.shimDir+"/"+n] = shim[n]
	}
	b.m.Assets["shim"] = b.shimDir
}

// addStatic adds the style, the boot script (naming the hashed assets),
// the build's id, index.html (naming them all) and the hosts' cache rules.
func (b *siteFiles) addStatic() error {
	style, err := static.ReadFile("static/style.css")
	if err != nil {
		return err
	}
	b.put("style.css", "style.css", style)
	a := b.m.Assets
	// The bridge first, then the worker (naming the bridge and the shim),
	// then the boot script (naming them all): each name holds its
	// content's hash.
	bridge, err := static.ReadFile("static/bridge.js")
	if err != nil {
		return err
	}
	b.put("bridge.js", "bridge.js", bridge)
	worker, err := static.ReadFile("static/worker.js")
	if err != nil {
		return err
	}
	b.put("worker.js", "worker.js", fill(worker, map[string]string{"SHIM": filepath.Base(b.shimDir), "BRIDGE": filepath.Base(a["bridge.js"])}))
	boot, err := static.ReadFile("static/boot.js")
	if err != nil {
		return err
	}
	// viewer.html is index.html loading viewer.wasm (the app with the
	// transcript viewer) instead of app.wasm: the first visit never
	// loads it.
	for _, page := range []struct{ boot, app string }{{"boot.js", "app.wasm"}, {"viewer-boot.js", "viewer.wasm"}} {
		b.put(page.boot, page.boot, fill(boot, map[string]string{
			"SIM": filepath.Base(a["sim.wasm"]), "APP": filepath.Base(a[page.app]), "SHIM": filepath.Base(b.shimDir),
			"BRIDGE": filepath.Base(a["bridge.js"]), "WORKER": filepath.Base(a["worker.js"]),
		}))
	}
	var ids []string
	for p := range b.files {
		ids = append(ids, p)
	}
	sort.Strings(ids)
	b.m.Build = short([]byte(strings.Join(ids, "\n")))
	index, err := static.ReadFile("static/index.html")
	if err != nil {
		return err
	}
	for page, boot := range map[string]string{"index.html": "boot.js", "viewer.html": "viewer-boot.js"} {
		b.files[page] = fill(index, map[string]string{
			"STYLE": a["style.css"], "WASM_EXEC": a["wasm_exec.js"], "BOOT": a[boot],
			"SHIM": b.shimDir, "SIM_SHA256": b.m.SimSHA256, "SIM_SHORT": b.m.SimSHA256[:12], "BUILD": b.m.Build,
		})
	}
	b.files["_headers"] = []byte("# Cache rules for static hosts that read _headers (Cloudflare Pages, Netlify).\n" +
		"/\n  Cache-Control: no-cache\n/index.html\n  Cache-Control: no-cache\n/viewer.html\n  Cache-Control: no-cache\n" +
		"/assets/*\n  Cache-Control: public, max-age=31536000, immutable\n")
	return nil
}

// finish lists the first visit's files, adds the brotli siblings and
// the manifest.
func (b *siteFiles) finish() error {
	a := b.m.Assets
	b.m.Files = []string{"index.html", a["style.css"], a["wasm_exec.js"], a["boot.js"], a["bridge.js"], a["sim.wasm"], a["app.wasm"]}
	for _, n := range b.shim {
		b.m.Files = append(b.m.Files, b.shimDir+"/"+n)
	}
	b.m.Brotli = map[string]int{}
	for p, br := range compressAll(b.files) {
		b.files[p] = br
		b.m.Brotli[strings.TrimSuffix(p, ".br")] = len(br)
	}
	mj, err := json.MarshalIndent(b.m, "", "  ")
	if err != nil {
		return err
	}
	b.files["manifest.json"] = append(mj, '\n')
	return nil
}

// write replaces the directory out with the files.
func (b *siteFiles) write(out string) error {
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	for p, content := range b.files {
		dst := filepath.Join(out, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// fill replaces {{KEY}} placeholders.
func fill(b []byte, vals map[string]string) []byte {
	for k, v := range vals {
		b = bytes.ReplaceAll(b, []byte("{{"+k+"}}"), []byte(v))
	}
	return b
}

func readShim(dir string) (map[string][]byte, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("site: browser_wasi_shim not found (run `npm ci` in web/, or make web-deps): %w", err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".js") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out[e.Name()] = b
	}
	if out["index.js"] == nil || out["wasi.js"] == nil {
		return nil, fmt.Errorf("site: %s lacks index.js or wasi.js", dir)
	}
	return out, nil
}

func readWasmExec(ctx context.Context, goCmd string) ([]byte, error) {
	out, err := exec.CommandContext(ctx, goCmd, "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("site: go env GOROOT: %w", err)
	}
	root := strings.TrimSpace(string(out))
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if b, err := os.ReadFile(filepath.Join(root, p)); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("site: wasm_exec.js not found under %s", root)
}

// appFlags are the go build flags of app.wasm (GOOS=js GOARCH=wasm), all
// for the first visit's weight (web/RATIONALE.md, "Weight"): no paths
// (-trimpath), no symbol table or DWARF (-s -w: the UI module's names
// appear in no trace; sim.wasm keeps them), and no inlining outside the
// runtime (-l; the runtime keeps its own for allocation and maps), which
// makes the module larger raw but smaller with brotli, chiefly by
// dropping the inlining tables, at about 1.6 times the CPU in the UI's
// own code (decoding a step and drawing it).
func appFlags() []string {
	return []string{"-trimpath", "-ldflags=-s -w", "-gcflags=all=-l", "-gcflags=runtime="}
}

// buildApp builds web/app with the build tags tags ("": none).
func buildApp(ctx context.Context, opt Options, tags string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "normgym-app-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "app.wasm")
	flags := appFlags()
	if tags != "" {
		flags = append(flags, "-tags", tags)
	}
	cmd := exec.CommandContext(ctx, opt.Go, append([]string{"build"}, append(flags, "-o", out, "./web/app")...)...)
	cmd.Dir = opt.Root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("site: building web/app: %v\n%s", err, stderr.String())
	}
	return os.ReadFile(out)
}
