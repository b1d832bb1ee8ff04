package ui

import (
	"strings"
)

// The screens of a study, around the visit's own (day, grid, probe):
// consent, the practice and the questions, their outcome, the debrief
// and the end. Each is a card whose heading takes the focus; buttons
// carry data-act="study-…" for the app.

// paragraphs writes text as paragraphs (blank lines part them).
func paragraphs(text, class string) string {
	var b strings.Builder
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			b.WriteString(`<p class="` + class + `">` + strings.ReplaceAll(esc(p), "\n", "<br>") + `</p>`)
		}
	}
	return b.String()
}

// StudyConsentHTML is the study's consent screen.
func StudyConsentHTML(st StudyState, pub StudyPublic) string {
	var b strings.Builder
	b.WriteString(`<section class="card intro wide study" aria-labelledby="study-h"><h2 id="study-h" tabindex="-1">` + esc(st.Name) + `</h2>`)
	b.WriteString(`<p>A research study on how people find out unwritten rules. It takes about 15 to 25 minutes: a short practice, three questions, ` +
		`then one visit to a small community (two days), a last question about its rule, and your completion code.`)
	if pub.TimeLimitMinutes > 0 {
		b.WriteString(` Please finish within <strong>` + itoa(pub.TimeLimitMinutes) + ` minutes</strong>.`)
	}
	b.WriteString(`</p>`)
	if pub.PaymentNote != "" {
		b.WriteString(`<p class="hint">Payment: ` + esc(pub.PaymentNote) + `</p>`)
	}
	b.WriteString(`<h3>Consent</h3><div class="consent" data-consent-version="` + esc(st.ConsentVersion) + `">` + paragraphs(st.ConsentText, "consent") + `</div>`)
	b.WriteString(`<p class="hint">Consent version ` + esc(st.ConsentVersion) + `.</p>`)
	b.WriteString(StoryHTML(DataStudy))
	b.WriteString(`<div class="actions"><button type="button" class="btn primary" data-act="study-consent">I agree — continue</button>` +
		`<button type="button" class="btn" data-act="study-decline">I do not agree</button></div></section>`)
	return b.String()
}

// StudyDeclinedHTML is the screen of a participant who did not agree.
func StudyDeclinedHTML() string {
	return `<section class="card" aria-labelledby="study-h"><h2 id="study-h" tabindex="-1">You did not agree</h2>` +
		`<p>Nothing more happens and nothing of yours is used. You can close this page and return the study on your platform. ` +
		`If you change your mind, open the study's link again.</p>` +
		`<div class="actions"><button type="button" class="btn" data-act="study-reconsider">Back to the consent</button></div></section>`
}

// StudyPracticeHTML introduces the practice and the questions.
func StudyPracticeHTML() string {
	return `<section class="card" aria-labelledby="study-h"><h2 id="study-h" tabindex="-1">First, a one-minute practice</h2>` +
		`<p>You will walk around a practice village for a minute, with prompts: how to move, how time passes and what a ` +
		`<span class="tag-s">sanction</span> looks like. It is not part of the study: nothing of it is kept, and its rule is not the one ` +
		`of your visit. Then three short questions about what you saw.</p>` + KeysHTML() +
		`<div class="actions"><button type="button" class="btn primary" data-act="study-tutorial">Start the practice</button>` +
		`<button type="button" class="btn" data-act="study-questions">Skip to the questions</button></div></section>`
}

// StudyQuestionsHTML is the comprehension check: one radio group per
// question, named q0, q1, …; msg says what is missing.
func StudyQuestionsHTML(qs []StudyQuestion, msg string) string {
	var b strings.Builder
	b.WriteString(`<section class="card probe" aria-labelledby="study-h"><h2 id="study-h" tabindex="-1">Three questions</h2>` +
		`<p>About the practice: what you do, and what to watch for. You answer once.</p><form id="study-check-form">`)
	for i, q := range qs {
		b.WriteString(`<fieldset><legend>` + itoa(i+1) + `. ` + esc(q.Question) + `</legend>`)
		for k, opt := range q.Options {
			id := "q" + itoa(i) + "o" + itoa(k)
			b.WriteString(`<label class="opt" for="` + id + `"><input type="radio" name="q` + itoa(i) + `" id="` + id + `" value="` + itoa(k) + `"> <span>` +
				esc(opt) + `</span></label>`)
		}
		b.WriteString(`</fieldset>`)
	}
	b.WriteString(`<p class="err" id="study-check-err" role="alert">` + esc(msg) + `</p>`)
	b.WriteString(`<div class="actions"><button type="submit" class="btn primary">Send my answers</button></div></form></section>`)
	return b.String()
}

// StudyCheckedHTML says how the check went, with the right answers, and
// leads to the visit.
func StudyCheckedHTML(st StudyState, qs []StudyQuestion) string {
	var b strings.Builder
	c := st.Check
	b.WriteString(`<section class="card" aria-labelledby="study-h"><h2 id="study-h" tabindex="-1">`)
	if c != nil && c.Passed {
		b.WriteString(`All right: ` + itoa(c.Correct) + ` of ` + itoa(c.Of) + `</h2>`)
	} else if c != nil {
		b.WriteString(`You got ` + itoa(c.Correct) + ` of ` + itoa(c.Of) + `</h2><p>Here are the right answers: keep them in mind in your visit.</p>`)
	} else {
		b.WriteString(`Your visit</h2>`)
	}
	if c != nil {
		b.WriteString(`<ol class="facts">`)
		for i, q := range qs {
			if i < len(c.Right) && c.Right[i] < len(q.Options) {
				b.WriteString(`<li>` + esc(q.Question) + ` <strong>` + esc(q.Options[c.Right[i]]) + `</strong></li>`)
			}
		}
		b.WriteString(`</ol>`)
	}
	b.WriteString(`<p>Now your visit: two days in a community with its own unwritten rule. This site runs it and sends this page only what you see.</p>`)
	b.WriteString(`<div class="actions"><button type="button" class="btn primary" data-act="study-play">Start my visit</button></div></section>`)
	return b.String()
}

// StudyDebriefHTML is the screen after the probe: the visit's outcome,
// its rule (norm nil under control), the study's debrief, and the button
// to the completion code.
func StudyDebriefHTML(rec Record, norm *Norm, debrief string) string {
	var b strings.Builder
	b.WriteString(resultHead(rec.Scores))
	b.WriteString(scoresHTML(rec.Scores))
	if norm != nil {
		b.WriteString(`<div class="reveal"><h3>The rule was</h3><p class="rule">` + esc(norm.Statement) + `</p>`)
		if rec.Probe != nil {
			b.WriteString(`<p>Your answer was ` + mark(rec.Probe.Correct) + `.</p>`)
		}
		b.WriteString(`</div>`)
	} else {
		b.WriteString(`<div class="reveal"><h3>There was no rule</h3><p>This was a <em>control</em> visit: nothing was forbidden.</p></div>`)
	}
	if debrief != "" {
		b.WriteString(`<h3>About this study</h3>` + paragraphs(debrief, "debrief"))
	}
	b.WriteString(`<p class="hint">Please do not tell others what the rule was: they may meet it too.</p>`)
	b.WriteString(`<div class="actions"><button type="button" class="btn primary" data-act="study-finish">Finish and get my completion code</button></div></section>`)
	return b.String()
}

// StudyDoneHTML is the end: the completion code, and the link back to
// the platform when there is one (the page goes there by itself).
func StudyDoneHTML(st StudyState, redirect string) string {
	var b strings.Builder
	b.WriteString(`<section class="card" aria-labelledby="study-h"><h2 id="study-h" tabindex="-1">Thank you: you are done</h2>`)
	if st.CompletionCode != "" {
		b.WriteString(`<p>Your completion code:</p><p class="rule" id="study-code">` + esc(st.CompletionCode) + `</p>`)
	}
	if redirect != "" {
		b.WriteString(`<p role="status">Taking you back to your platform… If nothing happens, <a id="study-back" href="` + esc(redirect) + `">go back here</a>.</p>`)
	} else if st.CompletionCode != "" {
		b.WriteString(`<p>Copy it into the platform's page of this study to be credited.</p>`)
	}
	b.WriteString(`</section>`)
	return b.String()
}

// StudyStopHTML is a screen that ends the study here: a refusal, a full
// study, the time limit passed, or an error (retry offers to try again).
func StudyStopHTML(title, msg string, retry bool) string {
	h := `<section class="card" role="alert" aria-labelledby="study-h"><h2 id="study-h" tabindex="-1">` + esc(title) + `</h2><p>` + esc(msg) + `</p>`
	if retry {
		h += `<div class="actions"><button type="button" class="btn primary" data-act="study-retry">Try again</button></div>`
	}
	return h + `</section>`
}
