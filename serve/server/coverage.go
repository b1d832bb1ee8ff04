package server

import (
	"context"
	"strings"

	"github.com/normgym/normgym/serve/api"
)

// coverageStore is a store that counts the suite cells each leaderboard
// row's runs hold (serve/store's Store does; a store that does not leaves
// the rows without coverage).
type coverageStore interface {
	Coverage(ctx context.Context, suite, version string) (map[[3]string]int, error)
}

// addCoverage sets each row's coverage of a suite version whose visits
// are visits: the row's visits and cells beside the suite's.
func (s *Server) addCoverage(ctx context.Context, suite, version string, visits []string, rows []api.LeaderboardEntry) error {
	cs, ok := s.store.(coverageStore)
	if !ok || len(visits) == 0 {
		return nil
	}
	cells, err := cs.Coverage(ctx, suite, version)
	if err != nil {
		return err
	}
	all := suiteCells(visits)
	for i, r := range rows {
		rows[i].Coverage = &api.SuiteCoverage{Visits: r.Visits, SuiteVisits: len(visits),
			Cells: cells[[3]string{r.Client, r.Agent, r.Provenance}], SuiteCells: all}
	}
	return nil
}

// suiteCells counts the distinct cells (norm × condition, with its
// variant) of visits, read from the ids' text.
func suiteCells(visits []string) int {
	seen := map[string]bool{}
	for _, v := range visits {
		if p := strings.Split(v, "/"); len(p) == 4 {
			seen[p[1]+"/"+p[2]] = true
		}
	}
	return len(seen)
}
