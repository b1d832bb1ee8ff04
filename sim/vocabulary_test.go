package sim_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// thingWords are the words a norm statement may use for things, places and
// people; each must mean the same in every world.
var thingWords = []string{"source", "basket", "bell", "well", "bin", "litter", "tiles", "grass", "sand", "stone", "path",
	"garden", "plaza", "market", "hat", "elder", "vendor", "gardener", "child"}

// TestOneVocabulary: every thing a norm statement names is named the same
// way in what the newcomer is shown in every world (the map legend, the
// zones, the members, the task), so a rule reads the same everywhere.
func TestOneVocabulary(t *testing.T) {
	word := regexp.MustCompile(`[a-z]+`)
	for _, w := range sim.Worlds() {
		env, obs, err := sim.NewVisit(w.Name + "/place.color=red/observe/s1")
		if err != nil {
			t.Fatal(err)
		}
		_ = env
		shown := " " + strings.Join(word.FindAllString(strings.ToLower(obs.Text()), -1), " ") + " "
		for _, n := range norms.Default().Norms() {
			for _, sw := range word.FindAllString(strings.ToLower(n.Statement), -1) {
				for _, tw := range thingWords {
					if sw == tw && !strings.Contains(shown, " "+tw+" ") && !strings.Contains(shown, " "+strings.TrimSuffix(tw, "s")+" ") {
						t.Errorf("%s: the statement %q says %q, which the %s world's observation never shows", n.ID, n.Statement, tw, w.Name)
					}
				}
			}
		}
		// The world's own names appear beside the generic ones, never alone.
		for kind, name := range map[string]string{"basket": w.Basket, "bell": w.Bell, "well": w.Well, "bin": w.Bin} {
			if name != kind && !strings.Contains(obs.Text(), kind+" ("+name+")") {
				t.Errorf("%s: the legend shows the %s (%s) without its generic name", w.Name, kind, name)
			}
		}
	}
}
