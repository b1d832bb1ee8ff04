package ui

import (
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/wire"
)

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

// The ABI's requests and responses are the module's own wire types.
type (
	World          = sim.World
	Info           = wire.Info
	StepResponse   = wire.StepResponse
	ScoreResponse  = wire.ScoreResponse
	ProbeResponse  = wire.ProbeResponse
	ReplayResponse = wire.ReplayResponse
)

// Norm is a catalog entry of the norms export, the fields the app shows
// (the norms package is not linked into the app).
type Norm struct {
	ID        string `json:"id"`
	Family    string `json:"family"`
	Statement string `json:"statement"`
	Tag       string `json:"tag"`
}
