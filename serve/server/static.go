package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"
)

// static serves the built web app from a file system (a directory during
// development, the site embedded in the binary otherwise): content types
// by extension, gzip (or precompressed .br/.gz siblings) when the client
// accepts it, ETags, and caching by name: files whose name carries a
// content hash (sim.3fa9c2d1.wasm, app-0a1b2c3d.js) are immutable for a
// year, everything else is revalidated (no-cache). Paths without an
// extension fall back to index.html, for the app's own routes. Without
// an index.html it shows a page saying how to build the app.
type static struct {
	fsys  fs.FS // nil: nothing to serve
	mu    sync.Mutex
	cache map[string]*staticFile // by file path
}

// staticFile is a file's bytes, ETag and gzip form, valid while the
// file's size and modification time stay the same.
type staticFile struct {
	size   int64
	mod    time.Time
	data   []byte
	etag   string
	gz     []byte
	gzOnce sync.Once
}

func newStatic(fsys fs.FS) *static { return &static{fsys: fsys, cache: map[string]*staticFile{}} }

// hashedName matches file names that carry a content hash.
var hashedName = regexp.MustCompile(`[.-][0-9a-fA-F]{8,}\.[A-Za-z0-9]+$`)

// contentTypes are set explicitly: the system's MIME table varies.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8", ".json": "application/json", ".map": "application/json",
	".wasm": "application/wasm", ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg",
	".ico": "image/x-icon", ".txt": "text/plain; charset=utf-8", ".webmanifest": "application/manifest+json",
	".woff2": "font/woff2", ".md": "text/markdown; charset=utf-8",
}

func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if ct, ok := contentTypes[ext]; ok {
		return ct
	}
	return mime.TypeByExtension(ext)
}

func compressible(ct string) bool {
	return strings.HasPrefix(ct, "text/") || strings.HasPrefix(ct, "application/json") ||
		ct == "application/wasm" || ct == "image/svg+xml" || ct == "application/manifest+json"
}

func (st *static) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := path.Clean("/" + r.URL.Path)
	for _, seg := range strings.Split(p, "/") {
		if strings.HasPrefix(seg, ".") {
			http.NotFound(w, r)
			return
		}
	}
	const index = "index.html"
	if st.fsys == nil || !st.isFile(index) {
		if p == "/" || p == "/index.html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			w.Write([]byte(notBuiltPage))
			return
		}
		http.NotFound(w, r)
		return
	}
	file := strings.TrimPrefix(p, "/")
	if file == "" {
		file = index
	} else if fi, err := fs.Stat(st.fsys, file); err == nil && fi.IsDir() {
		file = path.Join(file, index)
	}
	if !st.isFile(file) {
		if path.Ext(p) != "" {
			http.NotFound(w, r)
			return
		}
		file = index
	}
	f, err := st.load(file)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	name := path.Base(file)
	h := w.Header()
	ct := contentType(name)
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if hashedName.MatchString(name) {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	data, etag := f.data, f.etag
	if compressible(ct) && len(f.data) >= 512 {
		h.Add("Vary", "Accept-Encoding")
		ae := r.Header.Get("Accept-Encoding")
		switch {
		case accepts(ae, "br") && st.isFile(file+".br"):
			if b, err := fs.ReadFile(st.fsys, file+".br"); err == nil {
				data, etag = b, strings.TrimSuffix(f.etag, `"`)+`-br"`
				h.Set("Content-Encoding", "br")
			}
		case accepts(ae, "gzip"):
			data, etag = f.gzipped(st.fsys, file), strings.TrimSuffix(f.etag, `"`)+`-gz"`
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, name, f.mod, bytes.NewReader(data))
}

// load returns a file's cached form, reading it again if it changed.
func (st *static) load(file string) (*staticFile, error) {
	fi, err := fs.Stat(st.fsys, file)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	f := st.cache[file]
	st.mu.Unlock()
	if f != nil && f.size == fi.Size() && f.mod.Equal(fi.ModTime()) {
		return f, nil
	}
	data, err := fs.ReadFile(st.fsys, file)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	f = &staticFile{size: fi.Size(), mod: fi.ModTime(), data: data, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
	st.mu.Lock()
	st.cache[file] = f
	st.mu.Unlock()
	return f, nil
}

// gzipped returns the file gzipped: a precompressed .gz sibling if there
// is one, else compressed once and kept.
func (f *staticFile) gzipped(fsys fs.FS, file string) []byte {
	f.gzOnce.Do(func() {
		if b, err := fs.ReadFile(fsys, file+".gz"); err == nil {
			f.gz = b
			return
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(f.data)
		zw.Close()
		f.gz = buf.Bytes()
	})
	return f.gz
}

// accepts reports whether an Accept-Encoding header allows enc.
func accepts(header, enc string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), enc) {
			params = strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			return params != "q=0" && params != "q=0.0" && params != "q=0.00" && params != "q=0.000"
		}
	}
	return false
}

func (st *static) isFile(p string) bool {
	fi, err := fs.Stat(st.fsys, p)
	return err == nil && fi.Mode().IsRegular()
}

// notBuiltPage is shown at / when the web app has not been built.
const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>NormGym server</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem;color:#222}code{background:#f3f3f3;padding:0 .25rem}li{margin:.2rem 0}</style>
</head><body>
<h1>NormGym server</h1>
<p>The server is running, but this binary was built without the web app. Run <code>make build</code> (it builds the site
and embeds it), or start the server with <code>--web DIR</code> pointing at a built site, then reload this page.</p>
<p>See the <a href="/leaderboard">leaderboard</a>. The API:</p>
<ul>
<li><code>GET /healthz</code> — status and the sim.wasm this server verifies with</li>
<li><code>GET /api/consent</code> — the consent text and its version</li>
<li><code>POST /api/runs</code> — submit a finished visit; it is replayed and stored only if it matches</li>
<li><code>GET /api/runs</code> with header <code>NormGym-Participant: P</code> — a participant's own runs</li>
<li><code>POST /api/assign</code> <code>{"participant": P, "room": CODE}</code> — whether a sealed visit waits for a participant (it never names it)</li>
<li><code>POST /api/sessions</code> — open a server-stepped session (a person's sealed visit, a submitter key's, or practice)</li>
<li><code>GET /api/leaderboard?suite=S</code> — joint success with Wilson intervals, by condition and family</li>
<li><code>POST /api/rooms</code> — create a classroom: a join code and a teacher token</li>
<li><code>GET /api/rooms/CODE</code> — class aggregates; <code>/dashboard</code> and <code>/export.csv</code> for the teacher (Bearer token)</li>
<li><code>GET /api/export?format=jsonl|csv</code> — every verified run with a data card (admin token)</li>
</ul>
</body></html>
`
