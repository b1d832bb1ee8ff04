package norms_test

import (
	"encoding/json"
	"io/fs"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/normgym/normgym/norms"
)

// catalogFiles reads the embedded catalog's files directly: each file's
// family and its templates' values, in file order. The tests compare the
// loaded catalog with them, so that adding a norm file needs no count
// edited anywhere.
func catalogFiles(t *testing.T) (families []string, sizes map[string]int) {
	t.Helper()
	entries, err := fs.ReadDir(norms.DefaultFiles(), ".")
	if err != nil {
		t.Fatal(err)
	}
	sizes = map[string]int{}
	for _, e := range entries {
		if path.Ext(e.Name()) != ".json" {
			continue
		}
		data, err := fs.ReadFile(norms.DefaultFiles(), e.Name())
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Family string `json:"family"`
			Norms  []struct {
				Values []string `json:"values"`
			} `json:"norms"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		families = append(families, f.Family)
		for _, tpl := range f.Norms {
			sizes[f.Family] += len(tpl.Values)
		}
	}
	return families, sizes
}

// TestDefaultLoads guards the embedded catalog: Default panics if it is
// broken. Its norms and families are those its files hold.
func TestDefaultLoads(t *testing.T) {
	c := norms.Default()
	families, sizes := catalogFiles(t)
	total := 0
	for _, n := range sizes {
		total += n
	}
	if got, want := len(c.Norms()), total; got != want || got == 0 {
		t.Errorf("len(Norms()) = %d, want %d (the files' values)", got, want)
	}
	if got, want := c.Families(), families; !slices.Equal(got, want) {
		t.Errorf("Families() = %q, want %q (the files' families, in file order)", got, want)
	}
	if got, want := c.Version(), `^`+norms.CatalogVersion+`\+[0-9a-f]{8}$`; !regexp.MustCompile(want).MatchString(got) {
		t.Errorf("Version() = %q, want it to match %s", got, want)
	}
}

func TestFamilySizes(t *testing.T) {
	c := norms.Default()
	families, sizes := catalogFiles(t)
	for _, fam := range append(families, "nosuch") {
		t.Run(fam, func(t *testing.T) {
			if got, want := len(c.Family(fam)), sizes[fam]; got != want {
				t.Errorf("len(Family(%q)) = %d, want %d", fam, got, want)
			}
		})
	}
}

func TestCatalogNorms(t *testing.T) {
	c := norms.Default()
	all := c.Norms()
	ids := map[string]bool{}
	var order []string // families in the order the norms list them
	for _, n := range all {
		t.Run(n.ID, func(t *testing.T) {
			if ids[n.ID] {
				t.Errorf("duplicate id %q", n.ID)
			}
			ids[n.ID] = true
			family, key, value, err := norms.ParseID(n.ID)
			if err != nil {
				t.Fatalf("ParseID(%q): %v", n.ID, err)
			}
			if got, want := [3]string{family, key, value}, [3]string{n.Family, n.Key, n.Value}; got != want {
				t.Errorf("ParseID(%q) = %q, want %q", n.ID, got, want)
			}
			if got, want := n.Deontic, n.Rule.Deontic; got != want {
				t.Errorf("Deontic = %q, want the rule's %q", got, want)
			}
			if n.Tag != norms.TagCommonsense && n.Tag != norms.TagCounterintuitive {
				t.Errorf("Tag = %q, want commonsense or counterintuitive", n.Tag)
			}
			if n.Statement == "" {
				t.Error("empty statement")
			}
			got, err := c.Lookup(n.ID)
			if err != nil {
				t.Fatalf("Lookup(%q): %v", n.ID, err)
			}
			if !reflect.DeepEqual(got, n) {
				t.Errorf("Lookup(%q) = %+v, want %+v", n.ID, got, n)
			}
		})
		if len(order) == 0 || order[len(order)-1] != n.Family {
			order = append(order, n.Family)
		}
	}
	if got, want := order, c.Families(); !slices.Equal(got, want) {
		t.Errorf("Norms() lists families %q, want them grouped in order %q", got, want)
	}
	if got, want := len(all), 36; got < want {
		t.Errorf("len(Norms()) = %d, want at least %d", got, want)
	}
	for _, f := range c.Families() {
		if got, want := len(c.Family(f)), 3; got < want {
			t.Errorf("len(Family(%q)) = %d, want at least %d", f, got, want)
		}
	}
}

func TestCatalogEntries(t *testing.T) {
	tests := []struct {
		id, rule, statement, tag string
	}{
		{"place.color=red", "forbid step color=red", "Do not step on red tiles.", "counterintuitive"},
		{"place.terrain=grass", "forbid step terrain=grass", "Keep off the grass.", "commonsense"},
		{"place.zone=plaza", "forbid enter zone=plaza", "Do not go into the plaza.", "counterintuitive"},
		{"resource.carry=1", "forbid carry over=1", "Never carry more than one thing at once.", "commonsense"},
		{"time.rest=noon", "forbid step phase=noon", "Rest at noon: do not walk anywhere then.", "commonsense"},
		{"order.bell=market", "require use object=bell before enter zone=market", "Ring the bell before you go into the market.", "counterintuitive"},
		{"order.well=pick", "require use object=well before pick", "Wash at the well before you take anything.", "commonsense"},
		{"social.greet=elder", "require bow after meet role=elder", "Bow whenever you and the elder come next to each other.", "commonsense"},
		{"social.avoid=green", "forbid pass hat=green", "Do not walk next to anyone wearing a green hat.", "counterintuitive"},
		{"direction.path=west", "forbid step terrain=path dir=west", "Paths are one-way: never walk west onto a path.", "counterintuitive"},
		{"disposal.at=bin", "forbid litter except object=bin", "Put things on the ground only at the bin.", "commonsense"},
		{"disposal.at=sand", "forbid litter except terrain=sand", "Put things on the ground only on sand.", "counterintuitive"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			n, err := norms.Default().Lookup(tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := n.Rule.String(), tt.rule; got != want {
				t.Errorf("Rule = %q, want %q", got, want)
			}
			if got, want := n.Statement, tt.statement; got != want {
				t.Errorf("Statement = %q, want %q", got, want)
			}
			if got, want := n.Tag, tt.tag; got != want {
				t.Errorf("Tag = %q, want %q", got, want)
			}
		})
	}
}

func TestLookupUnknown(t *testing.T) {
	for _, id := range []string{norms.NoNorm, "", "place.color=purple", "x"} {
		t.Run(id, func(t *testing.T) {
			_, err := norms.Default().Lookup(id)
			if err == nil {
				t.Fatalf("Lookup(%q) succeeded, want an error", id)
			}
			if got, want := err.Error(), "norms: unknown norm "; !strings.HasPrefix(got, want) {
				t.Errorf("Error() = %q, want prefix %q", got, want)
			}
		})
	}
}

func TestCatalogReturnsCopies(t *testing.T) {
	c := norms.Default()
	c.Norms()[0].ID = "changed"
	c.Families()[0] = "changed"
	c.Family("place")[0].Statement = "changed"
	if got, want := c.Norms()[0].ID, "place.color=red"; got != want {
		t.Errorf("Norms()[0].ID = %q after a caller's change, want %q", got, want)
	}
	if got, want := c.Families()[0], "place"; got != want {
		t.Errorf("Families()[0] = %q after a caller's change, want %q", got, want)
	}
	if got, want := c.Family("place")[0].Statement, "Do not step on red tiles."; got != want {
		t.Errorf("Family(place)[0].Statement = %q after a caller's change, want %q", got, want)
	}
}

func TestParseID(t *testing.T) {
	tests := []struct {
		id                 string
		family, key, value string
		ok                 bool
	}{
		{"place.color=blue", "place", "color", "blue", true},
		{"resource.carry=1", "resource", "carry", "1", true},
		{"a-b.c_d=e", "a-b", "c_d", "e", true},
		{norms.NoNorm, "", "", "", false},
		{"", "", "", "", false},
		{"place.color", "", "", "", false},
		{"place=blue", "", "", "", false},
		{".color=blue", "", "", "", false},
		{"place.=blue", "", "", "", false},
		{"place.color=", "", "", "", false},
		{"place.color=blue=red", "", "", "", false},
		{"a.b.color=blue", "", "", "", false},
		{"Place.color=blue", "", "", "", false},
		{"place.color=bl ue", "", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			family, key, value, err := norms.ParseID(tt.id)
			if got, want := err == nil, tt.ok; got != want {
				t.Fatalf("ParseID(%q) error = %v, want ok=%v", tt.id, err, want)
			}
			if err != nil {
				if got, want := err.Error(), "norms: malformed norm id"; !strings.HasPrefix(got, want) {
					t.Errorf("Error() = %q, want prefix %q", got, want)
				}
				return
			}
			if got, want := [3]string{family, key, value}, [3]string{tt.family, tt.key, tt.value}; got != want {
				t.Errorf("ParseID(%q) = %q, want %q", tt.id, got, want)
			}
		})
	}
}

func TestNormJSON(t *testing.T) {
	n, err := norms.Default().Lookup("order.bell=market")
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	if got, want := fields["rule"], any("require use object=bell before enter zone=market"); got != want {
		t.Errorf(`JSON "rule" = %v, want %q`, got, want)
	}
	for _, k := range []string{"id", "family", "key", "value", "deontic", "statement", "tag"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("JSON %s lacks %q", data, k)
		}
	}
	var back norms.Norm
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, n) {
		t.Errorf("JSON round trip = %+v, want %+v", back, n)
	}
	bad := strings.Replace(string(data), "object=bell", "object=bel", 1)
	if err := json.Unmarshal([]byte(bad), &back); err == nil || !strings.Contains(err.Error(), "column 20") {
		t.Errorf("Unmarshal with a bad rule = %v, want an error at column 20", err)
	}
}

// family writes a catalog file of one template: forbid verb color={value}.
func family(name, verb string, values ...string) string {
	v, _ := json.Marshal(values)
	return `{"family": "` + name + `", "norms": [{"key": "color", "values": ` + string(v) +
		`, "rule": "forbid ` + verb + ` color={value}", "statement": "No {value}.", "tag": "commonsense"}]}`
}

func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"b.json":      {Data: []byte(family("second", "pick", "red", "blue", "yellow", "green"))},
		"a.json":      {Data: []byte(family("first", "step", "red", "blue", "yellow", "green"))},
		"README.md":   {Data: []byte("not a catalog file")},
		"sub/c.json":  {Data: []byte("not read")},
		"skip.json/x": {Data: []byte("a directory named .json")},
	}
	c, err := norms.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Families(), []string{"first", "second"}; !slices.Equal(got, want) {
		t.Errorf("Families() = %q, want %q", got, want)
	}
	n, err := c.Lookup("second.color=green")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n.Statement, "No green."; got != want {
		t.Errorf("Statement = %q, want %q", got, want)
	}
	fsys["a.json"] = &fstest.MapFile{Data: []byte(family("first", "step", "red", "blue", "yellow", "green") + "\n")}
	c2, err := norms.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Version() == c.Version() {
		t.Errorf("Version() = %q for different files, want a change", c.Version())
	}
}

func TestLoadErrors(t *testing.T) {
	good := family("good", "step", "red", "blue", "yellow", "green")
	tmpl := func(fields string) string {
		return `{"family": "f", "norms": [{"key": "k", "values": ["red", "blue", "yellow", "green"], ` + fields + `}]}`
	}
	const ok = `"rule": "forbid step color={value}", "statement": "No {value}.", "tag": "commonsense"`
	tests := []struct {
		name  string
		files map[string]string
		want  []string // substrings of the error
	}{
		{"no files", map[string]string{"README.md": "x"}, []string{"norms: catalog: no *.json files"}},
		{"bad JSON", map[string]string{"x.json": "{\n\"family\": \"f\",\n\"norms\": [,]}"}, []string{"norms: catalog x.json: line 3:"}},
		{"truncated JSON", map[string]string{"x.json": "{\n\"family\": \"f\",\n"}, []string{"x.json: line 3: unexpected end"}},
		{"wrong type", map[string]string{"x.json": "{\"family\": \"f\",\n\"norms\": [{\"values\": \"red\"}]}"}, []string{"x.json: line 2:"}},
		{"unknown field", map[string]string{"x.json": tmpl(ok + `, "colour": 1`)}, []string{"x.json", `unknown field "colour"`}},
		{"trailing data", map[string]string{"x.json": good + " {}"}, []string{"x.json: line 1: unexpected data"}},
		{"bad family name", map[string]string{"x.json": strings.Replace(good, `"good"`, `"Good"`, 1)}, []string{"x.json", `family "Good"`}},
		{"bad rule", map[string]string{"x.json": tmpl(strings.Replace(ok, "step", "stpe", 1))}, []string{"x.json", "norm f.k=red", `rule "forbid stpe color=red": column 8: unknown verb "stpe"`}},
		{"rule not canonical", map[string]string{"x.json": tmpl(strings.Replace(ok, "step ", "step  ", 1))}, []string{"x.json", "not canonical"}},
		{"empty values", map[string]string{"x.json": `{"family": "f", "norms": [{"key": "k", "values": [], ` + ok + `}]}`}, []string{"x.json", "empty values"}},
		{"unknown tag", map[string]string{"x.json": tmpl(strings.Replace(ok, "commonsense", "obvious", 1))}, []string{"x.json", `unknown tag "obvious"`}},
		{"unknown tag for a value", map[string]string{"x.json": tmpl(ok + `, "tags": {"blue": "odd"}`)}, []string{"x.json", "norm f.k=blue", `unknown tag "odd"`}},
		{"tags for a missing value", map[string]string{"x.json": tmpl(ok + `, "tags": {"pink": "commonsense"}`)}, []string{"x.json", `tags: "pink" is not one of the values`}},
		{"rule and rules", map[string]string{"x.json": tmpl(ok + `, "rules": {}`)}, []string{"x.json", `exactly one of "rule" and "rules"`}},
		{"no statement", map[string]string{"x.json": tmpl(`"rule": "forbid step color={value}", "tag": "commonsense"`)}, []string{"x.json", `exactly one of "statement" and "statements"`}},
		{"rules missing a value", map[string]string{"x.json": tmpl(`"rules": {"red": "forbid step color=red"}, "statement": "No {value}.", "tag": "commonsense"`)}, []string{"x.json", "norm f.k=blue: rules has no entry"}},
		{"too few norms", map[string]string{"x.json": family("small", "step", "red", "blue")}, []string{"x.json", `family "small" has 2 norms, want at least 3`}},
		{"duplicate value", map[string]string{"x.json": family("f", "step", "red", "blue", "yellow", "red")}, []string{"x.json", "same statement"}},
		{"duplicate id across templates", map[string]string{"x.json": `{"family": "f", "norms": [` +
			`{"key": "k", "values": ["red", "blue"], "rule": "forbid step color={value}", "statement": "No {value}.", "tag": "commonsense"},` +
			`{"key": "k", "values": ["red", "blue"], "rule": "forbid pick color={value}", "statement": "Take no {value}.", "tag": "commonsense"}]}`},
			[]string{"x.json", `duplicate norm id "f.k=red"`}},
		{"duplicate rule", map[string]string{"x.json": tmpl(strings.Replace(ok, "color={value}", "color=red", 1))}, []string{"x.json", "has the same rule as f.k=red"}},
		{"bad value name", map[string]string{"x.json": `{"family": "f", "norms": [{"key": "k", "values": ["a b"], ` + ok + `}]}`}, []string{"x.json", `value "a b"`}},
		{"family in two files", map[string]string{"a.json": good, "b.json": good}, []string{"b.json", `family "good" is also in another file`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, data := range tt.files {
				fsys[name] = &fstest.MapFile{Data: []byte(data)}
			}
			c, err := norms.Load(fsys)
			if err == nil {
				t.Fatalf("Load succeeded with %d norms, want an error", len(c.Norms()))
			}
			if got, want := err.Error(), "norms: "; !strings.HasPrefix(got, want) {
				t.Errorf("Error() = %q, want prefix %q", got, want)
			}
			for _, want := range tt.want {
				if got := err.Error(); !strings.Contains(got, want) {
					t.Errorf("Error() = %q, want it to contain %q", got, want)
				}
			}
		})
	}
}

// TestCatalogBalance: the catalog is broad and balanced (issue: "the norm
// space"): at least 60 norms in at least 8 families, at least a third of
// them commonsense and a third counter-intuitive, and a harder tier of
// compound norms in families of their own.
func TestCatalogBalance(t *testing.T) {
	c := norms.Default()
	all := c.Norms()
	tags := map[string]int{}
	tier2, compound := 0, 0
	for _, n := range all {
		tags[n.Tag]++
		if n.Tier == 2 {
			tier2++
		}
		if len(n.Rules()) > 1 {
			compound++
		}
	}
	tests := []struct {
		what      string
		got, want int
	}{
		{"norms", len(all), 60},
		{"families", len(c.Families()), 8},
		{"commonsense norms × 3", 3 * tags[norms.TagCommonsense], len(all)},
		{"counter-intuitive norms × 3", 3 * tags[norms.TagCounterintuitive], len(all)},
		{"harder-tier norms", tier2, 1},
		{"compound norms", compound, 1},
	}
	for _, tc := range tests {
		if tc.got < tc.want {
			t.Errorf("%s = %d, want at least %d", tc.what, tc.got, tc.want)
		}
	}
	for _, fam := range c.Families() {
		ns := c.Family(fam)
		for _, n := range ns[1:] {
			if n.Tier != ns[0].Tier {
				t.Errorf("family %s mixes tiers %d and %d", fam, ns[0].Tier, n.Tier)
			}
		}
	}
}
