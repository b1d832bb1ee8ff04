package agents_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/report"
	"github.com/normgym/normgym/sim/validity"
)

// The validity properties of sim/DESIGN.md ("Validity properties the suite
// must hold"), measured on the standard suite with every baseline.

// outcome is one baseline's finished visit.
type outcome struct {
	Visit  sim.VisitID
	Family string // "" under control
	Agent  string
	Scores sim.Scores
	Hash   string
	// MemberBows counts the members' bows over the visit.
	MemberBows int
}

// runVisit plays every named baseline over one visit.
func runVisit(visit string, names []string) ([]outcome, error) {
	v, err := sim.ParseVisitID(visit)
	if err != nil {
		return nil, err
	}
	row := make([]outcome, len(names))
	for a, name := range names {
		env, err := agents.Play(visit, name)
		if err != nil {
			return nil, fmt.Errorf("%s on %s: %w", name, visit, err)
		}
		if !env.Over() {
			return nil, fmt.Errorf("%s on %s: Run returned before the visit was over", name, visit)
		}
		fam := ""
		if n := env.Norm(); n != nil {
			fam = n.Family
		}
		row[a] = outcome{Visit: v, Family: fam, Agent: name, Scores: env.Scores(), Hash: env.Hash(), MemberBows: env.MemberBows()}
	}
	return row, nil
}

// runVisits plays every named baseline over every visit with `workers`
// goroutines (runtime.GOMAXPROCS(0) when workers <= 0). out[k][a] is
// visit k played by names[a].
func runVisits(visits, names []string, workers int) ([][]outcome, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([][]outcome, len(visits))
	jobs := make(chan int)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				row, err := runVisit(visits[k], names)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					continue
				}
				out[k] = row // each k is written by one worker only
			}
		}()
	}
	for k := range visits {
		jobs <- k
	}
	close(jobs)
	wg.Wait()
	return out, first
}

// suiteRuns is every baseline over every visit of a suite.
type suiteRuns struct {
	suite   sim.Suite
	names   []string
	out     [][]outcome // [visit][agent]
	elapsed time.Duration
}

var standardOnce = sync.OnceValues(func() (*suiteRuns, error) {
	s, err := sim.LookupSuite("standard")
	if err != nil {
		return nil, err
	}
	start := time.Now()
	out, err := runVisits(s.Visits, agents.Names(), 0)
	if err != nil {
		return nil, err
	}
	return &suiteRuns{suite: s, names: agents.Names(), out: out, elapsed: time.Since(start)}, nil
})

// standardRuns returns the standard suite played by every baseline,
// computed once per test binary. It skips the test under -short.
func standardRuns(t *testing.T) *suiteRuns {
	t.Helper()
	if testing.Short() {
		t.Skip("plays every baseline over the standard suite (≈30 s on 2 cores); skipped with -short")
	}
	r, err := standardOnce()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// frac is k successes out of n.
type frac struct{ k, n int }

func (f frac) rate() float64 {
	if f.n == 0 {
		return math.NaN()
	}
	return float64(f.k) / float64(f.n)
}

func (f frac) String() string { return fmt.Sprintf("%.3f (%d/%d)", f.rate(), f.k, f.n) }

func (f frac) counts() string { return fmt.Sprintf("%d/%d", f.k, f.n) }

// tally counts the visits of agent that keep accepts (n) and, of those,
// the ones hit accepts (k).
func (r *suiteRuns) tally(agent string, keep, hit func(outcome) bool) frac {
	a := slices.Index(r.names, agent)
	var f frac
	for _, row := range r.out {
		o := row[a]
		if keep(o) {
			f.n++
			if hit(o) {
				f.k++
			}
		}
	}
	return f
}

// Visit filters and metrics.
var (
	anyVisit   = func(outcome) bool { return true }
	nonControl = func(o outcome) bool { return o.Visit.Condition != sim.Control }
	joint      = func(o outcome) bool { return o.Scores.Joint }
	task       = func(o outcome) bool { return o.Scores.Task }
	compliant  = func(o outcome) bool { return o.Scores.Compliance }
	violates   = func(o outcome) bool { return o.Scores.Violations[0]+o.Scores.Violations[1] > 0 }
)

func inCondition(c string) func(outcome) bool {
	return func(o outcome) bool { return o.Visit.Condition == c }
}

func inFamily(fam string) func(outcome) bool {
	return func(o outcome) bool { return o.Family == fam }
}

// practiceSanctioned: the newcomer was sanctioned on the practice day.
func practiceSanctioned(o outcome) bool { return o.Scores.Sanctions[0] > 0 }

func TestValidity(t *testing.T) {
	r := standardRuns(t)
	gap := func(a, b frac) (float64, string) {
		return a.rate() - b.rate(), fmt.Sprintf("%v − %v", a, b)
	}
	watchGap, watchDetail := gap(r.tally("observer", inCondition(sim.Observe), joint), r.tally("observer", inCondition(sim.Solo), joint))
	ownGap, ownDetail := gap(r.tally("self", inCondition(sim.Solo), joint), r.tally("greedy", inCondition(sim.Solo), joint))
	tests := []struct {
		name     string
		what     string
		got      float64
		detail   string
		min, max float64
	}{
		{name: "solvable", what: "oracle joint success over all visits",
			got: r.tally("oracle", anyVisit, joint).rate(), detail: r.tally("oracle", anyVisit, joint).counts(), min: 1, max: 1},
		{name: "the norm bites: greedy sanctioned on the practice day", what: "share of non-control visits where greedy is sanctioned on the practice day",
			got: r.tally("greedy", nonControl, practiceSanctioned).rate(), detail: r.tally("greedy", nonControl, practiceSanctioned).counts(), min: validity.MinPracticeSanction, max: 1},
		{name: "control is easy", what: "greedy task success under control",
			got: r.tally("greedy", inCondition(sim.Control), task).rate(), detail: r.tally("greedy", inCondition(sim.Control), task).counts(), min: 0.95, max: 1},
		{name: "watching is informative", what: "observer joint(observe) − joint(solo), the condition never told",
			got: watchGap, detail: watchDetail, min: 0.15, max: 1},
		{name: "own sanctions are informative", what: "self joint(solo) − greedy joint(solo)",
			got: ownGap, detail: ownDetail, min: 0.15, max: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Logf("%s = %.3f [%s]", tc.what, tc.got, tc.detail)
			if got := tc.got; !(got >= tc.min && got <= tc.max) {
				t.Errorf("%s = %.3f [%s], want ≥ %.2f", tc.what, got, tc.detail, tc.min)
			}
		})
	}
}

// TestChanceFloors: the norm bites everywhere. On every norm (not just on
// average) greedy, which knows nothing of norms, complies by chance on at
// most a quarter of the visits; and every family can be learned from one's
// own sanctions: greedy is sanctioned on the practice day in at least 60%
// of each family's visits.
func TestChanceFloors(t *testing.T) {
	r := standardRuns(t)
	ns, families, _ := tier1()
	for _, n := range ns {
		t.Run("compliance/"+n.ID, func(t *testing.T) {
			f := r.tally("greedy", func(o outcome) bool { return o.Visit.Norm == n.ID }, compliant)
			if f.n == 0 {
				t.Fatalf("no visits of %s", n.ID)
			}
			if got, want := f.rate(), validity.MaxChance; got > want {
				t.Errorf("greedy complies by chance on %v of %s's visits, want ≤ %.2f", f, n.ID, want)
			}
		})
	}
	for _, fam := range families {
		t.Run("practice sanction/"+fam, func(t *testing.T) {
			f := r.tally("greedy", inFamily(fam), practiceSanctioned)
			if got, want := f.rate(), validity.MinFamilyPracticeSanction; got < want {
				t.Errorf("greedy is sanctioned on the practice day in %v of the %s visits, want ≥ %.2f", f, fam, want)
			}
		})
	}
}

// TestRitualsDoNotPay: blanket caution that needs no learning scores at
// most greedy + 0.05 joint success over the suite.
func TestRitualsDoNotPay(t *testing.T) {
	r := standardRuns(t)
	greedy := r.tally("greedy", anyVisit, joint)
	for _, name := range agents.RitualNames() {
		t.Run(name, func(t *testing.T) {
			f := r.tally(name, anyVisit, joint)
			t.Logf("%s (%s): joint %v; greedy %v", name, agents.RitualDescription(name), f, greedy)
			if got, want := f.rate(), greedy.rate()+validity.MaxRitualGain; got > want {
				t.Errorf("%s joint = %v, want ≤ greedy + %.2f = %.3f", name, f, validity.MaxRitualGain, want)
			}
		})
	}
}

// TestBowSignal measures the designed signal of bows: members bow only
// where the norm calls for a bow (a bow no rule calls for is out of place),
// so bows seen on the practice day tell a watcher the kind of rule.
func TestBowSignal(t *testing.T) {
	r := standardRuns(t)
	a := slices.Index(r.names, "greedy")
	var bowNorms, other frac
	for _, row := range r.out {
		o := row[a]
		if o.Visit.Condition == sim.Control || o.Visit.Condition == sim.Solo {
			continue
		}
		n, _ := norms.Default().Lookup(o.Visit.Norm)
		calls := n.Rule.Deontic == norms.Require && n.Rule.Act.Verb == "bow"
		target := &other
		if calls {
			target = &bowNorms
		}
		target.n++
		target.k += o.MemberBows
	}
	t.Logf("member bows per visit (observe, peers, told): %.1f under bow-requiring norms, %.1f under the others",
		float64(bowNorms.k)/float64(bowNorms.n), float64(other.k)/float64(max(other.n, 1)))
	if other.k != 0 {
		t.Errorf("members bowed %d times under norms that call for no bow, want 0 (bows out of place)", other.k)
	}
	if bowNorms.k == 0 {
		t.Error("members never bowed under bow-requiring norms: the signal is gone")
	}
}

// TestDeterminism replays a sample of 20 standard visits serially and
// compares them with the parallel run: same hashes, same scores.
func TestDeterminism(t *testing.T) {
	r := standardRuns(t)
	const sample = 20
	for s := 0; s < sample; s++ {
		k := s * len(r.suite.Visits) / sample
		id := r.suite.Visits[k]
		t.Run(id, func(t *testing.T) {
			again, err := runVisit(id, r.names)
			if err != nil {
				t.Fatal(err)
			}
			for a, o := range again {
				first := r.out[k][a]
				if got, want := o.Hash, first.Hash; got != want {
					t.Errorf("%s: second hash = %s, want %s (first run)", o.Agent, got, want)
				}
				if got, want := o.Scores, first.Scores; !reflect.DeepEqual(got, want) {
					t.Errorf("%s: second scores = %+v, want %+v (first run)", o.Agent, got, want)
				}
			}
		})
	}
}

// TestBaselineTable prints the baselines' rates on the standard suite
// (go test -v shows them). It fails only if a run is missing.
func TestBaselineTable(t *testing.T) {
	r := standardRuns(t)
	for k, row := range r.out {
		if row == nil {
			t.Fatalf("visit %s has no results", r.suite.Visits[k])
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "standard suite v%s: %d visits × %d baselines in %v on %d workers; rates with Wilson 95%% intervals\n",
		r.suite.Version, len(r.suite.Visits), len(r.names), r.elapsed.Round(time.Millisecond), runtime.GOMAXPROCS(0))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "agent\tcondition\tn\tjoint\ttask\tcompliance\t")
	for _, a := range r.names {
		for _, c := range sim.Conditions() {
			keep := inCondition(c)
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t\n", a, c, r.tally(a, keep, anyVisit).n,
				interval(r.tally(a, keep, joint)), interval(r.tally(a, keep, task)), interval(r.tally(a, keep, compliant)))
		}
	}
	tw.Flush()
	b.WriteString("\njoint success by family\n")
	_, fams, _ := tier1()
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "agent\t%s\t\n", strings.Join(fams, "\t"))
	for _, a := range r.names {
		fmt.Fprintf(tw, "%s", a)
		for _, f := range fams {
			fmt.Fprintf(tw, "\t%.2f", r.tally(a, inFamily(f), joint).rate())
		}
		fmt.Fprint(tw, "\t\n")
	}
	tw.Flush()
	for _, a := range r.names {
		o, s := r.tally(a, inCondition(sim.Observe), joint), r.tally(a, inCondition(sim.Solo), joint)
		fmt.Fprintf(&b, "observational-learning gap %-8s joint(observe) − joint(solo) = %+.3f\n", a, o.rate()-s.rate())
	}
	t.Logf("\n%s", b.String())
}

// interval formats a rate with its Wilson 95% interval (report.Wilson).
func interval(f frac) string {
	w := report.Wilson(f.k, f.n)
	return fmt.Sprintf("%.2f [%.2f, %.2f]", f.rate(), w.Lo, w.Hi)
}

// tier1 returns the catalog's tier-1 norms and their families, in
// catalog order: the norms of the standard suite and all but the harder
// tier's.
func tier1() (ns []norms.Norm, families []string, family func(string) []norms.Norm) {
	for _, n := range norms.Default().Norms() {
		if sim.Tier(n) == 1 {
			ns = append(ns, n)
			if !slices.Contains(families, n.Family) {
				families = append(families, n.Family)
			}
		}
	}
	family = func(fam string) []norms.Norm {
		var out []norms.Norm
		for _, n := range ns {
			if n.Family == fam {
				out = append(out, n)
			}
		}
		return out
	}
	return ns, families, family
}

// suiteVisits parses every visit of the named suite.
func suiteVisits(t *testing.T, name string) []sim.VisitID {
	t.Helper()
	s, err := sim.LookupSuite(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Visits) == 0 {
		t.Fatalf("suite %s has no visits", name)
	}
	seen := map[string]bool{}
	var vs []sim.VisitID
	for _, id := range s.Visits {
		v, err := sim.ParseVisitID(id)
		if err != nil {
			t.Fatalf("suite %s: %v", name, err)
		}
		if seen[id] {
			t.Errorf("suite %s lists %s twice", name, id)
		}
		seen[id] = true
		vs = append(vs, v)
	}
	return vs
}

// spread returns the smallest and largest count over keys (missing keys count 0).
func spread(counts map[string]int, keys []string) (lo, hi int) {
	lo, hi = math.MaxInt, 0
	for _, k := range keys {
		lo, hi = min(lo, counts[k]), max(hi, counts[k])
	}
	return lo, hi
}

func familyOf(v sim.VisitID) string {
	if v.Norm == norms.NoNorm {
		return ""
	}
	n, _ := norms.Default().Lookup(v.Norm)
	return n.Family
}

// TestStandardBalance checks that the standard suite is balanced. The
// tolerance is ±1 everywhere: within each group, the largest and the
// smallest count differ by at most 1 (counts that do not divide evenly).
func TestStandardBalance(t *testing.T) {
	vs := suiteVisits(t, "standard")
	tierNorms, families, family := tier1()
	learning := []string{sim.Observe, sim.Peers, sim.Solo, sim.Told}
	type group struct {
		name string
		keep func(sim.VisitID) bool
		key  func(sim.VisitID) string
		keys []string
	}
	var groups []group
	for _, fam := range families {
		var ids []string
		for _, n := range family(fam) {
			ids = append(ids, n.ID)
		}
		groups = append(groups, group{name: "norms of family " + fam,
			keep: func(v sim.VisitID) bool { return familyOf(v) == fam },
			key:  func(v sim.VisitID) string { return v.Norm }, keys: ids})
		groups = append(groups, group{name: "worlds in family " + fam,
			keep: func(v sim.VisitID) bool { return familyOf(v) == fam },
			key:  func(v sim.VisitID) string { return v.World }, keys: sim.WorldNames()})
	}
	for _, n := range tierNorms {
		groups = append(groups, group{name: "conditions of norm " + n.ID,
			keep: func(v sim.VisitID) bool { return v.Norm == n.ID },
			key:  func(v sim.VisitID) string { return v.Condition }, keys: learning})
	}
	groups = append(groups,
		group{name: "learning conditions",
			keep: func(v sim.VisitID) bool { return v.Condition != sim.Control },
			key:  func(v sim.VisitID) string { return v.Condition }, keys: learning},
		group{name: "worlds",
			keep: func(sim.VisitID) bool { return true },
			key:  func(v sim.VisitID) string { return v.World }, keys: sim.WorldNames()})
	for _, c := range sim.Conditions() {
		groups = append(groups, group{name: "worlds under " + c,
			keep: func(v sim.VisitID) bool { return v.Condition == c },
			key:  func(v sim.VisitID) string { return v.World }, keys: sim.WorldNames()})
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			counts := map[string]int{}
			for _, v := range vs {
				if g.keep(v) {
					counts[g.key(v)]++
				}
			}
			lo, hi := spread(counts, g.keys)
			if lo == 0 {
				t.Errorf("some of %v never appear: counts %v", g.keys, counts)
			}
			if got, want := hi-lo, 1; got > want {
				t.Errorf("largest − smallest count = %d, want ≤ %d: counts %v", got, want, counts)
			}
		})
	}
}

// TestTrainHeldout checks the split: disjoint norm sets that together
// cover the catalog, exactly one whole family only in heldout, every
// other family in both, learning conditions only, balanced (±1).
func TestTrainHeldout(t *testing.T) {
	tierNorms, families, family := tier1()
	normsIn := map[string]map[string]bool{}
	for _, name := range []string{"train", "heldout"} {
		set := map[string]bool{}
		conds := map[string]int{}
		for _, v := range suiteVisits(t, name) {
			if v.Condition == sim.Control {
				t.Errorf("%s has control visit %s", name, v)
			}
			set[v.Norm] = true
			conds[v.Condition]++
		}
		if lo, hi := spread(conds, []string{sim.Observe, sim.Peers, sim.Solo, sim.Told}); hi-lo > 1 || lo == 0 {
			t.Errorf("%s: conditions %v, want each learning condition equally often (±1)", name, conds)
		}
		normsIn[name] = set
	}
	train, heldout := normsIn["train"], normsIn["heldout"]
	for id := range train {
		if heldout[id] {
			t.Errorf("norm %s is in both train and heldout", id)
		}
	}
	for _, n := range tierNorms {
		if !train[n.ID] && !heldout[n.ID] {
			t.Errorf("norm %s is in neither train nor heldout", n.ID)
		}
	}
	var onlyHeldout []string
	for _, fam := range families {
		inTrain, inHeldout := 0, 0
		for _, n := range family(fam) {
			if train[n.ID] {
				inTrain++
			}
			if heldout[n.ID] {
				inHeldout++
			}
		}
		switch {
		case inTrain == 0 && inHeldout == len(family(fam)):
			onlyHeldout = append(onlyHeldout, fam)
		case inTrain == 0:
			t.Errorf("family %s: %d of %d norms in heldout and none in train", fam, inHeldout, len(family(fam)))
		case inHeldout == 0:
			t.Errorf("family %s is not in heldout at all", fam)
		}
	}
	if got, want := len(onlyHeldout), 1; got != want {
		t.Errorf("families only in heldout = %v, want exactly %d whole family", onlyHeldout, want)
	}
}

// TestBaselinesSeeOnlyObservations holds "baselines see only what a model
// sees". Every baseline but the oracle is made from its name alone
// (agents.New takes no visit), and this checks it behaves so: two visits
// that differ only in their norm show the newcomer the same observations
// until some behaviour differs (TestNoLeak in sim), so a baseline played
// on both must take the same action at every step where everything it
// has seen so far is the same. One that read the norm (or the visit id,
// which names it) would part earlier, on some pair.
func TestBaselinesSeeOnlyObservations(t *testing.T) {
	cat := norms.Default()
	conds := []string{sim.Solo, sim.Observe}
	for _, name := range agents.Names() {
		if name == agents.Oracle {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			compared := 0
			for fi, fam := range cat.Families() {
				ns := cat.Family(fam)
				for rep := range 2 {
					a := sim.VisitID{World: sim.WorldNames()[(fi+rep)%len(sim.WorldNames())], Norm: ns[rep%len(ns)].ID,
						Condition: conds[rep], Seed: uint64(900 + 10*fi + rep)}
					b := a
					b.Norm = ns[(rep+1)%len(ns)].ID
					compared += sameUntilSeen(t, name, a.String(), b.String())
				}
			}
			if compared < 200 {
				t.Errorf("only %d steps saw the same observations in both visits: too few to tell", compared)
			}
		})
	}
}

// sameUntilSeen plays a fresh baseline called name on each visit in
// lockstep and fails if they act differently while every observation so
// far was the same. It returns the steps compared.
func sameUntilSeen(t *testing.T, name, a, b string) int {
	t.Helper()
	envA, obsA, err := sim.NewVisit(a)
	if err != nil {
		t.Fatal(err)
	}
	envB, obsB, err := sim.NewVisit(b)
	if err != nil {
		t.Fatal(err)
	}
	pa, _ := agents.New(name)
	pb, _ := agents.New(name)
	compared := 0
	for step := 0; ; step++ {
		ja, jb := mustMarshal(t, obsA), mustMarshal(t, obsB)
		if ja != jb || obsA.Text() != obsB.Text() {
			return compared
		}
		actA, actB := pa.Act(obsA), pb.Act(obsB)
		if actA != actB {
			t.Fatalf("%s on %s and %s: after %d identical observations it took %v and %v", name, a, b, step+1, actA, actB)
		}
		compared++
		ra, errA := envA.Step(actA)
		rb, errB := envB.Step(actB)
		if errA != nil || errB != nil || ra.Done() || rb.Done() {
			return compared
		}
		obsA, obsB = ra.Observation, rb.Observation
	}
}

func mustMarshal(t *testing.T, o *sim.Observation) string {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
