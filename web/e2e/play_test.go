//go:build !js

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/web/internal/ui"
	"github.com/normgym/normgym/web/internal/wasmtest"
)

// keyboardVisits covers every world and condition between them.
var keyboardVisits = []string{
	"orchard/place.color=red/observe/s100",
	"market/place.color=red/peers/s101",
	"park/place.color=red/solo/s102",
	"harbor/place.color=red/told/s103",
	"library/place.terrain=grass/told/s107",
	"harbor/none/control/s159",
}

// greedy returns the greedy baseline's actions and probe answer on a
// visit, from the native core.
func greedy(t *testing.T, id string) sim.Record {
	t.Helper()
	env, err := agents.Play(id, "greedy")
	if err != nil {
		t.Fatal(err)
	}
	return env.Record("greedy", "baseline")
}

// hostHash replays actions through sim.wasm under wazero and returns the
// trajectory hash.
func hostHash(t *testing.T, id string, actions []string) string {
	t.Helper()
	ctx := context.Background()
	v, _, _, err := wasmtest.Runtime(t).Reset(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close(ctx)
	for _, a := range actions {
		if _, err := v.Step(ctx, a); err != nil {
			t.Fatalf("host step %q: %v", a, err)
		}
	}
	sc, err := v.Score(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Hash
}

// playByKeys plays a visit on the consent screen to its result with the
// keyboard, pressing the keys for base's actions and probe answer. hook,
// if not nil, is called on each new screen and after the fifth action of
// each day, with the stage and the number of actions taken.
func playByKeys(t *testing.T, s *session, id string, base sim.Record, hook func(stage string, n int)) {
	t.Helper()
	if hook == nil {
		hook = func(string, int) {}
	}
	hook("consent", 0)
	s.key(keyName("Enter"))
	s.waitStage(5*time.Second, "day")
	playFromDay(t, s, id, base, hook)
}

// playFromDay is playByKeys from the first day's screen on.
func playFromDay(t *testing.T, s *session, id string, base sim.Record, hook func(stage string, n int)) {
	t.Helper()
	env, _, err := sim.NewVisit(id)
	if err != nil {
		t.Fatal(err)
	}
	hook("day", 0)
	s.key(keyName("Enter"))
	s.waitStage(5*time.Second, "play")
	hook("play", 0)
	inDay := 0
	for n, a := range base.Actions {
		act, err := sim.ParseAction(a)
		if err != nil {
			t.Fatal(err)
		}
		k := ui.ActionKey(act.Verb)
		if act.Verb == "give" {
			k = strconv.Itoa(env.Observe().Frame.AgentIndex(act.Target))
		}
		s.key(keyName(k))
		if s.sealed {
			s.poll(10*time.Second, `document.body.dataset.busy !== "1"`)
		}
		r, err := env.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		inDay++
		if inDay == 5 {
			hook("play", n+1)
		}
		if r.DayOver && !r.Done() {
			s.waitStage(5*time.Second, "day")
			hook("day", n+1)
			s.key(keyName("Enter"))
			s.waitStage(5*time.Second, "play")
			inDay = 0
		}
	}
	if base.Probe != nil {
		s.waitStage(5*time.Second, "probe")
		s.key(strconv.Itoa(base.Probe.Answer + 1))
		hook("probe", len(base.Actions))
		s.key(keyName("Enter"))
	}
	// A class's result before the teacher's reveal is "result-held".
	s.waitStage(20*time.Second, "result", "result-held")
}

// TestPlayByKeyboard plays visits of every world and condition by keyboard
// alone, with the greedy baseline's actions as the key script, after the
// server is gone (the app must need no network once loaded). Each record
// must carry the trajectory hash the wazero host computes for the same
// actions, and the downloaded file must pass `normgym replay`.
func TestPlayByKeyboard(t *testing.T) {
	s := open(t, 1280, 800)
	s.load("#visit=" + keyboardVisits[0])
	s.srv.Close() // offline from here on
	for i, id := range keyboardVisits {
		if i > 0 {
			s.eval(`location.hash = "#visit=` + id + `"; "ok"`)
		}
		s.waitStage(10*time.Second, "consent")
		if got := s.eval(`document.getElementById("visit-label").textContent`); got != id {
			t.Fatalf("visit label %q, want %q", got, id)
		}
		base := greedy(t, id)
		if i == 0 {
			checkStory(t, s, "consent", ui.DataLocal, 2)
		}
		playByKeys(t, s, id, base, nil)
		s.waitStage(5*time.Second, "result")
		if i == 0 {
			checkStory(t, s, "result", ui.DataLocal, 2)
		}
		var rec ui.Record
		if err := json.Unmarshal([]byte(s.eval(`globalThis.normgymLastRecord`)), &rec); err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(rec.Actions, ","), strings.Join(base.Actions, ","); got != want {
			t.Fatalf("%s: the browser recorded actions\n%s\nwant\n%s", id, got, want)
		}
		if got, want := rec.Hash, hostHash(t, id, base.Actions); got != want {
			t.Errorf("%s: browser hash %s, wazero host %s", id, got, want)
		}
		if rec.Agent != "human" || rec.Client != "human" {
			t.Errorf("%s: record agent %q client %q, want human", id, rec.Agent, rec.Client)
		}
		if (rec.Probe == nil) != (base.Probe == nil) || (rec.Probe != nil && (rec.Probe.Answer != base.Probe.Answer || rec.Probe.Confidence == nil)) {
			t.Errorf("%s: probe %+v, want answer like %+v with a confidence", id, rec.Probe, base.Probe)
		}
	}

	// Download the last record and verify it with `normgym replay`.
	dir := t.TempDir()
	s.do(10*time.Second, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir})
		return err
	}), chromedp.Click(chromedp.CSS(`[data-act="download"]`)))
	file := waitFile(t, dir, ".json", 10*time.Second)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 1 {
		t.Errorf("the record file has %d lines, want 1 (JSON Lines)", n)
	}
	// What `normgym replay` does: read the line strictly as a sim.Record,
	// re-execute it in sim.wasm and compare.
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(b)))
	dec.DisallowUnknownFields()
	var srec sim.Record
	if err := dec.Decode(&srec); err != nil {
		t.Fatalf("the downloaded file is not a NormGym record: %v", err)
	}
	res, err := wasmtest.Runtime(t).Replay(context.Background(), srec)
	if err != nil || !res.Match {
		t.Fatalf("replay of the downloaded record: %v, diffs %v", err, res.Diffs)
	}
}

// waitFile waits for a finished download with the suffix in dir.
func waitFile(t *testing.T, dir, suffix string, limit time.Duration) string {
	t.Helper()
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), suffix) {
				return filepath.Join(dir, e.Name())
			}
		}
	}
	t.Fatalf("no %s file downloaded into %s", suffix, dir)
	return ""
}
