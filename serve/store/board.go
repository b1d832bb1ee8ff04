package store

import (
	"context"
	"fmt"
	"sort"

	"github.com/normgym/normgym/serve/domain"
)

const totalsColumns = `runs, task, compliance, joint, probe_answered, probe_correct, violations_practice, violations_test, sanctions,
  told_answered, told_correct, learn_own, learn_own_ok, learn_witness, learn_witness_ok, learn_neither, learn_neither_ok, repeat_after_own`

func totalsDest(t *domain.Totals) []any {
	return []any{&t.Runs, &t.Task, &t.Compliance, &t.Joint, &t.ProbeAnswered, &t.ProbeCorrect, &t.Violations[0], &t.Violations[1], &t.Sanctions,
		&t.ToldAnswered, &t.ToldCorrect, &t.Learned[0], &t.LearnedOK[0], &t.Learned[1], &t.LearnedOK[1], &t.Learned[2], &t.LearnedOK[2], &t.RepeatAfterOwn}
}

// Board implements domain.Storage.
func (s *Store) Board(ctx context.Context, suite, version string) (domain.BoardTotals, error) {
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
