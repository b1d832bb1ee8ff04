package norms

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
)

// CatalogVersion is the version of the catalog's format and semantics.
// Catalog.Version appends a hash of the catalog files to it.
//
// Version 2: no fixed distractors (the sim draws a visit's probe options
// from the whole catalog); families of at least three norms; the social
// family's greeting is "meet" (whoever moved) and its avoidance "pass";
// time is about resting; statements name things as every world's legend
// does.
const CatalogVersion = "2"

// minFamily is the fewest norms a family may have: several parameter
// values, so that a family is never a single guessable rule.
const minFamily = 3

// NoNorm is the norm id of control visits, which have no norm.
// It is not in any catalog: Lookup(NoNorm) fails.
const NoNorm = "none"

// The tags that say whether a norm agrees with common sense.
const (
	TagCommonsense      = "commonsense"
	TagCounterintuitive = "counterintuitive"
)

// Norm is one entry of the catalog.
type Norm struct {
	ID        string  `json:"id"`      // "family.key=value", e.g. "place.color=blue"
	Family    string  `json:"family"`  // e.g. "place"
	Key       string  `json:"key"`     // the family's parameter, e.g. "color"
	Value     string  `json:"value"`   // the parameter's value, e.g. "blue"
	Deontic   Deontic `json:"deontic"` // Rule.Deontic
	Rule      Rule    `json:"rule"`    // the machine form; JSON holds its canonical text
	Statement string  `json:"statement"`
	Tag       string  `json:"tag"` // TagCommonsense or TagCounterintuitive
	// Also holds a compound norm's further rules ("A and B": Also is
	// [B]); every one must be kept. JSON writes them in "rule" after Rule.
	Also []Rule `json:"-"`
	// Tier is 1 for the catalog's norms of one feature of one act, 2 for
	// the harder tier (compound and conditional norms), which the public
	// suites other than the harder tier's leave out.
	Tier int `json:"tier"`
}

// Rules returns every rule of the norm: Rule, then Also.
func (n Norm) Rules() []Rule { return append([]Rule{n.Rule}, n.Also...) }

// RuleText is the canonical text of all the norm's rules, joined by
// " and " (ParseRules reads it back).
func (n Norm) RuleText() string { return JoinRules(n.Rules()) }

// normJSON is Norm's JSON form, with the rule as text.
type normJSON struct {
	ID        string  `json:"id"`
	Family    string  `json:"family"`
	Key       string  `json:"key"`
	Value     string  `json:"value"`
	Deontic   Deontic `json:"deontic"`
	Rule      string  `json:"rule"`
	Statement string  `json:"statement"`
	Tag       string  `json:"tag"`
	Tier      int     `json:"tier,omitempty"`
}

// MarshalJSON writes the norm with its rules as canonical text under
// "rule", and its tier when it is not 1.
func (n Norm) MarshalJSON() ([]byte, error) {
	tier := n.Tier
	if tier == 1 {
		tier = 0
	}
	return json.Marshal(normJSON{n.ID, n.Family, n.Key, n.Value, n.Deontic,
		n.RuleText(), n.Statement, n.Tag, tier})
}

// UnmarshalJSON reads what MarshalJSON writes; the rule text must parse.
func (n *Norm) UnmarshalJSON(data []byte) error {
	var j normJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	rs, err := ParseRules(j.Rule)
	if err != nil {
		return fmt.Errorf("norms: norm %s: %s", quote(j.ID), ruleProblem(j.Rule, err))
	}
	tier := j.Tier
	if tier == 0 {
		tier = 1
	}
	*n = Norm{ID: j.ID, Family: j.Family, Key: j.Key, Value: j.Value, Deontic: j.Deontic, Rule: rs[0],
		Statement: j.Statement, Tag: j.Tag, Also: rs[1:], Tier: tier}
	if len(n.Also) == 0 {
		n.Also = nil
	}
	return nil
}

// Catalog is a read-only set of norms grouped in families. Its methods
// return copies and are safe for concurrent use.
type Catalog struct {
	norms    []Norm
	families []string
	byID     map[string]int
	version  string
}

//go:embed catalog/*.json
var embedded embed.FS

// The default catalog, loaded on first use. (Not a package-level
// sync.OnceValue: its initialiser would keep the embedded files in every
// program that links the package, and the browser app, which links it
// for its types only, must not carry the catalog; see web/app.)
var (
	defaultOnce sync.Once
	defaultCat  *Catalog
)

// Default returns the catalog embedded in the package, loaded on first use.
// It panics only if the embedded files are broken, which a test rules out.
func Default() *Catalog {
	defaultOnce.Do(func() {
		sub, err := fs.Sub(embedded, "catalog")
		if err != nil {
			panic(err)
		}
		c, err := Load(sub)
		if err != nil {
			panic(err)
		}
		defaultCat = c
	})
	return defaultCat
}

// DefaultFiles returns the files of the embedded catalog (what Default
// loads), for callers that load them together with others: a
// researcher's norm file checked as part of the catalog, say.
func DefaultFiles() fs.FS {
	sub, err := fs.Sub(embedded, "catalog")
	if err != nil {
		panic(err) // the embedded directory exists: TestDefaultLoads
	}
	return sub
}

// Version returns CatalogVersion, "+", and the first 8 hex digits of a
// SHA-256 over the catalog files' names and contents, e.g. "1+ab12cd34".
func (c *Catalog) Version() string { return c.version }

// Norms returns all norms, family by family in file order.
func (c *Catalog) Norms() []Norm { return slices.Clone(c.norms) }

// Families returns the family names in file order.
func (c *Catalog) Families() []string { return slices.Clone(c.families) }

// Family returns the norms of the named family in order, or nil if there is none.
func (c *Catalog) Family(name string) []Norm {
	var out []Norm
	for _, n := range c.norms {
		if n.Family == name {
			out = append(out, n)
		}
	}
	return out
}

// Lookup returns the norm with the given id. NoNorm is never found.
func (c *Catalog) Lookup(id string) (Norm, error) {
	i, ok := c.byID[id]
	if !ok {
		return Norm{}, fmt.Errorf("norms: unknown norm %s", quote(id))
	}
	return c.norms[i], nil
}

// ParseID splits a norm id "family.key=value" into its parts. Each part is
// non-empty and made of lower-case letters, digits, '-' and '_'.
// ParseID does not consult a catalog; NoNorm is not a valid id.
func ParseID(id string) (family, key, value string, err error) {
	family, rest, ok1 := strings.Cut(id, ".")
	key, value, ok2 := strings.Cut(rest, "=")
	if !ok1 || !ok2 || !isName(family) || !isName(key) || !isName(value) {
		return "", "", "", fmt.Errorf("norms: malformed norm id %s (want family.key=value)", quote(id))
	}
	return family, key, value, nil
}

// isName reports whether s is a non-empty run of [a-z0-9_-].
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// fileJSON is the format of one catalog file; see catalog/README.md.
type fileJSON struct {
	Family string `json:"family"`
	// Tier is the family's tier: 1 (the default) or 2, the harder tier.
	Tier  int            `json:"tier"`
	Norms []templateJSON `json:"norms"`
}

type templateJSON struct {
	Key        string            `json:"key"`
	Values     []string          `json:"values"`
	Rule       string            `json:"rule"`
	Rules      map[string]string `json:"rules"`
	Statement  string            `json:"statement"`
	Statements map[string]string `json:"statements"`
	Tag        string            `json:"tag"`
	Tags       map[string]string `json:"tags"`
}

// Load reads a catalog from every *.json file at the root of fsys, in
// file-name order; each file is one family (see catalog/README.md).
// Errors name the file and the problem. Load reads nothing else.
func Load(fsys fs.FS) (*Catalog, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("norms: catalog: %w", err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".json" {
			continue
		}
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("norms: catalog %s: %w", e.Name(), err)
		}
		files[e.Name()] = data
	}
	return LoadFiles(files)
}

// LoadFiles is Load for catalog files held in memory: files maps each
// file's name to its contents, and the files are read in name order
// (names need not end in .json).
func LoadFiles(files map[string][]byte) (*Catalog, error) {
	c := &Catalog{byID: map[string]int{}}
	h := sha256.New()
	rules := map[string]string{} // canonical rule -> id
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
		fam, err := expandFile(name, data)
		if err != nil {
			return nil, err
		}
		if slices.Contains(c.families, fam[0].Family) {
			return nil, fmt.Errorf("norms: catalog %s: family %q is also in another file", name, fam[0].Family)
		}
		for _, n := range fam {
			if _, dup := c.byID[n.ID]; dup {
				return nil, fmt.Errorf("norms: catalog %s: duplicate norm id %q", name, n.ID)
			}
			text := n.RuleText()
			if other, dup := rules[text]; dup {
				return nil, fmt.Errorf("norms: catalog %s: norm %s has the same rule as %s: %q", name, n.ID, other, text)
			}
			rules[text] = n.ID
			c.byID[n.ID] = len(c.norms)
			c.norms = append(c.norms, n)
		}
		c.families = append(c.families, fam[0].Family)
	}
	if len(c.families) == 0 {
		return nil, errors.New("norms: catalog: no *.json files")
	}
	c.version = CatalogVersion + "+" + hex.EncodeToString(h.Sum(nil))[:8]
	return c, nil
}

// expandFile decodes one catalog file and expands its templates into
// norms. The result has at least minFamily norms.
func expandFile(name string, data []byte) ([]Norm, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("norms: catalog %s: "+format, append([]any{name}, args...)...)
	}
	var f fileJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&f)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			return nil, fail("line %d: unexpected data after the top-level object", lineOf(data, dec.InputOffset()))
		}
	}
	if err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fail("line %d: %v", lineOf(data, se.Offset), err)
		case errors.As(err, &te):
			return nil, fail("line %d: %v", lineOf(data, te.Offset), err)
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fail("line %d: unexpected end of JSON", lineOf(data, int64(len(data))))
		default:
			return nil, fail("%v", err)
		}
	}
	if !isName(f.Family) {
		return nil, fail("family %q: want a name of lower-case letters, digits, '-' or '_'", f.Family)
	}
	switch f.Tier {
	case 0:
		f.Tier = 1
	case 1, 2:
	default:
		return nil, fail("tier %d: want 1 or 2", f.Tier)
	}
	var out []Norm
	for i, t := range f.Norms {
		ns, err := expandTemplate(f.Family, t)
		if err != nil {
			return nil, fail("norms[%d] (key %q): %v", i, t.Key, err)
		}
		for k := range ns {
			ns[k].Tier = f.Tier
		}
		out = append(out, ns...)
	}
	if len(out) < minFamily {
		return nil, fail("family %q has %d norms, want at least %d", f.Family, len(out), minFamily)
	}
	seen := map[string]string{}
	for _, n := range out {
		if other, dup := seen[n.Statement]; dup {
			return nil, fail("norms %s and %s have the same statement %q", other, n.ID, n.Statement)
		}
		seen[n.Statement] = n.ID
	}
	return out, nil
}

// expandTemplate turns one template into one norm per value.
// Its errors carry no prefix; expandFile adds it.
func expandTemplate(family string, t templateJSON) ([]Norm, error) {
	if !isName(t.Key) {
		return nil, fmt.Errorf("key %q: want a name of lower-case letters, digits, '-' or '_'", t.Key)
	}
	if len(t.Values) == 0 {
		return nil, errors.New("empty values")
	}
	if (t.Rule == "") == (t.Rules == nil) {
		return nil, errors.New(`want exactly one of "rule" and "rules"`)
	}
	if (t.Statement == "") == (t.Statements == nil) {
		return nil, errors.New(`want exactly one of "statement" and "statements"`)
	}
	for _, m := range []struct {
		field string
		per   map[string]string
	}{{"rules", t.Rules}, {"statements", t.Statements}, {"tags", t.Tags}} {
		for _, v := range slices.Sorted(maps.Keys(m.per)) {
			if !slices.Contains(t.Values, v) {
				return nil, fmt.Errorf("%s: %q is not one of the values", m.field, v)
			}
		}
	}
	var out []Norm
	for _, v := range t.Values {
		if !isName(v) {
			return nil, fmt.Errorf("value %q: want a name of lower-case letters, digits, '-' or '_'", v)
		}
		id := family + "." + t.Key + "=" + v
		pick := func(field, one string, per map[string]string) (string, error) {
			s := one
			if per != nil {
				var ok bool
				if s, ok = per[v]; !ok {
					return "", fmt.Errorf("norm %s: %s has no entry for %q", id, field, v)
				}
			}
			s = strings.ReplaceAll(s, "{value}", v)
			if strings.TrimSpace(s) == "" {
				return "", fmt.Errorf("norm %s: empty %s", id, field)
			}
			return s, nil
		}
		text, err := pick("rules", t.Rule, t.Rules)
		if err != nil {
			return nil, err
		}
		statement, err := pick("statements", t.Statement, t.Statements)
		if err != nil {
			return nil, err
		}
		rs, err := ParseRules(text)
		if err != nil {
			return nil, fmt.Errorf("norm %s: %s", id, ruleProblem(text, err))
		}
		if got := JoinRules(rs); got != text {
			return nil, fmt.Errorf("norm %s: rule %q is not canonical, write %q", id, text, got)
		}
		r := rs[0]
		var also []Rule
		if len(rs) > 1 {
			also = rs[1:]
		}
		tag := t.Tag
		if tv, ok := t.Tags[v]; ok {
			tag = tv
		}
		if tag != TagCommonsense && tag != TagCounterintuitive {
			return nil, fmt.Errorf("norm %s: unknown tag %q (want %s or %s)", id, tag, TagCommonsense, TagCounterintuitive)
		}
		out = append(out, Norm{ID: id, Family: family, Key: t.Key, Value: v, Deontic: r.Deontic,
			Rule: r, Statement: statement, Tag: tag, Also: also})
	}
	return out, nil
}

// lineOf returns the 1-based line of byte offset off in data.
func lineOf(data []byte, off int64) int {
	off = max(0, min(off, int64(len(data))))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// ruleProblem describes a Parse error of text without the package prefix.
func ruleProblem(text string, err error) string {
	var se *SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("rule %s: column %d: %s", quote(text), se.Pos, se.Msg)
	}
	return fmt.Sprintf("rule %s: %v", quote(text), err)
}
