package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// ProvenanceFile is the provenance of a record read from a results file
// as it stands (normgym run or eval output): nobody but its producer
// vouches for who played it; normgym replay re-checks its scores. The
// server's export labels its runs itself ("server", "server-stepped",
// "self-reported").
const ProvenanceFile = "file"

// Run is one visit record and where it came from. The caller reads the
// files; this package never does I/O.
type Run struct {
	Record sim.Record
	// Provenance is how the record is known: a server export's label, or
	// ProvenanceFile.
	Provenance string
	// Source names the input the record came from (a file name).
	Source string
}

// Series is one newcomer's records as a report draws them: an agent
// under one provenance from one source. Two series never share a Label.
type Series struct {
	// Label is what tables and figures call the series: the agent's name,
	// then " · provenance" when the inputs mix provenances, then
	// " (source)" when the same agent and provenance come from several
	// sources.
	Label      string `json:"label"`
	Agent      string `json:"agent"`
	Client     string `json:"client"`
	Provenance string `json:"provenance"`
	Source     string `json:"source"`
	// Ritual marks a fixed-caution baseline (Options.Rituals): summarised
	// in one line and drawn only when asked for.
	Ritual  bool         `json:"ritual"`
	Records []sim.Record `json:"-"`
	Summary Summary      `json:"summary"`
}

// Options choose what a report draws and how it reads the records.
type Options struct {
	// Catalog gives the families' order and each norm's tag
	// (commonsense or counterintuitive); nil means norms.Default().
	Catalog *norms.Catalog
	// Rituals names the baselines that are fixed caution (agents.RitualNames):
	// records of client "baseline" under these names are summarised in
	// one line, not drawn, unless Agents names them.
	Rituals []string
	// Agents chooses the series drawn, by label or agent name, in this
	// order; "all" draws every series. Empty: every series but the rituals.
	Agents []string
	// Viewer is the transcript viewer's address (normgym serve's
	// /viewer.html); with Transcripts, the report lists the visits that
	// have a transcript, each linked to its replay there.
	Viewer string
	// Transcripts holds the run ids (extra.run_id) whose transcripts the
	// caller found beside the inputs.
	Transcripts map[string]bool
}

func (o Options) catalog() *norms.Catalog {
	if o.Catalog != nil {
		return o.Catalog
	}
	return norms.Default()
}

type seriesKey struct{ agent, client, provenance, source string }

// GroupSeries splits runs into series, in the order each first appears,
// and labels them (see Series.Label). An agent's runs under one client
// and provenance form one series, whatever file they come from (a suite
// per file), unless two files hold the same visit: then they are
// separate runs, one series per file. It summarises each series.
func GroupSeries(runs []Run, rituals []string) []Series {
	split := map[seriesKey]bool{}
	visitSource := map[seriesKey]map[string]string{}
	provs := map[string]bool{}
	for _, r := range runs {
		base := seriesKey{r.Record.Agent, r.Record.Client, r.Provenance, ""}
		if visitSource[base] == nil {
			visitSource[base] = map[string]string{}
		}
		if src, ok := visitSource[base][r.Record.Visit]; ok && src != r.Source {
			split[base] = true
		}
		visitSource[base][r.Record.Visit] = r.Source
		provs[r.Provenance] = true
	}
	var keys []seriesKey
	byKey := map[seriesKey][]sim.Record{}
	sources := map[seriesKey][]string{}
	for _, r := range runs {
		k := seriesKey{r.Record.Agent, r.Record.Client, r.Provenance, ""}
		if split[k] {
			k.source = r.Source
		}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], r.Record)
		if !slices.Contains(sources[k], r.Source) {
			sources[k] = append(sources[k], r.Source)
		}
	}
	out := make([]Series, 0, len(keys))
	used := map[string]bool{}
	for _, k := range keys {
		label := k.agent
		if len(provs) > 1 {
			label += " · " + k.provenance
		}
		if k.source != "" {
			label += " (" + k.source + ")"
		}
		// The same agent name under two clients (a model called
		// "observer"): name the later one's client, and number it if that
		// is not enough, so that labels stay unique.
		if used[label] {
			base := label + " [" + k.client + "]"
			label = base
			for i := 2; used[label]; i++ {
				label = fmt.Sprintf("%s #%d", base, i)
			}
		}
		used[label] = true
		recs := byKey[k]
		out = append(out, Series{Label: label, Agent: k.agent, Client: k.client, Provenance: k.provenance,
			Source: strings.Join(sources[k], ", "), Ritual: k.client == "baseline" && slices.Contains(rituals, k.agent),
			Records: recs, Summary: SummarizeAgent(label, recs)})
	}
	return out
}

// Choose returns the series to draw: those agents names (by label, or by
// agent name for every series of that agent), in the order named; "all"
// for every series; none named for every series that is not a ritual
// (every series, when all are rituals).
// A name that matches no series is an error that lists the labels.
func Choose(all []Series, agents []string) ([]Series, error) {
	if len(agents) == 0 {
		var out []Series
		for _, s := range all {
			if !s.Ritual {
				out = append(out, s)
			}
		}
		if len(out) == 0 { // nothing but rituals: draw them
			return all, nil
		}
		return out, nil
	}
	if len(agents) == 1 && agents[0] == "all" {
		return all, nil
	}
	var out []Series
	taken := map[string]bool{}
	for _, name := range agents {
		found := false
		for _, s := range all {
			if s.Label == name || s.Agent == name {
				found = true
				if !taken[s.Label] {
					taken[s.Label] = true
					out = append(out, s)
				}
			}
		}
		if !found {
			labels := make([]string, len(all))
			for i, s := range all {
				labels[i] = s.Label
			}
			return nil, fmt.Errorf("report: no agent %q in the records (they hold %s)", name, strings.Join(labels, ", "))
		}
	}
	return out, nil
}

// IsTransfer reports whether a record's test day was in another world
// than its practice day (a transfer visit: "orchard>harbor/…").
func IsTransfer(r sim.Record) bool {
	w, _, _ := strings.Cut(r.Visit, "/")
	return strings.Contains(w, ">")
}

// plain reports whether a record is a visit of the standard kind: no
// sanction variant, the test day in the practice day's world.
func plain(r sim.Record) bool { return r.Variant == "" && !IsTransfer(r) }

// Tag returns the catalog's tag of a record's norm (commonsense or
// counterintuitive), "" under control, and "untagged" for a norm the
// catalog does not hold.
func Tag(cat *norms.Catalog, r sim.Record) string {
	if r.Condition == sim.Control || r.Norm == norms.NoNorm {
		return ""
	}
	n, err := cat.Lookup(r.Norm)
	if err != nil || n.Tag == "" {
		return "untagged"
	}
	return n.Tag
}

// Tags lists the catalog's tags: commonsense, counterintuitive, then
// any other in the order the catalog first uses it.
func Tags(cat *norms.Catalog) []string {
	out := []string{norms.TagCommonsense, norms.TagCounterintuitive}
	for _, n := range cat.Norms() {
		if n.Tag != "" && !slices.Contains(out, n.Tag) {
			out = append(out, n.Tag)
		}
	}
	return out
}

// orderKeys returns the keys present in seen: those of canonical first,
// in its order, then the rest sorted.
func orderKeys(seen map[string]bool, canonical []string) []string {
	var out []string
	for _, k := range canonical {
		if seen[k] {
			out = append(out, k)
		}
	}
	var rest []string
	for k := range seen {
		if !slices.Contains(canonical, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}
