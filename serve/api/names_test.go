package api_test

import (
	"testing"

	"github.com/normgym/normgym/serve/api"
)

func TestCheckModelName(t *testing.T) {
	baselines := []string{"random", "greedy", "oracle", "self", "observer", "ritual-bow"}
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"gpt-4o-mini", true},
		{"Qwen/Qwen2.5-7B-Instruct", true},
		{"llama3.1:8b", true},
		{"claude 3.5 sonnet", true},
		{"self-refine-7b", true}, // contains a baseline's name, is not one
		{"human", false},
		{"Human", false},
		{"humаn", false}, // Cyrillic а
		{"hum4n", false},
		{"HUMAN-baseline", false},
		{"my-human-like-agent", false},
		{"Oracle", false},
		{"0racle", false},
		{"gr33dy", false},
		{"Ritual_Bow", false},
		{"VERIFIED (server) — GPT-5", false},
		{"v3rified-gpt", false},
		{"official-gpt", false},
		{"server-stepped gpt", false},
		{"", false},
		{" gpt", false},
		{"gpt ", false},
		{"gpt  5", false},
		{"gpt\t5", false},
		{"=HYPERLINK(1)", false},
		{string(make([]byte, 65)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := api.CheckModelName(tc.name, baselines)
			if (err == nil) != tc.ok {
				t.Errorf("CheckModelName(%q) = %v, want ok %v", tc.name, err, tc.ok)
			}
		})
	}
}
