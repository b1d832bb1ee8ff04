package sim

import (
	"fmt"
	"strings"
)

// World is a settlement template: the flavour of a grid family. Layouts
// of every world share one structure (see layout.go); worlds differ in
// what things are called, who lives there and what lies in the way.
type World struct {
	Name string `json:"name"`
	// Title is a one-line description for people.
	Title string `json:"title"`
	// Source, Goods, Basket, Bell, Well, Bin and Litter name the world's things.
	Source string `json:"source"`
	Goods  string `json:"goods"`
	Basket string `json:"basket"`
	Bell   string `json:"bell"`
	Well   string `json:"well"`
	Bin    string `json:"bin"`
	Litter string `json:"litter"`
	// Members holds the member names in role order (elder, vendor, gardener, child).
	Members [4]string `json:"members"`
	// Obstacle is the terrain scattered in the open areas ("" for none).
	Obstacle string `json:"obstacle,omitempty"`
	// Utterances are what members say when they sanction: reproach that
	// fits anyone and hints at no kind of rule.
	Utterances []string `json:"utterances"`
}

var worlds = []World{
	{Name: "orchard", Title: "an orchard village at harvest time",
		Source: "apple tree", Goods: "apple", Basket: "basket", Bell: "bell", Well: "well", Bin: "compost bin", Litter: "core",
		Members:    [4]string{"mara", "olek", "fern", "pip"},
		Utterances: []string{"Tsk!", "Hey!", "Oh, come on.", "Really?"}},
	{Name: "market", Title: "a busy market square",
		Source: "stall", Goods: "loaf", Basket: "crate", Bell: "gong", Well: "fountain", Bin: "bin", Litter: "wrapper",
		Members:    [4]string{"ines", "bako", "tam", "lulu"},
		Utterances: []string{"Excuse me!", "Really?", "Tut tut.", "Oi, friend!"}, Obstacle: "wall"},
	{Name: "park", Title: "a town park on a sunny day",
		Source: "flower bush", Goods: "flower", Basket: "vase", Bell: "chime", Well: "tap", Bin: "bin", Litter: "cup",
		Members:    [4]string{"edda", "rui", "moss", "kit"},
		Utterances: []string{"Hmph.", "Oh dear.", "Please don't.", "Ahem!"}, Obstacle: "water"},
	{Name: "harbor", Title: "a fishing harbor at dawn",
		Source: "fish rack", Goods: "fish", Basket: "cart", Bell: "ship's bell", Well: "pump", Bin: "barrel", Litter: "rope end",
		Members:    [4]string{"sven", "nora", "odo", "wyn"},
		Utterances: []string{"Oi!", "Mind yourself!", "Bad form.", "Come on now."}, Obstacle: "water"},
	{Name: "library", Title: "a quiet library reading hall",
		Source: "shelf", Goods: "book", Basket: "returns box", Bell: "desk bell", Well: "water jug", Bin: "paper bin", Litter: "note",
		Members:    [4]string{"agnes", "theo", "ivy", "bo"},
		Utterances: []string{"Shh!", "Excuse me.", "*frowns*", "Tsk."}, Obstacle: "wall"},
}

// Worlds returns every world, in canonical order.
func Worlds() []World { return append([]World(nil), worlds...) }

// WorldNames returns the world names in canonical order.
func WorldNames() []string {
	n := make([]string, len(worlds))
	for i, w := range worlds {
		n[i] = w.Name
	}
	return n
}

// LookupWorld returns the world called name.
func LookupWorld(name string) (World, error) {
	for _, w := range worlds {
		if w.Name == name {
			return w, nil
		}
	}
	return World{}, fmt.Errorf("sim: unknown world %q (want one of %s)", name, strings.Join(WorldNames(), ", "))
}

// ObjectName returns the world's name for an object kind.
func (w World) ObjectName(kind string) string { return w.names().ObjectName(kind) }

// names returns the world's names for its things.
func (w World) names() Names {
	return Names{w.Source, w.Goods, w.Basket, w.Bell, w.Well, w.Bin, w.Litter}
}
