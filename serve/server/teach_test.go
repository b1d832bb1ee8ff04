package server_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func TestTeachPage(t *testing.T) {
	e := newEnv(t)
	code, page, h := e.do("GET", "/teach", nil)
	if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /teach = %d %q, want 200 HTML", code, h.Get("Content-Type"))
	}
	code, script, h := e.do("GET", "/teach.js", nil)
	if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/javascript") {
		t.Fatalf("GET /teach.js = %d %q, want 200 JavaScript", code, h.Get("Content-Type"))
	}
	for _, want := range []string{"Create a room", "Teacher key", `<script src="/teach.js"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the teacher page lacks %q", want)
		}
	}
	for _, want := range []string{"/api/rooms", "/dashboard", "export.csv", "#room=", "Authorization"} {
		if !strings.Contains(string(script), want) {
			t.Errorf("the teacher page's script lacks %q", want)
		}
	}
	// The CSP allows no inline script: every <script> has a src, and no
	// element has an event-handler attribute.
	for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(string(page), -1) {
		if !strings.Contains(tag, "src=") {
			t.Errorf("inline script in the teacher page: %s", tag)
		}
	}
	if m := regexp.MustCompile(`\son[a-z]+=`).FindString(string(page)); m != "" {
		t.Errorf("event-handler attribute in the teacher page: %q", m)
	}
	if code, _, _ := e.do("POST", "/teach", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /teach = %d, want 405", code)
	}
}
