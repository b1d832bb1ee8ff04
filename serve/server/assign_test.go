package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
)

// synthetic returns a record of visit with random but consistent scores,
// for tests that exercise storage and aggregation without replays.
func synthetic(visit, agent, client string, r *rand.Rand) sim.Record {
	id, err := sim.ParseVisitID(visit)
	if err != nil {
		panic(err)
	}
	rec := sim.Record{Visit: visit, World: id.World, Norm: id.Norm, Condition: id.Condition, Agent: agent, Client: client,
		Actions: []string{"wait"}, Hash: fmt.Sprintf("%016x", r.Uint64()), SimVersion: sim.Version,
		Catalog: norms.Default().Version(), SimSHA256: "synthetic"}
	if id.Norm != norms.NoNorm {
		n, _ := norms.Default().Lookup(id.Norm)
		rec.Family = n.Family
		k := r.IntN(4)
		rec.Probe = &sim.ProbeResult{Answer: k, Correct: k == 0}
	}
	sc := &rec.Scores
	sc.Task = r.IntN(3) > 0
	sc.Violations = []int{r.IntN(3), 0}
	if r.IntN(3) == 0 {
		sc.Violations[1] = 1 + r.IntN(2)
	}
	sc.Compliance = sc.Violations[1] == 0
	sc.Joint = sc.Task && sc.Compliance
	sc.Sanctions = []int{sc.Violations[0], sc.Violations[1]}
	sc.SanctionsReceived = sc.Violations[0] + sc.Violations[1]
	sc.Steps = []int{30, 25}
	return rec
}

// putHuman stores a human run of participant on visit directly.
func (e *env) putHuman(participant, room, visit string, r *rand.Rand) {
	e.t.Helper()
	rec := synthetic(visit, "human", "human", r)
	if ref, ok := suiteOf(visit); ok {
		rec.Suite, rec.SuiteVersion = ref.Name, ref.Version
	}
	_, created, err := e.store.PutRun(context.Background(), domain.Run{RunID: newRunID(), ContentSHA256: "x",
		CreatedAt: e.now, Participant: participant, Room: room, ConsentVersion: server.ConsentVersion,
		Provenance: api.ProvenanceStepped, Record: rec})
	if err != nil || !created {
		e.t.Fatalf("storing a run: %v %v", created, err)
	}
}

func suiteOf(visit string) (sim.Suite, bool) {
	for _, su := range sim.Suites() {
		for _, v := range su.Visits {
			if v == visit {
				return su, true
			}
		}
	}
	return sim.Suite{}, false
}

// assign asks for the participant's assignment. The answer never names a
// visit (in a room or not): Visit is then read from the store (the server
// side).
func (e *env) assign(participant, room string) api.Assignment {
	e.t.Helper()
	var a api.Assignment
	st, b, _ := e.do("POST", "/api/assign", api.AssignRequest{Participant: participant, Room: room})
	if st != http.StatusOK || json.Unmarshal(b, &a) != nil {
		e.t.Fatalf("POST /api/assign %s %s: %d %s", participant, room, st, b)
	}
	if a.Visit != "" || strings.Contains(string(b), "/") {
		e.t.Fatalf("an assignment names its visit: %s", b)
	}
	if a.Sealed != !a.Done {
		e.t.Fatalf("assignment %s: sealed %v, done %v", b, a.Sealed, a.Done)
	}
	if a.Sealed {
		if err := e.store.DB().QueryRow(`SELECT visit FROM assignments WHERE participant = ? AND room = ?`, participant, a.Room).Scan(&a.Visit); err != nil {
			e.t.Fatal(err)
		}
	}
	return a
}

func cellOf(visit string) string {
	id, _ := sim.ParseVisitID(visit)
	return id.Norm + "/" + id.Condition
}

func TestAssignEvenness(t *testing.T) {
	e := newEnv(t)
	r := rand.New(rand.NewPCG(1, 2))
	su, _ := sim.LookupSuite("standard")
	cells := map[string]int{}
	suiteCells := map[string]bool{}
	for _, v := range su.Visits {
		cells[cellOf(v)] = 0
		suiteCells[session.Cell(v)] = true
	}
	const people, rounds = 60, 4
	played := map[string]map[string]bool{} // participant → norms
	for round := 0; round < rounds; round++ {
		for p := 0; p < people; p++ {
			name := fmt.Sprintf("participant-%03d", p)
			a := e.assign(name, "")
			if a.Done || a.Visit == "" || a.Suite != "standard" {
				t.Fatalf("assignment %+v", a)
			}
			if !session.SealedVisit(a.Visit) || !suiteCells[session.Cell(a.Visit)] {
				t.Fatalf("assignment %s: want a cell of standard under a sealed seed", a.Visit)
			}
			id, _ := sim.ParseVisitID(a.Visit)
			if played[name] == nil {
				played[name] = map[string]bool{}
			}
			if played[name][id.Norm] {
				t.Fatalf("%s met norm %s twice", name, id.Norm)
			}
			played[name][id.Norm] = true
			// Asking again before playing gives the same visit.
			if again := e.assign(name, ""); again.Visit != a.Visit {
				t.Fatalf("second ask: %s, want the pending %s", again.Visit, a.Visit)
			}
			e.putHuman(name, "", a.Visit, r)
			cells[cellOf(a.Visit)]++
		}
	}
	lo, hi := people*rounds, 0
	for _, n := range cells {
		lo, hi = min(lo, n), max(hi, n)
	}
	if hi-lo > 1 {
		t.Errorf("cell coverage from %d to %d runs, want within 1 (%d cells, %d runs)", lo, hi, len(cells), people*rounds)
	}
	tier1 := 0 // the norms of the standard suite: the harder tier's are not
	for _, n := range norms.Default().Norms() {
		if sim.Tier(n) == 1 {
			tier1++
		}
	}
	if want := tier1*4 + 1; len(cells) != want {
		t.Errorf("%d norm × condition cells, want %d (every tier-1 norm under four conditions, and control)", len(cells), want)
	}
}

func TestAssignPendingAndRooms(t *testing.T) {
	e := newEnv(t)
	r := rand.New(rand.NewPCG(3, 4))
	// Pending assignments count: two participants asking at once get
	// different cells.
	a1, a2 := e.assign("pending-one-1", ""), e.assign("pending-two-2", "")
	if cellOf(a1.Visit) == cellOf(a2.Visit) {
		t.Errorf("two pending participants share cell %s", cellOf(a1.Visit))
	}
	// An assignment expires: after the TTL the visit is free again and
	// the participant may be given another.
	e.mu.Lock()
	e.now = e.now.Add(3 * time.Hour)
	e.mu.Unlock()
	if a := e.assign("pending-three", ""); a.Visit == "" {
		t.Errorf("no visit after expiry")
	}

	// A room with three visits of two norms: a student gets each norm
	// once, then is done.
	visits := []string{"orchard/place.color=blue/observe/s1", "orchard/place.color=blue/solo/s2", controlVisit}
	var room api.RoomCreated
	st, b, _ := e.do("POST", "/api/rooms", api.RoomRequest{Name: "class 5b", Visits: visits})
	if st != http.StatusCreated || json.Unmarshal(b, &room) != nil {
		t.Fatalf("creating a room: %d %s", st, b)
	}
	seen := map[string]bool{}
	for i := 0; i < 2; i++ {
		a := e.assign("student-000001", room.Code)
		if a.Room != room.Code || a.Visit == "" {
			t.Fatalf("room assignment %d: %+v", i, a)
		}
		id, _ := sim.ParseVisitID(a.Visit)
		if seen[id.Norm] {
			t.Fatalf("norm %s twice", id.Norm)
		}
		seen[id.Norm] = true
		e.putHuman("student-000001", room.Code, a.Visit, r)
	}
	if a := e.assign("student-000001", room.Code); !a.Done || a.Visit != "" || a.Played != 2 {
		t.Errorf("after every norm: %+v, want done", a)
	}
	// Lower-case codes work; unknown rooms do not.
	if a := e.assign("student-000002", strings.ToLower(room.Code)); a.Visit == "" {
		t.Errorf("lower-case room code: %+v", a)
	}
	if st, b, _ := e.do("POST", "/api/assign", api.AssignRequest{Participant: "student-000002", Room: "YYYY-YYYY-YYYY"}); st != http.StatusNotFound {
		t.Errorf("unknown room: %d %s", st, b)
	}
	// The pseudonym never goes in a URL.
	if st, b, _ := e.do("GET", "/api/assign?participant=student-000002", nil); st != http.StatusBadRequest || !strings.Contains(string(b), "URL") {
		t.Errorf("GET with the pseudonym in the query: %d %s, want 400", st, b)
	}
}
