package sim

import (
	"fmt"
	"strconv"
)

// A visit is Days days: a practice day, then a test day in a fresh layout
// (DESIGN.md, The errand). Each day starts here and ends in Step when its
// errand is done or its steps run out.

// Days is the number of days in a visit: one practice day, one test day.
const Days = 2

// Step limits and errand sizes per day. Both days' errands hold every
// kind of act a norm can be about: picking from several sources, carrying
// more than one thing, putting goods in the basket, handing goods to
// members (so walking up to them), and getting rid of litter.
const (
	PracticeSteps = 60
	TestSteps     = 150
	practiceGoods = 1 // into the basket
	practiceGifts = 2 // to different members
	testGoods     = 1
	testGifts     = 3
)

// Task is the newcomer's errand for a day.
type Task struct {
	Text string `json:"text"`
	// Goods is how many goods to deliver into the basket.
	Goods int `json:"goods"`
	// Gifts is how many different members to hand one good each.
	Gifts int `json:"gifts"`
	// Litter asks the newcomer to get rid of the litter it carries.
	Litter bool `json:"litter"`
}

// Picks is how many goods the task needs picked.
func (t Task) Picks() int { return t.Goods + t.Gifts }

// startDay lays out day (0 practice, 1 test) and its members, and sets
// the newcomer's errand.
func (e *Visit) startDay(day int) {
	e.events = e.events[:0] // Step puts back the events of the step that ended the day
	e.day = day
	e.pending = e.pending[:0] // sanctions still due when a day ends are never given
	e.world, _ = LookupWorld(e.id.DayWorld(day))
	e.lay = newLayout(e.world, e.id.Seed, day)
	e.frame = e.lay.frame.Clone()
	e.frame.Step = 0
	e.frame.Phase = phaseAt(0, e.lay.phaseOffset)
	e.hist = make([][]Hist, len(e.frame.Agents))
	for i := range e.hist {
		e.hist[i] = make([]Hist, len(e.rules))
	}
	e.lastPhase = ""
	e.regrow = make([]int, len(e.frame.Tiles))
	e.members = e.members[:0]
	careful := e.id.Condition == Peers
	for i := 1; i < len(e.frame.Agents); i++ {
		e.members = append(e.members, newMember(i, e.frame.Agents[i].Role, e.world, e.id.Seed, day, careful))
	}
	e.task = Task{Goods: practiceGoods, Gifts: practiceGifts, Litter: true}
	e.limit = PracticeSteps
	if day == Days-1 {
		e.task = Task{Goods: testGoods, Gifts: testGifts, Litter: true}
		e.limit = TestSteps
	}
	e.frame.Agents[0].Litter = 1
	e.task.Text = e.taskText()
	text := fmt.Sprintf("Day %d of %d begins (practice day): a new layout of %s.", day+1, Days, e.world.Title)
	if day == Days-1 {
		text = fmt.Sprintf("Day %d of %d begins (test day): a new layout of %s.", day+1, Days, e.world.Title)
		if e.id.TestWorld != "" {
			text = fmt.Sprintf("Day %d of %d begins (test day): a new place, %s, where the same community rule holds.", day+1, Days, e.world.Title)
		}
	}
	e.emit(Event{Kind: "day", Text: text})
	e.traceDay(day)
}

func (e *Visit) taskText() string {
	w, t := e.world, e.task
	s := fmt.Sprintf("Pick %d %s: put %s in the basket and give %s; then get rid of your litter (the %s).",
		t.Picks(), Plural(w.Goods, t.Picks()), countWord(t.Goods), giftsText(t.Gifts), w.Litter)
	return s
}

// giftsText says how many members get one good each.
func giftsText(n int) string {
	if n == 1 {
		return "one to a member"
	}
	return "one each to " + countWord(n) + " different members"
}

// countWord spells small counts.
func countWord(n int) string {
	if n >= 0 && n < len(smallNumbers) {
		return smallNumbers[n]
	}
	return strconv.Itoa(n)
}

var smallNumbers = []string{"none", "one", "two", "three", "four", "five", "six"}

// Plural is the English plural of a thing's name when there are n of it.
func Plural(s string, n int) string { return string(appendPlural(nil, s, n)) }

func appendPlural(b []byte, s string, n int) []byte {
	switch {
	case n == 1 || s == "fish":
		return append(b, s...)
	case s == "loaf":
		return append(b, "loaves"...)
	}
	return append(append(b, s...), 's')
}

// taskComplete reports whether the newcomer has done today's errand.
func (e *Visit) taskComplete() bool {
	n := &e.frame.Agents[0]
	return n.Delivered >= e.task.Goods && GiftsGiven(e.frame) >= e.task.Gifts && (!e.task.Litter || n.Litter == 0)
}

// GiftsGiven counts the members who received a good today: the
// newcomer's gifts to different members (members never give).
func GiftsGiven(f *Frame) int {
	n := 0
	for i := 1; i < len(f.Agents); i++ {
		if f.Agents[i].Received > 0 {
			n++
		}
	}
	return n
}
