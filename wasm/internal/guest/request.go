package guest

import (
	"bytes"

	"github.com/normgym/normgym/wasm/wire"
)

// decodeStep reads a step request. Hosts write it as encoding/json does,
// {"handle":1,"action":"north"} with maybe ,"text_only":true: that form
// is read directly, without reflection; anything else goes through
// decode, which reads the direct form the same way (request_test.go).
func decodeStep(in []byte) (wire.StepRequest, error) {
	if req, ok := readStep(in); ok {
		return req, nil
	}
	var req wire.StepRequest
	err := decode(in, &req, true)
	return req, err
}

// readStep reads a step request in the form encoding/json writes, with
// an action of printable ASCII needing no escapes; ok is false for any
// other input.
func readStep(in []byte) (req wire.StepRequest, ok bool) {
	rest, ok := bytes.CutPrefix(in, []byte(`{"handle":`))
	if !ok {
		return req, false
	}
	if req.Handle, rest, ok = readUint(rest); !ok {
		return req, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"action":"`)); !ok {
		return req, false
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return req, false
	}
	for _, c := range rest[:end] {
		if c < 0x20 || c > 0x7e || c == '\\' {
			return req, false
		}
	}
	req.Action, rest = string(rest[:end]), rest[end+1:]
	if r, found := bytes.CutPrefix(rest, []byte(`,"text_only":true`)); found {
		req.TextOnly, rest = true, r
	} else if r, found := bytes.CutPrefix(rest, []byte(`,"text_only":false`)); found {
		rest = r
	}
	return req, string(rest) == "}"
}

// readUint reads a JSON number that is a non-negative integer of at most
// nine digits, with no leading zero.
func readUint(b []byte) (n int, rest []byte, ok bool) {
	i := 0
	for i < len(b) && i < 10 && b[i] >= '0' && b[i] <= '9' {
		n = n*10 + int(b[i]-'0')
		i++
	}
	if i == 0 || i > 9 || (b[0] == '0' && i > 1) {
		return 0, b, false
	}
	return n, b[i:], true
}
