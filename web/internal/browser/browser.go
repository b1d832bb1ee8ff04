//go:build !js

// Package browser starts headless Chromium for the web app's tests and
// benchmark, with the flags that keep it quiet on a closed network and a
// fresh profile, and serves a built site on loopback.
package browser

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// Path returns the Chromium binary: $CHROMIUM if set, else the first of
// chromium, chromium-browser and google-chrome on PATH, or "".
func Path() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// ErrNoChromium is returned by Start when no Chromium is installed.
var ErrNoChromium = errors.New("browser: no chromium on PATH (make web-deps installs Debian's)")

// Options configure Start.
type Options struct {
	Width, Height int
	// UserDataDir is the profile directory; it should be fresh and empty.
	UserDataDir string
	// DownloadDir receives downloads when set.
	DownloadDir string
}

// Start launches headless Chromium and returns a browser context (the
// first tab) and a function that closes it.
func Start(ctx context.Context, o Options) (context.Context, context.CancelFunc, error) {
	path := Path()
	if path == "" {
		return nil, nil, ErrNoChromium
	}
	if o.Width == 0 {
		o.Width, o.Height = 1280, 800
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.WindowSize(o.Width, o.Height),
		chromedp.UserDataDir(o.UserDataDir),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		cancelBrowser()
		cancelAlloc()
		return nil, nil, err
	}
	return bctx, func() { cancelBrowser(); cancelAlloc() }, nil
}

// Serve serves dir on a loopback port with .wasm as application/wasm and
// no caching, as a plain static host would; it sends a file's .br
// sibling (Content-Encoding: br) to a browser that accepts brotli, as the
// NormGym server and CDNs do, so that loads transfer what they would.
func Serve(dir string) *httptest.Server {
	fs := http.FileServer(http.Dir(dir))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/" {
			p = "/index.html"
		}
		ct := map[string]string{".wasm": "application/wasm", ".js": "text/javascript; charset=utf-8",
			".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8", ".json": "application/json"}[path.Ext(p)]
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.Header().Add("Vary", "Accept-Encoding")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "br") && !strings.Contains(p, "..") {
			if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)) + ".br"); err == nil {
				w.Header().Set("Content-Encoding", "br")
				w.Header().Set("Content-Length", strconv.Itoa(len(b)))
				w.Write(b)
				return
			}
		}
		fs.ServeHTTP(w, r)
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	s := httptest.NewUnstartedServer(h)
	s.Listener.Close()
	s.Listener = l
	s.Config.ReadHeaderTimeout = 10 * time.Second
	s.Start()
	return s
}
