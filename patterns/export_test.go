package patterns

import "math/rand/v2"

// GenModel is the property test's random model of seed, as YAML with
// write patterns: the designed model, and up to layouts hand-made
// layouts of it (for patterns_test, which proves them on an engine).
func GenModel(seed uint64, layouts int) (designed string, hands []string) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := genModelFrom(r)
	for range layouts {
		hands = append(hands, g.yaml(genLayout(g, r)))
	}
	w := g.writes(r)
	for i := range hands {
		hands[i] += w
	}
	return g.yaml(nil) + w, hands
}
