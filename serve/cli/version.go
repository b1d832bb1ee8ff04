package cli

import (
	"io"
	"runtime/debug"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
	"github.com/normgym/normgym/wasm/simwasm"
)

// versionInfo is what `normgym version` prints: everything a result file
// records about what produced it, for this binary.
type versionInfo struct {
	Module         string `json:"module"`
	ModuleVersion  string `json:"module_version"`
	VCS            string `json:"vcs_revision,omitempty"`
	Modified       bool   `json:"vcs_modified,omitempty"`
	GoVersion      string `json:"go_version"`
	SimVersion     string `json:"sim_version"`
	CatalogVersion string `json:"catalog_version"`
	SuiteVersion   string `json:"suite_version"`
	PromptVersion  string `json:"prompt_version"`
	SimSHA256      string `json:"sim_sha256"`
}

func cmdVersion(e *env) error {
	fs := e.flags("version", "[--json]", "Prints the module version, the sim, catalog, suite and prompt versions and the SHA-256 of\n"+
		"the sim.wasm built into this binary (\"not built\" if it was built without one).")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError("version takes no arguments")
	}
	v := versionInfo{Module: "github.com/normgym/normgym", ModuleVersion: "(devel)", SimVersion: sim.Version,
		CatalogVersion: norms.Default().Version(), SuiteVersion: sim.SuiteVersion, PromptVersion: prompt.PromptVersion,
		SimSHA256: simwasm.SHA256()}
	if v.SimSHA256 == "" {
		v.SimSHA256 = "not built"
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.GoVersion = bi.GoVersion
		if bi.Main.Version != "" {
			v.ModuleVersion = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.VCS = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if *asJSON {
		return writeJSON(e.stdout, v)
	}
	w := e.stdout
	rev := v.VCS
	if rev != "" && v.Modified {
		rev += " (modified)"
	}
	for _, row := range [][2]string{{"normgym", v.ModuleVersion}, {"revision", rev}, {"go", v.GoVersion},
		{"sim", v.SimVersion}, {"catalog", v.CatalogVersion}, {"suites", v.SuiteVersion}, {"prompt", v.PromptVersion},
		{"sim.wasm", v.SimSHA256}} {
		if row[1] != "" {
			if _, err := io.WriteString(w, pad(row[0], 10)+row[1]+"\n"); err != nil {
				return err
			}
		}
	}
	return nil
}

func pad(s string, n int) string {
	for len(s) < n {
		s += " "
	}
	return s
}
