package api_test

import (
	"testing"

	"github.com/normgym/normgym/serve/api"
)

func TestNormalizeRoomCode(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"7K3M-Q9XD-2WFA", "7K3M-Q9XD-2WFA", true},
		{"7k3mq9xd2wfa", "7K3M-Q9XD-2WFA", true},
		{" 7K3M Q9XD 2WFA ", "7K3M-Q9XD-2WFA", true},
		{"OIL0-1234-5678", "0110-1234-5678", true},
		{"7K3M-Q9XD-2WFU", "", false},
		{"7K3M-Q9XD-2WF", "", false},
		{"7K3M-Q9XD-2WFAB", "", false},
		{"7K3M_Q9XD_2WFA", "", false},
		{"ABC234", "ABC234", true},
		{"abc234", "ABC234", true},
		{"ABC230", "", false},
		{"", "", false},
		{"Ä7K3M-Q9XD-2WF", "", false},
	}
	for _, tt := range tests {
		got, ok := api.NormalizeRoomCode(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("NormalizeRoomCode(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if !api.ValidRoomCode("7K3M-Q9XD-2WFA") || api.ValidRoomCode("7k3m-q9xd-2wfa") {
		t.Error("ValidRoomCode accepts only the canonical form")
	}
}
