package ui

import "encoding/json"

// A sealed visit as a Play, and what the page keeps of it so that every
// screen comes back as it was after a reload: the session's token, and
// what the server says once and the screens show again (the summary of
// the day that ended, the probe's options and the option picked).

// OpenSealedPlay opens the participant's sealed visit as a Play. A
// session the server resumes comes back at its stage: the grid (or the
// screen of its day, before the first action), the probe or the result.
func OpenSealedPlay(fetch Fetch, req SessionRequest, v Resolved) (*Play, error) {
	s, first, err := OpenSealed(fetch, req)
	if err != nil {
		return nil, err
	}
	return sealedPlay(s, first, v)
}

// ResumeSealedPlay is OpenSealedPlay for a session the page kept the mark
// of (ResumeSealed with its token): the screen between days shows the
// kept summary again, and the result screen the probe's options and the
// option picked.
func ResumeSealedPlay(fetch Fetch, m SealedMark, v Resolved) (*Play, error) {
	s, first, err := ResumeSealed(fetch, m.Token)
	if err != nil {
		return nil, err
	}
	p, err := sealedPlay(s, first, v)
	if err != nil {
		return nil, err
	}
	m.restore(p)
	return p, nil
}

// sealedPlay is the Play of an open sealed session, at its stage.
func sealedPlay(s *Sealed, first StepResponse, v Resolved) (*Play, error) {
	p := &Play{Visit: v, Env: s, Last: first, Agent: "human", Client: "human", First: Fingerprint(first), answer: -1, Stage: StageDay}
	switch {
	case s.Last.Stage == SessionProbe:
		p.Stage = StageProbe
		pr := *s.Last.Probe
		p.Probe = &pr
	case s.Last.Stage == SessionDone:
		p.Stage = StageProbe
		if err := p.Finish(-1, 0); err != nil {
			return nil, err
		}
	case s.Last.Actions > 0 && s.Last.Step > 0:
		p.Stage = StagePlay
	}
	return p, nil
}

// SealedMark is what the page keeps in its storage while a sealed
// session is open, and until the player leaves its result: the version of
// the consent the player gave (under a newer one the page asks again),
// the room it was opened in ("" for none) and the session's token, which
// alone resumes it after a reload; and what the screens show again that
// the server says only once: the summary of the day that ended (Ended),
// the probe (its options, which the result screen quotes) and the option
// picked. Nothing in it names the visit or says which option is the rule.
type SealedMark struct {
	Consent string         `json:"consent"`
	Room    string         `json:"room,omitempty"`
	Token   string         `json:"token"`
	Ended   *DayEnded      `json:"ended,omitempty"`
	Probe   *ProbeResponse `json:"probe,omitempty"`
	// Answer is the option picked (0-based), once the probe is answered.
	Answer *int `json:"answer,omitempty"`
}

// ParseSealedMark reads a kept mark; ok is false for anything else
// (nothing kept, or a mark of an older page that held no token).
func ParseSealedMark(s string) (m SealedMark, ok bool) {
	if json.Unmarshal([]byte(s), &m) != nil || m.Consent == "" || m.Token == "" {
		return SealedMark{}, false
	}
	return m, true
}

// String is the mark as the page keeps it.
func (m SealedMark) String() string {
	b, _ := json.Marshal(m)
	return string(b)
}

// Mark is m with what p's screens show again after a reload: the
// summary of the day that ended, the probe and the option picked.
func (p *Play) Mark(m SealedMark) SealedMark {
	m.Ended, m.Probe, m.Answer = nil, nil, nil
	if e := p.Ended; e != nil && p.Stage == StageDay {
		m.Ended = &DayEnded{Day: e.Day, TaskDone: e.TaskDone, Sanctions: e.Sanctions}
	}
	if p.Probe != nil {
		pr := *p.Probe
		m.Probe = &pr
	}
	if p.Stage == StageResult && p.answer >= 0 {
		k := p.answer
		m.Answer = &k
	}
	return m
}

// restore gives a resumed Play what m kept of its screens.
func (m SealedMark) restore(p *Play) {
	if e := m.Ended; e != nil && p.Stage == StageDay && p.Obs() != nil && e.Day == p.Obs().Day-1 {
		p.Ended = &DaySummary{Day: e.Day, TaskDone: e.TaskDone, Sanctions: e.Sanctions}
	}
	if p.Stage == StageResult {
		if m.Probe != nil {
			pr := *m.Probe
			p.Probe = &pr
		}
		if m.Answer != nil {
			p.answer = *m.Answer
		}
	}
}

// Picked is the text of the option the player picked at the probe ("" if
// none, or not known).
func (p *Play) Picked() string {
	if p.Probe == nil || p.answer < 0 || p.answer >= len(p.Probe.Options) {
		return ""
	}
	return p.Probe.Options[p.answer]
}
