package server

import (
	"math"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
)

// The comprehension check and the exclusion rules of a study. The check
// follows a short tutorial visit (the classroom's guided minute, on a
// visit whose norm is none of the study's) and asks what it showed:
// moving, the errand, what a sanction looks like. The rules are decided
// per participant once the visit is played, from what the server kept:
// the check's answers and the session's actions with their times.

// checkQuestion is a question of the comprehension check with its right
// option.
type checkQuestion struct {
	api.StudyQuestion
	right int
}

// checkQuestions are the comprehension check. Changing them changes what
// RuleComprehension's value means: add questions at the end only.
var checkQuestions = [...]checkQuestion{
	{api.StudyQuestion{Question: "How do you move around the map?", Options: []string{
		"By clicking the tile I want to reach",
		"With the arrow keys (or W, A, S, D): one tile a step",
		"By typing the name of a place",
	}}, 1},
	{api.StudyQuestion{Question: "What is your errand each day?", Options: []string{
		"To find the hidden rule and type it in",
		"To talk to every member once",
		"To pick goods, put one in the basket, hand goods to members and get rid of my litter",
		"To stand still until the day is over",
	}}, 2},
	{api.StudyQuestion{Question: "What does a sanction look like?", Options: []string{
		"A member reacts to what someone just did, such as “Hmph.” said to the one who did it",
		"The game stops with an error message",
		"Points are taken off a score in the corner",
	}}, 0},
}

// questions returns the check's questions without their answers.
func questions() []api.StudyQuestion {
	out := make([]api.StudyQuestion, len(checkQuestions))
	for i, q := range checkQuestions {
		out[i] = q.StudyQuestion
	}
	return out
}

// grade checks a participant's answers: how many are right, and the right
// option of each question.
func grade(answers []int) (correct int, right []int) {
	for i, q := range checkQuestions {
		right = append(right, q.right)
		if i < len(answers) && answers[i] == q.right {
			correct++
		}
	}
	return correct, right
}

// effort is what the rules measure of a played visit.
type effort struct {
	// Correct answers of the check (-1: not answered).
	Correct int
	// Actions that are not waits.
	NonWait int
	// MaxIdle is the longest time between opening the visit and its first
	// action, or between two actions.
	MaxIdle time.Duration
	// MaxRepeat is the longest run of one action that is not a wait.
	MaxRepeat int
}

// measure reads the effort of a participant's visit from its session
// (opened at opened) and stored actions.
func measure(p domain.StudyParticipant, opened time.Time, acts []domain.TimedAction) effort {
	e := effort{Correct: p.CheckCorrect}
	last, run, prev := opened, 0, ""
	for _, a := range acts {
		if d := a.At.Sub(last); d > e.MaxIdle {
			e.MaxIdle = d
		}
		last = a.At
		if a.Action == "wait" {
			run, prev = 0, ""
			continue
		}
		e.NonWait++
		if a.Action == prev {
			run++
		} else {
			run, prev = 1, a.Action
		}
		e.MaxRepeat = max(e.MaxRepeat, run)
	}
	return e
}

// verdicts decides each rule on e; excluded is true if any rule excludes.
func verdicts(rules []api.StudyRule, e effort) (out map[string]api.StudyVerdict, excluded bool) {
	out = make(map[string]api.StudyVerdict, len(rules))
	for _, r := range rules {
		var v api.StudyVerdict
		switch r.Kind {
		case api.RuleComprehension:
			need := r.Value
			if need == 0 {
				need = float64(len(checkQuestions))
			}
			v = api.StudyVerdict{Measured: float64(e.Correct), Exclude: float64(e.Correct) < need}
		case api.RuleMinActions:
			v = api.StudyVerdict{Measured: float64(e.NonWait), Exclude: float64(e.NonWait) < r.Value}
		case api.RuleMaxIdle:
			m := math.Round(e.MaxIdle.Minutes()*100) / 100
			v = api.StudyVerdict{Measured: m, Exclude: e.MaxIdle.Minutes() > r.Value}
		case api.RuleMaxRepeat:
			v = api.StudyVerdict{Measured: float64(e.MaxRepeat), Exclude: float64(e.MaxRepeat) > r.Value}
		}
		out[r.Name] = v
		excluded = excluded || v.Exclude
	}
	return out, excluded
}
