package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

// Kinds of report input.
const (
	kindResults = "results file"
	kindExport  = "server export"
)

// readReportInputs reads each file as a results file (JSON Lines of
// sim.Record, as normgym run and eval write) or as a server export (GET
// /api/export?format=jsonl: a {"data_card": …} line, then one
// api.ExportRun a line), telling them apart by the first line. A
// results file's runs have provenance report.ProvenanceFile; an export's
// keep the server's label. The server's CSV export is refused: it lacks
// the events that the findings need.
func readReportInputs(files []string) ([]report.Run, []report.Input, error) {
	var runs []report.Run
	var inputs []report.Input
	for _, f := range files {
		kind, err := sniffInput(f)
		if err != nil {
			return nil, nil, err
		}
		var got []report.Run
		switch kind {
		case kindExport:
			got, err = readExport(f)
		default:
			var recs []sim.Record
			recs, err = readRecords(f)
			for _, r := range recs {
				got = append(got, report.Run{Record: r, Provenance: report.ProvenanceFile, Source: filepath.Base(f)})
			}
		}
		if err != nil {
			return nil, nil, err
		}
		runs = append(runs, got...)
		inputs = append(inputs, report.Input{Name: f, Kind: kind, Records: len(got)})
	}
	return runs, inputs, nil
}

// sniffInput says whether path is a results file or a server export, by
// its first non-blank line.
func sniffInput(path string) (string, error) {
	if path == "-" {
		return kindResults, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxRecordBytes)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if bytes.HasPrefix(line, []byte("# NormGym verified runs")) {
			return "", fmt.Errorf("%s is the server's CSV export, which lacks the events the findings need: download GET /api/export?format=jsonl instead", path)
		}
		var head map[string]json.RawMessage
		if json.Unmarshal(line, &head) == nil {
			if _, ok := head["data_card"]; ok {
				return kindExport, nil
			}
		}
		return kindResults, nil
	}
	return kindResults, sc.Err()
}

// readExport reads a server export's runs after its data card line.
func readExport(path string) ([]report.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decodeExport(f, path)
}

// decodeExport reads an export from r; name is for errors and sources.
func decodeExport(r io.Reader, name string) ([]report.Run, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxRecordBytes)
	var out []report.Run
	card := false
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if !card {
			card = true
			continue
		}
		var ab struct {
			Abandoned *api.ExportAbandoned `json:"abandoned"`
		}
		if json.Unmarshal(b, &ab) == nil && ab.Abandoned != nil {
			out = append(out, report.Run{Record: abandonedRecord(*ab.Abandoned), Provenance: api.ProvenanceStepped, Source: filepath.Base(name)})
			continue
		}
		var run api.ExportRun
		if err := json.Unmarshal(b, &run); err != nil {
			return nil, fmt.Errorf("%s:%d: not a run of a NormGym export: %v", name, line, err)
		}
		if run.Record.Visit == "" || run.Record.Agent == "" || run.Provenance == "" {
			return nil, fmt.Errorf("%s:%d: the run lacks a visit, agent or provenance", name, line)
		}
		out = append(out, report.Run{Record: run.Record, Provenance: run.Provenance, Source: filepath.Base(name)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return out, nil
}

// abandonedRecord is an abandoned sealed session as the report counts it:
// a visit of its row without success (report.Abandoned), with no actions,
// events or scores.
func abandonedRecord(a api.ExportAbandoned) sim.Record {
	cond, variant, _ := strings.Cut(a.Condition, "+")
	return sim.Record{Visit: a.Visit, World: a.World, Norm: a.Norm, Family: a.Family, Condition: cond, Variant: variant,
		Agent: a.Agent, Client: a.Kind, Suite: a.Suite, SuiteVersion: a.SuiteVersion,
		Extra: map[string]any{"outcome": report.OutcomeAbandoned}}
}
