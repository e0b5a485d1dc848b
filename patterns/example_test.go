package patterns_test

import (
	"fmt"

	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

func ExamplePlan() {
	m, err := model.Parse("leaderboard.yaml", []byte(`
table: Leaderboard
entities:
  Player:
    id: [playerId]
    attributes:
      playerId: string
      handle: string
      season: string
      rating: {type: number, min: 0, max: 99999}
patterns:
  GetPlayer:         {get: Player}
  SeasonLeaderboard: {query: Player, where: [season], sort: rating desc, limit: 100, returns: [handle]}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := patterns.Plan(m)
	for _, p := range d.Patterns {
		fmt.Printf("%s: %s on %s: %s\n", p.Name, p.Operation, p.Index, p.Text)
	}
	fmt.Println(d.Indexes[0].Name, d.Indexes[0].KeyText(), d.Indexes[0].ProjectionText())
	// Output:
	// GetPlayer: GetItem on table: PK = "PLAYER#{playerId}" AND SK = "PLAYER"
	// SeasonLeaderboard: Query on GSI1: season = {season}, ordered by rating
	// GSI1 season / rating, playerId INCLUDE (handle)
}

func ExampleParse_errors() {
	_, err := model.Parse("model.yaml", []byte(`
table: Leaderboard
entities:
  Player:
    id: [playerId]
    attributes: {playerId: string, rating: number}
patterns:
  Top: {query: Player, sort: ratng desc}
`))
	fmt.Println(err)
	// Output:
	// model.yaml:8:30: patterns.Top.sort: unknown attribute of Player "ratng"; expected one of: playerId, rating (did you mean "rating"?)
}

func ExampleAttribute_EncodeKey() {
	rating := &model.Attribute{Name: "rating", Type: model.TypeNumber, Min: new(int64), Max: ptr(int64(99999))}
	for _, v := range []int{9, 1000} {
		s, _ := rating.EncodeKey(v)
		fmt.Println(s)
	}
	delta := &model.Attribute{Name: "delta", Type: model.TypeNumber, Digits: 3}
	for _, v := range []int{-20, -5, 3} {
		s, _ := delta.EncodeKey(v)
		fmt.Println(s)
	}
	// Output:
	// 00009
	// 01000
	// 0979
	// 0994
	// 1002
}

func ptr[T any](v T) *T { return &v }

// Seed 004 projects its one overloaded GSI ALL. keyplan projects each GSI
// only what its patterns return; the estimate shows what that saves (with
// its GSIs keyed as planned: GSI2 natively).
func ExampleEstimateCost_projections() {
	m, err := model.Load("../examples/ecommerce.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := patterns.Plan(m)
	all := *d
	all.Indexes = nil
	for _, ix := range d.Indexes {
		c := *ix
		c.Projection, c.NonKeyAttributes = patterns.ProjectAll, nil
		all.Indexes = append(all.Indexes, &c)
	}
	fmt.Println("design                 GSI reads/s  writes/s  on-demand $/month  provisioned $/month")
	for _, v := range []struct {
		name string
		d    *patterns.Design
	}{{"GSIs projected ALL", &all}, {"keyplan projections", d}} {
		c := patterns.EstimateCost(v.d)
		gsiReads := 0.0
		for _, l := range c.Indexes[1:] {
			gsiReads += l.ReadUnits
		}
		fmt.Printf("%-22s %11.1f %9.1f %18.2f %20.2f\n", v.name, gsiReads, c.WriteUnits, c.OnDemand, c.Provisioned)
	}
	// Output:
	// design                 GSI reads/s  writes/s  on-demand $/month  provisioned $/month
	// GSIs projected ALL           470.0     498.0            1162.89               480.76
	// keyplan projections          232.5     324.0             799.08               330.44
}
