//go:build !js

package ui_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/web/internal/ui"
)

func TestParseSiteConsent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		ok     bool
	}{
		{"server", 200, `{"version":"2026-01","text":"You agree."}`, true},
		{"static 404", 404, `not found`, false},
		{"static fallback page", 200, `<!doctype html><title>NormGym</title>`, false},
		{"empty json", 200, `{}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := ui.ParseSiteConsent(tc.status, []byte(tc.body))
			if ok != tc.ok || ok && c.Version != "2026-01" {
				t.Errorf("ParseSiteConsent = %+v, %v; want ok %v", c, ok, tc.ok)
			}
		})
	}
}

func TestRandomIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	p, run := ui.RandomID(24, r.IntN), ui.RandomID(32, r.IntN)
	if !ui.ValidParticipant(p) || !api.ValidParticipant(p) {
		t.Errorf("pseudonym %q is not valid", p)
	}
	if len(run) != 32 || !api.ValidRunID(run) {
		t.Errorf("run id %q is not valid", run)
	}
	for _, bad := range []string{"short", "a@example.com", "with space 12345", strings.Repeat("x", 65)} {
		if ui.ValidParticipant(bad) || api.ValidParticipant(bad) {
			t.Errorf("%q accepted as a pseudonym", bad)
		}
	}
}

func TestRouteRoom(t *testing.T) {
	r := ui.ParseRoute("#room=abc234")
	if got, want := r.Room, "ABC234"; got != want {
		t.Errorf("room %q, want %q", got, want)
	}
	if got, want := r.String(), "#room=ABC234"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if r := ui.ParseRoute("#room=<script>"); r.Room != "" {
		t.Errorf("a malformed room %q was kept", r.Room)
	}
}

func TestServerError(t *testing.T) {
	if got, want := ui.ServerError(400, []byte(`{"code":"invalid","error":"consent is required"}`)), "consent is required"; got != want {
		t.Errorf("ServerError = %q, want %q", got, want)
	}
	if got := ui.ServerError(502, nil); !strings.Contains(got, "502") {
		t.Errorf("ServerError of an empty 502 = %q", got)
	}
}

func TestSubmitHTML(t *testing.T) {
	if h := ui.SubmitHTML(ui.SubmitStored, ""); !strings.Contains(h, "verified and stored") || !strings.Contains(h, `href="/leaderboard"`) {
		t.Errorf("stored: %s", h)
	}
	if h := ui.StoredInClassHTML(); !strings.Contains(h, `data-submit="stored"`) || !strings.Contains(h, "for your class") || strings.Contains(h, "/leaderboard") {
		t.Errorf("a class's stored run: %s", h)
	}
	if h := ui.SubmitHTML(ui.SubmitFailed, "offline <b>"); !strings.Contains(h, `data-act="resubmit"`) || strings.Contains(h, "<b>") {
		t.Errorf("failed: a retry button and the message escaped: %s", h)
	}
	if h := ui.SubmitHTML(ui.SubmitRefused, "mismatch"); strings.Contains(h, "resubmit") || !strings.Contains(h, "mismatch") {
		t.Errorf("refused: the server's message and no retry: %s", h)
	}
}
