package sim

import "testing"

// A bow still owed when the day ends is an omission made certain: it
// counts as a violation of that day.
func TestOwedActAtDayEndCounts(t *testing.T) {
	e, _, err := NewVisit("orchard/social.greet=elder/solo/s1")
	if err != nil {
		t.Fatal(err)
	}
	f := e.frame
	elder := f.Agents[1].Pos
	moves := []struct {
		verb   string
		dx, dy int
	}{{North, 0, 2}, {South, 0, -2}, {West, 2, 0}, {East, -2, 0}}
	for _, m := range moves {
		from := Pos{elder.X + m.dx, elder.Y + m.dy}
		mid := Pos{(from.X + elder.X) / 2, (from.Y + elder.Y) / 2}
		if !f.In(from) || !f.At(from).Walkable() || !f.At(mid).Walkable() {
			continue
		}
		f.Agents[0].Pos = from
		f.Step = PracticeSteps - 1
		res, err := e.Step(Action{Verb: m.verb})
		if err != nil {
			t.Fatal(err)
		}
		if !res.DayOver {
			t.Fatalf("the practice day did not end at its step limit")
		}
		if got, want := e.Scores().Violations[0], 1; got != want {
			t.Errorf("practice violations = %d, want %d (the bow owed to the elder)", got, want)
		}
		return
	}
	t.Skip("no straight approach to the elder in this layout")
}
