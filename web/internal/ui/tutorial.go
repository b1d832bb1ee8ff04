package ui

import (
	"strings"

	"github.com/normgym/normgym/sim"
)

// The guided first minute of a classroom: a short tutorial visit with
// prompts, shown once per browser and skippable. The page plays the
// room's tutorial visit (RoomInfo.Tutorial) in its own sim.wasm and keeps
// nothing: no journal, no record, nothing sent. That visit's norm is not
// the room's, so what the student sees in it hints nothing about the
// class's rule, and the last prompt says so; it never names the
// tutorial's own rule either, so that no rule is primed.

// TutorialStep is where the guided minute stands.
type TutorialStep int

// The tutorial's steps, in order.
const (
	TutMove     TutorialStep = iota // take a first step
	TutWalk                         // a few more steps
	TutWait                         // let time pass and watch
	TutSanction                     // someone got a sanction: what were they doing?
	TutEnd                          // that is how a rule is found
)

// tutorialWalk is how many steps the walking prompt asks for.
const tutorialWalk = 3

// tutorialPatience is how many steps the tutorial waits for a sanction
// before it ends without one; tutorialAfter how many it leaves to look
// at a sanction before it moves on by itself.
const (
	tutorialPatience = 10
	tutorialAfter    = 4
)

// Tutorial is the guided minute's state. Feed it every step (Step) and
// every "where" press on a feed line (Where); Prompt says what to tell the
// student now.
type Tutorial struct {
	// Control is set for a tutorial visit without a rule: there is no
	// sanction to show, only words about them.
	Control bool
	Step    TutorialStep
	// Sanction is the first sanction seen, once there is one.
	Sanction *Event
	// NoSanction reports that the tutorial ended without one.
	NoSanction bool
	// Study: the practice before a study's questions, not a class's.
	Study  bool
	moves  int
	waited int // steps taken while waiting for a sanction
	after  int // steps taken since the sanction prompt
}

// NewTutorial starts the guided minute on the tutorial visit with this id.
func NewTutorial(visit string) *Tutorial {
	return &Tutorial{Control: strings.Contains(visit, "/"+sim.Control+"/")}
}

// Done reports that the tutorial has nothing more to ask.
func (t *Tutorial) Done() bool { return t.Step == TutEnd }

// Stepped moves the tutorial on after the newcomer took action (its text
// form) and the module answered r.
func (t *Tutorial) Stepped(action string, r StepResponse) {
	if t.Sanction == nil {
		// The one the banner shows of this step (MainEvent), so that the
		// prompt and the line under the map name the same sanction.
		if i := MainEvent(r.Events); i >= 0 && r.Events[i].Kind == "sanction" {
			ev := r.Events[i]
			t.Sanction = &ev
		}
	}
	moved := false
	switch action {
	case "north", "south", "east", "west":
		moved = Blocked(r.Events) == ""
	}
	if moved {
		t.moves++
	}
	switch t.Step {
	case TutMove:
		if moved {
			t.Step = TutWalk
		}
	case TutWalk:
		if t.moves > tutorialWalk {
			t.Step = TutWait
		}
	case TutWait:
		if action == "wait" {
			t.Step = TutSanction
			if t.Control {
				t.Step = TutEnd
			}
		}
	case TutSanction:
		if t.Sanction == nil {
			t.waited++
			if t.waited >= tutorialPatience {
				t.Step, t.NoSanction = TutEnd, true
			}
		} else if t.after++; t.after > tutorialAfter {
			t.Step = TutEnd
		}
	}
	if r.DayOver || r.Done() {
		t.Step = TutEnd
	}
}

// Where tells the tutorial that the student pressed a sanction's line to
// see where it happened: the sanction prompt has done its job.
func (t *Tutorial) Where() {
	if t.Step == TutSanction && t.Sanction != nil {
		t.Step = TutEnd
	}
}

// Pinned reports that the prompt asks about Sanction: until the student
// moves on, the line under the map and the map's marks show that
// sanction (Line, Marks), not the later ones, which the feed still lists.
func (t *Tutorial) Pinned() bool { return t.Step == TutSanction && t.Sanction != nil }

// Line is the line under the map while the prompt is Pinned: the
// sanction's own sentence (EventLine).
func (t *Tutorial) Line(f *Frame) string { return EventLine(*t.Sanction, f, "") }

// Marks are the map's marks while the prompt is Pinned: the sanction's
// words over the one who said them, its mark on the one sanctioned and
// the ring on the tile where it happened (the focus), and no other
// sanction's; m as it is otherwise.
func (t *Tutorial) Marks(m Marks) Marks {
	if !t.Pinned() {
		return m
	}
	s := t.Sanction
	out := Marks{Said: map[string]string{}, Hit: map[string]bool{s.To: true}, Spots: map[Pos]bool{}}
	if s.By != "" && s.By != sim.WardenID {
		out.Said[s.By] = s.Text
	}
	if p, ok := Where(*s); ok {
		out.Spots[p], out.Focus = true, &p
	}
	return out
}

// tutorialSteps is the number shown as "of N" (the control tutorial has
// no sanction step).
func (t *Tutorial) total() int {
	if t.Control {
		return 4
	}
	return 5
}

// Prompt is what the tutorial says now, as HTML.
func (t *Tutorial) Prompt() string {
	switch t.Step {
	case TutMove:
		return `You are the <b class="me-badge">@</b> on the map. Press <kbd>→</kbd> (or <kbd>D</kbd>) to walk east. On a phone, tap <b>▶</b> under the map.`
	case TutWalk:
		left := tutorialWalk + 1 - t.moves
		return `Good! Walk ` + itoa(left) + ` more ` + plural("step", left) + ` with the arrow keys (or <kbd>W</kbd> <kbd>A</kbd> <kbd>S</kbd> <kbd>D</kbd>). Walls and water stop you: the line under the map says why.`
	case TutWait:
		return `Now press <kbd>Space</kbd> (or <b>Wait</b>) to let a moment pass, and watch what the others do.`
	case TutSanction:
		s := t.Sanction
		if s == nil {
			return `Keep watching: press <kbd>Space</kbd> a few more times. When a member says something like “Tsk!” to someone, that is a <span class="tag-s">sanction</span>.`
		}
		by := Who(s.By)
		if s.To == sim.NewcomerID {
			return esc(by) + ` said “` + esc(s.Text) + `” to <b>you</b>: that is a <span class="tag-s">sanction</span>. What were you doing? The line under the map says what you had just done and where; <b>Show me where</b> marks the place.`
		}
		to := Title(s.To)
		return esc(by) + ` said “` + esc(s.Text) + `” to ` + esc(to) + `: that is a <span class="tag-s">sanction</span>. What was ` + esc(to) + ` doing? The line under the map says what ` + esc(to) + ` had just done and where; <b>Show me where</b> marks the place.`
	}
	var b strings.Builder
	switch {
	case t.Control:
		b.WriteString(`In this practice visit nobody breaks a rule, so nobody gets a sanction. In your visit, watch for lines like “Mara sanctioned Pip, who had just…”: they show what is not done there. `)
	case t.NoSanction:
		b.WriteString(`Nobody got a sanction this time. When someone does, the line in <b>What happened</b> says what they had just done and where. `)
	default:
		b.WriteString(`That is how you find an unwritten rule: notice who gets a sanction and what they had just done, then don't do the same. `)
	}
	whose := "Your class's visit"
	if t.Study {
		whose = "Your visit in the study"
	}
	b.WriteString(`This practice visit had its own rule. <b>` + whose + ` has a different rule</b>, so start fresh: nothing here is a hint.`)
	return b.String()
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// TutorialHTML is the tutorial's box above the map: the step, the
// prompt, and its buttons: to skip the tutorial, to show where the
// sanction happened, and at the end to start the visit.
func TutorialHTML(t *Tutorial) string {
	n := int(t.Step) + 1
	if t.Control && t.Step == TutEnd {
		n = 4
	}
	var b strings.Builder
	b.WriteString(`<div class="tutorial" data-tut="` + itoa(int(t.Step)) + `"><div class="tut-text"><h2 id="tut-h">Tutorial <small>· ` + itoa(n) + ` of ` +
		itoa(t.total()) + ` · not part of your results</small></h2><p id="tut-say" role="status">` + t.Prompt() + `</p></div><div class="tut-acts">`)
	switch {
	case t.Done():
		label := "Start my visit"
		if t.Study {
			label = "On to the questions"
		}
		b.WriteString(`<button type="button" class="btn primary" data-act="tut-done">` + label + `</button>`)
	case t.Step == TutSanction && t.Sanction != nil:
		b.WriteString(`<button type="button" class="btn primary" data-act="tut-where">Show me where</button>`)
		b.WriteString(`<button type="button" class="btn" data-act="tut-skip">Skip the tutorial</button>`)
	default:
		b.WriteString(`<button type="button" class="btn" data-act="tut-skip">Skip the tutorial</button>`)
	}
	b.WriteString(`</div></div>`)
	return b.String()
}
