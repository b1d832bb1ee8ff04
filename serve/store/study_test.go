package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/store/storetest"
)

// TestStudyStore: a study's writes are single statements that write once
// (a code, a platform id, a consent, a check, an end), and a rule change
// is numbered, counted and applied inside its insert.
func TestStudyStore(t *testing.T) {
	ctx := context.Background()
	s := storetest.MustOpenDB(t)
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	st := domain.Study{Code: "7K3M-Q9XD-2WFA", Name: "s", Design: api.StudyDesign{Name: "s", Target: 2}, Rules: []api.StudyRule{},
		Salt: "00", TokenSHA256: "t", Creator: "admin", CreatedAt: at}
	if err := s.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateStudy(ctx, st); !errors.Is(err, domain.ErrExists) {
		t.Errorf("a study under a taken code: %v, want ErrExists", err)
	}
	// A change before anyone entered, then one after.
	if err := s.ChangeStudyRules(ctx, st.Code, []api.StudyRule{{Name: "a", Kind: api.RuleMinActions, Value: 3}}, "first", at); err != nil {
		t.Fatal(err)
	}
	p := domain.StudyParticipant{ID: "p1", Study: st.Code, PIDHash: "h1", IDs: map[string]string{"STUDY_ID": "x"}, TokenSHA256: "k1",
		Pseudonym: "study-p1", Cell: "c", Visit: "v", EnteredAt: at}
	tests := []struct {
		name    string
		p       domain.StudyParticipant
		created bool
	}{
		{"a new platform id", p, true},
		{"the same platform id again", domain.StudyParticipant{ID: "p2", Study: st.Code, PIDHash: "h1", TokenSHA256: "k2", EnteredAt: at}, false},
		{"the same id in another study", domain.StudyParticipant{ID: "p3", Study: "ABCD-EFGH-JKMN", PIDHash: "h1", TokenSHA256: "k3", EnteredAt: at}, true},
	}
	for _, tt := range tests {
		if created, err := s.EnterStudy(ctx, tt.p); err != nil || created != tt.created {
			t.Errorf("%s: created %v (%v), want %v", tt.name, created, err, tt.created)
		}
	}
	if err := s.ChangeStudyRules(ctx, st.Code, []api.StudyRule{}, "second", at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Study(ctx, st.Code)
	if err != nil || got.RulesN != 2 || len(got.Rules) != 0 || got.Design.Target != 2 {
		t.Errorf("after two changes: rules %v at change %d (%v)", got.Rules, got.RulesN, err)
	}
	changes, err := s.StudyRuleChanges(ctx, st.Code)
	if err != nil || len(changes) != 2 || changes[0].AfterStart || changes[0].Note != "first" || !changes[1].AfterStart || changes[1].Participants != 1 {
		t.Errorf("changes: %+v (%v)", changes, err)
	}
	for _, step := range []struct {
		name string
		do   func() (bool, error)
	}{
		{"consent", func() (bool, error) { return s.StudyConsent(ctx, "p1", "v1", at) }},
		{"check", func() (bool, error) { return s.StudyCheck(ctx, "p1", []int{1, 2, 0}, 3, at) }},
		{"finish", func() (bool, error) { return s.StudyFinish(ctx, "p1", at) }},
	} {
		if wrote, err := step.do(); !wrote || err != nil {
			t.Errorf("%s: wrote %v (%v), want a write", step.name, wrote, err)
		}
		if wrote, err := step.do(); wrote || err != nil {
			t.Errorf("%s again: wrote %v (%v), want nothing", step.name, wrote, err)
		}
	}
	got1, err := s.StudyParticipantByToken(ctx, "k1")
	if err != nil || got1.ConsentVersion != "v1" || got1.CheckCorrect != 3 || len(got1.CheckAnswers) != 3 || got1.FinishedAt.IsZero() || got1.IDs["STUDY_ID"] != "x" {
		t.Errorf("the participant as stored: %+v (%v)", got1, err)
	}
	if _, err := s.StudyParticipant(ctx, st.Code, "nobody"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("an unknown platform id: %v, want ErrNotFound", err)
	}
}
