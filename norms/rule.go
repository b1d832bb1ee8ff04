// Package norms holds NormGym's norm grammar and its catalog.
//
// A norm's machine form is a Rule, written in a small text grammar:
//
//	rule  = "forbid" event
//	      | "require" act ("before" | "after") event
//	event = verb {qual} ["except" qual {qual}]
//	act   = verb {qual}
//	qual  = key "=" value
//
// For example "forbid step color=blue", "forbid litter except object=bin",
// "require bow before enter zone=market", "require bow after meet role=elder".
//
// Two qualifier keys relate an act to someone else's place or act, as the
// frame before the act shows them (the actor never counts):
//
//	near=W     someone else (W is "anyone" or a role; a gift's receiver
//	           does not count) stands on or next to the tile the act is
//	           judged at (the tile entered for a move, the actor's tile
//	           otherwise): "forbid pick near=anyone";
//	follows=W  someone else (W as for near) did the same act just before:
//	           its latest action did something, had the event's verb and,
//	           if the event names an object=..., was done on a tile holding
//	           it; in the latest round of actions or in the one before (the
//	           latest when the actor last acted). Turn-taking: "forbid use
//	           object=well follows=anyone" (let two steps pass after someone
//	           else used the well). It qualifies only a rule's event whose
//	           verb is an act on the spot (pick, drop, litter, use, bow,
//	           give, handle), never an act or an except list.
//
// Parse and Rule.String round-trip: String prints the canonical form.
//
// The package is pure: it reads the embedded catalog, never the file system,
// the clock or a random source.
package norms

// Deontic is a norm's type: a prohibition or an obligation.
type Deontic string

// The two deontic types.
const (
	Forbid  Deontic = "forbid"
	Require Deontic = "require"
)

// Qual is one qualifier of an event or act: key=value.
type Qual struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Event is something an agent's step can do, narrowed by qualifiers.
// Except lists qualifiers that exempt the event (any one matching exempts it).
type Event struct {
	Verb   string `json:"verb"`
	Quals  []Qual `json:"quals,omitempty"`
	Except []Qual `json:"except,omitempty"`
}

// Rule is a norm's machine form.
//
// For Forbid, Event is the forbidden event and Act/When are empty.
// For Require with When "before", Act must have happened since the actor's
// last Event (or the start of the day) when Event happens.
// For Require with When "after", the actor's next action after Event must be Act.
type Rule struct {
	Deontic Deontic `json:"deontic"`
	Act     Event   `json:"act,omitempty"`
	When    string  `json:"when,omitempty"`
	Event   Event   `json:"event"`
}

// Value returns the value of the first qualifier with key k, and whether there is one.
func (e Event) Value(k string) (string, bool) {
	for _, q := range e.Quals {
		if q.Key == k {
			return q.Value, true
		}
	}
	return "", false
}

// Verbs the simulation can detect, in canonical order.
//
//	step    the agent moves onto a tile (quals: color, terrain, zone, dir)
//	enter   the agent moves from outside a zone into it (quals: zone)
//	pick    the agent takes an item from an object (quals: color, object, phase)
//	drop    the agent puts an item down anywhere, basket included (quals: phase, zone, object, terrain)
//	litter  the agent puts an item down anywhere but a basket (quals and except: zone, object, terrain, phase)
//	carry   after the action the agent holds more than "over" items (quals: over)
//	pass    the agent moves onto a tile on or next to another agent (quals: role, hat)
//	meet    the agent comes to be next to an agent, whoever moved: it is on or next
//	        to one after its action and was not after its previous action (quals: role, hat)
//	bow     the agent bows (acts only)
//	use     the agent uses the object on its tile (quals: object)
//	give    the agent hands a good to another (quals: role and hat of the one given
//	        to; phase, zone, terrain of the giver's tile)
//	handle  the agent picks, puts down or gives (quals: phase, zone, object, terrain)
//
// The order is canonical; verbs added later come last.
func Verbs() []string {
	return []string{"step", "enter", "pick", "drop", "litter", "carry", "pass", "meet", "bow", "use", "give", "handle"}
}

// Keys lists the qualifier keys and, for each, the values it may take.
// The key "over" takes a small integer 0..9 and is listed with those values;
// the relational keys "near" and "follows" take Others.
func Keys() map[string][]string {
	return map[string][]string{
		"color":   Colors(),
		"hat":     Colors(),
		"terrain": Terrains(),
		"zone":    Zones(),
		"phase":   Phases(),
		"dir":     Dirs(),
		"object":  Objects(),
		"role":    Roles(),
		"over":    {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
		"near":    Others(),
		"follows": Others(),
	}
}

// Others are the values of the relational keys near and follows: anyone
// else, or anyone else of a role.
func Others() []string { return append([]string{"anyone"}, Roles()...) }

// Colors are the colours of tiles, objects and hats.
func Colors() []string { return []string{"red", "blue", "yellow", "green"} }

// Terrains are the kinds of ground.
func Terrains() []string {
	return []string{"path", "floor", "grass", "sand", "stone", "water", "wall"}
}

// Zones are the named areas every world has.
func Zones() []string { return []string{"market", "garden", "plaza"} }

// Phases are the parts of a day, in order.
func Phases() []string { return []string{"morning", "noon", "evening"} }

// Dirs are the four directions of movement.
func Dirs() []string { return []string{"north", "south", "east", "west"} }

// Objects are the kinds of object a tile can carry.
func Objects() []string { return []string{"source", "basket", "bell", "well", "bin"} }

// Roles are the roles of community members.
func Roles() []string { return []string{"elder", "vendor", "gardener", "child"} }
