package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/session"
)

// A participant's way through a study: enter with the link's platform
// ids (a study token back: the participant's only credential), consent,
// the comprehension check, the sealed visit, the probe (the session's),
// the debrief and the completion code. Every answer is the participant's
// api.StudyState, except the visit's, which is the session's.

// studyEnter handles POST /api/study/CODE/enter.
func (s *Server) studyEnter(w http.ResponseWriter, r *http.Request) error {
	st, ss, err := s.findStudy(r, r.PathValue("code"))
	if err != nil {
		return err
	}
	var req api.StudyEnter
	if err := decodeJSON(r, &req, 4); err != nil {
		return err
	}
	id, others, err := platformIDs(st, req.Params)
	if err != nil {
		return err
	}
	hash := randomHex()
	if id != "" {
		hash = pidHash(st.Salt, id)
	}
	ctx := r.Context()
	if prev, err := ss.StudyParticipant(ctx, st.Code, hash); err == nil {
		return s.reenter(w, r, st, prev)
	} else if !errors.Is(err, domain.ErrNotFound) {
		return err
	}
	// Every entry holds a place and opens a sealed visit: a client
	// enters only so many a day.
	if err := s.allow(r, ClassSealed); err != nil {
		return err
	}
	p, token, err := s.admit(ctx, ss, st, hash, others)
	if errors.Is(err, errEntered) {
		prev, err := ss.StudyParticipant(ctx, st.Code, hash)
		if err != nil {
			return err
		}
		return s.reenter(w, r, st, prev)
	}
	if err != nil {
		return err
	}
	state := s.studyStateOf(st, p, false)
	state.Token = token
	return writeJSON(w, http.StatusCreated, state)
}

// errEntered: the platform id entered meanwhile.
var errEntered = errors.New("server: entered already")

// admit takes a place for a new participant: the cell and visit the
// quota gives, stored with the participant, one entry at a time.
func (s *Server) admit(ctx context.Context, ss domain.StudyStorage, st domain.Study, hash string, others map[string]string) (domain.StudyParticipant, string, error) {
	s.studies.mu.Lock()
	defer s.studies.mu.Unlock()
	rows, err := s.settledRows(ctx, ss, st)
	if err != nil {
		return domain.StudyParticipant{}, "", err
	}
	cells, _, err := designCells(st.Design)
	if err != nil {
		return domain.StudyParticipant{}, "", err
	}
	q := s.quotaOf(st, cells, rows)
	pid := newStudyID()
	c, visit, ok := q.pick(pid)
	if !ok {
		if q.full() {
			return domain.StudyParticipant{}, "", errf(api.CodeGone, "This study is complete: every place has been filled. Thank you for your interest! (Please return the study on your platform.)")
		}
		return domain.StudyParticipant{}, "", errf(api.CodeConflict, "Every place of this study is taken by someone playing now; one frees up if they leave (within %d minutes). Please try again later or return the study.", st.Design.TimeLimitMinutes)
	}
	sealed, err := session.SealVisit(visit)
	if err != nil {
		return domain.StudyParticipant{}, "", err
	}
	token := studyTokenPrefix + randomToken()
	p := domain.StudyParticipant{ID: pid, Study: st.Code, PIDHash: hash, IDs: others, TokenSHA256: sha256Hex(token),
		Pseudonym: "study-" + pid, Cell: c.Key, Visit: sealed, EnteredAt: s.now().UTC(), CheckCorrect: -1}
	created, err := ss.EnterStudy(ctx, p)
	if err != nil {
		return p, "", err
	}
	if !created {
		return p, "", errEntered
	}
	return p, token, nil
}

// reenter answers an entry by a platform id that entered before: with
// that entry's study token it resumes (the same browser, the link opened
// again); otherwise it is refused, kindly: a person takes part once.
func (s *Server) reenter(w http.ResponseWriter, r *http.Request, st domain.Study, prev domain.StudyParticipant) error {
	tok := bearer(r)
	if strings.HasPrefix(tok, studyTokenPrefix) && sha256Hex(tok) == prev.TokenSHA256 {
		played, err := s.played(r.Context(), prev)
		if err != nil {
			return err
		}
		state := s.studyStateOf(st, prev, played)
		state.Resumed = true
		return writeJSON(w, http.StatusOK, state)
	}
	return errf(api.CodeConflict, "You have already taken part in this study, or started it in another browser or tab: each person takes part once, "+
		"so it cannot be started again. Thank you! If you think this is a mistake, please contact the researcher through %s.", platformName(st.Design.Platform))
}

// platformName names a platform for people.
func platformName(p string) string {
	switch p {
	case api.PlatformProlific:
		return "Prolific"
	case api.PlatformMTurk:
		return "MTurk"
	case api.PlatformSONA:
		return "SONA"
	}
	return "the study's page"
}

// platformIDs reads the platform's ids from a link's parameters: the
// participant's own (required unless the platform is none) and the
// others, HMAC'd under the study's salt. Other parameters are dropped.
func platformIDs(st domain.Study, params map[string]string) (id string, others map[string]string, err error) {
	d := st.Design
	names := api.PlatformParams(d.Platform)
	if d.IDParam != "" && len(names) > 0 {
		names[0] = d.IDParam
	}
	others = map[string]string{}
	for i, name := range names {
		v, ok := params[name]
		if !ok || v == "" {
			continue
		}
		if !validPlatformID(v) {
			return "", nil, errf(api.CodeInvalid, "The link's %s is not an id (%q): open the study from %s, whose link fills it in", name, clip(v), platformName(d.Platform))
		}
		if d.Platform == api.PlatformMTurk && v == "ASSIGNMENT_ID_NOT_AVAILABLE" {
			return "", nil, errf(api.CodeInvalid, "This is MTurk's preview of the task: accept the HIT to take part")
		}
		if i == 0 {
			id = v
		} else {
			others[name] = pidHash(st.Salt, v)
		}
	}
	if id == "" && len(names) > 0 {
		return "", nil, errf(api.CodeInvalid, "This link lacks your %s: open the study from %s (its link adds your id)", names[0], platformName(d.Platform))
	}
	return id, others, nil
}

// validPlatformID reports whether v can be a platform's id: 1 to 100
// printable ASCII characters, no placeholder left in it.
func validPlatformID(v string) bool {
	if len(v) > 100 || strings.ContainsAny(v, "{}%") {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] <= ' ' || v[i] > '~' {
			return false
		}
	}
	return true
}

// newStudyID is a participant's random id (144 bits).
func newStudyID() string {
	b := make([]byte, 18)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// randomHex is 256 random bits in hex: the platform id of a study
// without a platform (nobody's id, so never found again).
func randomHex() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// played reports whether the participant's visit is played (its run
// stored).
func (s *Server) played(ctx context.Context, p domain.StudyParticipant) (bool, error) {
	ss, err := s.store.OwnerSession(ctx, p.Pseudonym, p.Visit)
	if errors.Is(err, session.ErrNotFound) {
		return false, nil
	}
	return err == nil && ss.RunID != "", err
}

// studyStateOf is what the participant's page may see now.
func (s *Server) studyStateOf(st domain.Study, p domain.StudyParticipant, played bool) api.StudyState {
	d := st.Design
	out := api.StudyState{Code: st.Code, Name: st.Name, Platform: d.Platform}
	if p.CheckCorrect >= 0 {
		correct, right := grade(p.CheckAnswers)
		out.Check = &api.StudyCheckResult{Correct: correct, Of: len(checkQuestions), Passed: correct == len(checkQuestions), Right: right}
	}
	deadline := studyDeadline(st, p)
	switch {
	case !played && s.now().After(deadline):
		out.Stage = api.StudyStageExpired
		out.Message = "The time for this study (" + itoa(d.TimeLimitMinutes) + " minutes) ran out before the visit was finished, so your place was given to someone else. Thank you for your time; please return the study on your platform."
		return out
	case p.ConsentedAt.IsZero():
		out.Stage, out.ConsentVersion, out.ConsentText = api.StudyStageConsent, d.ConsentVersion, d.ConsentText
	case p.CheckCorrect < 0:
		out.Stage, out.Questions, out.Tutorial = api.StudyStageCheck, questions(), studyTutorial(st)
	case !played:
		out.Stage = api.StudyStagePlay
	case p.FinishedAt.IsZero():
		out.Stage, out.Debrief = api.StudyStageDebrief, d.Debrief
	default:
		out.Stage, out.Debrief, out.CompletionCode = api.StudyStageDone, d.Debrief, d.CompletionCode
		out.RedirectURL = strings.ReplaceAll(d.RedirectURL, "{code}", d.CompletionCode)
	}
	if !played {
		out.Expires = deadline.UTC().Format(time.RFC3339)
	}
	return out
}

// studyTutorial is the study's tutorial visit: a public visit whose
// family (else norm) is in none of the study's cells (see tutorialFor).
func studyTutorial(st domain.Study) string {
	cells, _, err := designCells(st.Design)
	if err != nil {
		return tutorialControl
	}
	var visits []string
	for _, c := range cells {
		visits = append(visits, c.Visits...)
	}
	return tutorialFor(domain.Room{Code: st.Code, Visits: visits})
}

// studyParticipant resolves the request's study and participant (its
// study token).
func (s *Server) studyParticipant(r *http.Request) (domain.Study, domain.StudyStorage, domain.StudyParticipant, error) {
	st, ss, err := s.findStudy(r, r.PathValue("code"))
	if err != nil {
		return st, nil, domain.StudyParticipant{}, err
	}
	tok := bearer(r)
	if !strings.HasPrefix(tok, studyTokenPrefix) {
		return st, nil, domain.StudyParticipant{}, errf(api.CodeUnauthorized, "send the study token of your entry as Authorization: Bearer stp_… (POST …/enter returns it)")
	}
	p, err := ss.StudyParticipantByToken(r.Context(), sha256Hex(tok))
	if errors.Is(err, domain.ErrNotFound) || err == nil && p.Study != st.Code {
		return st, nil, p, errf(api.CodeNotFound, "no such participant in this study")
	}
	return st, ss, p, err
}

// studyMe handles GET /api/study/CODE/me.
func (s *Server) studyMe(w http.ResponseWriter, r *http.Request) error {
	st, _, p, err := s.studyParticipant(r)
	if err != nil {
		return err
	}
	return s.writeStudyState(w, r, st, p)
}

// writeStudyState answers with the participant's state.
func (s *Server) writeStudyState(w http.ResponseWriter, r *http.Request, st domain.Study, p domain.StudyParticipant) error {
	played, err := s.played(r.Context(), p)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s.studyStateOf(st, p, played))
}

// studyConsent handles POST /api/study/CODE/consent.
func (s *Server) studyConsent(w http.ResponseWriter, r *http.Request) error {
	st, ss, p, err := s.studyParticipant(r)
	if err != nil {
		return err
	}
	var req api.StudyConsent
	if err := decodeJSON(r, &req, 4); err != nil {
		return err
	}
	if p.ConsentedAt.IsZero() {
		if !req.Consent {
			return errf(api.CodeConsent, "taking part needs your consent: send consent: true once you have read the text")
		}
		if req.ConsentVersion != st.Design.ConsentVersion {
			return errf(api.CodeConsent, "consent_version %q is not this study's (%s): show its consent text again", clip(req.ConsentVersion), st.Design.ConsentVersion)
		}
		if !s.now().Before(studyDeadline(st, p)) {
			return s.writeStudyState(w, r, st, p)
		}
		now := s.now().UTC()
		if _, err := ss.StudyConsent(r.Context(), p.ID, req.ConsentVersion, now); err != nil {
			return err
		}
		p.ConsentedAt, p.ConsentVersion = now, req.ConsentVersion
	}
	return s.writeStudyState(w, r, st, p)
}

// studyCheck handles POST /api/study/CODE/check: the comprehension
// check's answers, taken once.
func (s *Server) studyCheck(w http.ResponseWriter, r *http.Request) error {
	st, ss, p, err := s.studyParticipant(r)
	if err != nil {
		return err
	}
	var req api.StudyCheck
	if err := decodeJSON(r, &req, len(checkQuestions)+1); err != nil {
		return err
	}
	if p.ConsentedAt.IsZero() {
		return errf(api.CodeConflict, "consent comes first: POST …/consent")
	}
	if p.CheckCorrect < 0 && s.now().Before(studyDeadline(st, p)) {
		if len(req.Answers) != len(checkQuestions) {
			return errf(api.CodeInvalid, "answers must hold one option for each of the %d questions", len(checkQuestions))
		}
		for i, a := range req.Answers {
			if a < 0 || a >= len(checkQuestions[i].Options) {
				return errf(api.CodeInvalid, "answer %d must be an option of question %d: 0 to %d", a, i+1, len(checkQuestions[i].Options)-1)
			}
		}
		correct, _ := grade(req.Answers)
		now := s.now().UTC()
		if _, err := ss.StudyCheck(r.Context(), p.ID, req.Answers, correct, now); err != nil {
			return err
		}
		p.CheckAnswers, p.CheckCorrect, p.CheckedAt = req.Answers, correct, now
	}
	return s.writeStudyState(w, r, st, p)
}

// studySession handles POST /api/study/CODE/session: the participant's
// sealed visit, opened (201) or resumed with a new token (200). From
// there on the page plays it through the session routes.
func (s *Server) studySession(w http.ResponseWriter, r *http.Request) error {
	if s.sessions == nil {
		return errf(api.CodeUnavailable, "this server steps no sessions")
	}
	st, _, p, err := s.studyParticipant(r)
	if err != nil {
		return err
	}
	played, err := s.played(r.Context(), p)
	if err != nil {
		return err
	}
	switch state := s.studyStateOf(st, p, played); state.Stage {
	case api.StudyStagePlay:
	case api.StudyStageExpired:
		return errf(api.CodeGone, "%s", state.Message)
	case api.StudyStageConsent, api.StudyStageCheck:
		return errf(api.CodeConflict, "the visit comes after the consent and the comprehension check (stage %s)", state.Stage)
	default:
		return errf(api.CodeConflict, "your visit is played already: each participant plays one")
	}
	spec := session.Spec{Kind: api.KindHuman, Participant: p.Pseudonym, Agent: "human", Visit: p.Visit, Suite: st.Design.Suite,
		Room: studyScopePrefix + st.Code, Sealed: true, Resumable: true, ConsentVersion: st.Design.ConsentVersion}
	if _, ref, err := designCells(st.Design); err == nil {
		spec.SuiteVersion = ref.version
	}
	state, err := s.sessions.Open(r.Context(), spec)
	if err != nil {
		return sessionError(err)
	}
	status := http.StatusCreated
	if state.Resumed {
		status = http.StatusOK
	}
	return writeJSON(w, status, state)
}

// studyFinish handles POST /api/study/CODE/finish: after the debrief,
// the completion code and the redirect.
func (s *Server) studyFinish(w http.ResponseWriter, r *http.Request) error {
	st, ss, p, err := s.studyParticipant(r)
	if err != nil {
		return err
	}
	played, err := s.played(r.Context(), p)
	if err != nil {
		return err
	}
	if !played {
		return errf(api.CodeConflict, "the study ends after the visit and its last question")
	}
	if p.FinishedAt.IsZero() {
		now := s.now().UTC()
		if _, err := ss.StudyFinish(r.Context(), p.ID, now); err != nil {
			return err
		}
		p.FinishedAt = now
	}
	return writeJSON(w, http.StatusOK, s.studyStateOf(st, p, true))
}
