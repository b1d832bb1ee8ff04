package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
)

// Studies (issue 23): a researcher's design around sealed sessions, so
// that a human baseline can be recruited through a platform, filled to a
// target per cell, checked and published. See RATIONALE.md ("Studies").
//
//	POST /api/studies                 create (admin token or study key)
//	GET  /s/CODE?…platform params…    the study link: to the page, #study=CODE&…
//	GET  /api/study/CODE              what the page shows before entering
//	POST /api/study/CODE/enter        a platform id enters (study token back)
//	GET  /api/study/CODE/me           where the participant stands
//	POST /api/study/CODE/consent      {"consent": true, "consent_version": V}
//	POST /api/study/CODE/check        {"answers": [1, 2, 0]}
//	POST /api/study/CODE/session      open (or resume) the sealed visit
//	POST /api/study/CODE/finish       the completion code and redirect
//	GET  /api/study/CODE/dashboard    researcher: cells, rates, comparisons
//	GET  /api/study/CODE/export       researcher: CSV or JSONL with a data card
//	PUT  /api/study/CODE/rules        researcher: change the exclusion rules
//	GET  /study, /study.js            the researcher's page

// studyState is what the server keeps in memory for studies.
type studyState struct {
	// mu takes one entry at a time, so that each sees the places the
	// others took (the quota).
	mu sync.Mutex
}

// Token prefixes.
const (
	// studyTokenPrefix starts a participant's study token.
	studyTokenPrefix = "stp_"
	// researcherTokenPrefix starts a study's researcher token.
	researcherTokenPrefix = "ngr_"
	// studyScopePrefix starts the room scope of a study's sessions and
	// runs ("study:CODE"): apart from the public rows, as a room's are.
	studyScopePrefix = "study:"
)

// NewStudyKey returns a new random study key (256 bits, "ngs_…") and the
// line of a study-key file (the format of teacher keys: the label and the
// key's SHA-256) that admits it under label. A study key creates studies
// (POST /api/studies) as the admin token does, and nothing else.
func NewStudyKey(label string) (key, line string, err error) {
	if !validLabel(label) {
		return "", "", fmt.Errorf("server: a study key's label must be 1 to 40 letters, digits, '.', '_' or '-' (a name for the operator, such as lab-3; no email)")
	}
	return newKey("ngs_", label)
}

// studyBody bounds a study's design or rules: a consent text of 20,000
// characters and 500 cells.
const studyBody = 128 << 10

// studyStore returns the store's studies, or unavailable.
func (s *Server) studyStore() (domain.StudyStorage, error) {
	ss, ok := s.store.(domain.StudyStorage)
	if !ok {
		return nil, errf(api.CodeUnavailable, "this server's store keeps no studies")
	}
	return ss, nil
}

// findStudy finds the study of a code as a link or a person wrote it. It
// draws from the client's ClassLookup bucket, as every code look-up does.
func (s *Server) findStudy(r *http.Request, code string) (domain.Study, domain.StudyStorage, error) {
	ss, err := s.studyStore()
	if err != nil {
		return domain.Study{}, nil, err
	}
	if err := s.allow(r, ClassLookup); err != nil {
		return domain.Study{}, nil, err
	}
	c, ok := api.NormalizeRoomCode(code)
	if !ok || api.LegacyRoomCode(c) {
		return domain.Study{}, nil, errf(api.CodeNotFound, "there is no study %q: check the link", clip(code))
	}
	st, err := ss.Study(r.Context(), c)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.Study{}, nil, errf(api.CodeNotFound, "there is no study %s: check the link", c)
	}
	return st, ss, err
}

// isAdmin reports whether tok is the admin token.
func (s *Server) isAdmin(tok string) bool {
	if s.opts.AdminToken == "" || tok == "" {
		return false
	}
	a, b := sha256.Sum256([]byte(tok)), sha256.Sum256([]byte(s.opts.AdminToken))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// studyCreator says who creates a study: "admin" for the admin token, a
// study key's label, or an error.
func (s *Server) studyCreator(r *http.Request) (string, error) {
	tok := bearer(r)
	if tok == "" {
		return "", errf(api.CodeUnauthorized, "creating a study needs the admin token or a study key (normgym study-key LABEL): send Authorization: Bearer …")
	}
	if s.isAdmin(tok) {
		return "admin", nil
	}
	if s.opts.StudyKeys != nil {
		if label, ok := s.opts.StudyKeys.Label(tok); ok {
			return label, nil
		}
	}
	return "", errf(api.CodeForbidden, "that is neither the admin token nor a study key of this site")
}

// researcher checks that the request carries the study's researcher
// token or the admin token.
func (s *Server) researcher(r *http.Request, st domain.Study) error {
	tok := bearer(r)
	if tok == "" {
		return errf(api.CodeUnauthorized, "the study's dashboard needs its researcher token (or the admin token): send Authorization: Bearer ngr_…")
	}
	if s.isAdmin(tok) {
		return nil
	}
	sum := sha256.Sum256([]byte(tok))
	if subtle.ConstantTimeCompare([]byte(hex.EncodeToString(sum[:])), []byte(st.TokenSHA256)) != 1 {
		return errf(api.CodeForbidden, "that is not this study's researcher token")
	}
	return nil
}

// pidHash is HMAC-SHA256 of a platform id under the study's salt, in hex.
func pidHash(salt, id string) string {
	key, _ := hex.DecodeString(salt)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil))
}

// sha256Hex is the SHA-256 of s in hex.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// createStudy handles POST /api/studies.
func (s *Server) createStudy(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.studyStore()
	if err != nil {
		return err
	}
	creator, err := s.studyCreator(r)
	if err != nil {
		return err
	}
	var d api.StudyDesign
	if err := decodeJSON(r, &d, maxStudyCells); err != nil {
		return err
	}
	cells, _, err := checkDesign(&d)
	if err != nil {
		return err
	}
	if d.Rules == nil {
		d.Rules = []api.StudyRule{}
	}
	salt := make([]byte, 32)
	rand.Read(salt)
	token := researcherTokenPrefix + randomToken()
	st := domain.Study{Name: d.Name, Design: d, Rules: d.Rules, Salt: hex.EncodeToString(salt), TokenSHA256: sha256Hex(token),
		Creator: creator, CreatedAt: s.now().UTC()}
	for range 5 {
		st.Code = randomCode()
		if err = ss.CreateStudy(r.Context(), st); !errors.Is(err, domain.ErrExists) {
			break
		}
	}
	if err != nil {
		return err
	}
	out := api.StudyCreated{Code: st.Code, Link: studyLink(d, st.Code), Token: token, Salt: st.Salt, Study: d}
	for _, c := range cells {
		out.Cells = append(out.Cells, c.Key)
	}
	return writeJSON(w, http.StatusCreated, out)
}

// studyLink is the study link with the platform's placeholders.
func studyLink(d api.StudyDesign, code string) string {
	link := "/s/" + code
	switch d.Platform {
	case api.PlatformProlific:
		link += "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
	case api.PlatformSONA:
		link += "?" + d.IDParam + "=%SURVEY_CODE%"
	}
	// MTurk's external question appends workerId, assignmentId and hitId
	// itself.
	return link
}

// studyPublic handles GET /api/study/CODE.
func (s *Server) studyPublic(w http.ResponseWriter, r *http.Request) error {
	st, ss, err := s.findStudy(r, r.PathValue("code"))
	if err != nil {
		return err
	}
	rows, err := s.settledRows(r.Context(), ss, st)
	if err != nil {
		return err
	}
	cells, _, err := designCells(st.Design)
	if err != nil {
		return err
	}
	d := st.Design
	return writeJSON(w, http.StatusOK, api.StudyPublic{Code: st.Code, Name: st.Name, Status: s.quotaOf(st, cells, rows).status(),
		Platform: d.Platform, IDParam: idParam(d), ConsentVersion: d.ConsentVersion, ConsentText: d.ConsentText,
		TimeLimitMinutes: d.TimeLimitMinutes, PaymentNote: d.PaymentNote, RedirectNeedsID: strings.Contains(d.RedirectURL, "{id}")})
}

// idParam is the URL parameter of the participant's platform id ("" for
// none).
func idParam(d api.StudyDesign) string {
	if d.IDParam != "" {
		return d.IDParam
	}
	if ps := api.PlatformParams(d.Platform); len(ps) > 0 {
		return ps[0]
	}
	return ""
}

// studyLinkRedirect handles GET /s/CODE?…: the study link. It sends the
// page to the app with the code and the link's parameters in the
// fragment (#study=CODE&PROLIFIC_PID=…), which no server or log receives;
// the page reads them and takes them out of the address bar. This route
// is logged by its path only, as every route is.
func (s *Server) studyLinkRedirect(w http.ResponseWriter, r *http.Request) error {
	code, ok := api.NormalizeRoomCode(r.PathValue("code"))
	if !ok {
		code = ""
	}
	q := r.URL.Query()
	frag := url.Values{}
	n := 0
	for k, vs := range q {
		if n++; n > 20 || len(k) > 40 || len(vs) == 0 || len(vs[0]) > 200 {
			continue
		}
		frag.Set(k, vs[0])
	}
	loc := "/#study=" + url.QueryEscape(code)
	if len(frag) > 0 {
		loc += "&" + frag.Encode()
	}
	h := w.Header()
	h.Set("Location", loc)
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusSeeOther)
	return nil
}
