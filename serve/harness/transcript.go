package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/normgym/normgym/sim/prompt"
)

// TranscriptPath is the transcripts file beside results file out: the
// same name with ".transcripts.jsonl" for its ".jsonl" (out/m.jsonl →
// out/m.transcripts.jsonl). It holds one prompt.Transcript a line, each
// written before its record, so every record in out has its transcript
// there (matched by run id); a line whose record never came (a run killed
// in between) is left and ignored.
func TranscriptPath(out string) string {
	return strings.TrimSuffix(out, ".jsonl") + ".transcripts.jsonl"
}

// EncodeTranscript returns t as one JSON line.
func EncodeTranscript(t prompt.Transcript) ([]byte, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("harness: encoding a transcript: %w", err)
	}
	return append(b, '\n'), nil
}

// LoadTranscripts reads a transcripts file into its transcripts by run
// id (the last line of a run id wins). A last line cut short by a killed
// run is skipped; a missing file holds none.
func LoadTranscripts(path string) (map[string]prompt.Transcript, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]prompt.Transcript{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]prompt.Transcript{}
	lines := bytes.SplitAfter(b, []byte("\n"))
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var t prompt.Transcript
		if err := json.Unmarshal(line, &t); err != nil {
			if i == len(lines)-1 && !bytes.HasSuffix(line, []byte("\n")) {
				break // torn by a killed run
			}
			return nil, fmt.Errorf("harness: %s:%d: not a transcript: %v", path, i+1, err)
		}
		out[t.RunID] = t
	}
	return out, nil
}

// TrimTorn cuts a last line without its newline (left by a killed run)
// from the file at path, if it has one, so that appending starts a line.
func TrimTorn(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || len(b) == 0 || b[len(b)-1] == '\n' {
		return nil
	}
	if err != nil {
		return err
	}
	return os.Truncate(path, int64(bytes.LastIndexByte(b, '\n')+1))
}
