package ui

import (
	"strconv"
	"strings"
)

// Modes of the app.
const (
	ModePlay  = "play"
	ModeWatch = "watch"
	ModeModel = "model"
	// ModeTranscript replays a model's visit with its transcript
	// (transcript.go).
	ModeTranscript = "transcript"
)

// Route is what the URL fragment says: a mode and a visit, named either by
// its id (#visit=orchard/place.color=blue/observe/s17, which names the
// norm) or, without giving the norm away, by its place in a suite
// (#suite=standard&n=17, n counting from 1).
type Route struct {
	Mode  string
	Visit string
	Suite string
	N     int
	// Agent is the baseline to watch (watch mode).
	Agent string
	// Room is a classroom join code (#room=CODE); on the NormGym site it
	// asks the server for the room's visits.
	Room string
}

// HasVisit reports whether the route names a visit.
func (r Route) HasVisit() bool { return r.Visit != "" || (r.Suite != "" && r.N > 0) }

// ParseRoute reads a URL fragment, with or without its leading '#'.
// Unknown keys and malformed values are ignored: a bad link opens the app
// with defaults rather than failing.
func ParseRoute(frag string) Route {
	frag = strings.TrimPrefix(frag, "#")
	r := Route{Mode: ModePlay}
	for _, kv := range strings.Split(frag, "&") {
		k, v, _ := strings.Cut(kv, "=")
		v = unescape(v)
		switch k {
		case "mode":
			if v == ModePlay || v == ModeWatch || v == ModeModel || v == ModeJoin || v == ModeTranscript {
				r.Mode = v
			}
		case "visit":
			if strings.Count(v, "/") == 3 && len(v) <= 200 {
				r.Visit = v
			}
		case "suite":
			if v != "" && len(v) <= 40 && !strings.ContainsAny(v, "/ ") {
				r.Suite = v
			}
		case "n":
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				r.N = n
			}
		case "room":
			if ValidRoom(strings.ToUpper(v)) {
				r.Room = strings.ToUpper(v)
			}
		case "agent":
			if v != "" && len(v) <= 40 {
				r.Agent = v
			}
		}
	}
	if r.Visit != "" {
		r.Suite, r.N = "", 0
	}
	if r.Suite == "" {
		r.N = 0
	}
	return r
}

// String writes the route as a URL fragment with its '#'; play mode and
// an empty agent are left out. A suite without a number asks for a random
// visit of that suite.
func (r Route) String() string {
	var parts []string
	if r.Mode != "" && r.Mode != ModePlay {
		parts = append(parts, "mode="+r.Mode)
	}
	switch {
	case r.Visit != "":
		parts = append(parts, "visit="+escape(r.Visit))
	case r.Suite != "":
		parts = append(parts, "suite="+escape(r.Suite))
		if r.N > 0 {
			parts = append(parts, "n="+strconv.Itoa(r.N))
		}
	}
	if r.Agent != "" {
		parts = append(parts, "agent="+escape(r.Agent))
	}
	if r.Room != "" {
		parts = append(parts, "room="+escape(r.Room))
	}
	return "#" + strings.Join(parts, "&")
}

// escape percent-encodes what would end a fragment value; '/', '=' and
// '.' stay readable.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '&' || c == '#' || c == '%' || c <= ' ' || c >= 0x7f {
			b.WriteString("%" + strings.ToUpper(strconv.FormatInt(int64(c)|0x100, 16)[1:]))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func unescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Resolved is a visit the app is about to open.
type Resolved struct {
	ID string
	// Suite, SuiteVersion and N are set when the visit came from a suite;
	// the UI then hides the id (it names the norm) until the visit ends.
	Suite        string
	SuiteVersion string
	N, Of        int
	// Assigned marks a visit handed out by the NormGym server: its id
	// stays hidden like a suite visit's.
	Assigned bool
	// Sealed marks an assigned visit the server steps (ui.Sealed): the
	// page never learns its id before the visit is over (ID is empty).
	Sealed bool
	// Class marks a classroom's visit: the page calls it "your class's
	// visit".
	Class bool
}

// Label is how the UI names the visit before it ends, without the norm
// when it came from a suite.
func (v Resolved) Label() string {
	if v.Class {
		return "your class's visit"
	}
	if v.Sealed {
		if v.Suite != "" {
			return "sealed (" + v.Suite + ")"
		}
		return "sealed"
	}
	if v.Assigned {
		if v.Suite != "" {
			return "assigned (" + v.Suite + ")"
		}
		return "assigned"
	}
	if v.Suite != "" {
		return v.Suite + " #" + strconv.Itoa(v.N) + " of " + strconv.Itoa(v.Of)
	}
	return v.ID
}

// Resolve turns a route into a visit id, looking suites up in the module.
func (c *Client) Resolve(r Route) (Resolved, error) {
	if r.Visit != "" {
		return Resolved{ID: r.Visit}, nil
	}
	s, err := c.Suite(r.Suite)
	if err != nil {
		return Resolved{}, err
	}
	if r.N < 1 || r.N > len(s.Visits) {
		return Resolved{}, &Error{"suites", "suite " + s.Name + " has visits 1 to " + strconv.Itoa(len(s.Visits)) + ", not " + strconv.Itoa(r.N)}
	}
	return Resolved{ID: s.Visits[r.N-1], Suite: s.Name, SuiteVersion: s.Version, N: r.N, Of: len(s.Visits)}, nil
}
