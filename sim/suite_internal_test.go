package sim

import (
	"regexp"
	"testing"
)

// TestSuiteVersionFollowsVisits: a suite's version is a function of its
// visit list, so it changes whenever the visits do and results made for
// another list are refused.
func TestSuiteVersionFollowsVisits(t *testing.T) {
	seen := map[string]string{}
	for _, name := range SuiteNames() {
		s, err := LookupSuite(name)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := s.Version, `^`+SuiteVersion+`\+[0-9a-f]{8}$`; !regexp.MustCompile(want).MatchString(got) {
			t.Errorf("%s: version %q, want it to match %s", name, got, want)
		}
		if other, dup := seen[s.Version]; dup {
			t.Errorf("%s and %s share version %s", name, other, s.Version)
		}
		seen[s.Version] = name
		tests := []struct {
			what   string
			visits []string
		}{
			{"one visit fewer", s.Visits[:len(s.Visits)-1]},
			{"one visit more", append(append([]string(nil), s.Visits...), "orchard/none/control/s1")},
			{"two visits swapped", append([]string{s.Visits[1], s.Visits[0]}, s.Visits[2:]...)},
		}
		for _, tc := range tests {
			if got := suiteVersion(name, tc.visits); got == s.Version {
				t.Errorf("%s with %s keeps version %s", name, tc.what, got)
			}
		}
		if got := suiteVersion(name, s.Visits); got != s.Version {
			t.Errorf("%s: suiteVersion of its own visits = %s, want %s", name, got, s.Version)
		}
	}
}
