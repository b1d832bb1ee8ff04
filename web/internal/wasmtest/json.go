//go:build !js

package wasmtest

import "encoding/json"

func jsonError(msg string) ([]byte, error) {
	return json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
}
