package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// PrivateSuite is an operator's suite of norms that are not public: loaded
// at start from a file that is never served (normgym serve
// --private-catalog), played only through sessions of submitter-key
// holders, never revealed in any answer (not even when a visit is over),
// and shown on the leaderboard as its own, contamination-resistant
// column. Its visits are stepped by the native core with the private
// catalog (sim.NewVisitIn); see serve/server/RATIONALE.md.
type PrivateSuite struct {
	// Name is the suite's name on the leaderboard ("private").
	Name string
	// Version changes with anything in the file.
	Version string
	Catalog *norms.Catalog
	Visits  []string
}

// privateFile is the format of a private suite file: norm families in
// the catalog's format (norms/catalog/README.md), and either the visits
// or the seeds to make them from.
type privateFile struct {
	// Name of the suite (default "private").
	Name string `json:"name"`
	// Families are catalog files' contents, one family each.
	Families []json.RawMessage `json:"families"`
	// Visits lists visit ids (world/norm/condition/sN) of these norms.
	Visits []string `json:"visits"`
	// Seeds make the visits instead: every norm × condition × seed, the
	// worlds taken in turn (defaults: observe and solo, every world).
	Seeds      []int    `json:"seeds"`
	Conditions []string `json:"conditions"`
	Worlds     []string `json:"worlds"`
}

// LoadPrivateSuite reads a private suite file (see privateFile and the
// README's operator section). Its norms must not be in the public
// catalog, so that a visit id says which catalog it belongs to.
func LoadPrivateSuite(data []byte) (*PrivateSuite, error) {
	var f privateFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("server: private suite: %w", err)
	}
	if f.Name == "" {
		f.Name = "private"
	}
	if slices.Contains(sim.SuiteNames(), f.Name) || !validLabel(f.Name) {
		return nil, fmt.Errorf("server: private suite: the name %q is taken by a public suite or is not a label (letters, digits, '.', '_', '-')", f.Name)
	}
	if len(f.Families) == 0 {
		return nil, fmt.Errorf("server: private suite: no families")
	}
	files := memFS{}
	for i, fam := range f.Families {
		files[fmt.Sprintf("%03d.json", i)] = fam
	}
	cat, err := norms.Load(files)
	if err != nil {
		return nil, fmt.Errorf("server: private suite: %w", err)
	}
	pub := norms.Default()
	for _, n := range cat.Norms() {
		if _, err := pub.Lookup(n.ID); err == nil {
			return nil, fmt.Errorf("server: private suite: norm %s is in the public catalog: give private norms ids of their own", n.ID)
		}
	}
	visits := f.Visits
	if len(visits) > 0 && len(f.Seeds) > 0 {
		return nil, fmt.Errorf("server: private suite: give visits or seeds, not both")
	}
	if len(visits) == 0 {
		conds := f.Conditions
		if len(conds) == 0 {
			conds = []string{sim.Observe, sim.Solo}
		}
		worlds := f.Worlds
		if len(worlds) == 0 {
			for _, w := range sim.Worlds() {
				worlds = append(worlds, w.Name)
			}
		}
		if len(f.Seeds) == 0 {
			return nil, fmt.Errorf("server: private suite: no visits and no seeds")
		}
		k := 0
		for _, n := range cat.Norms() {
			for _, c := range conds {
				for _, seed := range f.Seeds {
					visits = append(visits, worlds[k%len(worlds)]+"/"+n.ID+"/"+c+"/s"+strconv.Itoa(seed))
					k++
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, v := range visits {
		id, err := sim.ParseVisitIDIn(cat, v)
		if err != nil {
			return nil, fmt.Errorf("server: private suite: %w", err)
		}
		if id.Condition == sim.Control {
			return nil, fmt.Errorf("server: private suite: %s: control visits have no norm to keep private", v)
		}
		if seen[v] {
			return nil, fmt.Errorf("server: private suite: visit %s twice", v)
		}
		seen[v] = true
	}
	h := sha256.New()
	h.Write([]byte(cat.Version() + "\n" + strings.Join(visits, "\n")))
	return &PrivateSuite{Name: f.Name, Version: "p+" + hex.EncodeToString(h.Sum(nil))[:12], Catalog: cat, Visits: visits}, nil
}

// memFS is a flat in-memory file system of catalog files for norms.Load.
type memFS map[string][]byte

func (m memFS) Open(name string) (fs.File, error) {
	if name == "." {
		return &memDir{m: m}, nil
	}
	b, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{name: name, r: bytes.NewReader(b), size: int64(len(b))}, nil
}

// ReadDir lists the files in name order.
func (m memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	var out []fs.DirEntry
	for n, b := range m {
		out = append(out, fs.FileInfoToDirEntry(memInfo{n, int64(len(b))}))
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

func (m memFS) ReadFile(name string) ([]byte, error) {
	b, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return bytes.Clone(b), nil
}

type memFile struct {
	name string
	r    *bytes.Reader
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f.name, f.size}, nil }
func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Close() error               { return nil }

type memDir struct{ m memFS }

func (d *memDir) Stat() (fs.FileInfo, error) { return memInfo{".", 0}, nil }
func (d *memDir) Read([]byte) (int, error)   { return 0, io.EOF }
func (d *memDir) Close() error               { return nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.name == "." {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.name == "." }
func (i memInfo) Sys() any           { return nil }
