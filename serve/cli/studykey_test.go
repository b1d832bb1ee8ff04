package cli

import (
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/server"
)

// TestStudyKey: normgym study-key prints a key and the line of the
// --study-keys file that admits it (its hash, never the key); a missing
// or personal label is a usage error.
func TestStudyKey(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr, for errors
	}{
		{"a label", []string{"study-key", "lab-3"}, 0, ""},
		{"no label", []string{"study-key"}, 2, "needs one LABEL"},
		{"an email", []string{"study-key", "ann@example.org"}, 2, "no email"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "", tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", code, tt.code, stderr, tt.want)
			}
			if code != 0 {
				return
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			key := lines[0][strings.LastIndex(lines[0], " ")+1:]
			keys, err := server.ParseTeacherKeys(lines[len(lines)-1])
			if err != nil {
				t.Fatal(err)
			}
			if label, ok := keys.Label(key); !ok || label != "lab-3" || !strings.HasPrefix(key, "ngs_") || strings.Contains(lines[len(lines)-1], key) {
				t.Errorf("the printed line admits %q as %q (%v); output:\n%s", key, label, ok, out)
			}
		})
	}
}
