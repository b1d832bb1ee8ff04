package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// Cache keeps successful responses on disk, keyed by the SHA-256 of the
// exact request body (model, messages, sampling settings). It never sees
// headers, so the API key is in neither its keys nor its files. A cached
// reply is replayed as is, so a re-run of an evaluation costs no requests
// and, even at temperature > 0, reproduces the first run's replies.
// It is safe for concurrent use by several processes: files are written
// to a temporary name and renamed into place.
type Cache struct{ dir string }

// DefaultCacheDir returns <user cache dir>/normgym/llm.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("llm: no user cache directory: %w", err)
	}
	return filepath.Join(d, "normgym", "llm"), nil
}

// OpenCache returns the cache in dir, creating the directory.
func OpenCache(dir string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("llm: cache: %w", err)
	}
	return &Cache{dir: dir}, nil
}

// Dir returns the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// CacheKey returns the cache key of a request body: its SHA-256 in hex.
func CacheKey(body []byte) string {
	h := sha256.Sum256(body)
	return hex.EncodeToString(h[:])
}

func (c *Cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// Get returns the stored response body for key.
func (c *Cache) Get(key string) ([]byte, bool) {
	if len(key) < 2 {
		return nil, false
	}
	b, err := os.ReadFile(c.path(key))
	return b, err == nil
}

// Put stores a response body under key.
func (c *Cache) Put(key string, resp []byte) error {
	if len(key) < 2 {
		return fmt.Errorf("llm: cache: bad key %q", key)
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("llm: cache: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("llm: cache: %w", err)
	}
	_, err = f.Write(resp)
	if cErr := f.Close(); err == nil {
		err = cErr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("llm: cache: %w", err)
	}
	return nil
}
