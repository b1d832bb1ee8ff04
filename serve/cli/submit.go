package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/harness"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
)

// submitStats counts what the server did with a submission.
type submitStats struct {
	// Stored counts new runs; Duplicates runs it already had (same run id).
	Stored, Duplicates int
}

// Submission retry policy: network errors, 429 and 5xx are retried (a run
// id makes a retried POST idempotent).
const (
	submitTimeout   = 30 * time.Second
	submitRetries   = 4
	submitBaseDelay = 500 * time.Millisecond
	submitMaxDelay  = 10 * time.Second
)

// submitRecords posts each record to <baseURL>/api/runs as an
// api.Submission with consent, the participant pseudonym (e.g.
// "model:NAME") and a run id: the record's extra.run_id when it has a
// valid one (so that re-submitting a resumed run stores nothing twice),
// else a random one. A 2xx answer means stored. A refused record (4xx,
// with an api.Error body) does not stop the others; the error then names
// the refusals. Network errors, 429 and 5xx are retried with backoff.
func submitRecords(ctx context.Context, baseURL string, recs []sim.Record, participant string) (submitStats, error) {
	var st submitStats
	if !strings.HasPrefix(baseURL, "http://") && !strings.HasPrefix(baseURL, "https://") {
		return st, usageError("--submit wants the server's http(s) URL, got %q", baseURL)
	}
	url := strings.TrimSuffix(baseURL, "/") + "/api/runs"
	client := &http.Client{Timeout: submitTimeout}
	var refused []string
	for _, r := range recs {
		id, _ := r.Extra["run_id"].(string)
		if !api.ValidRunID(id) {
			id = harness.NewRunID()
		}
		body, err := json.Marshal(api.Submission{RunID: id, Participant: participant, Consent: true, Record: r})
		if err != nil {
			return st, err
		}
		dup, err := postSubmission(ctx, client, url, body)
		var ae *api.Error
		switch {
		case errors.As(err, &ae):
			refused = append(refused, fmt.Sprintf("%s: %v", r.Visit, ae))
		case err != nil:
			return st, fmt.Errorf("submit: %s: %w (%d records stored before it)", r.Visit, err, st.Stored+st.Duplicates)
		case dup:
			st.Duplicates++
		default:
			st.Stored++
		}
	}
	if len(refused) > 0 {
		more := ""
		if len(refused) > 3 {
			more, refused = fmt.Sprintf("; and %d more", len(refused)-3), refused[:3]
		}
		return st, fmt.Errorf("submit: the server refused %d of %d records: %s%s",
			len(refused), len(recs), strings.Join(refused, "; "), more)
	}
	return st, nil
}

// postSubmission posts one submission, retrying transient failures. It
// returns *api.Error for a refusal.
func postSubmission(ctx context.Context, client *http.Client, url string, body []byte) (dup bool, err error) {
	for attempt := 0; ; attempt++ {
		var wait time.Duration
		var hasWait bool
		dup, wait, hasWait, err = postOnce(ctx, client, url, body)
		var ae *api.Error
		if err == nil || errors.As(err, &ae) || ctx.Err() != nil || attempt >= submitRetries {
			return dup, err
		}
		if !hasWait {
			wait = prompt.Backoff(attempt, submitBaseDelay, submitMaxDelay, rand.Int64N)
		}
		t := time.NewTimer(min(wait, prompt.MaxRetryAfter))
		select {
		case <-ctx.Done():
			t.Stop()
			return false, ctx.Err()
		case <-t.C:
		}
	}
}

func postOnce(ctx context.Context, client *http.Client, url string, body []byte) (dup bool, wait time.Duration, hasWait bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return false, 0, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return false, 0, false, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		var sr api.SubmitResponse
		_ = json.Unmarshal(b, &sr) // a 2xx means stored, whatever the body
		return sr.Duplicate, 0, false, nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusRequestTimeout:
		ae := &api.Error{}
		if json.Unmarshal(b, ae) != nil || ae.Message == "" {
			// Not the server's answer (a proxy's page): the status text
			// stands in for the code.
			ae = &api.Error{Code: api.Code(http.StatusText(resp.StatusCode)), Message: strings.TrimSpace(string(b))}
		}
		return false, 0, false, ae
	}
	wait, hasWait = prompt.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	return false, wait, hasWait, fmt.Errorf("server answered %s", resp.Status)
}
