package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

func cmdNorms(e *env) error {
	if handled, err := normsSubcommand(e); handled {
		return err
	}
	fs := e.flags("norms", "[--json] | check [flags] FILE... | generate [flags]", "Lists the norm catalog: id, family, tier, deontic type, tag and statement.\n"+
		"\"normgym norms check -h\" checks norm files against the validity floors;\n"+
		"\"normgym norms generate -h\" writes fresh norms for a private suite.")
	asJSON := fs.Bool("json", false, "print a JSON array of norms")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError("norms takes no arguments, got %q", pos[0])
	}
	cat := norms.Default()
	if *asJSON {
		return writeJSON(e.stdout, cat.Norms())
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "ID\tFAMILY\tTIER\tDEONTIC\tTAG\tSTATEMENT\n")
	for _, n := range cat.Norms() {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", n.ID, n.Family, sim.Tier(n), n.Deontic, n.Tag, n.Statement)
	}
	fmt.Fprintf(tw, "\n%d norms in %d families, catalog %s\n", len(cat.Norms()), len(cat.Families()), cat.Version())
	return tw.Flush()
}

// suiteInfo is the JSON form of a suite in listings.
type suiteInfo struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Visits      int    `json:"visits"`
	Description string `json:"description"`
}

func cmdSuites(e *env) error {
	fs := e.flags("suites", "[--json] [--visits NAME]", "Lists the suites and their visit counts; --visits NAME prints one suite's visit ids.")
	asJSON := fs.Bool("json", false, "print a JSON array of suites")
	visits := fs.String("visits", "", "print the visit ids of this suite, one per line")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError("suites takes no arguments, got %q", pos[0])
	}
	if *visits != "" {
		s, err := sim.LookupSuite(*visits)
		if err != nil {
			return usageError("%v", err)
		}
		for _, v := range s.Visits {
			fmt.Fprintln(e.stdout, v)
		}
		return nil
	}
	var out []suiteInfo
	for _, s := range sim.Suites() {
		out = append(out, suiteInfo{s.Name, s.Version, len(s.Visits), s.Description})
	}
	if *asJSON {
		return writeJSON(e.stdout, out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "NAME\tVERSION\tVISITS\tDESCRIPTION\n")
	for _, s := range out {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", s.Name, s.Version, s.Visits, s.Description)
	}
	return tw.Flush()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
