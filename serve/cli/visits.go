package cli

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// visitFlags choose the visits a command runs: a suite, narrowed to the
// ids a file lists and by a filter, then cut to the first N or drawn N at
// random, stratified over norm × condition × world (sim.Sample). run, eval
// and demos share them, so one --sample and --seed choose the same visits
// for each.
type visitFlags struct {
	suite, file, filter, catalogFile *string
	limit, sample                    *int
	seed                             *uint64
	fs                               *flag.FlagSet
	// catalog holds the norms of a --catalog file once resolved (nil:
	// the public catalog).
	catalog *norms.Catalog
}

// addVisitFlags registers --suite, --visits, --filter, --limit, --sample
// and --seed on fs; verb says what the command does with a visit ("run",
// "write").
func addVisitFlags(fs *flag.FlagSet, defaultSuite, verb string) *visitFlags {
	return &visitFlags{
		fs: fs,
		catalogFile: fs.String("catalog", "", "a private suite file (what \"normgym norms generate\" writes; serve --private-catalog's format):\n"+
			verb+" its visits, on its norms, on the native core, instead of --suite's"),
		sample: fs.Int("sample", 0, verb+" N visits of the chosen ones drawn at random, stratified over norm × condition (and world):\n"+
			"every norm once before any twice, each norm's conditions and the worlds as even as they can be (0: all)"),
		seed:  fs.Uint64("seed", 0, "with --sample: the draw's seed; the same --sample and --seed give the same visits in run, eval and demos"),
		suite: fs.String("suite", defaultSuite, "suite whose visits to "+verb+" (see normgym suites)"),
		file: fs.String("visits", "", "file of visit ids, one a line ('#' comments): "+verb+
			" only these (in the file's order; they must belong to --suite)"),
		filter: fs.String("filter", "", "keep visits matching every KEY=VALUE[|VALUE…], comma-separated; keys: "+
			"condition, variant, family, norm, world (e.g. condition=observe|solo,family=place)"),
		limit: fs.Int("limit", 0, verb+" only the first N of the chosen visits (0: all)"),
	}
}

// resolve returns the suite and the visits the flags choose. Errors are
// usage errors that say what to fix.
func (v *visitFlags) resolve() (sim.Suite, []string, error) {
	suite, err := v.lookup()
	if err != nil {
		return sim.Suite{}, nil, err
	}
	visits := suite.Visits
	if *v.file != "" {
		if visits, err = readVisitFile(*v.file, suite); err != nil {
			return sim.Suite{}, nil, err
		}
	}
	if *v.filter != "" {
		keep, err := parseVisitFilter(*v.filter)
		if err != nil {
			return sim.Suite{}, nil, err
		}
		var out []string
		for _, id := range visits {
			if keep(id) {
				out = append(out, id)
			}
		}
		visits = out
	}
	if *v.limit < 0 {
		return sim.Suite{}, nil, usageError("--limit must not be negative")
	}
	switch {
	case *v.sample < 0:
		return sim.Suite{}, nil, usageError("--sample must not be negative")
	case *v.sample > 0 && *v.limit > 0:
		return sim.Suite{}, nil, usageError("give --sample (a stratified draw) or --limit (the first N), not both")
	case *v.seed != 0 && *v.sample == 0:
		return sim.Suite{}, nil, usageError("--seed is the seed of --sample's draw: give --sample N too")
	}
	if *v.sample > 0 {
		visits = sim.Sample(visits, *v.sample, *v.seed)
	}
	if *v.limit > 0 && *v.limit < len(visits) {
		visits = visits[:*v.limit]
	}
	if len(visits) == 0 {
		return sim.Suite{}, nil, usageError("no visit of suite %s matches --visits/--filter", suite.Name)
	}
	return suite, visits, nil
}

// lookup returns the suite --suite names, or the private suite of
// --catalog (whose catalog it keeps in v.catalog).
func (v *visitFlags) lookup() (sim.Suite, error) {
	if *v.catalogFile == "" {
		suite, err := sim.LookupSuite(*v.suite)
		if err != nil {
			return sim.Suite{}, usageError("%v", err)
		}
		return suite, nil
	}
	explicit := false
	v.fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "suite" })
	if explicit {
		return sim.Suite{}, usageError("give --suite (a public suite) or --catalog (a private suite file), not both")
	}
	ps, err := loadPrivateFile(*v.catalogFile)
	if err != nil {
		return sim.Suite{}, err
	}
	v.catalog = ps.Catalog
	return sim.Suite{Name: ps.Name, Version: ps.Version, Visits: ps.Visits,
		Description: "the private suite of " + *v.catalogFile}, nil
}

// readVisitFile reads visit ids, one a line; blank lines and '#' comments
// are skipped. Every id must parse and belong to the suite (records carry
// the suite's name and version, which would otherwise lie).
func readVisitFile(path string, suite sim.Suite) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError("--visits: %v", err)
	}
	defer f.Close()
	in := make(map[string]bool, len(suite.Visits))
	for _, id := range suite.Visits {
		in[id] = true
	}
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		if _, err := sim.ParseVisitID(line); err != nil {
			return nil, usageError("--visits %s:%d: %v", path, n, err)
		}
		if !in[line] {
			return nil, usageError("--visits %s:%d: %s is not a visit of suite %s@%s (pick the suite that holds it with --suite)",
				path, n, line, suite.Name, suite.Version)
		}
		if seen[line] {
			return nil, usageError("--visits %s:%d: %s is listed twice", path, n, line)
		}
		seen[line] = true
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, usageError("--visits %s: %v", path, err)
	}
	return out, nil
}

// visitKeys are the keys --filter knows, with the value a visit has.
var visitKeys = map[string]func(v sim.VisitID) string{
	"condition": func(v sim.VisitID) string { return v.Condition },
	"variant":   func(v sim.VisitID) string { return v.Variant },
	"norm":      func(v sim.VisitID) string { return v.Norm },
	"world":     func(v sim.VisitID) string { return v.World },
	"family": func(v sim.VisitID) string {
		if n, err := norms.Default().Lookup(v.Norm); err == nil {
			return n.Family
		}
		return "control"
	},
}

// parseVisitFilter reads "key=a|b,key2=c" into a predicate on visit ids.
func parseVisitFilter(s string) (func(string) bool, error) {
	type clause struct {
		key    string
		values []string
	}
	var cs []clause
	for _, part := range strings.Split(s, ",") {
		k, vals, ok := strings.Cut(strings.TrimSpace(part), "=")
		if _, known := visitKeys[k]; !ok || !known || vals == "" {
			keys := make([]string, 0, len(visitKeys))
			for key := range visitKeys {
				keys = append(keys, key)
			}
			slices.Sort(keys)
			return nil, usageError("--filter %q: want KEY=VALUE[|VALUE…] with KEY one of %s", part, strings.Join(keys, ", "))
		}
		cs = append(cs, clause{k, strings.Split(vals, "|")})
	}
	return func(id string) bool {
		v, err := sim.ParseVisitID(id)
		if err != nil {
			return false
		}
		for _, c := range cs {
			if !slices.Contains(c.values, visitKeys[c.key](v)) {
				return false
			}
		}
		return true
	}, nil
}

// describe says which visits were chosen, for the summary line: how many
// of the suite's, and for a sample how it was drawn and what it holds.
func (v *visitFlags) describe(suite sim.Suite, visits []string) string {
	if *v.sample > 0 {
		c := sim.Compose(visits)
		return fmt.Sprintf("%d of %d visits drawn stratified by norm × condition × world (--sample %d --seed %d): %s",
			len(visits), len(suite.Visits), *v.sample, *v.seed, strings.TrimPrefix(c.String(), fmt.Sprintf("%d visits: ", c.Visits)))
	}
	return describeSelection(suite, len(visits))
}

// describeSelection says how many of the suite's visits were chosen.
func describeSelection(suite sim.Suite, n int) string {
	if n == len(suite.Visits) {
		return fmt.Sprintf("%d visits", n)
	}
	return fmt.Sprintf("%d of %d visits", n, len(suite.Visits))
}
