package norms_test

import (
	"fmt"

	"github.com/normgym/normgym/norms"
)

func ExampleParse() {
	r, err := norms.Parse("require  bow before\tenter zone=market")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Deontic, r.Act.Verb, r.When, r.Event.Verb)
	fmt.Println(r)

	_, err = norms.Parse("forbid step colour=blue")
	fmt.Println(err)
	// Output:
	// require bow before enter
	// require bow before enter zone=market
	// norms: column 13: unknown key "colour" (want one of color, dir, follows, hat, near, object, over, phase, role, terrain, zone)
}

func ExampleCatalog_Lookup() {
	n, err := norms.Default().Lookup("place.color=blue")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n.Rule)
	fmt.Println(n.Statement)
	fmt.Println(n.Tag)
	// Output:
	// forbid step color=blue
	// Do not step on blue tiles.
	// counterintuitive
}
