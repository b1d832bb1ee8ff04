package chat

import (
	"html"
	"strconv"

	"github.com/normgym/normgym/web/internal/ui"
)

// TurnHTML renders one transcript entry: when, the action taken (or the
// format error), any sanction it drew, and the prompt and reply folded.
func TurnHTML(t Turn) string {
	esc := html.EscapeString
	head := "Probe"
	if t.Kind == "step" {
		head = "Day " + strconv.Itoa(t.Day) + " · step " + strconv.Itoa(t.Step)
	}
	s := `<li><b>` + head + `</b> → `
	switch {
	case t.FormatError && t.Kind == "step":
		s += `<span class="fmt">no ACTION line: waited</span>`
	case t.FormatError:
		s += `<span class="fmt">no ANSWER line</span>`
	default:
		s += `<span class="act">` + esc(t.Action) + `</span>`
	}
	for _, ev := range t.Events {
		if ev.Kind == "sanction" || ev.Kind == "blocked" {
			s += `<div class="ev ev-` + ev.Kind + `">` + esc(ui.EventLine(ev, t.Frame, "the model")) + `</div>`
		}
	}
	s += `<details><summary>Prompt and reply</summary><pre>` + esc(t.Prompt) + `</pre><pre>` + esc(t.Reply) + `</pre></details></li>`
	return s
}
