package ui

// Watch replays a baseline's visit step by step: the module plays the
// whole visit once (run), then the app steps a fresh environment through
// the baseline's actions so that every observation can be drawn.
type Watch struct {
	C      *Client
	Visit  Resolved
	Agent  string
	Record Record
	Env    *Env
	Last   StepResponse
	// Next is the index of the next action to play.
	Next int
}

// NewWatch runs baseline agent on visit v and opens it for replay.
func NewWatch(c *Client, v Resolved, agent string) (*Watch, error) {
	rec, err := c.RunBaseline(v.ID, agent)
	if err != nil {
		return nil, err
	}
	w := &Watch{C: c, Visit: v, Agent: agent, Record: rec}
	return w, w.Restart()
}

// Restart goes back to the first observation.
func (w *Watch) Restart() error {
	w.Env.Close()
	env, first, err := w.C.Open(w.Visit.ID)
	if err != nil {
		return err
	}
	w.Env, w.Last, w.Next = env, first, 0
	return nil
}

// Done reports whether every action has been played.
func (w *Watch) Done() bool { return w.Next >= len(w.Record.Actions) }

// Step plays the next action.
func (w *Watch) Step() (StepResponse, error) {
	if w.Done() {
		return w.Last, nil
	}
	r, err := StepShown(w.Env, w.Record.Actions[w.Next])
	if err != nil {
		return r, err
	}
	w.Next++
	w.Last = r
	return r, nil
}

// Verified reports, once Done, whether the replayed trajectory's hash
// equals the one the module computed when it ran the baseline.
func (w *Watch) Verified() (bool, error) {
	sc, err := w.Env.Score()
	if err != nil {
		return false, err
	}
	return sc.Hash == w.Record.Hash, nil
}

// Close frees the module's environment.
func (w *Watch) Close() { w.Env.Close() }
