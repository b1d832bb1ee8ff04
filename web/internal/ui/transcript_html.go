package ui

import (
	"strings"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
)

// TranscriptRoute is the viewer's route of a record's visit.
func TranscriptRoute(rec Record) Route {
	return Route{Mode: ModeTranscript, Visit: rec.Visit, Agent: rec.Agent}
}

// TranscriptListHTML lists the loaded records, each linked to its replay
// when its transcript is loaded.
func TranscriptListHTML(r *Results) string {
	var b strings.Builder
	b.WriteString(`<section class="card"><h2>Transcripts</h2><ul class="tr-list">`)
	for _, rec := range r.Records {
		line := esc(rec.Visit) + ` · ` + esc(rec.Agent) + ` · joint ` + yesNo(rec.Scores.Joint) + ` · ` + itoa(rec.Scores.SanctionsReceived) + ` sanctions`
		if _, ok := r.Transcript(rec); ok {
			line = `<a href="` + esc(TranscriptRoute(rec).String()) + `">` + line + `</a>`
		} else {
			line += ` · no transcript`
		}
		b.WriteString(`<li>` + line + `</li>`)
	}
	b.WriteString(`</ul>` + filesInput + `</section>`)
	return b.String()
}

// filesInput chooses the files to open.
const filesInput = `<p><label for="tr-files">Results and transcripts files</label> <input id="tr-files" type="file" multiple accept=".jsonl,.json"></p>`

// TranscriptBarHTML is the replay's controls and the panel the exchange
// goes into (id "t-panel").
func TranscriptBarHTML(v *TranscriptView) string {
	var b strings.Builder
	b.WriteString(`<div class="watchbar" role="group" aria-label="Replay">`)
	b.WriteString(`<button type="button" class="btn primary" data-act="t-step">Step →</button>`)
	b.WriteString(`<button type="button" class="btn" data-act="t-sanction">Next sanction ⇥</button>`)
	b.WriteString(`<button type="button" class="btn" data-act="t-restart">⟲ Restart</button>`)
	b.WriteString(`<a class="btn" href="` + esc(Route{Mode: ModeTranscript}.String()) + `">All visits</a></div>`)
	b.WriteString(`<p class="hint">` + esc(v.Record.Agent) + ` on <code>` + esc(v.Record.Visit) + `</code>`)
	if v.Transcript.ResumedAt > 0 {
		b.WriteString(` · the model took the visit up after action ` + itoa(v.Transcript.ResumedAt) + ` (a session the server resumed)`)
	}
	b.WriteString(`</p><p id="t-progress" class="progress" aria-live="off"></p><div id="t-panel" class="t-panel" aria-live="polite"></div>`)
	return b.String()
}

// TranscriptProgressHTML says where the replay stands.
func TranscriptProgressHTML(v *TranscriptView) string {
	n := len(v.Record.Actions)
	s := "action " + itoa(v.Next) + " of " + itoa(n)
	if v.Done() {
		s += " · done"
	}
	return esc(s)
}

// TranscriptPanelHTML shows the exchange of the action played last (or,
// at the end, the probe's): the message sent, the reply, the reasoning,
// what it cost, the action and what followed.
func TranscriptPanelHTML(v *TranscriptView) string {
	var b strings.Builder
	if e := v.Shown; e != nil {
		b.WriteString(`<article class="t-ex" data-index="` + itoa(e.Index) + `"><h3>Action ` + itoa(e.Index+1) + ` · day ` + itoa(e.Day) + `, step ` + itoa(e.Step) + `</h3>`)
		if e.Request.Kind == "" {
			b.WriteString(`<p class="hint">No request: the server's session had taken this action before the model took it up.</p>`)
		} else {
			writeExchange(&b, "t", e.Prompt, e.Request)
		}
		b.WriteString(`<p>Played: <code id="t-action">` + esc(v.Record.Actions[e.Index]) + `</code></p>`)
		writeFollowed(&b, e)
		if e.Notes != nil {
			b.WriteString(`<h4>Notes at the end of the day</h4>`)
			writeExchange(&b, "t-notes", e.NotesPrompt, *e.Notes)
		}
		b.WriteString(`</article>`)
	} else {
		b.WriteString(`<p class="hint">The first observation. Press Step to see what the model was sent and what it replied.</p>`)
	}
	if p, s := v.ProbeExchange(); s != nil {
		b.WriteString(`<article class="t-ex t-probe"><h3>The probe</h3>`)
		writeExchange(&b, "t-probe", p, *s)
		if pr := v.Record.Probe; pr != nil {
			right := "wrong"
			if pr.Correct {
				right = "right"
			}
			b.WriteString(`<p>Answer ` + itoa(pr.Answer+1) + `: ` + right + `.</p>`)
		}
		b.WriteString(`</article>`)
	}
	return b.String()
}

// writeExchange writes a request's message and its reply as returned.
func writeExchange(b *strings.Builder, id, msg string, s prompt.TranscriptStep) {
	b.WriteString(`<details class="t-msg"><summary>The message it was sent (` + itoa(len(msg)) + ` characters)</summary><pre id="` + id + `-msg">` + esc(msg) + `</pre></details>`)
	b.WriteString(`<h4>Its reply</h4><pre class="t-reply" id="` + id + `-reply">` + esc(s.Reply) + `</pre>`)
	if s.Reasoning != "" {
		b.WriteString(`<details class="t-reasoning"><summary>Its reasoning, as the provider sent it</summary><pre id="` + id + `-reasoning">` + esc(s.Reasoning) + `</pre></details>`)
	}
	meta := itoa(s.Usage.PromptTokens) + " prompt + " + itoa(s.Usage.CompletionTokens) + " completion tokens · " +
		itoa(int(s.LatencyMS)) + " ms"
	if s.Cached {
		meta += " · from the cache"
	} else if s.Retries > 0 {
		meta += " · " + itoa(s.Retries) + " retries"
	}
	if s.FormatError {
		meta += " · no valid ACTION line: played as wait"
	}
	b.WriteString(`<p class="hint">` + esc(meta) + `</p>`)
}

// writeFollowed writes the events of the step the action made, the
// newcomer's sanctions marked.
func writeFollowed(b *strings.Builder, e *Exchange) {
	if len(e.Followed) == 0 {
		b.WriteString(`<p class="hint">Nothing else followed.</p>`)
		return
	}
	b.WriteString(`<h4>What followed</h4><ul class="t-followed">`)
	for _, ev := range e.Followed {
		cls := "ev-" + cssName(ev.Kind)
		if ev.Kind == "sanction" && ev.To == sim.NewcomerID {
			cls += " t-sanction"
		}
		b.WriteString(`<li class="` + cls + `">` + esc(EventLine(ev, nil, "the model")) + `</li>`)
	}
	b.WriteString(`</ul>`)
}
