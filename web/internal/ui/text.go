package ui

import (
	"html"
	"strconv"
	"strings"
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

// EventLine renders an event as a sentence for people.
func EventLine(ev Event) string {
	switch ev.Kind {
	case "sanction":
		return Title(Who(ev.By)) + " sanctioned " + Who(ev.To) + ": “" + ev.Text + "”"
	}
	return ev.Text
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
