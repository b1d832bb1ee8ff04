package report

import (
	"fmt"
	"strconv"
	"strings"
)

// VisitLink is a visit of the report whose transcript the viewer can
// replay: the record's visit and agent, how it went, and the link.
type VisitLink struct {
	Visit     string `json:"visit"`
	Agent     string `json:"agent"`
	Joint     bool   `json:"joint"`
	Sanctions int    `json:"sanctions_received"`
	URL       string `json:"url"`
}

// transcriptsAbout says what the transcripts table holds and how to use it.
const transcriptsAbout = "Each visit with a transcript (eval's transcripts file beside its results file), linked to the " +
	"transcript viewer, which replays it step by step: the map, the feed, what the model was sent and what it replied at " +
	"each step, and the sanctions that followed. Open the results file and its transcripts file in the viewer once " +
	"(they are read in the browser and sent nowhere); each link then opens its visit in the same window."

// visitLinks lists the runs whose run id is in o.Transcripts, in order.
func visitLinks(runs []Run, o Options) []VisitLink {
	if o.Viewer == "" || len(o.Transcripts) == 0 {
		return nil
	}
	var out []VisitLink
	for _, r := range runs {
		id, _ := r.Record.Extra["run_id"].(string)
		if id == "" || !o.Transcripts[id] {
			continue
		}
		rec := r.Record
		out = append(out, VisitLink{Visit: rec.Visit, Agent: rec.Agent, Joint: rec.Scores.Joint,
			Sanctions: rec.Scores.SanctionsReceived, URL: ViewerLink(o.Viewer, rec.Visit, rec.Agent)})
	}
	return out
}

// ViewerLink is the viewer's address of an agent's visit: base with the
// app's route #mode=transcript&visit=…&agent=…, its values escaped as the
// app's routes escape them ('&', '#', '%', spaces and non-ASCII bytes).
func ViewerLink(base, visit, agent string) string {
	return strings.TrimSuffix(base, "#") + "#mode=transcript&visit=" + fragmentEscape(visit) + "&agent=" + fragmentEscape(agent)
}

func fragmentEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '&' || c == '#' || c == '%' || c <= ' ' || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// linksTable is the transcripts table's cells; link formats a visit's
// link for the output (Markdown or HTML).
func linksTable(links []VisitLink, link func(VisitLink) string) table {
	t := table{head: []string{"visit", "agent", "joint", "sanctions received", "transcript"}}
	for _, l := range links {
		j := "no"
		if l.Joint {
			j = "yes"
		}
		t.rows = append(t.rows, []string{l.Visit, l.Agent, j, strconv.Itoa(l.Sanctions), link(l)})
	}
	return t
}
