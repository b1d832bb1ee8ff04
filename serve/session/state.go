package session

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
)

// What a session's client may see of it, and the end of a visit: the
// probe, the record, the run stored.

func clientOf(kind string) string {
	if kind == api.KindHuman {
		return "human"
	}
	return "model"
}

func (m *Manager) hasProbe(lv *live) bool { return !lv.frame.NoProbe }

func (m *Manager) stage(lv *live) string {
	switch {
	case !lv.frame.Over:
		return api.StagePlay
	case m.hasProbe(lv) && lv.sess.Answer == nil:
		return api.StageProbe
	}
	return api.StageDone
}

func (m *Manager) getProbe(ctx context.Context, lv *live) (*sim.Probe, error) {
	if lv.probe == nil {
		p, err := lv.env.Probe(ctx)
		if err != nil || p == nil {
			return nil, internal("reading the probe", err)
		}
		lv.probe = p
	}
	return lv.probe, nil
}

// finishPending stores a session that is done but not stored (the
// process stopped in between).
func (m *Manager) finishPending(ctx context.Context, lv *live) error {
	if m.stage(lv) != api.StageDone || lv.sess.RunID != "" || lv.sess.Kind == api.KindPractice || m.opts.Finish == nil {
		return nil
	}
	return m.finish(ctx, lv)
}

// record is the session's record as it will be stored.
func (m *Manager) record(ctx context.Context, lv *live) (sim.Record, error) {
	rec, err := lv.env.Record(ctx, lv.sess.Agent, clientOf(lv.sess.Kind))
	if err != nil {
		return rec, internal("reading the record", err)
	}
	if rec.Probe != nil && lv.sess.Confidence != nil {
		c := *lv.sess.Confidence
		rec.Probe.Confidence = &c
	}
	rec.Suite, rec.SuiteVersion = lv.sess.Suite, lv.sess.SuiteVersion
	return rec, nil
}

// finish stores a done session's run (not for practice).
func (m *Manager) finish(ctx context.Context, lv *live) error {
	if lv.sess.Kind == api.KindPractice || m.opts.Finish == nil || lv.sess.RunID != "" {
		return nil
	}
	rec, err := m.record(ctx, lv)
	if err != nil {
		return err
	}
	runID, err := m.opts.Finish(ctx, lv.sess, rec, m.engine(lv.sess.SessionSpec).Kind())
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return e
		}
		return internal("storing the run", err)
	}
	if err := m.opts.Store.SetRun(ctx, lv.sess.ID, runID); err != nil {
		return internal("storing the run", err)
	}
	lv.sess.RunID = runID
	return nil
}

// state is what the client may see of lv now.
func (m *Manager) state(ctx context.Context, lv *live) (api.SessionState, error) {
	s := lv.sess
	f := lv.frame
	st := api.SessionState{Kind: s.Kind, Sealed: s.Sealed, Suite: s.Suite, Stage: m.stage(lv), Actions: s.Actions,
		Day: f.Day, Step: f.Step, Over: f.Over, Terminated: f.Terminated, Truncated: f.Truncated, DayOver: f.DayOver,
		Observation: f.Observation, Text: f.Text}
	if !s.Sealed {
		st.Visit = s.Visit
	}
	if !f.Over {
		st.Expires = s.TouchedAt.Add(m.opts.TTL).UTC().Format(time.RFC3339)
	}
	switch st.Stage {
	case api.StageProbe:
		p, err := m.getProbe(ctx, lv)
		if err != nil {
			return st, err
		}
		st.Probe = &api.Probe{Question: p.Question, Options: slices.Clone(p.Options)}
	case api.StageDone:
		rec, err := m.record(ctx, lv)
		if err != nil {
			return st, err
		}
		res := &api.SessionResult{Scores: rec.Scores, RunID: s.RunID}
		if rec.Probe != nil {
			c := rec.Probe.Correct
			res.ProbeCorrect = &c
		}
		if s.RunID != "" {
			res.Provenance = api.ProvenanceStepped
		}
		if !s.Private {
			st.Visit = s.Visit
			res.Hash = rec.Hash
			res.Record = &rec
		}
		st.Result = res
		if err := m.holdBack(ctx, s, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}
