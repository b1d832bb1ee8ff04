package ui

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
)

// The transcript viewer (#mode=transcript): it opens a results file of
// `normgym eval` and its transcripts file (<out>.transcripts.jsonl, one
// prompt.Transcript a line) and replays a visit step by step — the map
// and the feed as the module steps the record's actions, and at each step
// the model's message (the new user turn it was sent), its reply and
// reasoning as returned, the action made and what followed, sanctions
// first. The messages are rebuilt from the visit, as eval built them: a
// step's new user turn is the observation's text, the probe's is
// prompt.ProbePrompt's, a notes request's prompt.NotesPrompt's.

// Results are the records and transcripts the viewer has loaded.
type Results struct {
	Records []Record
	// Transcripts are by run id (the record's extra.run_id).
	Transcripts map[string]prompt.Transcript
}

// Add reads a file of JSON lines: records (a results file, or a server's
// export) and transcripts alike, told apart line by line. It fails on a
// line that is neither, naming it.
func (r *Results) Add(name string, data []byte) error {
	if r.Transcripts == nil {
		r.Transcripts = map[string]prompt.Transcript{}
	}
	for n, line := range bytes.Split(data, []byte("\n")) {
		n++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		// A record always has the key "world"; a transcript never (the
		// sequence cannot occur inside a JSON string, whose quotes are
		// escaped).
		if !bytes.Contains(line, []byte(`"world":`)) {
			var t prompt.Transcript
			if err := json.Unmarshal(line, &t); err != nil || t.Steps == nil {
				return errors.New("ui: " + name + ":" + itoa(n) + ": neither a NormGym record nor a transcript")
			}
			r.Transcripts[t.RunID] = t
			continue
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil || rec.Visit == "" {
			return errors.New("ui: " + name + ":" + itoa(n) + ": neither a NormGym record nor a transcript")
		}
		r.Records = append(r.Records, rec)
	}
	return nil
}

// RunIDOf is a record's run id (extra.run_id; "" for none).
func RunIDOf(rec Record) string {
	id, _ := rec.Extra["run_id"].(string)
	return id
}

// Transcript returns the transcript of rec, if loaded.
func (r *Results) Transcript(rec Record) (prompt.Transcript, bool) {
	id := RunIDOf(rec)
	t, ok := r.Transcripts[id]
	return t, ok && id != ""
}

// Find returns the record of visit played by agent ("": any agent).
func (r *Results) Find(visit, agent string) (Record, bool) {
	for _, rec := range r.Records {
		if rec.Visit == visit && (agent == "" || rec.Agent == agent) {
			return rec, true
		}
	}
	return Record{}, false
}

// TranscriptView replays one visit of a model with its transcript.
type TranscriptView struct {
	C          *Client
	Record     Record
	Transcript prompt.Transcript
	Env        *Env
	// Last is the observation on screen; Next the index of the next
	// action to play.
	Last StepResponse
	Next int
	// Shown is the exchange of the action played last (nil at the start).
	Shown *Exchange
	// byAction maps an action's index to its transcript step (-1: none,
	// before a server resumed the session); notes holds the notes
	// request that followed an action, probe the probe's step (-1: none).
	byAction []int
	notes    map[int]int
	probe    int
}

// Exchange is one request of the visit as the viewer shows it.
type Exchange struct {
	// Index is the action's (0-based); Day and Step where the visit stood.
	Index, Day, Step int
	// Prompt is the new user turn the model was sent.
	Prompt  string
	Request prompt.TranscriptStep
	// Followed are the visible events of the step the action made.
	Followed []Event
	// Notes is the notes request that ended the day, if one did.
	Notes *prompt.TranscriptStep
	// NotesPrompt is its user turn.
	NotesPrompt string
}

// NewTranscriptView opens rec's visit for replay with its transcript t,
// which must be the record's: its requests answer the record's actions in
// order.
func NewTranscriptView(c *Client, rec Record, t prompt.Transcript) (*TranscriptView, error) {
	v := &TranscriptView{C: c, Record: rec, Transcript: t, notes: map[int]int{}, probe: -1}
	v.byAction = make([]int, len(rec.Actions))
	k := 0
	for i := range v.byAction {
		v.byAction[i] = -1
	}
	for i, s := range t.Steps {
		switch prompt.Kind(s.Kind) {
		case prompt.AskStep:
			a := t.ResumedAt + k
			if a >= len(rec.Actions) || s.Action != rec.Actions[a] {
				return nil, errors.New("ui: the transcript's request " + itoa(i+1) + " does not answer the record's action " + itoa(a+1))
			}
			v.byAction[a] = i
			k++
		case prompt.AskNotes:
			v.notes[t.ResumedAt+k-1] = i
		case prompt.AskProbe:
			v.probe = i
		}
	}
	if t.ResumedAt+k != len(rec.Actions) {
		return nil, errors.New("ui: the transcript answers " + itoa(k) + " of the record's " + itoa(len(rec.Actions)-t.ResumedAt) + " actions")
	}
	return v, v.Restart()
}

// Restart goes back to the first observation.
func (v *TranscriptView) Restart() error {
	v.Env.Close()
	env, first, err := v.C.Open(v.Record.Visit)
	if err != nil {
		return err
	}
	v.Env, v.Last, v.Next, v.Shown = env, first, 0, nil
	return nil
}

// Done reports whether every action has been played.
func (v *TranscriptView) Done() bool { return v.Next >= len(v.Record.Actions) }

// Step plays the next action and shows its exchange.
func (v *TranscriptView) Step() (StepResponse, error) {
	if v.Done() {
		return v.Last, nil
	}
	before := v.Last
	r, err := StepShown(v.Env, v.Record.Actions[v.Next])
	if err != nil {
		return r, err
	}
	ex := &Exchange{Index: v.Next, Day: before.Observation.Day, Step: before.Observation.Frame.Step, Prompt: before.Text, Followed: r.Events}
	if i := v.byAction[v.Next]; i >= 0 {
		ex.Request = v.Transcript.Steps[i]
	}
	if i, ok := v.notes[v.Next]; ok {
		n := v.Transcript.Steps[i]
		ex.Notes, ex.NotesPrompt = &n, prompt.NotesPrompt(ex.Day, sim.Days, r.Events)
	}
	v.Next++
	v.Last, v.Shown = r, ex
	return r, nil
}

// Sanctioned reports whether the exchange's action was followed by a
// sanction of the newcomer.
func (e *Exchange) Sanctioned() bool {
	for _, ev := range e.Followed {
		if ev.Kind == "sanction" && ev.To == sim.NewcomerID {
			return true
		}
	}
	return false
}

// NextSanction plays actions until one is followed by a sanction of the
// newcomer (or the visit ends) and returns the last observation.
func (v *TranscriptView) NextSanction() (StepResponse, []StepResponse, error) {
	var seen []StepResponse
	for !v.Done() {
		r, err := v.Step()
		if err != nil {
			return r, seen, err
		}
		seen = append(seen, r)
		if v.Shown.Sanctioned() {
			break
		}
	}
	return v.Last, seen, nil
}

// ProbeExchange is the probe's request and reply, once every action is
// played (nil before, and for a visit without one).
func (v *TranscriptView) ProbeExchange() (string, *prompt.TranscriptStep) {
	if !v.Done() || v.probe < 0 {
		return "", nil
	}
	p, err := v.Env.Probe(bg)
	if err != nil {
		return "", nil
	}
	s := v.Transcript.Steps[v.probe]
	return prompt.ProbePrompt(v.Last.Text, p), &s
}

// Close frees the module's environment.
func (v *TranscriptView) Close() { v.Env.Close() }

// TranscriptOpenHTML asks for the files to open, with msg if not "".
func TranscriptOpenHTML(msg string) string {
	s := `<section class="card"><h2>Open a model's transcripts</h2><p>Choose a results file of <code>normgym eval</code> and the ` +
		`transcripts file beside it (<code>out/MODEL.transcripts.jsonl</code>). They are read here and sent nowhere.</p>` + filesInput
	if msg != "" {
		s += `<p class="alert" role="alert">` + esc(msg) + `</p>`
	}
	return s + `</section>`
}
