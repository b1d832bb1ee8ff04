package session

import (
	"context"
	"errors"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/limit"
)

// Bringing a session back into memory: acquire finds it there, or
// rebuilds it from the store apart from the request (live.go says why),
// when its client's turn comes.

// acquire returns the session of token, locked, with its environment in
// memory (rebuilt from the store if need be).
func (m *Manager) acquire(ctx context.Context, token string) (*live, error) {
	if !ValidToken(token) {
		return nil, errf(api.CodeNotFound, "no such session (a session token reads sess_ and 43 more characters)")
	}
	th := TokenHash(token)
	client := callerOf(ctx)
	for tries := 0; ; tries++ {
		if lv, err := m.lockLive(th, client); lv != nil || err != nil {
			return lv, err
		}
		if tries == 3 {
			return nil, errf(api.CodeBusy, "the server is short of memory for sessions: try again in a moment")
		}
		s, err := m.opts.Store.SessionByToken(ctx, th)
		if errors.Is(err, ErrNotFound) {
			return nil, errf(api.CodeNotFound, "no such session")
		} else if err != nil {
			return nil, storeError(ctx, "reading the session", err)
		}
		if err := m.awaitRebuild(ctx, s, th, client); err != nil {
			return nil, err
		}
	}
}

// lockLive returns the environment of token hash th locked, if it is in
// memory, and marks it used by client.
func (m *Manager) lockLive(th, client string) (*live, error) {
	for {
		m.mu.Lock()
		lv := m.live[m.byToken[th]]
		m.mu.Unlock()
		if lv == nil {
			return nil, nil
		}
		lv.mu.Lock()
		if lv.gone {
			lv.mu.Unlock()
			continue
		}
		if lv.token != th {
			lv.mu.Unlock()
			return nil, errf(api.CodeNotFound, "no such session (it was resumed elsewhere with a new token)")
		}
		m.mu.Lock()
		m.touch(lv, client, m.opts.Now())
		m.mu.Unlock()
		return lv, nil
	}
}

// rebuildCall is one session's rebuild, which requests of the session
// wait for together.
type rebuildCall struct {
	done chan struct{}
	err  error
}

// awaitRebuild rebuilds session s into memory, or waits for the rebuild
// under way, until ctx ends.
func (m *Manager) awaitRebuild(ctx context.Context, s Session, th, client string) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return errf(api.CodeUnavailable, "the server is stopping")
	}
	call := m.building[s.ID]
	if call == nil {
		call = &rebuildCall{done: make(chan struct{})}
		m.building[s.ID] = call
		go m.rebuildApart(call, s, th, client)
	}
	m.mu.Unlock()
	select {
	case <-call.done:
		return call.err
	case <-ctx.Done():
		return errf(api.CodeTimeout, "the request ended while the session was being brought back into memory (it goes on: ask again)")
	}
}

// rebuildApart rebuilds s on a context of its own, when client's turn
// comes, and puts it in memory.
func (m *Manager) rebuildApart(call *rebuildCall, s Session, th, client string) {
	defer close(call.done)
	ctx, cancel := context.WithTimeout(context.Background(), rebuildTimeout)
	defer cancel()
	err := m.pacer.Acquire(ctx, client)
	if err != nil {
		m.mu.Lock()
		delete(m.building, s.ID)
		m.mu.Unlock()
		if errors.Is(err, limit.ErrClientFull) {
			call.err = errf(api.CodeBusy, "too many of your sessions are being brought back into memory at once: try again in a moment")
		} else {
			call.err = errf(api.CodeBusy, "the server is busy bringing sessions back into memory: try again in a moment")
		}
		return
	}
	lv := &live{sess: s, token: th}
	lv.mu.Lock()
	defer lv.mu.Unlock()
	err = m.rebuild(ctx, lv)
	m.pacer.Release()
	var drop Visit
	m.mu.Lock()
	delete(m.building, s.ID)
	switch {
	case err != nil:
	case m.closed:
		drop, err = m.detach(lv), errf(api.CodeUnavailable, "the server is stopping")
	case m.live[s.ID] != nil:
		drop = m.detach(lv) // resumed with a new token meanwhile: the other is current
	default:
		m.insert(lv, client, m.opts.Now())
		m.armSweeper()
	}
	m.mu.Unlock()
	if drop != nil {
		drop.Close()
	}
	call.err = err
}

// rebuild starts lv's visit afresh and replays its stored actions (the
// last one stepped, so that the frame says what it did) and its answer;
// lv.mu is held.
func (m *Manager) rebuild(ctx context.Context, lv *live) error {
	if lv.env != nil {
		env := lv.env
		lv.env = nil
		env.Close()
	}
	acts, err := m.opts.Store.Actions(ctx, lv.sess.ID)
	if err != nil {
		return internal("reading the session's actions", err)
	}
	env, frame, err := m.reset(ctx, m.engine(lv.sess.SessionSpec), lv.sess.Visit)
	if err != nil {
		return internal("starting the visit", err)
	}
	for i, a := range acts {
		if i < len(acts)-1 {
			err = env.Skip(ctx, a)
		} else {
			frame, err = env.Step(ctx, a)
		}
		if err != nil {
			env.Close()
			return internal("replaying the session", err)
		}
	}
	if lv.sess.Answer != nil {
		if err := env.Answer(ctx, *lv.sess.Answer); err != nil {
			env.Close()
			return internal("replaying the session's answer", err)
		}
	}
	lv.sess.Actions, lv.last = len(acts), ""
	if len(acts) > 0 {
		lv.last = acts[len(acts)-1]
	}
	lv.env, lv.frame, lv.probe = env, frame, nil
	return nil
}

// storeError is a store's failure as the client sees it: the request's
// end if it ended, else an internal error.
func storeError(ctx context.Context, msg string, err error) *Error {
	if ctx.Err() != nil {
		return errf(api.CodeTimeout, "the request ended before it was done")
	}
	return internal(msg, err)
}
