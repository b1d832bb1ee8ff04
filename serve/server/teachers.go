package server

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim/agents"
	"os"
	"strings"
	"sync"
	"time"
)

// TeacherKeys says which bearer keys may create rooms. Label returns the
// name the operator gave the key (kept with the rooms it creates) and
// whether the key is one of them.
type TeacherKeys interface {
	Label(key string) (label string, ok bool)
}

// KeySet is a TeacherKeys held as SHA-256 hashes: hex hash → label.
type KeySet map[string]string

// Label implements TeacherKeys.
func (k KeySet) Label(key string) (string, bool) {
	if key == "" {
		return "", false
	}
	sum := sha256.Sum256([]byte(key))
	label, ok := k[hex.EncodeToString(sum[:])]
	return label, ok
}

// NewTeacherKey returns a new random key (256 bits, "ngt_…") and the line
// of a teacher-key file that admits it under label: the label and the
// key's SHA-256, so that the file holds no secret.
func NewTeacherKey(label string) (key, line string, err error) {
	if !validLabel(label) {
		return "", "", fmt.Errorf("server: a teacher key's label must be 1 to 40 letters, digits, '.', '_' or '-' (a name for the operator, such as school-3; no email)")
	}
	return newKey("ngt_", label)
}

// NewSubmitterKey returns a new random submitter key (256 bits, "ngk_…")
// and the line of a submitter-key file (the same format as teacher keys:
// the label and the key's SHA-256) that admits it under label. The label
// is the name of the key's runs on the leaderboard: the model's name.
func NewSubmitterKey(label string) (key, line string, err error) {
	if !validLabel(label) {
		return "", "", fmt.Errorf("server: a submitter key's label must be 1 to 40 letters, digits, '.', '_' or '-' (the name its runs carry on the leaderboard, such as gpt-5-mini or lab-7.agent)")
	}
	if err := api.CheckModelName(label, agents.Names()); err != nil {
		return "", "", fmt.Errorf("server: a submitter key's label names its model's row: %w", err)
	}
	return newKey("ngk_", label)
}

func newKey(prefix, label string) (key, line string, err error) {
	b := make([]byte, 32)
	rand.Read(b)
	key = prefix + base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(key))
	return key, label + " " + hex.EncodeToString(sum[:]), nil
}

func validLabel(s string) bool {
	if len(s) == 0 || len(s) > 40 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ParseTeacherKeys reads a teacher-key file: one "LABEL SHA256HEX" per
// line (what NewTeacherKey prints), blank lines and lines starting with
// '#' ignored.
func ParseTeacherKeys(text string) (KeySet, error) {
	out := KeySet{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || !validLabel(f[0]) || len(f[1]) != 64 || strings.Trim(strings.ToLower(f[1]), "0123456789abcdef") != "" {
			return nil, fmt.Errorf("server: teacher keys, line %d: want \"LABEL SHA256HEX\" (normgym teacher-key LABEL prints one)", n)
		}
		out[strings.ToLower(f[1])] = f[0]
	}
	return out, sc.Err()
}

// TeacherKeyFile returns the TeacherKeys of a file (ParseTeacherKeys),
// read again when it changes (checked at most once a second), so that
// an operator adds or revokes a key without a restart. It fails if the
// file cannot be read now; a later read error keeps the last good keys
// and is reported to onError.
func TeacherKeyFile(path string, onError func(error)) (TeacherKeys, error) {
	f := &keyFile{path: path, onError: onError}
	if err := f.load(); err != nil {
		return nil, err
	}
	return f, nil
}

type keyFile struct {
	path    string
	onError func(error)

	mu      sync.Mutex
	keys    KeySet
	mod     time.Time
	size    int64
	checked time.Time
}

func (f *keyFile) load() error {
	fi, err := os.Stat(f.path)
	if err != nil {
		return fmt.Errorf("server: teacher keys: %w", err)
	}
	if fi.ModTime().Equal(f.mod) && fi.Size() == f.size && f.keys != nil {
		return nil
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		return fmt.Errorf("server: teacher keys: %w", err)
	}
	keys, err := ParseTeacherKeys(string(b))
	if err != nil {
		return fmt.Errorf("%w (in %s)", err, f.path)
	}
	f.keys, f.mod, f.size = keys, fi.ModTime(), fi.Size()
	return nil
}

// Label implements TeacherKeys.
func (f *keyFile) Label(key string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if now := time.Now(); now.Sub(f.checked) >= time.Second {
		f.checked = now
		if err := f.load(); err != nil && f.onError != nil {
			f.onError(err)
		}
	}
	return f.keys.Label(key)
}
