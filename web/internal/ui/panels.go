package ui

import (
	"strconv"
	"strings"

	"github.com/normgym/normgym/sim"
)

// HUDHTML renders the status bar: day and its kind, phase, steps left,
// the task and what the newcomer carries.
func HUDHTML(o *Observation) string {
	f := &o.Frame
	kind := "test day"
	if o.Practice {
		kind = "practice day"
	}
	left := o.StepLimit - f.Step
	if left < 0 {
		left = 0
	}
	me := Agent{}
	if len(f.Agents) > 0 {
		me = f.Agents[0]
	}
	var b strings.Builder
	b.WriteString(`<div class="hud-row">`)
	b.WriteString(`<span class="pill day` + map[bool]string{true: " practice", false: " test"}[o.Practice] + `">Day ` + itoa(o.Day) + ` of ` + itoa(o.Days) + ` · ` + kind + `</span>`)
	b.WriteString(`<span class="pill phase ph-` + cssName(f.Phase) + `"><svg aria-hidden="true"><use href="#i-` + cssName(f.Phase) + `"/></svg>` + esc(Title(f.Phase)) + `</span>`)
	warn := ""
	if left <= 10 {
		warn = " low"
	}
	b.WriteString(`<span class="pill steps` + warn + `">Steps left <b>` + itoa(left) + `</b> of ` + itoa(o.StepLimit) + `</span>`)
	b.WriteString(`</div>`)
	b.WriteString(`<div class="hud-line"><p class="task"><strong>Task:</strong> ` + esc(o.Task.Text) + ` <span class="prog">Delivered ` + itoa(me.Delivered) + ` of ` + itoa(o.Task.Goods) + `</span></p>`)
	if o.Told != "" {
		b.WriteString(`<p class="told"><strong>Community rule:</strong> ` + esc(o.Told) + `</p>`)
	}
	b.WriteString(`<p class="inv"><strong>You carry:</strong> ` + esc(o.Names.Carrying(me)) + `<span class="sr">. You are at x ` + itoa(me.Pos.X) + `, y ` + itoa(me.Pos.Y) + `.</span></p></div>`)
	return b.String()
}

// RosterHTML lists the members: number, name, role, hat, what they carry
// and their last action.
func RosterHTML(o *Observation) string {
	f := &o.Frame
	var b strings.Builder
	b.WriteString(`<ul class="roster">`)
	for i, a := range f.Agents {
		if i == 0 {
			continue
		}
		last := a.LastAction
		if last == "" {
			last = "—"
		}
		b.WriteString(`<li><span class="tk mini m` + itoa(i))
		if a.Hat != "" {
			b.WriteString(` h-` + cssName(a.Hat))
		}
		b.WriteString(`" aria-hidden="true"><b>` + itoa(i) + `</b>`)
		if a.Hat != "" {
			b.WriteString(`<i>` + ColorLetter(a.Hat) + `</i>`)
		}
		b.WriteString(`</span><span class="who"><b>` + esc(Title(a.Name)) + `</b> <span class="role">` + esc(a.Role))
		if a.Hat != "" {
			b.WriteString(` · ` + esc(a.Hat) + ` hat`)
		}
		b.WriteString(`</span></span><span class="last">` + esc(last) + `</span></li>`)
	}
	b.WriteString(`</ul>`)
	return b.String()
}

// GiveHTML renders one Give button per member on or next to the newcomer.
func GiveHTML(o *Observation) string {
	near := Adjacent(o)
	if len(near) == 0 {
		return `<p class="hint">Give: nobody is next to you.</p>`
	}
	var b strings.Builder
	for _, i := range near {
		a := o.Frame.Agents[i]
		b.WriteString(`<button type="button" class="btn give" data-act="give" data-member="` + itoa(i) + `">Give to ` +
			esc(Title(a.Name)) + ` <kbd>` + itoa(i) + `</kbd></button>`)
	}
	return b.String()
}

// FeedItemHTML renders one event of the feed, as EventLine words it.
// Sanctions stand out, and those against the newcomer most (when the
// newcomer is the player: who is "").
func FeedItemHTML(ev Event, f *Frame, who string) string {
	cls := "ev ev-" + cssName(ev.Kind)
	tag := ""
	switch ev.Kind {
	case "sanction":
		tag = `<span class="tag">Sanction</span>`
		if ev.To == sim.NewcomerID && who == "" {
			cls += " to-you"
		}
	case "blocked":
		tag = `<span class="tag">Impossible</span>`
	case "day":
		tag = `<span class="tag">Day ` + itoa(ev.Day) + `</span>`
	}
	txt := `<span class="txt">` + esc(EventLine(ev, f, who)) + `</span>`
	if p, ok := Where(ev); ok {
		// A sanction's line shows, when pressed, where it happened.
		txt = `<button type="button" class="where" data-act="where" data-x="` + itoa(p.X) + `" data-y="` + itoa(p.Y) + `" data-day="` + itoa(ev.Day) +
			`" aria-describedby="where-help">` + txt + `</button>`
	}
	return `<li class="` + cls + `">` + tag + ` ` + txt + ` <span class="when">day ` +
		itoa(ev.Day) + ` · step ` + itoa(ev.Step) + `</span></li>`
}

// LegendHTML explains the map's drawing for observation o's world.
func LegendHTML(o *Observation) string {
	var b strings.Builder
	b.WriteString(`<div class="legend"><h3>Terrain</h3><ul class="sw">`)
	for _, t := range []string{"path", "floor", "grass", "sand", "stone", "water", "wall"} {
		b.WriteString(`<li><span class="cell t-` + t + `" aria-hidden="true"></span>` + t + `</li>`)
	}
	b.WriteString(`</ul><h3>Colours <small>(letter and border style)</small></h3><ul class="sw">`)
	for _, c := range ColorNames() {
		b.WriteString(`<li><span class="cell t-path c-` + c + `" aria-hidden="true"><span class="cl">` + ColorLetter(c) + `</span></span>` + c + ` (` + ColorLetter(c) + `, ` + ColorLine(c) + `)</li>`)
	}
	n := o.Names
	b.WriteString(`</ul><h3>Things</h3><ul class="sw">`)
	for _, k := range []string{"source", "basket", "bell", "well", "bin"} {
		extra := ""
		if k == "source" {
			extra = `, its letter is its colour; faded when no ` + esc(n.Goods) + ` is ready`
		}
		b.WriteString(`<li><span class="cell t-path" aria-hidden="true"><span class="ob o-` + k + `"><svg><use href="#i-` + Icon(n, k) + `"/></svg></span></span>` + esc(n.ObjectName(k)) + extra + `</li>`)
	}
	b.WriteString(`<li><span class="cell t-path" aria-hidden="true"><span class="lo">1</span></span>` + esc(Title(n.Litter)) + ` or ` + esc(n.Goods) + ` on the ground (count)</li>`)
	b.WriteString(`<li><span class="cell t-path has-agent" aria-hidden="true"><span class="tk me"><b>@</b></span></span>you</li>`)
	b.WriteString(`<li><span class="cell t-path has-agent" aria-hidden="true"><span class="tk m1 h-blue"><b>1</b><i>B</i></span></span>a member: number, hat colour letter, name (initials on small screens)</li>`)
	b.WriteString(`</ul><p>Members notice what happens within ` + itoa(o.SanctionRadius) + ` tiles of them (diagonals count).</p></div>`)
	return b.String()
}

// KeysHTML lists the key bindings.
func KeysHTML() string {
	var b strings.Builder
	b.WriteString(`<dl class="keys">`)
	for _, k := range KeyHelp() {
		b.WriteString(`<dt>` + esc(k[0]) + `</dt><dd>` + esc(k[1]) + `</dd>`)
	}
	b.WriteString(`</dl>`)
	return b.String()
}

// ConsentHTML is the screen before a human's visit: what NormGym is, what
// is recorded, and how to play.
//
// On the NormGym site, site is the server's consent (its text and
// version replace the standalone one), room the classroom, if any, and
// nick the student's nickname in it.
func ConsentHTML(v Resolved, site *SiteConsent, room, nick string) string {
	var b strings.Builder
	b.WriteString(`<section class="card intro wide" aria-labelledby="intro-h"><h2 id="intro-h" tabindex="-1">Be the newcomer</h2><div class="cols"><div>`)
	b.WriteString(`<p>You arrive in a small community: a few members going about their day, a task for you, and
<strong>unwritten rules</strong>. Every action you can take is possible; some are not <em>permitted</em>.
Nobody will tell you which — watch the members, and how they react to each other and to you.</p>
<ul class="facts">
<li><strong>Day 1</strong> is a practice day. <strong>Day 2</strong>, the test day, takes place in a new layout of the same place, with the same rules.</li>
<li>When someone breaks a rule where a member can see it, they get a <span class="tag-s">sanction</span> — a remark like “Tsk!”. Sanctions never say what the rule is.</li>
<li>At the end you will pick the rule from four statements, and see how you and the built-in baselines did.</li>
</ul>`)
	b.WriteString(`</div><div><h3 class="first">Keys</h3>` + KeysHTML() + `<p class="hint">On a touch screen, use the buttons under the map.</p></div></div>`)
	if site != nil {
		b.WriteString(SiteConsentHTML(*site, room, nick))
	} else {
		b.WriteString(`<h3>Consent</h3><p class="consent">This is a research demo of NormGym. By starting you agree to take part on these terms; you can stop at any time by closing the page.</p>`)
		b.WriteString(StoryHTML(DataLocal))
	}
	b.WriteString(`<p class="visit-label">Visit: <span>` + esc(v.Label()) + `</span></p>`)
	b.WriteString(`<div class="actions"><button type="button" class="btn primary" data-act="start">I agree — start</button></div></section>`)
	return b.String()
}

// DaySummary is what the day-transition screen says about the day that
// ended.
type DaySummary struct {
	Day       int
	TaskDone  bool
	Sanctions int
}

// DayHTML is the screen before a day starts; ended, when not nil, sums up
// the day before.
func DayHTML(o *Observation, ended *DaySummary, title string) string {
	var b strings.Builder
	b.WriteString(`<section class="card day-screen" aria-labelledby="day-h">`)
	if ended != nil {
		b.WriteString(`<p class="ended">Day ` + itoa(ended.Day) + ` is over. Task done: <strong>` + yesNo(ended.TaskDone) +
			`</strong>. Sanctions you received: <strong>` + itoa(ended.Sanctions) + `</strong>.</p>`)
	}
	kind := "the test day"
	if o.Practice {
		kind = "a practice day"
	}
	b.WriteString(`<h2 id="day-h" tabindex="-1">Day ` + itoa(o.Day) + ` of ` + itoa(o.Days) + ` — ` + kind + `</h2>`)
	if title != "" {
		b.WriteString(`<p>` + esc(Title(title)) + `.</p>`)
	}
	if o.Practice {
		b.WriteString(`<p>Explore, do your task and learn how this community behaves. What happens today does not count towards your result.</p>`)
	} else {
		b.WriteString(`<p>A new layout of the same place, with the same community and the same unwritten rules. <strong>This day counts:</strong> do the task without breaking the rules.</p>`)
	}
	b.WriteString(`<p class="task"><strong>Task:</strong> ` + esc(o.Task.Text) + ` You have ` + itoa(o.StepLimit) + ` steps.</p>`)
	if o.Told != "" {
		b.WriteString(`<p class="told"><strong>Community rule:</strong> ` + esc(o.Told) + `</p>`)
	}
	b.WriteString(`<div class="actions"><button type="button" class="btn primary" data-act="begin">Begin day ` + itoa(o.Day) + `<kbd aria-hidden="true">Enter</kbd></button></div></section>`)
	return b.String()
}

// ProbeHTML asks which statement is the rule, with a confidence slider.
func ProbeHTML(p ProbeResponse) string {
	var b strings.Builder
	b.WriteString(`<section class="card probe" aria-labelledby="probe-h"><h2 id="probe-h" tabindex="-1">Which was the rule?</h2><form id="probe-form">`)
	b.WriteString(`<fieldset><legend>` + esc(p.Question) + `</legend>`)
	for i, opt := range p.Options {
		id := "opt" + itoa(i)
		b.WriteString(`<label class="opt" for="` + id + `"><input type="radio" name="rule" id="` + id + `" value="` + itoa(i) + `"` +
			map[bool]string{true: ` required`, false: ``}[i == 0] + `><kbd>` + itoa(i+1) + `</kbd> <span>` + esc(opt) + `</span></label>`)
	}
	b.WriteString(`</fieldset><label class="conf" for="confidence">How sure are you? <output id="conf-out" for="confidence">50%</output></label>`)
	b.WriteString(`<input type="range" id="confidence" min="0" max="100" step="5" value="50" aria-describedby="conf-help">`)
	b.WriteString(`<p id="conf-help" class="hint">0% = a pure guess, 100% = certain. Keys: 1–4 choose, Enter submits.</p>`)
	b.WriteString(`<div class="actions"><button type="submit" class="btn primary" data-act="answer">Submit answer</button></div></form></section>`)
	return b.String()
}

// Outcome is one newcomer's result on a visit, for the comparison table.
type Outcome struct {
	Name   string
	Record Record
	Err    string
}

func times(n int) string {
	switch n {
	case 0:
		return "never"
	case 1:
		return "once"
	}
	return itoa(n) + " times"
}

// tick is a compact yes/no for tables: a symbol, with the word for
// screen readers.
func tick(ok bool) string {
	if ok {
		return `<span class="ok" title="yes">✓<span class="sr"> yes</span></span>`
	}
	return `<span class="no" title="no">✗<span class="sr"> no</span></span>`
}

func mark(ok bool) string {
	if ok {
		return `<span class="ok">✓ yes</span>`
	}
	return `<span class="no">✗ no</span>`
}

// ResultHTML shows a finished visit: task, compliance, joint success, the
// rule revealed, the probe answer, and the baselines on the same visit
// (BaselinesHTML: others nil while they run), and says where the record
// goes (story). norm is nil for control visits.
func ResultHTML(rec Record, norm *Norm, probe *ProbeResponse, others []Outcome, story DataMode) string {
	s := rec.Scores
	var b strings.Builder
	b.WriteString(resultHead(s))
	b.WriteString(scoresHTML(s))
	if norm != nil {
		b.WriteString(`<div class="reveal"><h3>The rule was</h3><p class="rule">` + esc(norm.Statement) + `</p><p class="hint">` +
			esc(Title(norm.Family)) + ` norm · ` + esc(tagText(norm.Tag)) + `</p>`)
		if rec.Probe != nil && probe != nil && rec.Probe.Answer >= 0 && rec.Probe.Answer < len(probe.Options) {
			b.WriteString(`<p>You picked: “` + esc(probe.Options[rec.Probe.Answer]) + `” — ` + mark(rec.Probe.Correct))
			if c := rec.Probe.Confidence; c != nil {
				b.WriteString(` (confidence ` + strconv.Itoa(int(*c*100+0.5)) + `%)`)
			}
			b.WriteString(`</p>`)
		}
		b.WriteString(`</div>`)
	} else {
		b.WriteString(`<div class="reveal"><h3>There was no rule</h3><p>This was a <em>control</em> visit: nothing was forbidden.</p></div>`)
	}
	b.WriteString(`<p class="visit-id">Visit <code>` + esc(rec.Visit) + `</code></p>`)
	b.WriteString(StoryHTML(story))
	b.WriteString(`<div id="baselines">` + BaselinesHTML(rec, others) + `</div>`)
	b.WriteString(`<div class="actions"><button type="button" class="btn primary" data-act="download">Download record (JSON)</button>` +
		`<button type="button" class="btn" data-act="again">Play another visit</button>` +
		`<button type="button" class="btn" data-act="watch-this">Watch baselines on this visit</button></div></section>`)
	return b.String()
}

// BaselinesHTML is the part of the result screen that compares the
// newcomer's record with the baselines' on the same visit (the content of
// its #baselines): while others is nil they are still running, and it
// says so. The page fills it in place when they are done, so that the
// rest of the screen, and the focus on it, stay as they were.
func BaselinesHTML(rec Record, others []Outcome) string {
	if others == nil {
		return `<p class="hint" id="baselines-wait">Running the baselines on this visit…</p>`
	}
	if len(others) == 0 {
		return ""
	}
	return OutcomeTableHTML(append([]Outcome{{Name: "you", Record: rec}}, others...))
}

// resultHead opens the result screen: its card and heading.
func resultHead(s Scores) string {
	h := `<section class="card result" aria-labelledby="res-h"><h2 id="res-h" tabindex="-1">`
	if s.Joint {
		h += `You did it: task done, and no rule broken`
	} else {
		h += `Visit over`
	}
	return h + `</h2>`
}

// scoresHTML lists a finished visit's scores.
func scoresHTML(s Scores) string {
	var b strings.Builder
	b.WriteString(`<dl class="scores">`)
	b.WriteString(`<dt>Task (test day)</dt><dd>` + mark(s.Task) + `</dd>`)
	b.WriteString(`<dt>Compliance (test day)</dt><dd>` + mark(s.Compliance) + `</dd>`)
	b.WriteString(`<dt>Joint success</dt><dd>` + mark(s.Joint) + `</dd>`)
	if len(s.Violations) == 2 && len(s.Sanctions) == 2 {
		b.WriteString(`<dt>Rule broken</dt><dd>` + times(s.Violations[0]) + ` on day 1, ` + times(s.Violations[1]) + ` on day 2</dd>`)
		b.WriteString(`<dt>Sanctions received</dt><dd>` + itoa(s.Sanctions[0]) + ` on day 1, ` + itoa(s.Sanctions[1]) + ` on day 2</dd>`)
		b.WriteString(`<dt>Steps taken</dt><dd>` + itoa(s.Steps[0]) + ` on day 1, ` + itoa(s.Steps[1]) + ` on day 2</dd>`)
	}
	b.WriteString(`</dl>`)
	return b.String()
}

// OutcomeTableHTML compares newcomers on one visit.
func OutcomeTableHTML(rows []Outcome) string {
	var b strings.Builder
	b.WriteString(`<div class="table-wrap"><table class="cmp"><caption>On this same visit</caption><thead><tr><th scope="col">Who</th><th scope="col">Task</th><th scope="col"><abbr title="Compliance: no rule broken on the test day">Comply</abbr></th><th scope="col"><abbr title="Joint success: task and compliance">Joint</abbr></th><th scope="col"><abbr title="The rule picked at the end was right">Probe</abbr></th><th scope="col"><span class="long">Sanctions</span><abbr class="short" title="Sanctions received">Sanct.</abbr></th></tr></thead><tbody>`)
	for _, r := range rows {
		b.WriteString(`<tr><th scope="row">` + esc(r.Name) + `</th>`)
		if r.Err != "" {
			b.WriteString(`<td colspan="5" class="no">` + esc(r.Err) + `</td></tr>`)
			continue
		}
		s := r.Record.Scores
		probe := `<span title="no probe">—</span>`
		if p := r.Record.Probe; p != nil {
			probe = tick(p.Correct)
		}
		b.WriteString(`<td>` + tick(s.Task) + `</td><td>` + tick(s.Compliance) + `</td><td>` + tick(s.Joint) + `</td><td>` + probe +
			`</td><td>` + itoa(s.SanctionsReceived) + `</td></tr>`)
	}
	b.WriteString(`</tbody></table>`)
	if len(rows) > 2 {
		b.WriteString(`<p class="hint">Baselines: <b>random</b> acts at random; <b>greedy</b> does the task only; <b>oracle</b> knows the rule; <b>self</b> avoids what got it sanctioned; <b>observer</b> infers the rule from everyone's sanctions.</p>`)
	}
	b.WriteString(`</div>`)
	return b.String()
}

func tagText(tag string) string {
	switch tag {
	case "commonsense":
		return "in line with common sense"
	case "counterintuitive":
		return "counter-intuitive: prior knowledge does not help"
	}
	return tag
}
