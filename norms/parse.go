package norms

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// SyntaxError reports why a rule's text does not parse.
type SyntaxError struct {
	Pos   int    // 1-based byte column in Input where the problem is
	Msg   string // what is wrong, without position or package prefix
	Input string // the text given to Parse
}

// Error returns a message such as
// `norms: column 13: unknown key "colour" (want one of color, dir, ...)`.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("norms: column %d: %s", e.Pos, e.Msg)
}

// token is one space- or tab-separated word of a rule and its 0-based offset.
type token struct {
	text string
	off  int
}

func tokenize(s string) []token {
	var toks []token
	start := -1
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\t' {
			if start >= 0 {
				toks = append(toks, token{s[start:i], start})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		toks = append(toks, token{s[start:], start})
	}
	return toks
}

// parser walks the tokens of one rule.
type parser struct {
	in   string
	toks []token
	i    int
	keys map[string][]string
}

func (p *parser) errAt(off int, format string, args ...any) error {
	return &SyntaxError{Pos: off + 1, Msg: fmt.Sprintf(format, args...), Input: p.in}
}

// end is the offset just past the input, where "missing ..." errors point.
func (p *parser) end() int { return len(p.in) }

func (p *parser) peek() (token, bool) {
	if p.i >= len(p.toks) {
		return token{}, false
	}
	return p.toks[p.i], true
}

// Parse reads a rule in the grammar of the package doc. Tokens are separated
// by one or more spaces or tabs; leading and trailing blanks are ignored.
//
// Parse checks that every verb is one of Verbs, every key one of Keys and
// every value one the key may take; that "except" is followed by at least
// one qualifier; that a require rule's act is "bow" or "use" (and that "use"
// names its object=...); that follows=... qualifies only a rule's event, not
// in its except list, and only an act on the spot (pick, drop, litter, use,
// bow, give, handle); and that no key appears twice in one qualifier list.
// Empty qualifier lists are nil in the result.
//
// On failure the error is a *SyntaxError. Parse never panics.
func Parse(s string) (Rule, error) {
	p := &parser{in: s, toks: tokenize(s), keys: Keys()}
	r, err := p.rule()
	if err != nil {
		return Rule{}, err
	}
	return r, nil
}

// ParseRules reads one rule or several joined by the word "and" (a
// compound norm: "forbid step color=red phase=noon and require bow before
// pick"), each in Parse's grammar. Errors point into s.
func ParseRules(s string) ([]Rule, error) {
	var out []Rule
	start := 0
	toks := tokenize(s)
	for i := 0; i <= len(toks); i++ {
		if i < len(toks) && toks[i].text != "and" {
			continue
		}
		end := len(s)
		if i < len(toks) {
			end = toks[i].off
		}
		part := s[start:end]
		r, err := Parse(part)
		if err != nil {
			var se *SyntaxError
			if errors.As(err, &se) {
				return nil, &SyntaxError{Pos: se.Pos + start, Msg: se.Msg, Input: s}
			}
			return nil, err
		}
		out = append(out, r)
		if i < len(toks) {
			start = toks[i].off + len("and")
		}
	}
	return out, nil
}

// JoinRules is the canonical text of rules: each Rule.String, joined by
// " and ".
func JoinRules(rs []Rule) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, " and ")
}

// MustParse is like Parse but panics if s does not parse. It is meant for
// tests and for rules written in code, not for outside input.
func MustParse(s string) Rule {
	r, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return r
}

func (p *parser) rule() (Rule, error) {
	t, ok := p.peek()
	if !ok {
		return Rule{}, p.errAt(p.end(), "empty rule (want forbid or require)")
	}
	p.i++
	var r Rule
	switch t.text {
	case string(Forbid):
		r.Deontic = Forbid
		ev, err := p.event(t.text)
		if err != nil {
			return Rule{}, err
		}
		r.Event = ev
	case string(Require):
		r.Deontic = Require
		act, err := p.act()
		if err != nil {
			return Rule{}, err
		}
		w, ok := p.peek()
		if !ok {
			return Rule{}, p.errAt(p.end(), `missing "before" or "after" after the act`)
		}
		p.i++
		r.Act, r.When = act, w.text
		ev, err := p.event(w.text)
		if err != nil {
			return Rule{}, err
		}
		r.Event = ev
	default:
		return Rule{}, p.errAt(t.off, "unknown rule type %s (want forbid or require)", quote(t.text))
	}
	if t, ok := p.peek(); ok {
		return Rule{}, p.errAt(t.off, "unexpected %s after the rule", quote(t.text))
	}
	return r, nil
}

// verb reads the verb that must follow the word after.
func (p *parser) verb(after string) (token, error) {
	t, ok := p.peek()
	if !ok {
		return token{}, p.errAt(p.end(), "missing verb after %q (want one of %s)", after, strings.Join(Verbs(), ", "))
	}
	if !slices.Contains(Verbs(), t.text) {
		return token{}, p.errAt(t.off, "unknown verb %s (want one of %s)", quote(t.text), strings.Join(Verbs(), ", "))
	}
	p.i++
	return t, nil
}

// act reads a require rule's act: verb {qual}, up to "before" or "after".
func (p *parser) act() (Event, error) {
	vt, err := p.verb(string(Require))
	if err != nil {
		return Event{}, err
	}
	if vt.text != "bow" && vt.text != "use" {
		return Event{}, p.errAt(vt.off, "act must be bow or use, not %s", quote(vt.text))
	}
	act := Event{Verb: vt.text}
	for {
		t, ok := p.peek()
		if !ok || t.text == "before" || t.text == "after" {
			break
		}
		if !strings.Contains(t.text, "=") {
			if isWord(t.text) {
				return Event{}, p.errAt(t.off, `missing "before" or "after" before %s`, quote(t.text))
			}
			return Event{}, p.errAt(t.off, `missing "=" in qualifier %s (want key=value)`, quote(t.text))
		}
		if act.Quals, err = p.qual(act.Quals); err != nil {
			return Event{}, err
		}
	}
	if _, ok := act.Value("follows"); ok {
		return Event{}, p.errAt(vt.off, `an act cannot say follows=... (only a rule's event can)`)
	}
	if act.Verb == "use" {
		if _, ok := act.Value("object"); !ok {
			return Event{}, p.errAt(vt.off, `act "use" needs object=... (want one of %s)`, strings.Join(Objects(), ", "))
		}
	}
	return act, nil
}

// event reads verb {qual} ["except" qual {qual}] to the end of the rule.
func (p *parser) event(after string) (Event, error) {
	vt, err := p.verb(after)
	if err != nil {
		return Event{}, err
	}
	ev := Event{Verb: vt.text}
	except := -1 // offset of "except", once seen
	for {
		t, ok := p.peek()
		if !ok {
			break
		}
		if t.text == "except" && except < 0 {
			except = t.off
			p.i++
			continue
		}
		if !strings.Contains(t.text, "=") {
			if isWord(t.text) {
				return Event{}, p.errAt(t.off, "unexpected %s (want key=value)", quote(t.text))
			}
			return Event{}, p.errAt(t.off, `missing "=" in qualifier %s (want key=value)`, quote(t.text))
		}
		if except < 0 {
			ev.Quals, err = p.qual(ev.Quals)
		} else {
			ev.Except, err = p.qual(ev.Except)
		}
		if err != nil {
			return Event{}, err
		}
	}
	if except >= 0 && len(ev.Except) == 0 {
		return Event{}, p.errAt(except, `"except" needs at least one qualifier`)
	}
	if err := p.followsOn(ev, vt.off); err != nil {
		return Event{}, err
	}
	return ev, nil
}

// followsVerbs are the verbs an event qualified by follows may have: acts
// done on the spot, which someone else's latest action can be an act of.
func followsVerbs() []string {
	return []string{"pick", "drop", "litter", "use", "bow", "give", "handle"}
}

// followsOn checks that event ev (its verb at offset off) says follows=...
// outside its except list, and only with one of followsVerbs.
func (p *parser) followsOn(ev Event, off int) error {
	for _, q := range ev.Except {
		if q.Key == "follows" {
			return p.errAt(off, `follows=... cannot exempt (put it before "except")`)
		}
	}
	if _, ok := ev.Value("follows"); ok && !slices.Contains(followsVerbs(), ev.Verb) {
		return p.errAt(off, "follows=... needs a verb of an act on the spot (want one of %s)", strings.Join(followsVerbs(), ", "))
	}
	return nil
}

// isWord reports whether s is a word of the grammar other than a qualifier.
func isWord(s string) bool {
	switch s {
	case "forbid", "require", "before", "after", "except", "and":
		return true
	}
	return slices.Contains(Verbs(), s)
}

// qual reads one key=value token and appends it to list.
func (p *parser) qual(list []Qual) ([]Qual, error) {
	t := p.toks[p.i]
	eq := strings.IndexByte(t.text, '=')
	key, value := t.text[:eq], t.text[eq+1:]
	if key == "" {
		return nil, p.errAt(t.off, `missing key before "=" in %s`, quote(t.text))
	}
	values, ok := p.keys[key]
	if !ok {
		return nil, p.errAt(t.off, "unknown key %s (want one of %s)", quote(key), strings.Join(sortedKeys(p.keys), ", "))
	}
	voff := t.off + eq + 1
	if value == "" {
		return nil, p.errAt(voff, "missing value for %s (want one of %s)", key, strings.Join(values, ", "))
	}
	if !slices.Contains(values, value) {
		return nil, p.errAt(voff, "bad value %s for %s (want one of %s)", quote(value), key, strings.Join(values, ", "))
	}
	for _, q := range list {
		if q.Key == key {
			return nil, p.errAt(t.off, "duplicate key %q in one qualifier list", key)
		}
	}
	p.i++
	return append(list, Qual{Key: key, Value: value}), nil
}

func sortedKeys(m map[string][]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// quote quotes s for an error message, shortening it if it is long.
func quote(s string) string {
	const max = 64
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}

// String returns the rule's canonical text: words separated by single
// spaces, qualifiers in the order they are stored. For a rule returned by
// Parse, Parse(r.String()) returns a rule equal to r.
func (r Rule) String() string {
	var b strings.Builder
	b.WriteString(string(r.Deontic))
	if r.Deontic == Require || r.When != "" || r.Act.Verb != "" {
		b.WriteByte(' ')
		writeEvent(&b, r.Act)
		b.WriteByte(' ')
		b.WriteString(r.When)
	}
	b.WriteByte(' ')
	writeEvent(&b, r.Event)
	return b.String()
}

func writeEvent(b *strings.Builder, e Event) {
	b.WriteString(e.Verb)
	for _, q := range e.Quals {
		b.WriteByte(' ')
		b.WriteString(q.Key + "=" + q.Value)
	}
	if len(e.Except) > 0 {
		b.WriteString(" except")
		for _, q := range e.Except {
			b.WriteByte(' ')
			b.WriteString(q.Key + "=" + q.Value)
		}
	}
}
