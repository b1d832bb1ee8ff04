package norms

import "slices"

// The grammar's one-feature rules: every rule the grammar can write about
// one feature of one act, enumerated from the grammar itself (Verbs, Keys
// and the shapes of Parse), never from a catalog. A learner that weighs
// hypotheses about a hidden norm without being handed a list of norms
// takes these as its hypothesis space (sim/agents: the observer and the
// self-learner); every tier-1 norm of the public catalog is one of them,
// and so is every partner clause of a generated norm (TestOneFeatureRules).

// eventKeys lists, for each verb that can be a rule's event, the
// qualifier keys that describe it (the Verbs documentation): the feature
// a one-feature rule may name. "enter" and "carry" always name their one
// key (the zone entered, how many may be carried); "bow" is an act only.
func eventKeys() []struct {
	verb string
	keys []string
} {
	return []struct {
		verb string
		keys []string
	}{
		{"step", []string{"color", "terrain", "zone", "dir", "phase"}},
		{"enter", []string{"zone"}},
		{"pick", []string{"color", "object", "phase"}},
		{"drop", []string{"phase", "zone", "object", "terrain"}},
		{"litter", []string{"phase", "zone", "object", "terrain"}},
		{"carry", []string{"over"}},
		{"pass", []string{"role", "hat"}},
		{"meet", []string{"role", "hat"}},
		{"use", []string{"object"}},
		{"give", []string{"role", "hat", "phase", "zone", "terrain"}},
		{"handle", []string{"phase", "zone", "object", "terrain"}},
	}
}

// needsQual reports whether an event of verb says nothing without a
// qualifier: "enter" names the zone entered, "carry" how many is too many.
func needsQual(verb string) bool { return verb == "enter" || verb == "carry" }

// oneFeatureEvents returns the events of one feature: each verb with one
// of its qualifiers (every value Keys gives the key), and each verb that
// can stand alone with none ("pick": taking anything), in Verbs order.
func oneFeatureEvents() []Event {
	keys := Keys()
	var out []Event
	for _, vk := range eventKeys() {
		if !needsQual(vk.verb) {
			out = append(out, Event{Verb: vk.verb})
		}
		for _, k := range vk.keys {
			for _, v := range keys[k] {
				out = append(out, Event{Verb: vk.verb, Quals: []Qual{{k, v}}})
			}
		}
	}
	return out
}

// oneFeatureActs returns the acts a requirement can ask for: a bow, or
// the use of one kind of object.
func oneFeatureActs() []Event {
	out := []Event{{Verb: "bow"}}
	for _, o := range Objects() {
		out = append(out, Event{Verb: "use", Quals: []Qual{{"object", o}}})
	}
	return out
}

// OneFeatureRules returns the grammar's one-feature rules, in a fixed
// order, each in canonical form and none twice:
//
//   - "forbid EVENT" for every event with exactly one qualifier: a verb
//     and one of its keys (eventKeys) at any value of Keys — "forbid step
//     color=blue", "forbid enter zone=garden", "forbid carry over=2",
//     "forbid pass hat=red";
//   - "forbid step terrain=T dir=D": a direction is a feature of a move
//     onto some ground (a one-way path), every terrain and direction;
//   - "forbid litter except Q": things go on the ground only where one
//     qualifier of litter holds, every key and value of litter;
//   - "require ACT before EVENT" and "require ACT after EVENT", ACT a bow
//     or the use of any object, EVENT a verb alone or with one qualifier
//     as above ("require bow before pick", "require use object=well
//     before enter zone=market", "require bow after meet role=elder"),
//     except an act required around itself.
//
// Every value of every key is taken, so some rules can never be broken
// in a world (nobody steps on a wall): the space is the grammar's, not a
// world's. It has 1,990 rules; the public catalog's tier 1 has 60.
func OneFeatureRules() []Rule {
	var out []Rule
	events := oneFeatureEvents()
	for _, ev := range events {
		if len(ev.Quals) == 1 {
			out = append(out, Rule{Deontic: Forbid, Event: ev})
		}
	}
	for _, t := range Terrains() {
		for _, d := range Dirs() {
			out = append(out, Rule{Deontic: Forbid, Event: Event{Verb: "step", Quals: []Qual{{"terrain", t}, {"dir", d}}}})
		}
	}
	for _, k := range litterKeys() {
		for _, v := range Keys()[k] {
			out = append(out, Rule{Deontic: Forbid, Event: Event{Verb: "litter", Except: []Qual{{k, v}}}})
		}
	}
	for _, act := range oneFeatureActs() {
		for _, when := range []string{"before", "after"} {
			for _, ev := range events {
				if ev.Verb == act.Verb && slices.Equal(ev.Quals, act.Quals) {
					continue
				}
				out = append(out, Rule{Deontic: Require, Act: act, When: when, Event: ev})
			}
		}
	}
	return out
}

// litterKeys are the keys of litter's qualifiers (and its exceptions).
func litterKeys() []string {
	for _, vk := range eventKeys() {
		if vk.verb == "litter" {
			return vk.keys
		}
	}
	return nil
}
