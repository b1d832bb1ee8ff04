//go:build !js

package ui_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/web/internal/ui"
)

// jsonFields lists a struct type's JSON field names with their options.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		out = append(out, tag)
	}
	return out
}

// TestMirrors checks that the app's copies of the sim's JSON types have
// every field of the original, in the same order with the same options,
// so that a record the app builds is the one `normgym replay` expects.
func TestMirrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mine, sim any
		subset    bool
	}{
		{"SiteConsent", ui.SiteConsent{}, api.Consent{}, false},
		{"AssignRequest", ui.AssignRequest{}, api.AssignRequest{}, false},
		{"Assignment", ui.Assignment{}, api.Assignment{}, false},
		{"Submission", ui.Submission{}, api.Submission{}, false},
		{"Room", ui.RoomInfo{}, api.Room{}, true},
		{"JoinRequest", ui.JoinRequest{}, api.JoinRequest{}, false},
		{"Joined", ui.Joined{}, api.Joined{}, false},
		{"SessionRequest", ui.SessionRequest{}, api.SessionRequest{}, true},
		{"SessionState", ui.SessionState{}, api.SessionState{}, false},
		{"DayEnded", ui.DayEnded{}, api.DayEnded{}, false},
		{"SessionResult", ui.SessionResult{}, api.SessionResult{}, false},
		{"SessionStep", ui.SessionStep{}, api.SessionStep{}, false},
		{"SessionAnswer", ui.SessionAnswer{}, api.SessionAnswer{}, false},
		{"SessionTrail", ui.SessionTrail{}, api.SessionTrail{}, false},
		{"Probe", ui.ProbeResponse{}, api.Probe{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mine, theirs := jsonFields(reflect.TypeOf(tc.mine)), jsonFields(reflect.TypeOf(tc.sim))
			if tc.subset {
				have := strings.Join(theirs, " ")
				for _, f := range mine {
					if !strings.Contains(" "+have+" ", " "+f+" ") {
						t.Errorf("field %q is not in %T", f, tc.sim)
					}
				}
				return
			}
			if got, want := strings.Join(mine, " "), strings.Join(theirs, " "); got != want {
				t.Errorf("ui.%s JSON fields\n got  %s\n want %s", tc.name, got, want)
			}
		})
	}
}
