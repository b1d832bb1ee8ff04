package sim

import "testing"

// FuzzParseActionCanonical: ParseAction's shortcut for canonical text
// reads every input exactly as the general parser does.
func FuzzParseActionCanonical(f *testing.F) {
	for _, s := range append(ActionVerbs(), "give mara", "give pip2", "give Mara", "give mara ", "give  mara", "give", "give ", "give \u00e9", "northx") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotErr := ParseAction(s)
		want, wantErr := parseAction(s)
		if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Errorf("ParseAction(%q) = %#v, %v; the general parser gives %#v, %v", s, got, gotErr, want, wantErr)
		}
	})
}
