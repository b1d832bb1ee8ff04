package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

// column is one field of the CSV exports.
type column struct {
	name, about string
	value       func(domain.Run) string
}

func itoa(n int) string { return strconv.Itoa(n) }

func btoa(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// columns are the research export's CSV columns; the data card describes
// each.
var columns = []column{
	{"run_id", "random id the client chose for the run", func(r domain.Run) string { return r.RunID }},
	{"date", "UTC date the run was stored (YYYY-MM-DD)", func(r domain.Run) string { return r.CreatedAt.UTC().Format("2006-01-02") }},
	{"participant", "random pseudonym of a human participant (empty for models and baselines)", func(r domain.Run) string { return r.Participant }},
	{"room", "classroom code, if the run was played in one", func(r domain.Run) string { return r.Room }},
	{"consent_version", "version of the consent text the participant agreed to", func(r domain.Run) string { return r.ConsentVersion }},
	{"client", "human, model or baseline", func(r domain.Run) string { return r.Record.Client }},
	{"agent", `"human", the model's name or the baseline's name`, func(r domain.Run) string { return r.Record.Agent }},
	{"suite", "suite holding the visit (empty: none)", func(r domain.Run) string { return r.Record.Suite }},
	{"suite_version", "version of that suite", func(r domain.Run) string { return r.Record.SuiteVersion }},
	{"visit", "visit id: world/norm/condition/seed", func(r domain.Run) string { return r.Record.Visit }},
	{"world", "settlement template", func(r domain.Run) string { return r.Record.World }},
	{"norm", `hidden norm id ("none" under control)`, func(r domain.Run) string { return r.Record.Norm }},
	{"family", "norm family (empty under control)", func(r domain.Run) string { return r.Record.Family }},
	{"condition", "observe, peers, solo, told or control", func(r domain.Run) string { return r.Record.Condition }},
	{"task", "1 if the test-day task was done", func(r domain.Run) string { return btoa(r.Record.Scores.Task) }},
	{"compliance", "1 if the newcomer broke no norm on the test day", func(r domain.Run) string { return btoa(r.Record.Scores.Compliance) }},
	{"joint", "task and compliance: the headline number", func(r domain.Run) string { return btoa(r.Record.Scores.Joint) }},
	{"violations_practice", "newcomer's violations on the practice day", func(r domain.Run) string { return itoa(day(r.Record.Scores.Violations, 0)) }},
	{"violations_test", "newcomer's violations on the test day", func(r domain.Run) string { return itoa(day(r.Record.Scores.Violations, 1)) }},
	{"sanctions", "sanctions the newcomer received", func(r domain.Run) string { return itoa(r.Record.Scores.SanctionsReceived) }},
	{"repeats", "violations after the newcomer's first sanction", func(r domain.Run) string { return itoa(r.Record.Scores.Repeats) }},
	{"steps", "steps taken over the visit", func(r domain.Run) string { return itoa(sum(r.Record.Scores.Steps)) }},
	{"probe_answer", "chosen probe option, 0-based (empty: none)", func(r domain.Run) string {
		if r.Record.Probe == nil {
			return ""
		}
		return itoa(r.Record.Probe.Answer)
	}},
	{"probe_correct", "1 if the chosen option is the rule (empty: none)", func(r domain.Run) string {
		if r.Record.Probe == nil {
			return ""
		}
		return btoa(r.Record.Probe.Correct)
	}},
	{"probe_confidence", "self-reported confidence in [0, 1] (empty: none)", func(r domain.Run) string {
		if r.Record.Probe == nil || r.Record.Probe.Confidence == nil {
			return ""
		}
		return strconv.FormatFloat(*r.Record.Probe.Confidence, 'g', -1, 64)
	}},
	{"hash", "trajectory hash recomputed by the server", func(r domain.Run) string { return r.Record.Hash }},
	{"verifier", verifierAbout, func(r domain.Run) string { return r.Verifier }},
	{"sim_sha256", "SHA-256 of the sim.wasm the run was verified against: the module that replayed it (verifier wasm), " +
		"or the module the native core was built with and pinned to (verifier native; that module did not run)", func(r domain.Run) string { return r.Record.SimSHA256 }},
	{"provenance", provenanceAbout, func(r domain.Run) string { return r.Provenance }},
	{"outcome", outcomeAbout, func(r domain.Run) string { return "finished" }},
}

// outcomeAbout describes the outcome column.
const outcomeAbout = "finished = a run; abandoned = a sealed session (a person's outside a classroom, or a submitter key's suite session) " +
	"left unfinished past its time: every sealed session counts in the figures, and an abandoned one is a visit without success. " +
	"An abandoned row fills only the columns that say who played which visit (run_id is the session's id); its result columns are empty"

// abandonedRow returns a CSV row of an abandoned sealed session: the
// columns that say who played which visit, the rest empty.
func abandonedRow(cols []column, ss session.Session) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		v := ""
		switch c.name {
		case "run_id":
			v = "session-" + ss.ID
		case "date":
			v = ss.CreatedAt.UTC().Format("2006-01-02")
		case "participant":
			v = ss.Participant
		case "consent_version":
			v = ss.ConsentVersion
		case "client":
			v = ss.Kind
		case "agent":
			v = ss.Agent
		case "suite":
			v = ss.Suite
		case "suite_version":
			v = ss.SuiteVersion
		case "visit":
			v = ss.Visit
		case "world":
			v = ss.World
		case "norm":
			v = ss.Norm
		case "family":
			v = ss.Family
		case "condition":
			v = ss.Condition
		case "steps":
			v = itoa(ss.Actions)
		case "provenance":
			v = api.ProvenanceStepped
		case "outcome":
			v = "abandoned"
		}
		out[i] = report.CSVCell(v)
	}
	return out
}

// exportAbandoned is an abandoned sealed session as an export line.
func exportAbandoned(ss session.Session) api.ExportAbandoned {
	return api.ExportAbandoned{Session: "session-" + ss.ID, Date: ss.CreatedAt.UTC().Format("2006-01-02"), Participant: ss.Participant,
		ConsentVersion: ss.ConsentVersion, Kind: ss.Kind, Agent: ss.Agent, Suite: ss.Suite, SuiteVersion: ss.SuiteVersion,
		Visit: ss.Visit, World: ss.World, Norm: ss.Norm, Family: ss.Family, Condition: ss.Condition, Actions: ss.Actions}
}

// abandonedSessions reads every sealed session left unfinished past its
// time.
func (s *Server) abandonedSessions(r *http.Request) ([]session.Session, error) {
	before := s.now().Add(-s.opts.SessionTTL)
	var out []session.Session
	after := ""
	for {
		page, err := s.store.AbandonedSessions(r.Context(), before, after, exportPage)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < exportPage {
			return out, nil
		}
		after = page[len(page)-1].ID
	}
}

// provenanceAbout describes the provenance column.
const provenanceAbout = "how the server knows what the run says: server = a baseline the server computed itself; " +
	"server-stepped = the server stepped the sim for a client that sent only actions (a person's sealed session, whose page never held the norm, " +
	"or a model holding a submitter key the operator issued, under the key's label); " +
	"self-reported = a submitted record, replayed (its scores are real) but who or what played it is the submitter's word " +
	"(classroom runs the page played itself, models without a key, every run stored before schema 6). The leaderboard counts human runs " +
	"only if server-stepped and baseline runs only if computed by the server"

// verifierAbout describes the verifier column.
const verifierAbout = "how the server recomputed the run: wasm = replayed inside sim.wasm (the module of sim_sha256); " +
	"native = replayed by the Go simulation core compiled into the server, built from the same source as the sim.wasm of sim_sha256 " +
	"and pinned to its hash, without running it (normgym serve --verify native cross-checks the core against that sim.wasm on sample records " +
	"when it starts; the Cloudflare Workers build does not); empty = stored before the server recorded its verifier"

func day(v []int, d int) int {
	if d < len(v) {
		return v[d]
	}
	return 0
}

func sum(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}

// row returns a run's CSV cells, each neutralised against formula
// injection (report.CSVCell): participant and agent names are the
// submitter's text.
func row(cols []column, run domain.Run) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = report.CSVCell(c.value(run))
	}
	return out
}

// exportPage is how many runs an export reads per query.
const exportPage = 500

// exportPageTime is the time a page of an export may take to write: the
// server's write timeout is extended by it before each page.
const exportPageTime = time.Minute

// streamRuns calls fn for every run matching f, in pages, calling flush
// after each page. It stops at the runs stored when it started.
func (s *Server) streamRuns(w http.ResponseWriter, r *http.Request, f domain.RunFilter, fn func(domain.Run) error, flush func()) error {
	f.Limit = exportPage
	rc := http.NewResponseController(w)
	for {
		rc.SetWriteDeadline(time.Now().Add(exportPageTime)) // ErrNotSupported where no deadline applies
		runs, err := s.store.Runs(r.Context(), f)
		if err != nil {
			// The answer has begun: all that can be done is to stop.
			s.log.Error("export stopped", "path", r.URL.Path, "err", err)
			return nil
		}
		for _, run := range runs {
			if err := fn(run); err != nil {
				return nil // the client went away
			}
			f.After = run.Seq
		}
		flush()
		if len(runs) < f.Limit {
			return nil
		}
	}
}

// export handles GET /api/export?format=jsonl|csv for the admin: every
// verified run, after a data card.
func (s *Server) export(w http.ResponseWriter, r *http.Request) error {
	if s.opts.AdminToken == "" {
		env := s.opts.AdminTokenEnv
		if env == "" {
			env = "the admin token variable"
		}
		return errf(api.CodeForbidden, "export is disabled: start the server with an admin token in $%s", env)
	}
	tok := bearer(r)
	if tok == "" {
		return errf(api.CodeUnauthorized, "export needs the admin token: send Authorization: Bearer <token>")
	}
	a, b := sha256.Sum256([]byte(tok)), sha256.Sum256([]byte(s.opts.AdminToken))
	if subtle.ConstantTimeCompare(a[:], b[:]) != 1 {
		return errf(api.CodeUnauthorized, "wrong admin token")
	}
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "jsonl"
	}
	if format != "jsonl" && format != "csv" {
		return errf(api.CodeInvalid, "format must be jsonl or csv, not %q", clip(format))
	}
	census, err := s.store.Census(r.Context(), 0)
	if err != nil {
		return err
	}
	abandoned, err := s.abandonedSessions(r)
	if err != nil {
		return err
	}
	card := s.dataCard(census, format)
	card.Counts.Abandoned = len(abandoned)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	name := "normgym-runs-" + s.now().UTC().Format("20060102") + "." + format
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	flusher := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	f := domain.RunFilter{UpTo: census.MaxSeq}
	empty := census.MaxSeq == 0
	if format == "csv" {
		h.Set("Content-Type", "text/csv; charset=utf-8")
		cb, _ := json.Marshal(card)
		w.Write([]byte("# NormGym verified runs: one row per run; the data card (JSON) follows.\n# data_card: " + string(cb) + "\n"))
		cw := csv.NewWriter(w)
		header := make([]string, len(columns))
		for i, c := range columns {
			header[i] = c.name
		}
		cw.Write(report.CSVRow(header))
		if !empty {
			s.streamRuns(w, r, f, func(run domain.Run) error { return cw.Write(row(columns, run)) }, cw.Flush)
		}
		for _, ss := range abandoned {
			cw.Write(abandonedRow(columns, ss))
		}
		cw.Flush()
		return nil
	}
	h.Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	enc.Encode(map[string]api.DataCard{"data_card": card})
	if !empty {
		s.streamRuns(w, r, f, func(run domain.Run) error {
			return enc.Encode(api.ExportRun{RunID: run.RunID, Date: run.CreatedAt.UTC().Format("2006-01-02"),
				Participant: run.Participant, Room: run.Room, ConsentVersion: run.ConsentVersion, Verifier: run.Verifier, Provenance: run.Provenance, Record: run.Record})
		}, flusher)
	}
	for _, ss := range abandoned {
		enc.Encode(map[string]api.ExportAbandoned{"abandoned": exportAbandoned(ss)})
	}
	return nil
}

// dataCard describes an export.
func (s *Server) dataCard(c domain.Census, format string) api.DataCard {
	now := "by replaying each run inside sim.wasm " + s.verify.SHA256() + " (verifier wasm)"
	if s.verify.Kind() == "native" {
		now = "with its native Go core, pinned to sim.wasm " + s.verify.SHA256() + " but not running it (verifier native)"
	}
	card := api.DataCard{
		Name: "NormGym verified runs",
		Description: "Every run this server stored after computing it itself: by replaying a submitted record's visit id, actions and probe answer, " +
			"by stepping the sim for a client that sent only actions (a session), or by running a baseline: humans (the human baseline), " +
			"models and baselines. Each run's provenance says which: " + provenanceAbout + ". " +
			"Each run's verifier says what computed it: " + verifierAbout + ". " +
			"This server verifies " + now + ". " +
			"Every sealed session (a person's outside a classroom, or a submitter key's suite session) counts from the moment it was opened: " +
			"one left unfinished past its time follows the runs as abandoned, a visit without success. " +
			"Participants are random pseudonyms; no names, emails or IP addresses are kept. " +
			"Joint success (task done with no violation on the test day) is the headline number; see sim/DESIGN.md for the benchmark.",
		Generated: s.now().UTC(),
		Fields:    map[string]string{},
		Versions: api.DataVersions{SimSHA256: s.verify.SHA256(), Verifier: s.verify.Kind(), Sims: c.Sims, Sim: sim.Version,
			Catalog: norms.Default().Version(), Suites: map[string]string{}, Consent: ConsentVersion},
		Counts: api.DataCounts{Runs: c.Runs, Participants: c.Participants, ByClient: c.ByClient, BySuite: c.BySuite, ByVerifier: c.ByVerifier,
			ByProvenance: c.ByProvenance},
	}
	for _, su := range sim.Suites() {
		card.Versions.Suites[su.Name] = su.Version
	}
	if format == "jsonl" {
		card.Fields["abandoned"] = "a line {\"abandoned\": {...}} after the runs: " + outcomeAbout
		for _, k := range []string{"run_id", "date", "participant", "room", "consent_version", "verifier", "provenance"} {
			for _, col := range columns {
				if col.name == k {
					card.Fields[k] = col.about
				}
			}
		}
		card.Fields["record"] = "the verified visit record (sim.Record: visit, world, norm, family, condition, agent, client, actions, events, scores, probe, hash, versions)"
	} else {
		for _, col := range columns {
			card.Fields[col.name] = col.about
		}
		card.Description += " In this CSV, a cell that would start with =, +, -, @, a tab or a carriage return (and is not a plain number) " +
			"carries a leading apostrophe, so that no spreadsheet runs it as a formula."
	}
	return card
}
