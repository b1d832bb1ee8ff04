package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/normgym/normgym/sim"
)

// maxRecordBytes bounds one line of a results file.
const maxRecordBytes = 4 << 20

// readRecords reads a JSON Lines file of records, naming the file and line
// of any malformed record. Blank lines are skipped.
func readRecords(path string) ([]sim.Record, error) {
	var r io.Reader
	if path == "-" {
		r = os.Stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxRecordBytes)
	var out []sim.Record
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var rec sim.Record
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			return nil, fmt.Errorf("%s:%d: not a NormGym record: %v", path, line, err)
		}
		if rec.Visit == "" || rec.Agent == "" {
			return nil, fmt.Errorf("%s:%d: record lacks a visit or agent", path, line)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, nil
}
