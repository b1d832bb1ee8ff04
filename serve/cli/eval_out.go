package cli

import (
	"os"

	"github.com/normgym/normgym/serve/harness"
)

// evalSink is where eval writes each finished visit: its transcript to
// the transcripts file beside --out (harness.TranscriptPath), then its
// record to --out, each line in one write, so that a killed run leaves at
// most a torn last line in each, and every record has its transcript.
type evalSink struct {
	out, tr *os.File
}

// openEvalSink opens --out and its transcripts file for appending ("": a
// sink that writes nothing), first cutting a torn last line from the
// transcripts file (LoadResults does so for --out).
func openEvalSink(out string) (*evalSink, error) {
	s := &evalSink{}
	if out == "" {
		return s, nil
	}
	trPath := harness.TranscriptPath(out)
	if err := harness.TrimTorn(trPath); err != nil {
		return nil, err
	}
	var err error
	if s.tr, err = appendOut(trPath); err != nil {
		return nil, err
	}
	if s.out, err = appendOut(out); err != nil {
		s.tr.Close()
		return nil, err
	}
	return s, nil
}

// write writes a visit's transcript, then its record.
func (s *evalSink) write(p harness.Played) error {
	if s.out == nil {
		return nil
	}
	b, err := harness.EncodeTranscript(p.Transcript)
	if err != nil {
		return err
	}
	if _, err := s.tr.Write(b); err != nil {
		return err
	}
	return writeRecord(s.out, p.Record)
}

func (s *evalSink) close() {
	if s.out != nil {
		s.out.Close()
		s.tr.Close()
	}
}
