package ui

import "github.com/normgym/normgym/sim"

// The observation and record types are sim's own: the module's JSON is
// their encoding, so the app decodes into them directly.
type (
	Observation = sim.Observation
	Task        = sim.Task
	Names       = sim.Names
	Frame       = sim.Frame
	Tile        = sim.Tile
	Zone        = sim.Zone
	Pos         = sim.Pos
	Agent       = sim.Agent
	Event       = sim.Event
	Scores      = sim.Scores
	ProbeResult = sim.ProbeResult
	Record      = sim.Record
	Suite       = sim.Suite
)

// The remaining types below mirror the JSON of sim.wasm's ABI responses
// (wasm/internal/wire); types_test.go checks, field by field, that each
// mirror still matches the type it copies.

// World mirrors sim.World (the fields the app shows).
type World struct {
	Name    string    `json:"name"`
	Title   string    `json:"title"`
	Source  string    `json:"source"`
	Goods   string    `json:"goods"`
	Basket  string    `json:"basket"`
	Members [4]string `json:"members"`
}

// Norm mirrors the catalog entries of the norms export (the fields the
// app shows).
type Norm struct {
	ID        string `json:"id"`
	Family    string `json:"family"`
	Statement string `json:"statement"`
	Tag       string `json:"tag"`
}

// Info mirrors wire.Info.
type Info struct {
	ABI            int    `json:"abi"`
	SimVersion     string `json:"sim_version"`
	CatalogVersion string `json:"catalog_version"`
	Suites         []struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Visits  int    `json:"visits"`
	} `json:"suites"`
	Worlds []World  `json:"worlds"`
	Agents []string `json:"agents"`
}

// StepResponse mirrors wire.StepResponse; ResetResponse and
// ObserveResponse are its subsets.
type StepResponse struct {
	Handle      int          `json:"handle,omitempty"`
	Observation *Observation `json:"observation"`
	Text        string       `json:"text"`
	Events      []Event      `json:"events"`
	Terminated  bool         `json:"terminated"`
	Truncated   bool         `json:"truncated"`
	DayOver     bool         `json:"day_over"`
}

// Done reports whether the visit is over.
func (s StepResponse) Done() bool { return s.Terminated || s.Truncated }

// ScoreResponse mirrors wire.ScoreResponse.
type ScoreResponse struct {
	Scores Scores `json:"scores"`
	Hash   string `json:"hash"`
	Over   bool   `json:"over"`
}

// ProbeResponse mirrors wire.ProbeResponse.
type ProbeResponse struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
}

// ReplayResponse mirrors wire.ReplayResponse.
type ReplayResponse struct {
	Record Record   `json:"record"`
	Match  bool     `json:"match"`
	Diffs  []string `json:"diffs"`
}
