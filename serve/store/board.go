package store

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/normgym/normgym/serve/domain"
)

const totalsColumns = `runs, task, compliance, joint, probe_answered, probe_correct, violations_practice, violations_test, sanctions,
  told_answered, told_correct, learn_own, learn_own_ok, learn_witness, learn_witness_ok, learn_neither, learn_neither_ok, repeat_after_own`

func totalsDest(t *domain.Totals) []any {
	return []any{&t.Runs, &t.Task, &t.Compliance, &t.Joint, &t.ProbeAnswered, &t.ProbeCorrect, &t.Violations[0], &t.Violations[1], &t.Sanctions,
		&t.ToldAnswered, &t.ToldCorrect, &t.Learned[0], &t.LearnedOK[0], &t.Learned[1], &t.LearnedOK[1], &t.Learned[2], &t.LearnedOK[2], &t.RepeatAfterOwn}
}

// Board implements domain.Storage.
func (s *Store) Board(ctx context.Context, suite, version string, openSince time.Time) (domain.BoardTotals, error) {
	b, err := s.runTotals(ctx, suite, version)
	if err != nil {
		return b, err
	}
	if b.Sessions, err = s.sessionTotals(ctx, suite, version, openSince); err != nil {
		return b, err
	}
	b.Owners, err = s.sessionOwners(ctx, suite, version)
	return b, err
}

// sessionTotals reads the sealed sessions' counts of a suite version, with
// the open ones counted from the sessions themselves.
func (s *Store) sessionTotals(ctx context.Context, suite, version string, openSince time.Time) ([]domain.SessionCell, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT t.kind, t.agent, t.condition, t.family, t.opened, t.finished,
  (SELECT COUNT(*) FROM sessions o WHERE o.suite = t.suite AND o.suite_version = t.suite_version AND o.run_id = ''
     AND o.sealed = 1 AND o.room = '' AND o.touched_at >= ? AND o.kind = t.kind AND o.agent = t.agent
     AND o.condition = t.condition AND o.family = t.family)
FROM session_totals t WHERE t.suite = ? AND t.suite_version = ?`, openSince.UnixMilli(), suite, version)
	if err != nil {
		return nil, fmt.Errorf("store: session totals: %w", err)
	}
	defer rows.Close()
	var out []domain.SessionCell
	for rows.Next() {
		var c domain.SessionCell
		if err := rows.Scan(&c.Kind, &c.Agent, &c.Condition, &c.Family, &c.Opened, &c.Finished, &c.Open); err != nil {
			return nil, fmt.Errorf("store: session totals: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// sessionOwners counts each row's distinct participants.
func (s *Store) sessionOwners(ctx context.Context, suite, version string) (map[[2]string]int, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT kind, agent, COUNT(*) FROM session_owners WHERE suite = ? AND suite_version = ? GROUP BY kind, agent`, suite, version)
	if err != nil {
		return nil, fmt.Errorf("store: session owners: %w", err)
	}
	defer rows.Close()
	out := map[[2]string]int{}
	for rows.Next() {
		var kind, agent string
		var n int
		if err := rows.Scan(&kind, &agent, &n); err != nil {
			return nil, fmt.Errorf("store: session owners: %w", err)
		}
		out[[2]string{kind, agent}] = n
	}
	return out, rows.Err()
}

// runTotals reads the runs' totals of a suite version.
func (s *Store) runTotals(ctx context.Context, suite, version string) (domain.BoardTotals, error) {
	var b domain.BoardTotals
	rows, err := s.r.QueryContext(ctx, `SELECT client, agent, provenance, condition, family, sim_sha256, `+totalsColumns+`
FROM cell_totals WHERE suite = ? AND suite_version = ?`, suite, version)
	if err != nil {
		return b, fmt.Errorf("store: totals: %w", err)
	}
	for rows.Next() {
		var c domain.Cell
		if err := rows.Scan(append([]any{&c.Client, &c.Agent, &c.Provenance, &c.Condition, &c.Family, &c.SimSHA256}, totalsDest(&c.Totals)...)...); err != nil {
			rows.Close()
			return b, fmt.Errorf("store: totals: %w", err)
		}
		b.Cells = append(b.Cells, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return b, err
	}
	rows, err = s.r.QueryContext(ctx, `SELECT client, agent, provenance, world, `+totalsColumns+`
FROM world_cell_totals WHERE suite = ? AND suite_version = ?`, suite, version)
	if err != nil {
		return b, fmt.Errorf("store: totals: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c domain.WorldCell
		if err := rows.Scan(append([]any{&c.Client, &c.Agent, &c.Provenance, &c.World}, totalsDest(&c.Totals)...)...); err != nil {
			return b, fmt.Errorf("store: totals: %w", err)
		}
		b.Worlds = append(b.Worlds, c)
	}
	return b, rows.Err()
}

// Census implements domain.Storage.
func (s *Store) Census(ctx context.Context, upTo int64) (domain.Census, error) {
	c := domain.Census{ByClient: map[string]int{}, BySuite: map[string]int{}, ByVerifier: map[string]int{}, ByProvenance: map[string]int{}, Sims: []string{}}
	if upTo <= 0 {
		var err error
		if upTo, err = s.LastSeq(ctx); err != nil {
			return c, err
		}
	}
	c.MaxSeq = upTo
	rows, err := s.r.QueryContext(ctx, `SELECT client, suite, sim_sha256, verifier, provenance, COUNT(*) FROM runs WHERE seq <= ? GROUP BY client, suite, sim_sha256, verifier, provenance`, upTo)
	if err != nil {
		return c, fmt.Errorf("store: census: %w", err)
	}
	sims := map[string]bool{}
	for rows.Next() {
		var client, suite, sha, verifier, prov string
		var n int
		if err := rows.Scan(&client, &suite, &sha, &verifier, &prov, &n); err != nil {
			rows.Close()
			return c, fmt.Errorf("store: census: %w", err)
		}
		c.Runs += n
		c.ByClient[client] += n
		c.BySuite[suite] += n
		c.ByVerifier[verifier] += n
		c.ByProvenance[prov] += n
		if !sims[sha] {
			sims[sha] = true
			c.Sims = append(c.Sims, sha)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return c, err
	}
	sort.Strings(c.Sims)
	err = s.r.QueryRowContext(ctx, `SELECT COUNT(DISTINCT participant) FROM runs WHERE participant <> '' AND seq <= ?`, upTo).Scan(&c.Participants)
	if err != nil {
		return c, fmt.Errorf("store: census: %w", err)
	}
	return c, nil
}
