package sim

// Observation is what the newcomer perceives after reset or a step: the
// whole (small) map, every agent with its last action, its own task and the
// events since the last step. No field is computed from the norm except
// Told, set only under the told condition, and no field names the
// condition: the newcomer finds out what it can learn from by looking.
type Observation struct {
	World     string `json:"world"`
	Day       int    `json:"day"`
	Days      int    `json:"days"`
	Practice  bool   `json:"practice"`
	StepLimit int    `json:"step_limit"`
	Task      Task   `json:"task"`
	// Told is the norm's statement, under the told condition only.
	Told string `json:"told,omitempty"`
	// Names are the world's names for things.
	Names Names `json:"names"`
	// SanctionRadius is how far members notice what others do.
	SanctionRadius int `json:"sanction_radius"`
	// ActedIn is the phase the step just taken happened in ("" at the
	// start of a day): the agents' last actions were taken then.
	ActedIn string `json:"acted_in,omitempty"`
	// DayEnd, on the first observation of a day after the first, is the
	// recap line of the step that ended the previous day (what each agent
	// did and where, as Text's "Step" line says it): the frame shows the
	// new day, so it can no longer say it.
	DayEnd string  `json:"day_end,omitempty"`
	Frame  Frame   `json:"frame"`
	Events []Event `json:"events"`
	// Done reports that the visit is over.
	Done bool `json:"done"`
}

// Names are a world's names for its things. Everything a reader sees
// names the kinds generically (source, basket, bell, well, bin, litter)
// and gives the world's own name beside them in the map legend, so that a
// rule reads the same in every world.
type Names struct {
	Source string `json:"source"`
	Goods  string `json:"goods"`
	Basket string `json:"basket"`
	Bell   string `json:"bell"`
	Well   string `json:"well"`
	Bin    string `json:"bin"`
	Litter string `json:"litter"`
}

// ObjectName returns the world's name for an object kind.
func (n Names) ObjectName(kind string) string {
	switch kind {
	case "source":
		return n.Source
	case "basket":
		return n.Basket
	case "bell":
		return n.Bell
	case "well":
		return n.Well
	case "bin":
		return n.Bin
	}
	return kind
}

// Observe returns the current observation, a copy the caller owns.
func (e *Visit) Observe() *Observation {
	o := new(Observation)
	e.observe(o)
	return o
}

// observe writes the current observation into o, reusing the memory of
// o's tiles, zones, agents and events.
func (e *Visit) observe(o *Observation) {
	w := e.world
	frame, events := o.Frame, o.Events
	if events == nil {
		events = []Event{} // never null in JSON
	}
	*o = Observation{
		World: w.Name, Day: e.day + 1, Days: Days,
		Practice: e.day < Days-1, StepLimit: e.limit, Task: e.task,
		Names:          w.names(),
		SanctionRadius: SanctionRadius, ActedIn: e.lastPhase, DayEnd: e.dayEnd, Frame: frame,
		Events: append(events[:0], e.events...), Done: e.over,
	}
	e.frame.CopyInto(&o.Frame)
	if e.id.Condition == Told && e.norm != nil {
		o.Told = e.norm.Statement
	}
}
