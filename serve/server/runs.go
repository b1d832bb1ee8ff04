package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// ConsentVersion is the version of ConsentText; every run stores the
// version its participant agreed to. Change it with the text.
//
// Version 2: sealed visits send each action as it is taken (a session).
// Version 3: a classroom's visit is a session too, and an unfinished
// sealed visit is published as abandoned (without its actions).
const ConsentVersion = "3"

// ConsentText is what a participant agrees to before playing.
const ConsentText = `NormGym is a research benchmark about how people and AI systems learn unwritten rules.

If you play, the server keeps: the visit you played, every action you took in the game, your answer to the question at the end (and how sure you were, if you said), the scores the game computes, a random pseudonym that your browser made up, the date, and a classroom code if you joined one.

It keeps no name, no email address, no IP address and no account. The pseudonym is not linked to you by the server; keep it private, because anyone who knows it can list its runs.

Runs are published as an open data set (the human baseline) and may be used in research papers. Taking part is voluntary: you can stop at any time.

How your actions reach the server depends on the visit. A visit the server gives you (the human baseline, a study's visit or a classroom's) is played on the server: each action is sent as you take it and kept, so that a reload goes on where you were, and the run is stored when the visit ends. If you leave such a visit unfinished, the data set says that your pseudonym was given that visit and did not finish it, but not what you did in it. A classroom's runs are shown to its teacher under the nickname you chose and are kept out of the human baseline. When the page runs a visit itself (practice, or a visit you picked), nothing is sent until it is finished and you submit it.`

func (s *Server) consent(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, api.Consent{Version: ConsentVersion, Text: ConsentText})
}

// Clients are the kinds of newcomer a run may come from.
var clients = []string{"human", "model", "baseline"}

// maxExtra bounds a record's extra field in bytes.
const maxExtra = 16 << 10

// MaxActions and MaxEvents bound a submitted record before it is
// replayed (MaxEvents bounds every array of a submission as it is read,
// before it is decoded). A visit takes one action per step, at most
// sim.PracticeSteps+sim.TestSteps (150; the random baseline uses them
// all); the margin only guards against a change of step accounting.
// Events are the visible events, a few per step: at most 109 in the
// 7,120 baseline records of the standard, hard, transfer, train and
// heldout suites; the bound is four per step.
const (
	MaxActions = sim.PracticeSteps + sim.TestSteps + 10
	MaxEvents  = 4 * (sim.PracticeSteps + sim.TestSteps)
)

// submit handles POST /api/runs: decode, check, replay, store.
func (s *Server) submit(w http.ResponseWriter, r *http.Request) error {
	var sub api.Submission
	if err := decodeJSON(r, &sub, MaxEvents); err != nil {
		return err
	}
	// Bound the work before anything else: an honest record holds one
	// action per step of the visit and a few events per step.
	if n := len(sub.Record.Actions); n > MaxActions {
		return errf(api.CodeInvalid, "record.actions holds %d actions, but a visit takes at most %d steps", n, sim.PracticeSteps+sim.TestSteps)
	}
	if n := len(sub.Record.Events); n > MaxEvents {
		return errf(api.CodeInvalid, "record.events holds %d events, more than a visit can show (at most %d)", n, MaxEvents)
	}
	if !api.ValidRunID(sub.RunID) {
		return errf(api.CodeInvalid, "run_id must be 16 to 64 characters of letters, digits, '-' and '_' (a random id per run)")
	}
	canon, err := json.Marshal(sub)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(canon)
	content := hex.EncodeToString(sum[:])
	ctx := r.Context()
	// A retry of a stored run needs no replay.
	if prev, err := s.store.Run(ctx, sub.RunID); err == nil {
		return s.answerExisting(w, prev, content)
	} else if !errors.Is(err, domain.ErrNotFound) {
		return err
	}
	rec, err := s.check(r, &sub)
	if err != nil {
		return err
	}
	// The participant's trajectory stored under another run id (say, a
	// second `normgym run --submit` of the same records): nothing to store.
	if prev, err := s.store.RunByTrajectory(ctx, sub.Participant, rec.Visit, rec.Hash); err == nil {
		return s.answerSameTrajectory(w, prev)
	} else if !errors.Is(err, domain.ErrNotFound) {
		return err
	}
	if err := s.checkNorm(ctx, sub.Participant, rec); err != nil {
		return err
	}
	verified, err := s.replay(ctx, rec)
	if err != nil {
		return err
	}
	run := domain.Run{RunID: sub.RunID, ContentSHA256: content, CreatedAt: s.now().UTC(), Participant: sub.Participant,
		Room: sub.Room, ConsentVersion: ConsentVersion, Verifier: s.verify.Kind(), Provenance: api.ProvenanceSelfReported, Record: verified}
	stored, created, err := s.store.PutRun(ctx, run)
	if errors.Is(err, domain.ErrNormPlayed) {
		// Another run of this norm by the participant got in first.
		if err := s.checkNorm(ctx, sub.Participant, verified); err != nil {
			return err
		}
		return errf(api.CodeConflict, "participant %s already played norm %s in another visit", sub.Participant, verified.Norm)
	}
	if err != nil {
		return err
	}
	if !created {
		if stored.RunID != run.RunID {
			return s.answerSameTrajectory(w, stored)
		}
		return s.answerExisting(w, stored, content)
	}
	return writeJSON(w, http.StatusCreated, api.SubmitResponse{RunID: stored.RunID, Record: stored.Record})
}

// answerSameTrajectory answers a submission whose participant has stored
// the same trajectory of the visit as run prev: a duplicate, so that a
// client that submits a run again under a fresh id stores nothing twice.
// The answer's run_id is the stored one.
func (s *Server) answerSameTrajectory(w http.ResponseWriter, prev domain.Run) error {
	return writeJSON(w, http.StatusOK, api.SubmitResponse{RunID: prev.RunID, Duplicate: true, Record: prev.Record})
}

// checkNorm refuses a human run on a norm that its participant has a run
// of in another visit: a person never meets the same norm twice (as
// /api/assign hands out; control counts as the norm "none").
func (s *Server) checkNorm(ctx context.Context, participant string, rec sim.Record) error {
	if rec.Client != "human" || participant == "" {
		return nil
	}
	id, err := sim.ParseVisitID(rec.Visit)
	if err != nil {
		return errf(api.CodeInvalid, "unknown visit: %s", strings.TrimPrefix(err.Error(), "sim: "))
	}
	prev, err := s.store.NormRun(ctx, participant, id.Norm, rec.Visit)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	return errf(api.CodeConflict, "participant %s already played norm %s (visit %s, run %s): a person meets each norm once, so this run of visit %s is not stored (GET /api/assign hands out a visit of a new norm)",
		participant, id.Norm, prev.Record.Visit, prev.RunID, rec.Visit)
}

// answerExisting answers a submission whose run id is stored.
func (s *Server) answerExisting(w http.ResponseWriter, prev domain.Run, content string) error {
	if prev.ContentSHA256 != content {
		return errf(api.CodeConflict, "run_id %s is already stored with different content: use a new random run_id for a new run", prev.RunID)
	}
	return writeJSON(w, http.StatusOK, api.SubmitResponse{RunID: prev.RunID, Duplicate: true, Record: prev.Record})
}

// check validates a submission and returns the record to replay, with
// its agent, client and suite set by the server's rules.
func (s *Server) check(r *http.Request, sub *api.Submission) (sim.Record, error) {
	rec := sub.Record
	if !sub.Consent {
		return rec, errf(api.CodeConsent, "consent is required: show the text of GET /api/consent (version %s) and send consent: true", ConsentVersion)
	}
	if sub.ConsentVersion != "" && sub.ConsentVersion != ConsentVersion {
		return rec, errf(api.CodeConsent, "consent_version %q is not the current one (%s): show the current text of GET /api/consent again", clip(sub.ConsentVersion), ConsentVersion)
	}
	if err := s.checkVersions(rec); err != nil {
		return rec, err
	}
	if !slices.Contains(clients, rec.Client) {
		return rec, errf(api.CodeInvalid, "record.client must be one of %s, not %q", strings.Join(clients, ", "), clip(rec.Client))
	}
	// A person is a random pseudonym; a program may be named by its
	// submitter ("model:NAME", "baseline:greedy"), but never by an email.
	if p := sub.Participant; p != "" && !api.ValidParticipant(p) &&
		(rec.Client == "human" || !validName(p) || strings.ContainsAny(p, "@ \t")) {
		return rec, errf(api.CodeInvalid, "participant must be a random pseudonym of 8 to 64 letters, digits, '-' or '_' (never a name or an email address)")
	}
	switch rec.Client {
	case "baseline":
		return rec, errf(api.CodeForbidden, "baseline runs are computed by the server itself (their rows say provenance %q): submitted records may be model runs, or a classroom's human runs", api.ProvenanceServer)
	case "human":
		if sub.Room == "" {
			return rec, errf(api.CodeForbidden, "a person's run counts only if the server stepped it: play through a session (POST /api/sessions), whose page never holds the norm; submitted human records are taken in classrooms only")
		}
	}
	switch rec.Client {
	case "human":
		if sub.Participant == "" {
			return rec, errf(api.CodeInvalid, "a human run needs a participant pseudonym")
		}
		if rec.Agent != "" && rec.Agent != "human" {
			return rec, errf(api.CodeInvalid, `record.agent of a human run must be "human" or empty`)
		}
		rec.Agent = "human"
		// Free-form data from a person's browser could identify them.
		rec.Extra = nil
	case "baseline":
		if !slices.Contains(agents.Names(), rec.Agent) {
			return rec, errf(api.CodeInvalid, "record.agent of a baseline run must be one of %s, not %q", strings.Join(agents.Names(), ", "), clip(rec.Agent))
		}
	case "model":
		if err := api.CheckModelName(rec.Agent, agents.Names()); err != nil {
			return rec, errf(api.CodeInvalid, "record.agent of a model run must be the model's name: %v", err)
		}
	}
	if rec.Extra != nil {
		if b, err := json.Marshal(rec.Extra); err != nil || len(b) > maxExtra {
			return rec, errf(api.CodeInvalid, "record.extra must be at most %d bytes of JSON", maxExtra)
		}
	}
	if _, err := sim.ParseVisitID(rec.Visit); err != nil {
		return rec, errf(api.CodeInvalid, "unknown visit: %s", strings.TrimPrefix(err.Error(), "sim: "))
	}
	var room *domain.Room
	if sub.Room != "" {
		if sub.Participant == "" {
			return rec, errf(api.CodeInvalid, "a run in a room needs a participant pseudonym")
		}
		rm, err := s.openRoom(r, sub.Room)
		if e := (*Error)(nil); errors.As(err, &e) && e.Code == api.CodeNotFound {
			return rec, errf(api.CodeInvalid, "there is no room %q", clip(sub.Room))
		} else if err != nil {
			return rec, err
		}
		if !slices.Contains(rm.Visits, rec.Visit) {
			return rec, errf(api.CodeInvalid, "visit %s is not in room %s's visit set", rec.Visit, rm.Code)
		}
		room, sub.Room = &rm, rm.Code
	}
	ref := s.suites[rec.Visit]
	if ref.name == "" && room == nil {
		return rec, errf(api.CodeInvalid, "visit %s is in no suite (see GET /api/suites or normgym suites): play a visit of a suite, or one that your room lists", rec.Visit)
	}
	if rec.Suite != "" && rec.Suite != ref.name {
		if ref.name == "" {
			return rec, errf(api.CodeInvalid, "visit %s is in no suite, but the record says suite %q", rec.Visit, clip(rec.Suite))
		}
		return rec, errf(api.CodeInvalid, "visit %s belongs to suite %s, not %q", rec.Visit, ref.name, clip(rec.Suite))
	}
	if rec.SuiteVersion != "" && rec.SuiteVersion != ref.version {
		return rec, errf(api.CodeVersion, "suite %s is at version %s on this server, the record says %q", ref.name, ref.version, clip(rec.SuiteVersion))
	}
	rec.Suite, rec.SuiteVersion = ref.name, ref.version
	if sha := s.verify.SHA256(); rec.SimSHA256 != sha {
		e := errf(api.CodeVersion, "the record comes from sim.wasm %q, but this server runs sim.wasm %s (sim version %s): replay the visit with that module", clip(rec.SimSHA256), sha, sim.Version)
		e.SimSHA256 = sha
		return rec, e
	}
	return rec, nil
}

// checkVersions refuses a record another sim or catalog version made: its
// visit would play differently here, so no replay could match it. The
// error names this server's sim.wasm, as the module check does.
func (s *Server) checkVersions(rec sim.Record) *Error {
	var e *Error
	if v := rec.SimVersion; v != sim.Version {
		e = errf(api.CodeVersion, "the record was made by sim version %s; this server runs sim version %s: re-run the visit", clip(orNone(v)), sim.Version)
	} else if v, now := rec.Catalog, norms.Default().Version(); v != now {
		e = errf(api.CodeVersion, "the record was made with norm catalog version %s; this server runs catalog version %s: re-run the visit", clip(orNone(v)), now)
	} else {
		return nil
	}
	e.SimSHA256 = s.verify.SHA256()
	return e
}

// orNone names an empty version.
func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// replay verifies rec within the replay bound and returns the record to
// store. The replay holds its slot of s.replays until the verifier has
// returned, even after the timeout has answered the request, so that at
// most MaxReplays replays ever run at once.
func (s *Server) replay(ctx context.Context, rec sim.Record) (sim.Record, error) {
	select {
	case s.replays <- struct{}{}:
	default:
		return rec, errf(api.CodeBusy, "the server is verifying too many runs at once: try again in a few seconds")
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.ReplayTimeout)
	defer cancel()
	type result struct {
		res Replayed
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() { <-s.replays }()
		defer func() {
			if p := recover(); p != nil {
				ch <- result{err: fmt.Errorf("server: replay panicked: %v", p)}
			}
		}()
		res, err := s.verify.Replay(ctx, rec)
		ch <- result{res, err}
	}()
	var res Replayed
	var err error
	select {
	case r := <-ch:
		res, err = r.res, r.err
	case <-ctx.Done():
		err = ctx.Err()
	}
	switch {
	case err == nil:
	case errors.Is(err, ErrUnreplayable):
		return rec, errf(api.CodeMismatch, "%s", strings.ReplaceAll(err.Error(), "sim: ", ""))
	case errors.Is(err, context.DeadlineExceeded):
		return rec, errf(api.CodeTimeout, "verifying the run took longer than %s: try again later", s.opts.ReplayTimeout)
	case errors.Is(err, context.Canceled):
		return rec, errf(api.CodeTimeout, "the request ended before the run was verified")
	default:
		return rec, &Error{Code: api.CodeInternal, Message: "replay failed", Err: err}
	}
	if len(res.Diffs) > 0 {
		e := errf(api.CodeMismatch, "the record does not match its replay (%s): nothing was stored", strings.Join(res.Diffs, ", "))
		e.Diffs = res.Diffs
		return rec, e
	}
	out := res.Record
	out.Agent, out.Client = rec.Agent, rec.Client
	out.Suite, out.SuiteVersion, out.Extra = rec.Suite, rec.SuiteVersion, rec.Extra
	out.SimSHA256 = s.verify.SHA256()
	return out, nil
}

// listRuns handles GET /api/runs with the participant's pseudonym in the
// api.ParticipantHeader header: a participant's own runs. A pseudonym in
// the URL is refused (URLs end up in logs).
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) error {
	if r.URL.Query().Has("participant") {
		return errf(api.CodeInvalid, "a pseudonym never goes in a URL: send it in the %s header", api.ParticipantHeader)
	}
	p := r.Header.Get(api.ParticipantHeader)
	if !api.ValidParticipant(p) {
		return errf(api.CodeInvalid, "participant must be your pseudonym (8 to 64 letters, digits, '-' or '_')")
	}
	runs, err := s.store.Runs(r.Context(), domain.RunFilter{Participant: p, Limit: 1000})
	if err != nil {
		return err
	}
	out := api.Runs{Participant: p, Runs: make([]api.RunSummary, 0, len(runs))}
	held := s.heldRuns(r.Context())
	for _, run := range runs {
		sm := summarize(run)
		if h, err := held(run.Room); err != nil {
			return err
		} else if h {
			holdSummary(&sm) // a class's visit, before the reveal (room_hold.go)
		}
		out.Runs = append(out.Runs, sm)
	}
	return writeJSON(w, http.StatusOK, out)
}

func summarize(run domain.Run) api.RunSummary {
	rec := run.Record
	sm := api.RunSummary{RunID: run.RunID, CreatedAt: run.CreatedAt, Room: run.Room, Visit: rec.Visit, World: rec.World,
		Condition: rec.Condition, Agent: rec.Agent, Client: rec.Client, Task: rec.Scores.Task, Compliance: rec.Scores.Compliance,
		Joint: rec.Scores.Joint, Violations: rec.Scores.Violations, Sanctions: rec.Scores.SanctionsReceived}
	if rec.Probe != nil {
		c := rec.Probe.Correct
		sm.ProbeCorrect = &c
	}
	return sm
}

// validName reports whether s is a short printable name.
func validName(s string) bool {
	if s == "" || len(s) > 100 || !utf8.ValidString(s) || strings.TrimSpace(s) != s {
		return false
	}
	for _, c := range s {
		if !unicode.IsPrint(c) {
			return false
		}
	}
	return true
}

// clip shortens user input quoted in messages.
func clip(s string) string {
	if len(s) > 80 {
		for i := 80; i > 0; i-- {
			if utf8.RuneStart(s[i]) {
				return s[:i] + "…"
			}
		}
	}
	return s
}
