//go:build !js

package site

import (
	"strings"
	"testing"

	"github.com/normgym/normgym/web/internal/ui"
)

// TestIcons checks that the page defines every symbol the map draws.
func TestIcons(t *testing.T) {
	page, err := static.ReadFile("static/index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ui.Icons() {
		if !strings.Contains(string(page), `<symbol id="i-`+id+`"`) {
			t.Errorf("index.html has no symbol i-%s", id)
		}
	}
}
