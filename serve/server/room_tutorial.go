package server

import (
	"hash/fnv"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/sim"
)

// tutorialVisits are the visits a room's guided first minute may use, one
// per tier-1 norm of the catalog that a member can be seen breaking early
// (the harder tier's compounds are no first minute), under observe: each shows a member sanctioned in the newcomer's view within
// its first six steps, whatever the newcomer does first (TestTutorial).
// Norms whose acts members never take (gifts) or take only later (the
// basket, carrying more than two) have none. Their seeds are below every suite's,
// so none is a visit of a suite.
var tutorialVisits = [...]string{
	"market/place.color=red/observe/s1",
	"harbor/place.color=blue/observe/s2",
	"orchard/place.color=yellow/observe/s2",
	"harbor/place.color=green/observe/s1",
	"orchard/place.terrain=grass/observe/s1",
	"orchard/place.terrain=sand/observe/s2",
	"orchard/place.terrain=stone/observe/s1",
	"harbor/place.zone=garden/observe/s1",
	"harbor/place.zone=plaza/observe/s7",
	"orchard/resource.color=red/observe/s27",
	"orchard/resource.color=blue/observe/s6",
	"market/resource.color=yellow/observe/s4",
	"park/resource.color=green/observe/s7",
	"orchard/resource.carry=1/observe/s4",
	"harbor/time.rest=morning/observe/s1",
	"orchard/time.rest=noon/observe/s1",
	"harbor/time.rest=evening/observe/s1",
	"orchard/time.hands=morning/observe/s6",
	"market/time.hands=noon/observe/s3",
	"orchard/time.hands=evening/observe/s4",
	"orchard/order.bow=market/observe/s4",
	"orchard/order.greet=market/observe/s4",
	"orchard/order.greet=garden/observe/s1",
	"park/order.bell=market/observe/s15",
	"orchard/order.bow=pick/observe/s6",
	"orchard/order.well=pick/observe/s5",
	"park/order.bow=drop/observe/s8",
	"orchard/order.well=market/observe/s4",
	"orchard/order.well=litter/observe/s5",
	"market/order.thanks=pick/observe/s1",
	"orchard/order.bow=litter/observe/s5",
	"orchard/order.bow=garden/observe/s1",
	"orchard/order.bow=plaza/observe/s1",
	"market/social.greet=elder/observe/s3",
	"park/social.greet=vendor/observe/s8",
	"orchard/social.greet=gardener/observe/s4",
	"library/social.greet=child/observe/s76",
	"orchard/social.avoid=red/observe/s4",
	"library/social.avoid=blue/observe/s7",
	"market/social.avoid=yellow/observe/s2",
	"market/social.avoid=green/observe/s3",
	"park/direction.path=north/observe/s2",
	"market/direction.path=south/observe/s1",
	"park/direction.path=east/observe/s1",
	"park/direction.path=west/observe/s3",
	"orchard/disposal.at=bin/observe/s5",
	"harbor/disposal.at=garden/observe/s10",
	"harbor/disposal.at=plaza/observe/s21",
	"orchard/disposal.at=sand/observe/s5",
	"orchard/disposal.at=grass/observe/s5",
	"orchard/disposal.at=stone/observe/s5",
	"orchard/disposal.at=well/observe/s5",
	"orchard/disposal.at=bell/observe/s5",
}

// tutorialControl is the tutorial of a room that holds every norm: no
// rule, so no sanction to show, and nothing to hint.
const tutorialControl = "park/none/control/s1"

// TutorialVisits lists the visits a room's tutorial may use, the control
// visit last.
func TutorialVisits() []string { return append(tutorialVisits[:], tutorialControl) }

// tutorialFor chooses a room's tutorial visit: one whose family is in no
// visit of the room (so that it does not even show the kind of rule the
// class meets), or, when the room holds every family, one whose norm is
// in none; the control visit when the room holds every norm. Among those
// it draws by a hash of the room's code, so that the class shares one
// tutorial and the choice follows no order that would tell which families
// the room holds.
func tutorialFor(room domain.Room) string {
	inNorm, inFamily := map[string]bool{}, map[string]bool{}
	for _, v := range room.Visits {
		id, err := sim.ParseVisitID(v)
		if err != nil {
			continue
		}
		inNorm[id.Norm] = true
		if fam, _, _, err := norms.ParseID(id.Norm); err == nil {
			inFamily[fam] = true
		}
	}
	var otherFamily, otherNorm []string
	for _, v := range tutorialVisits {
		id, _ := sim.ParseVisitID(v)
		fam, _, _, _ := norms.ParseID(id.Norm)
		switch {
		case !inFamily[fam]:
			otherFamily = append(otherFamily, v)
		case !inNorm[id.Norm]:
			otherNorm = append(otherNorm, v)
		}
	}
	pool := otherFamily
	if len(pool) == 0 {
		pool = otherNorm
	}
	if len(pool) == 0 {
		return tutorialControl
	}
	h := fnv.New64a()
	h.Write([]byte(room.Code))
	return pool[h.Sum64()%uint64(len(pool))]
}
