// Command normgym-client plays one NormGym visit through a server's
// session API (POST /api/sessions, then POST /api/session/step with the
// token as Authorization: Bearer …): the client sends actions only, the
// server steps the sim and answers with the observation it renders. It
// is an example of a client in Go with nothing but the standard library;
// the policy (the greedy baseline, from sim/agents) reads the
// observation's JSON form.
//
//	go run ./serve/examples/go/normgym-client -server http://127.0.0.1:8080 -visit VISIT [-key KEY]
//
// With a submitter key (-key) the run is stored under the key's label;
// without, it is a practice session and the final record is printed.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

func main() {
	server := flag.String("server", "http://127.0.0.1:8080", "the NormGym server")
	visit := flag.String("visit", "", "the visit to play (practice: nothing is stored), or -suite and -seed")
	suite := flag.String("suite", "mini", "a suite to draw the visit from when -visit is not given")
	seed := flag.Int("seed", -1, "which visit of -suite (practice); with -key and no -seed, the key's next sealed visit of -suite, stored under its label")
	key := flag.String("key", "", "a submitter key (its label names the stored run)")
	flag.Parse()
	req := api.SessionRequest{Visit: *visit, Suite: *suite}
	if *seed >= 0 {
		req.Seed = seed
	} else if *key == "" && *visit == "" {
		zero := 0
		req.Seed = &zero // without a key, practice needs a seed
	}
	out, err := play(*server, *key, req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "normgym-client:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

// outcome is what the example prints.
type outcome struct {
	Actions []string           `json:"actions"`
	Result  *api.SessionResult `json:"result"`
}

// play opens a session, plays it to the end with the greedy baseline,
// answers the probe with option 0 and returns the actions and the result.
func play(server, key string, req api.SessionRequest) (outcome, error) {
	if req.Visit != "" {
		req.Suite, req.Seed = "", nil
	}
	c := client{server: server}
	var st api.SessionState
	if err := c.do("POST", "/api/sessions", key, req, &st); err != nil {
		return outcome{}, err
	}
	token := st.Session
	policy, _ := agents.New("greedy")
	var out outcome
	for st.Stage == api.StagePlay {
		var obs sim.Observation
		if err := json.Unmarshal(st.Observation, &obs); err != nil {
			return out, err
		}
		a := policy.Act(&obs).String()
		// The index (the actions taken before this one) makes the step safe
		// to send again: the server takes it once.
		n := st.Actions
		if err := c.do("POST", "/api/session/step", token, api.SessionStep{Action: a, Index: &n}, &st); err != nil {
			return out, err
		}
		out.Actions = append(out.Actions, a)
	}
	if st.Stage == api.StageProbe {
		if err := c.do("POST", "/api/session/answer", token, api.SessionAnswer{Answer: 0}, &st); err != nil {
			return out, err
		}
	}
	out.Result = st.Result
	return out, nil
}

type client struct{ server string }

// do sends a JSON request with a bearer token (a session token or a
// submitter key) and decodes the answer, or returns the server's error.
func (c client) do(method, path, bearer string, body, v any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(method, c.server+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var e api.ErrorDetail
		if json.Unmarshal(data, &e) == nil && e.Message != "" {
			return fmt.Errorf("%s %s: %d %s: %s", method, path, resp.StatusCode, e.Code, e.Message)
		}
		return fmt.Errorf("%s %s: %d", method, path, resp.StatusCode)
	}
	return json.Unmarshal(data, v)
}
