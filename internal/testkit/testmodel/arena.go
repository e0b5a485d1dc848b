package testmodel

import "strconv"

// ArenaMatches is a model of one player's matches read strongly by score (an
// LSI), at most n matches a player; used by patterns/checklsi_test.go.
func ArenaMatches(n int) string {
	return `table: Arena
entities:
  Match:
    id: [playerId, matchId]
    attributes:
      playerId: {type: string, maxLength: 40}
      matchId: {type: string, maxLength: 26, cardinality: ` + strconv.Itoa(n) + `}
      score: {type: number, min: 0, max: 1000000}
patterns:
  GetMatch: {get: Match, consistent: true}
  MatchesByScore: {query: Match, where: [playerId], sort: score desc, consistent: true}
`
}

// ArenaMatchesTimed is a model of one player's matches with a long note,
// read strongly by time and by score, at most card matches a player; used
// by patterns/dynamo/lsiscale_test.go (make test-scale).
func ArenaMatchesTimed(card int) string {
	return `table: Arena
entities:
  Match:
    id: [playerId, matchId]
    attributes:
      playerId: {type: string, maxLength: 40}
      matchId: {type: string, maxLength: 26, cardinality: ` + strconv.Itoa(card) + `}
      playedAt: time
      score: {type: number, min: 0, max: 1000}
      note: {type: string, maxLength: 2000}
patterns:
  GetMatch:       {get: Match, consistent: true}
  MatchesByTime:  {query: Match, where: [playerId], sort: playedAt desc, consistent: true}
  MatchesByScore: {query: Match, where: [playerId], sort: score desc, consistent: true}
  TopScores:      {query: Match, where: [playerId], sort: score desc, limit: 10, consistent: true}
`
}

// ArenaByMode is a player's matches read strongly by mode and by score
// within a mode (two strong reads one sort key serves: one LSI).
const ArenaByMode = `table: Arena
entities:
  Match:
    id: [playerId, matchId]
    attributes:
      playerId: {type: string, maxLength: 40}
      matchId: {type: string, maxLength: 26, cardinality: 1000}
      mode: {values: [duel, squad]}
      score: {type: number, min: 0, max: 1000}
patterns:
  GetMatch: {get: Match, consistent: true}
  ByMode: {query: Match, where: [playerId], sort: mode, consistent: true}
  TopInMode: {query: Match, where: [playerId, mode], sort: score desc, consistent: true}
`

// ArenaExplicitLocalIndex is a player's matches with explicit keys, one of
// them a local index (ByScore) that TopScores reads.
const ArenaExplicitLocalIndex = `table: Arena
entities:
  Match:
    id: [playerId, matchId]
    attributes:
      playerId: {type: string, maxLength: 40}
      matchId: {type: string, maxLength: 26, cardinality: 1000}
      score: {type: number, min: 0, max: 1000}
    keys:
      table: {pk: "PLAYER#{playerId}", sk: "MATCH#{matchId}"}
      ByScore: {local: true, sk: "SCORE#{score}#{matchId}"}
patterns:
  GetMatch: {get: Match, consistent: true}
  TopScores: {query: Match, where: [playerId], sort: score desc, consistent: true}
`
