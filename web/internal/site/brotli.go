//go:build !js

package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/andybalholm/brotli"
)

// Brotli settings of the precompressed assets: the best quality and the
// largest window the format allows (browsers accept 24 bits), so that a
// first visit transfers as little as a host can send. Quality 11 is slow
// (tens of seconds for app.wasm), so results are cached by content.
const (
	BrotliQuality = 11
	BrotliWindow  = 24
)

// MinCompress is the size under which a file is not precompressed (the
// NormGym server sends such small files as they are).
const MinCompress = 512

// Compressible reports whether a site file is worth a .br sibling: text
// and WebAssembly, of at least MinCompress bytes.
func Compressible(name string, size int) bool {
	if size < MinCompress {
		return false
	}
	switch path.Ext(name) {
	case ".html", ".js", ".mjs", ".css", ".wasm", ".json", ".svg":
		return true
	}
	return false
}

// Brotli compresses b at BrotliQuality with BrotliWindow.
func Brotli(b []byte) []byte {
	var buf bytes.Buffer
	w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: BrotliQuality, LGWin: BrotliWindow})
	w.Write(b) // a bytes.Buffer does not fail
	w.Close()
	return buf.Bytes()
}

// brotliCache is where compressed forms are kept between builds, by the
// SHA-256 of their input; "" disables it.
func brotliCache() string {
	if d := os.Getenv("NORMGYM_BROTLI_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "normgym", "brotli")
}

// compressAll returns the .br sibling of every compressible file, in
// parallel, from the cache when it has them.
func compressAll(files map[string][]byte) map[string][]byte {
	cache := brotliCache()
	out := map[string][]byte{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for p, b := range files {
		if !Compressible(p, len(b)) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sum := sha256.Sum256(b)
			key := ""
			if cache != "" {
				key = filepath.Join(cache, hex.EncodeToString(sum[:])+"-q11w24.br")
			}
			var br []byte
			if key != "" {
				if c, err := os.ReadFile(key); err == nil && len(c) > 0 {
					br = c
				}
			}
			if br == nil {
				br = Brotli(b)
				if key != "" {
					keep(key, br)
				}
			}
			mu.Lock()
			out[p+".br"] = br
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// keep writes b to the cache file key atomically (a failure only costs
// a later build its time).
func keep(key string, b []byte) {
	if os.MkdirAll(filepath.Dir(key), 0o755) != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(key), "tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return
	}
	if os.Rename(f.Name(), key) != nil {
		os.Remove(f.Name())
	}
}
