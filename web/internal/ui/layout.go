package ui

import "strings"

// GameHTML is the skeleton of a visit on screen, with the element ids the
// app fills: hud, grid-wrap, status, controls, roster, feed, legend, and
// for the model mode, transcript and m-error.
func GameHTML(mode string) string {
	var b strings.Builder
	b.WriteString(`<div class="game mode-` + mode + `">`)
	b.WriteString(`<section id="hud" class="hud" aria-label="Status"></section>`)
	// The map takes the keyboard focus (tabindex=0): the game's keys work
	// while it, or nothing in particular, has it.
	b.WriteString(`<section class="map" id="map" tabindex="0" aria-label="Map: arrow keys move, Space waits"><div id="grid-wrap" class="grid-wrap"></div>`)
	// Shown while a sealed visit's step is on its way (body[data-busy]).
	b.WriteString(`<p class="wait" aria-hidden="true">Waiting for the server…</p>`)
	b.WriteString(`<p id="status" class="status banner" role="status" aria-live="polite"></p></section>`)
	b.WriteString(`<section class="ctl panel" aria-label="Controls"><div id="controls"></div></section>`)
	b.WriteString(`<div class="side">`)
	if mode == ModeModel {
		b.WriteString(`<section class="panel" aria-labelledby="tr-h"><h2 id="tr-h">Transcript <small class="hint">(newest first)</small></h2><ol id="transcript" class="transcript" aria-live="polite" tabindex="0" aria-labelledby="tr-h"></ol></section>`)
	}
	b.WriteString(`<section class="panel" aria-labelledby="feed-h"><h2 id="feed-h">What happened <small class="hint">(newest first)</small></h2><p id="where-help" class="hint sr">Press a sanction to see where it happened on today's map.</p><ol id="feed" class="feed" aria-live="polite" aria-relevant="additions" tabindex="0" aria-labelledby="feed-h"></ol></section>`)
	b.WriteString(`<section class="panel" aria-labelledby="ros-h"><h2 id="ros-h">The community</h2><div id="roster"></div></section>`)
	b.WriteString(`<details class="panel"><summary>Legend: what the map shows</summary><div id="legend"></div></details>`)
	b.WriteString(`</div></div>`)
	return b.String()
}

// PlayControlsHTML is the on-screen pad and action buttons; the give
// buttons go into the element with id "give". A button's name is its
// words (an arrow's words are for screen readers only), so that what is
// read and what is shown agree.
func PlayControlsHTML() string {
	btn := func(act, label, key, name string) string {
		text := `<span aria-hidden="true">` + label + `</span><span class="sr">` + name + `</span>`
		if label == name {
			text = label
		}
		return `<button type="button" class="btn" data-act="` + act + `">` + text + `<kbd aria-hidden="true">` + key + `</kbd></button>`
	}
	return `<div class="controls"><div class="ctl-grid"><div class="pad" role="group" aria-label="Move">` +
		btn("north", "▲", "W", "Move north") + btn("west", "◀", "A", "Move west") + btn("wait", "Wait", "␣", "Wait") +
		btn("east", "▶", "D", "Move east") + btn("south", "▼", "S", "Move south") +
		`</div><div><div class="acts" role="group" aria-label="Actions">` +
		btn("pick", "Pick", "P", "Pick") + btn("drop", "Drop", "Q", "Drop") + btn("use", "Use", "U", "Use") + btn("bow", "Bow", "B", "Bow") +
		`</div><div id="give" class="give-row" role="group" aria-label="Give"></div></div></div></div>`
}

// WatchBarHTML is the playback bar of the watch mode.
func WatchBarHTML(agents []string, agent string) string {
	var b strings.Builder
	b.WriteString(`<div class="watchbar" role="group" aria-label="Playback"><label for="w-agent">Baseline <select id="w-agent">`)
	for _, a := range agents {
		sel := ""
		if a == agent {
			sel = " selected"
		}
		b.WriteString(`<option value="` + esc(a) + `"` + sel + `>` + esc(a) + `</option>`)
	}
	b.WriteString(`</select></label>`)
	b.WriteString(`<button type="button" class="btn primary" data-act="w-play" aria-pressed="false" id="w-play">▶ Play</button>`)
	b.WriteString(`<button type="button" class="btn" data-act="w-step">Step →</button>`)
	b.WriteString(`<button type="button" class="btn" data-act="w-restart">⟲ Restart</button>`)
	b.WriteString(`<label for="w-speed">Speed <select id="w-speed"><option value="1">1 step/s</option><option value="3" selected>3 steps/s</option><option value="8">8 steps/s</option><option value="30">30 steps/s</option></select></label>`)
	b.WriteString(`</div><p class="hint">` + esc(Title(agent)) + `: ` + esc(BaselineText(agent)) + `</p><p id="w-progress" class="progress" aria-live="off"></p><div id="w-result"></div>`)
	return b.String()
}

// WatchProgressHTML says where the replay stands.
func WatchProgressHTML(w *Watch) string {
	n := len(w.Record.Actions)
	s := "step " + itoa(w.Next) + " of " + itoa(n)
	if w.Next < n {
		s += " · next: " + w.Record.Actions[w.Next]
	} else {
		s += " · done"
	}
	return esc(s)
}

// ModelFormHTML asks for the endpoint. The key field is filled from the
// browser's storage by the app, never from the page.
func ModelFormHTML(baseURL, model string, hasKey bool, label string) string {
	var b strings.Builder
	b.WriteString(`<section class="card model-form" aria-labelledby="mf-h"><h2 id="mf-h">Let a language model be the newcomer</h2>`)
	b.WriteString(`<p>Any OpenAI-compatible chat-completions endpoint works (a hosted API, vLLM, llama.cpp server, Ollama…). The page calls it directly from this browser, once per step, sending exactly the text observation the headless harness sends.</p>`)
	b.WriteString(`<form id="model-form">`)
	b.WriteString(`<div class="field"><label for="m-url">Base URL</label><input id="m-url" type="url" required placeholder="http://localhost:11434/v1" value="` + esc(baseURL) + `"></div>`)
	b.WriteString(`<div class="field"><label for="m-model">Model</label><input id="m-model" type="text" required placeholder="e.g. llama3.1:8b" value="` + esc(model) + `"></div>`)
	keyNote := "Stored only in this browser (localStorage) and sent only to the base URL above."
	if hasKey {
		keyNote = "A key is stored in this browser; leave this empty to keep using it."
	}
	b.WriteString(`<div class="field"><label for="m-key">API key <span class="hint">(optional for local servers)</span></label><input id="m-key" type="password" autocomplete="off" aria-describedby="m-key-note"><span id="m-key-note" class="hint">` + keyNote + `</span></div>`)
	b.WriteString(`<p class="visit-label">Visit: <span>` + esc(label) + `</span></p>`)
	b.WriteString(`<div class="actions"><button type="submit" class="btn primary" data-act="m-start">Start the run</button>`)
	b.WriteString(`<button type="button" class="btn" data-act="m-forget">Forget the key</button></div></form>`)
	b.WriteString(StoryHTML(DataModel))
	b.WriteString(`<p class="hint">The endpoint must allow requests from this page (CORS); if it does not, the run says what to set on common local servers. The record you can download afterwards holds the endpoint's host name and the model name, never the key.</p></section>`)
	return b.String()
}

// ModelControlsHTML is the run bar of the model mode.
func ModelControlsHTML(model string) string {
	return `<div class="watchbar" role="group" aria-label="Run"><button type="button" class="btn" data-act="m-stop" id="m-stop">■ Stop</button>` +
		`<button type="button" class="btn primary" data-act="m-resume" id="m-resume" disabled>▶ Resume</button>` +
		`<button type="button" class="btn" data-act="m-settings">Endpoint settings</button></div>` +
		`<p class="progress">Model <b>` + esc(model) + `</b> · <span id="m-state">running</span></p><div id="m-error" class="alert" role="alert"></div><div id="m-result"></div>`
}

// BaselineText says what a built-in baseline does.
func BaselineText(agent string) string {
	switch agent {
	case "random":
		return "acts at random."
	case "greedy":
		return "does the task by the shortest way and ignores the community."
	case "oracle":
		return "knows the rule and keeps it while doing the task."
	case "self":
		return "learns only from its own sanctions, and avoids what drew them."
	case "observer":
		return "infers the rule from everyone's actions and sanctions, and keeps it."
	}
	return "a built-in baseline."
}
