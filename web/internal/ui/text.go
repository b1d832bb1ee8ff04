package ui

import (
	"html"
	"strconv"
	"strings"

	"github.com/normgym/normgym/sim"
)

var esc = html.EscapeString

func itoa(n int) string { return strconv.Itoa(n) }

// Title capitalises the first letter of s.
func Title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Colors are the tile, object and hat colours the sim uses, each with the
// letter and the line style that stand for it wherever it is drawn, so
// that colour is never the only signal.
var colors = map[string]struct{ Letter, Line string }{
	"red":    {"R", "solid"},
	"blue":   {"B", "dashed"},
	"yellow": {"Y", "dotted"},
	"green":  {"G", "double"},
}

// ColorLetter is the letter drawn for a colour: its initial, upper case.
func ColorLetter(c string) string {
	if k, ok := colors[c]; ok {
		return k.Letter
	}
	if c == "" {
		return ""
	}
	return strings.ToUpper(c[:1])
}

// ColorLine is the border style drawn with a colour.
func ColorLine(c string) string {
	if k, ok := colors[c]; ok {
		return k.Line
	}
	return "solid"
}

// ColorNames lists the colours with letters, in legend order.
func ColorNames() []string { return []string{"red", "blue", "yellow", "green"} }

// cssName keeps a value usable in a class name.
func cssName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' {
			b.WriteByte(c)
		} else if c >= 'A' && c <= 'Z' {
			b.WriteByte(c + 'a' - 'A')
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// Who names an agent id in prose: "you", "the warden", or the member's
// name with a capital.
func Who(id string) string {
	switch id {
	case "newcomer":
		return "you"
	case "warden":
		return "the warden"
	}
	return Title(id)
}

// EventLine renders an event as a sentence for people: the line the sim
// renders for models (sim.Event.Line, so that a sanction names what the
// sim says of it), about frame f. who names the newcomer when the player
// only watches it (a baseline in Watch mode); "" means the player is the
// newcomer, "you".
func EventLine(ev Event, f *Frame, who string) string {
	if who != "" && ev.Kind == "blocked" {
		// The sim words it for the newcomer: "Your action … did nothing:
		// you cannot …". Say it of the one watched.
		text := thirdPerson.Replace(ev.Text)
		if rest, ok := strings.CutPrefix(text, "Your "); ok {
			return Title(who) + "'s " + rest
		}
		return Title(who) + ": " + text
	}
	if ev.Kind == "sanction" {
		switch {
		case ev.To == sim.NewcomerID && who != "":
			ev.To = who
		case ev.To != sim.NewcomerID && ev.To != sim.WardenID:
			ev.To = Title(ev.To) // names are ids: "mara" is Mara
		}
	}
	return ev.Line()
}

// Blocked returns the reason of the newcomer's impossible action among
// events, or "".
func Blocked(events []Event) string {
	for _, ev := range events {
		if ev.Kind == "blocked" {
			return ev.Text
		}
	}
	return ""
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// thirdPerson rewords the sim's reasons for an impossible action
// (sim/frame.go) about someone watched rather than the reader.
var thirdPerson = strings.NewReplacer("you cannot", "it cannot", "you are", "it is", "you use", "it uses",
	"yourself", "itself", "next to you", "next to it", "you have", "it has")

// BannerText picks the line of a step's events for the one-line banner
// under the map: a sanction first (on the newcomer before others), then
// an impossible action, then the latest event; "" when there is none.
func BannerText(events []Event, f *Frame, who string) string {
	best := MainEvent(events)
	if best < 0 {
		return ""
	}
	return EventLine(events[best], f, who)
}

// MainEvent is the index of the event of a step that the banner shows
// (BannerText), -1 for none: the last sanction on the newcomer, else the
// last sanction, else the last impossible action, else the last event.
func MainEvent(events []Event) int {
	best, rank := -1, 0
	for i, ev := range events {
		r := 1
		switch {
		case ev.Kind == "sanction" && ev.To == sim.NewcomerID:
			r = 4
		case ev.Kind == "sanction":
			r = 3
		case ev.Kind == "blocked":
			r = 2
		}
		if r >= rank {
			best, rank = i, r
		}
	}
	return best
}
