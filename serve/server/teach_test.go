package server_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestTeachPage(t *testing.T) {
	e := newEnv(t)
	code, body, h := e.do("GET", "/teach", nil)
	if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /teach = %d %q, want 200 HTML", code, h.Get("Content-Type"))
	}
	for _, want := range []string{"Create a room", "/api/rooms", "/dashboard", "export.csv", "#room="} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the teacher page lacks %q", want)
		}
	}
	if code, _, _ := e.do("POST", "/teach", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /teach = %d, want 405", code)
	}
}
