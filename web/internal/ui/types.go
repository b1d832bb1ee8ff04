package ui

// The types below mirror the JSON of sim.wasm's ABI (wasm/internal/wire,
// sim.Observation, sim.Record). The browser app decodes them itself rather
// than importing package sim, so that the UI module carries no game logic
// and stays small; types_test.go checks, field by field, that each mirror
// still matches the type it copies.

// Observation mirrors sim.Observation.
type Observation struct {
	World          string  `json:"world"`
	Condition      string  `json:"condition"`
	Day            int     `json:"day"`
	Days           int     `json:"days"`
	Practice       bool    `json:"practice"`
	StepLimit      int     `json:"step_limit"`
	Task           Task    `json:"task"`
	Told           string  `json:"told,omitempty"`
	Names          Names   `json:"names"`
	SanctionRadius int     `json:"sanction_radius"`
	Frame          Frame   `json:"frame"`
	Events         []Event `json:"events"`
	Done           bool    `json:"done"`
}

// Task mirrors sim.Task.
type Task struct {
	Text   string `json:"text"`
	Goods  int    `json:"goods"`
	Litter bool   `json:"litter"`
}

// Names mirrors sim.Names.
type Names struct {
	Source string `json:"source"`
	Goods  string `json:"goods"`
	Basket string `json:"basket"`
	Bell   string `json:"bell"`
	Well   string `json:"well"`
	Bin    string `json:"bin"`
	Litter string `json:"litter"`
}

// Frame mirrors sim.Frame.
type Frame struct {
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Tiles  []Tile  `json:"tiles"`
	Zones  []Zone  `json:"zones"`
	Agents []Agent `json:"agents"`
	Step   int     `json:"step"`
	Phase  string  `json:"phase"`
}

// Tile mirrors sim.Tile.
type Tile struct {
	Terrain     string `json:"terrain"`
	Color       string `json:"color,omitempty"`
	Zone        string `json:"zone,omitempty"`
	Object      string `json:"object,omitempty"`
	ObjectColor string `json:"object_color,omitempty"`
	Stock       int    `json:"stock,omitempty"`
	Loose       int    `json:"loose,omitempty"`
}

// Zone mirrors sim.Zone.
type Zone struct {
	Name string `json:"name"`
	Min  Pos    `json:"min"`
	Max  Pos    `json:"max"`
}

// Pos mirrors sim.Pos.
type Pos struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// Agent mirrors sim.Agent.
type Agent struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Role       string `json:"role"`
	Hat        string `json:"hat,omitempty"`
	Pos        Pos    `json:"pos"`
	Goods      int    `json:"goods"`
	Litter     int    `json:"litter"`
	Delivered  int    `json:"delivered"`
	LastAction string `json:"last_action,omitempty"`
}

// Event mirrors sim.Event.
type Event struct {
	Day  int    `json:"day"`
	Step int    `json:"step"`
	Kind string `json:"kind"`
	By   string `json:"by,omitempty"`
	To   string `json:"to,omitempty"`
	Text string `json:"text"`
}

// Scores mirrors sim.Scores.
type Scores struct {
	Task              bool  `json:"task"`
	Compliance        bool  `json:"compliance"`
	Joint             bool  `json:"joint"`
	PracticeTask      bool  `json:"practice_task"`
	Violations        []int `json:"violations"`
	Sanctions         []int `json:"sanctions"`
	Steps             []int `json:"steps"`
	SanctionsReceived int   `json:"sanctions_received"`
	Repeats           int   `json:"repeats"`
}

// ProbeResult mirrors sim.ProbeResult.
type ProbeResult struct {
	Answer     int      `json:"answer"`
	Correct    bool     `json:"correct"`
	Confidence *float64 `json:"confidence,omitempty"`
}

// Record mirrors sim.Record: the result format `normgym replay` verifies.
type Record struct {
	Visit        string         `json:"visit"`
	World        string         `json:"world"`
	Norm         string         `json:"norm"`
	Family       string         `json:"family"`
	Condition    string         `json:"condition"`
	Agent        string         `json:"agent"`
	Client       string         `json:"client"`
	Actions      []string       `json:"actions"`
	Events       []Event        `json:"events"`
	Scores       Scores         `json:"scores"`
	Probe        *ProbeResult   `json:"probe,omitempty"`
	Hash         string         `json:"hash"`
	SimVersion   string         `json:"sim_version"`
	Catalog      string         `json:"catalog_version"`
	SimSHA256    string         `json:"sim_sha256"`
	Suite        string         `json:"suite,omitempty"`
	SuiteVersion string         `json:"suite_version,omitempty"`
	Extra        map[string]any `json:"extra,omitempty"`
}

// World mirrors sim.World (the fields the app shows).
type World struct {
	Name    string    `json:"name"`
	Title   string    `json:"title"`
	Source  string    `json:"source"`
	Goods   string    `json:"goods"`
	Basket  string    `json:"basket"`
	Members [4]string `json:"members"`
}

// Suite mirrors sim.Suite.
type Suite struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Description string   `json:"description"`
	Visits      []string `json:"visits"`
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
