//go:build !js

package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"
)

// TestKeys checks each key misfire of issue 13 on a phone-sized page:
// Enter on a focused control does that control's job, auto-repeat never
// acts, a held Space cannot skip the card that ends a day, Enter and
// Space on a pad button press that button, and game keys do not scroll
// the page.
func TestKeys(t *testing.T) {
	s := open(t, 390, 844)
	id := "park/place.color=red/solo/s102"
	s.load("#visit=" + id)
	s.waitStage(10*time.Second, "consent")

	// Enter on the visit picker opens the picker; it does not start.
	s.eval(`document.querySelector(".visit-btn").focus(); "ok"`)
	s.key(kb.Enter)
	s.poll(5*time.Second, `document.querySelector(".visit-btn").getAttribute("aria-expanded") === "true"`)
	if st := s.eval(`document.body.dataset.stage`); st != "consent" {
		t.Fatalf("Enter on the visit picker moved the visit to %s", st)
	}
	s.key(kb.Escape)
	s.poll(5*time.Second, `document.getElementById("picker").hidden`)
	// Space on a focused tab (a link) does not start the visit either.
	s.eval(`document.querySelector('.tabs a[data-mode="play"]').focus(); "ok"`)
	s.key(" ")
	if st := s.eval(`document.body.dataset.stage`); st != "consent" {
		t.Fatalf("Space on a tab moved the visit to %s", st)
	}
	// With nothing focused, Enter starts; a held Enter does not go on.
	s.eval(`document.activeElement.blur(); "ok"`)
	s.keyDown(kb.Enter, false)
	s.waitStage(5*time.Second, "day")
	for i := 0; i < 5; i++ {
		s.keyDown(kb.Enter, true)
	}
	s.keyUp(kb.Enter)
	if st := s.eval(`document.body.dataset.stage`); st != "day" {
		t.Fatalf("a held Enter went past the day's card to %s", st)
	}
	s.key(kb.Enter)
	s.waitStage(5*time.Second, "play")

	step := func() int {
		n, _ := strconv.Atoi(s.eval(`document.body.dataset.step`))
		return n
	}
	// Auto-repeat is ignored: a held arrow moves once.
	n := step()
	s.keyDown(kb.ArrowDown, false)
	s.poll(5*time.Second, `document.body.dataset.step === "`+strconv.Itoa(n+1)+`"`)
	for i := 0; i < 6; i++ {
		s.keyDown(kb.ArrowDown, true)
	}
	s.keyUp(kb.ArrowDown)
	if got := step(); got != n+1 {
		t.Errorf("a held arrow took %d steps, want 1", got-n)
	}

	// Game keys do not scroll the page (nor jump it to the top).
	s.eval(`window.scrollTo(0, 200); "ok"`)
	y := s.eval(`String(Math.round(scrollY))`)
	if y == "0" {
		t.Fatal("the play screen does not scroll at 390x844: the no-jump check would prove nothing")
	}
	s.key(" ")
	s.key(kb.ArrowUp)
	s.poll(5*time.Second, `document.body.dataset.step === "`+strconv.Itoa(n+3)+`"`)
	if got := s.eval(`String(Math.round(scrollY))`); got != y {
		t.Errorf("game keys scrolled the page from y=%s to y=%s", y, got)
	}

	// Enter and Space on a focused pad button press that button: Wait
	// takes one step per press, and a held Enter does not repeat it.
	s.eval(`document.querySelector('.controls [data-act="wait"]').focus({preventScroll: true}); "ok"`)
	n = step()
	s.key(kb.Enter)
	s.poll(5*time.Second, `document.body.dataset.step === "`+strconv.Itoa(n+1)+`"`)
	s.key(" ")
	s.poll(5*time.Second, `document.body.dataset.step === "`+strconv.Itoa(n+2)+`"`)
	s.keyDown(kb.Enter, false)
	s.poll(5*time.Second, `document.body.dataset.step === "`+strconv.Itoa(n+3)+`"`)
	for i := 0; i < 5; i++ {
		s.keyDown(kb.Enter, true)
	}
	s.keyUp(kb.Enter)
	if got := step(); got != n+3 {
		t.Errorf("a held Enter on the Wait button took %d steps, want 1", got-n-2)
	}
	// Letters still play while a pad button has the focus.
	s.key("s")
	s.poll(5*time.Second, `document.body.dataset.step === "`+strconv.Itoa(n+4)+`"`)

	// A focused control outside the game keeps its keys: an arrow on the
	// visit picker does not move.
	s.eval(`document.querySelector(".visit-btn").focus({preventScroll: true}); "ok"`)
	n = step()
	s.key(kb.ArrowLeft)
	s.key("d")
	if got := step(); got != n {
		t.Errorf("keys on the visit picker took %d steps", got-n)
	}

	// Hold Space through the end of the day: the card that ends it stays
	// until Space is pressed again.
	s.eval(`document.getElementById("map").focus({preventScroll: true}); "ok"`)
	for i := 0; i < 400 && s.eval(`document.body.dataset.stage`) == "play"; i++ {
		n := step()
		s.keyDown(" ", false)
		s.poll(5*time.Second, `document.body.dataset.step !== "`+strconv.Itoa(n)+`" || document.body.dataset.stage !== "play"`)
		if s.eval(`document.body.dataset.stage`) != "play" {
			break // this press ended the day: hold it
		}
		s.keyUp(" ")
	}
	if st := s.eval(`document.body.dataset.stage`); st != "day" {
		t.Fatalf("waiting through day 1 ended at stage %s", st)
	}
	for i := 0; i < 8; i++ {
		s.keyDown(" ", true)
	}
	s.keyUp(" ")
	if st := s.eval(`document.body.dataset.stage`); st != "day" {
		t.Fatalf("a held Space skipped the day's card (stage %s)", st)
	}
	s.key(" ")
	s.waitStage(5*time.Second, "play")
	if got := s.eval(`document.body.dataset.day`); got != "2" {
		t.Errorf("after the card, day %s, want 2", got)
	}
}
