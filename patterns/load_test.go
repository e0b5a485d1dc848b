package patterns

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	kpmodel "github.com/keyplan/keyplan/patterns/model"
)

const validModel = `table: Leaderboard
entities:
  Player:
    id: [playerId]
    attributes:
      playerId: string
      handle: string
      season: {type: string, cardinality: 8}
      rating: {type: number, min: 0, max: 99999}
patterns:
  GetPlayer: {get: Player}
  SeasonLeaderboard: {query: Player, where: [season], sort: rating desc}
`

func TestParseValid(t *testing.T) {
	m, err := kpmodel.Parse("model.yaml", []byte(validModel))
	if err != nil {
		t.Fatal(err)
	}
	p := m.Pattern("SeasonLeaderboard")
	if p == nil || p.Op != kpmodel.ReadQuery || !slices.Equal(p.Sort, []string{"rating"}) || !p.Desc || len(p.Where) != 1 {
		t.Fatalf("pattern parsed as %+v", p)
	}
	if a := m.Entity("Player").Attr("rating"); a == nil || a.Type != kpmodel.TypeNumber || *a.Max != 99999 {
		t.Fatalf("rating parsed as %+v", a)
	}
	if pos := m.Entity("Player").Pos; pos.Line != 3 || pos.Col != 3 {
		t.Errorf("Player at %+v, want 3:3", pos)
	}
}

// JSON and YAML of the same structure load to the same model.
func TestParseJSONSameAsYAML(t *testing.T) {
	js := `{
	"table": "Leaderboard",
	"entities": {"Player": {"id": ["playerId"], "attributes": {"playerId": "string", "handle": "string",
		"season": {"type": "string", "cardinality": 8}, "rating": {"type": "number", "min": 0, "max": 99999}}}},
	"patterns": {"GetPlayer": {"get": "Player"}, "SeasonLeaderboard": {"query": "Player", "where": ["season"], "sort": "rating desc"}}
}`
	mj, err := kpmodel.Parse("model.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	my, _ := kpmodel.Parse("model.yaml", []byte(validModel))
	dj, _ := Plan(mj)
	dy, _ := Plan(my)
	// The designs agree; findings differ only in file name and position.
	strip := func(d *Design) string {
		c := *d
		c.Source, c.Diagnostics = "", nil
		b, _ := json.Marshal(&c)
		return string(b)
	}
	if len(dj.Diagnostics) != len(dy.Diagnostics) || strip(dj) != strip(dy) {
		t.Errorf("JSON plan:\n%s\nYAML plan:\n%s", strip(dj), strip(dy))
	}
	bad := "{\n\t\"table\": \"T\",\n\t\"entities\": {\"A\": {\"id\": [\"x\"], \"attributes\": {\"x\": \"strin\"}}},\n\t\"patterns\": {}\n}"
	_, err = kpmodel.Parse("model.json", []byte(bad))
	if err == nil || !strings.Contains(err.Error(), "model.json:3:54") || !strings.Contains(err.Error(), `did you mean "string"?`) {
		t.Errorf("JSON error = %v, want position 3:54 and a suggestion", err)
	}
}

func TestParseBadInput(t *testing.T) {
	tests := []struct {
		name  string
		model string
		want  []string // each must appear in one error line
	}{
		{
			name:  "unknown entity",
			model: strings.Replace(validModel, "{get: Player}", "{get: Playr}", 1),
			want:  []string{`model.yaml:11:20: patterns.GetPlayer.get: unknown entity "Playr"; expected one of: Player (did you mean "Player"?)`},
		},
		{
			name:  "unknown attribute in where",
			model: strings.Replace(validModel, "where: [season]", "where: [seson]", 1),
			want:  []string{`model.yaml:12:45: patterns.SeasonLeaderboard.where: unknown attribute of Player "seson"`, `did you mean "season"?`},
		},
		{
			name:  "sort on an attribute the entity lacks",
			model: strings.Replace(validModel, "sort: rating desc", "sort: rank desc", 1),
			want:  []string{`patterns.SeasonLeaderboard.sort: unknown attribute of Player "rank"`, "expected one of: playerId, handle, season, rating"},
		},
		{
			name:  "wrong type",
			model: strings.Replace(validModel, "handle: string", "handle: strnig", 1),
			want:  []string{`model.yaml:7:15: entities.Player.attributes.handle: unknown type "strnig"`, `did you mean "string"?`},
		},
		{
			name:  "wrong value type",
			model: strings.Replace(validModel, "max: 99999", "max: lots", 1),
			want:  []string{`model.yaml:9:43: entities.Player.attributes.rating.max: expected a whole number, found "lots"`},
		},
		{
			name:  "missing id",
			model: strings.Replace(validModel, "    id: [playerId]\n", "", 1),
			want:  []string{`entities.Player.id: missing; expected the attributes that identify one item`},
		},
		{
			name:  "id names an unknown attribute",
			model: strings.Replace(validModel, "id: [playerId]", "id: [playerID]", 1),
			want:  []string{`model.yaml:4:9: entities.Player.id: unknown attribute "playerID"`, `did you mean "playerId"?`},
		},
		{
			name:  "duplicate pattern names",
			model: validModel + "  GetPlayer: {get: Player}\n",
			want:  []string{`model.yaml:13:3: patterns.GetPlayer: duplicate name "GetPlayer" (first declared at line 11)`},
		},
		{
			name:  "duplicate attribute",
			model: strings.Replace(validModel, "      handle: string\n", "      handle: string\n      handle: string\n", 1),
			want:  []string{`entities.Player.attributes.handle: duplicate name "handle" (first declared at line 7)`},
		},
		{
			name:  "yaml syntax error",
			model: "table: T\nentities:\n  Player: {id: [playerId\n",
			want:  []string{"model.yaml:", "syntax error"},
		},
		{
			name:  "unknown field",
			model: strings.Replace(validModel, "{get: Player}", "{get: Player, limt: 3}", 1),
			want:  []string{`model.yaml:11:28: patterns.GetPlayer: unknown field "limt"`, `did you mean "limit"?`},
		},
		{
			name:  "bad sort direction",
			model: strings.Replace(validModel, "sort: rating desc", "sort: rating down", 1),
			want:  []string{`patterns.SeasonLeaderboard.sort: expected "ATTRIBUTE", "ATTRIBUTE asc" or "ATTRIBUTE desc", found "rating down"`},
		},
		{
			name:  "get of a collection",
			model: strings.Replace(validModel, "{get: Player}", "{get: [Player, Player2]}", 1),
			want:  []string{`unknown entity "Player2"`},
		},
		{
			name:  "enum filter value",
			model: strings.Replace(validModel, "handle: string", "handle: {type: string, values: [a, b]}", 1) + "  ByHandle: {query: Player, filter: {handle: c}}\n",
			want:  []string{`patterns.ByHandle.filter.handle: value c: expected one of a, b`},
		},
		{
			name:  "an attribute named like a key attribute",
			model: strings.Replace(validModel, "      handle: string\n", "      handle: string\n      GSI1PK: string\n", 1),
			want:  []string{`model.yaml:8:7: entities.Player.attributes.GSI1PK: "GSI1PK" is a key attribute keyplan writes (PK, SK, GSI<n>PK, GSI<n>SK)`},
		},
		{
			name:  "empty file",
			model: "",
			want:  []string{"model.yaml:1:1: the file is empty"},
		},
		{
			name:  "not a mapping",
			model: "- a\n- b\n",
			want:  []string{"model.yaml:1:1: expected a mapping, found a list"},
		},
		{
			name:  "within an unknown entity",
			model: strings.Replace(validModel, "    id: [playerId]\n", "    id: [playerId]\n    within: Team\n", 1),
			want:  []string{`entities.Player.within: unknown entity "Team"`},
		},
		{
			name: "copy via an unknown pattern",
			model: strings.Replace(validModel, "      rating: {type: number, min: 0, max: 99999}\n", "      rating: {type: number, min: 0, max: 99999}\n      teamName: string\n    copies:\n      teamName: {from: Team.name, via: TeamPlayrs}\n", 1) +
				"  TeamPlayers: {query: Player, where: [handle]}\n",
			want: []string{`entities.Player.copies.teamName.from: unknown entity "Team"`},
		},
		{
			name:  "counter without a ttl",
			model: strings.Replace(validModel, "      rating: {type: number, min: 0, max: 99999}\n", "      rating: {type: number, min: 0, max: 99999}\n    counters:\n      rating: {count: Player}\n", 1),
			want:  []string{`entities.Player.counters.rating: counters need the table's ttl attribute`},
		},
		{
			name:  "archive without a ttl",
			model: strings.Replace(validModel, "    id: [playerId]\n", "    id: [playerId]\n    archive: true\n", 1),
			want:  []string{`entities.Player.archive: archive keeps TTL expiries; Player has no ttl attribute`},
		},
		{
			name:  "child lacks the partition attribute",
			model: strings.Replace(validModel, "patterns:", "  Match:\n    id: [matchId]\n    within: Player\n    attributes: {matchId: string}\npatterns:", 1),
			want:  []string{`entities.Match.within: Match lives in Player's partition, whose key needs "playerId"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := kpmodel.Parse("model.yaml", []byte(tt.model))
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			if !errors.Is(err, kpmodel.ErrInvalidModel) {
				t.Errorf("error does not match ErrInvalidModel: %v", err)
			}
			var e *kpmodel.Error
			if !errors.As(err, &e) || e.File != "model.yaml" || e.Pos.Line == 0 {
				t.Errorf("error is not a positioned *Error: %#v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant it to contain:\n%s", err, w)
				}
			}
		})
	}
}

// Every problem is reported at once, not just the first.
func TestParseCollectsAllErrors(t *testing.T) {
	model := strings.NewReplacer("{get: Player}", "{get: Playr}", "sort: rating desc", "sort: rank").Replace(validModel)
	_, err := kpmodel.Parse("model.yaml", []byte(model))
	if got := strings.Count(err.Error(), "\n") + 1; got != 2 {
		t.Errorf("got %d errors, want 2:\n%v", got, err)
	}
}

// A model file that does not exist, or cannot be read, is one error
// naming the file and saying so (not "invalid model" and the system's
// words on another line).
func TestLoadMissingFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.yaml")
	_, err := kpmodel.Load(missing)
	if !errors.Is(err, kpmodel.ErrInvalidModel) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v", err)
	}
	if want := missing + ": the model file does not exist"; err == nil || err.Error() != want {
		t.Errorf("Load of a missing file: %q, want %q", err, want)
	}
	_, err = kpmodel.Load(dir)
	if want := dir + ": the model file cannot be read: "; err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("Load of a directory: %q, want %q and the reason", err, want)
	}
}

// Names are at most MaxName characters (DynamoDB's limit on a projected
// attribute's name), and a name too long for the YAML parser (over 1,024
// characters, in JSON too) is said to be too long, at its place, not a
// syntax error.
func TestLongNames(t *testing.T) {
	long := func(n int) string { return "N" + strings.Repeat("x", n-1) }
	model := func(entity, attr, pattern string) map[string]any {
		return map[string]any{"table": "Things", "entities": map[string]any{entity: map[string]any{"id": []string{"thingId"},
			"attributes": map[string]any{"thingId": "string", attr: "string"}}},
			"patterns": map[string]any{pattern: map[string]any{"get": entity}}}
	}
	asJSON := func(m map[string]any) []byte { b, _ := json.Marshal(m); return b }
	tests := []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"the longest names", "m.json", asJSON(model(long(kpmodel.MaxName), "a"+long(kpmodel.MaxName-1), long(kpmodel.MaxName))), ""},
		{"an entity name one too long", "m.json", asJSON(model(long(kpmodel.MaxName+1), "note", "Get")), fmt.Sprintf("is %d characters; expected at most %d", kpmodel.MaxName+1, kpmodel.MaxName)},
		{"an attribute name one too long", "m.json", asJSON(model("Thing", "a"+long(kpmodel.MaxName), "Get")), `the attribute name "aNxx`},
		{"a pattern name of 10,000 characters, JSON", "m.json", asJSON(model("Thing", "note", long(10000))), "the key \"Nxxx"},
		{"an entity name of 2,000 characters, YAML", "m.yaml", []byte("table: Things\nentities:\n  " + long(2000) + ":\n    id: [thingId]\n    attributes: {thingId: string}\npatterns:\n  Get: {get: Thing}\n"), "m.yaml:3:3: the key \"Nxxx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := kpmodel.Parse(tt.file, tt.data)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %.300v", err)
			case tt.want == "":
				return
			case err == nil:
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "syntax error") {
				t.Errorf("error %.400q, want %q", err, tt.want)
			}
			if strings.HasPrefix(tt.want, "the key") && !strings.Contains(err.Error(), fmt.Sprintf("a name is at most %d (and YAML reads no key longer than 1024)", kpmodel.MaxName)) {
				t.Errorf("error %.400q does not say the limits", err)
			}
		})
	}
}

// A list of candidates in a message is never cut inside a name: it shows
// whole names, each clipped on its own, and says how many more there are.
func TestCandidateListsKeepWholeNames(t *testing.T) {
	attrs := "userId: string, email: string, reviewCount: number, reviewerName: string, registrationDate: time, region: string, reviewedAt: time, reviewScore: number"
	model := "table: Things\nentities:\n  User:\n    id: [userId]\n    attributes: {" + attrs + "}\npatterns:\n  G: {get: User}\n  ByX: {query: User, where: [userId], sort: revi}\n"
	_, err := kpmodel.Parse("m.yaml", []byte(model))
	want := "expected one of: userId, email, reviewCount, reviewerName, registrationDate, region, reviewedAt, reviewScore"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "bytes)") {
		t.Errorf("error %q, want %q", err, want)
	}
}

// Errors are deterministic and placed precisely: a model with problems in
// both key templates gives the same text every time, each error at its
// own template's value.
func TestKeyErrorsDeterministicAndPlaced(t *testing.T) {
	model := `table: T
entities:
  A:
    id: [a]
    attributes: {a: string}
    keys:
      table: {pk: "A#{nope}", sk: "A#{alsoNot}"}
patterns:
  G: {get: A}
`
	var first string
	for i := range 50 {
		_, err := kpmodel.Parse("m.yaml", []byte(model))
		if err == nil {
			t.Fatal("no error")
		}
		if i == 0 {
			first = err.Error()
			continue
		}
		if err.Error() != first {
			t.Fatalf("run %d gave\n%s\nrun 0 gave\n%s", i, err, first)
		}
	}
	for _, want := range []string{
		`m.yaml:7:19: entities.A.keys.table.pk: unknown attribute "nope"`,
		`m.yaml:7:35: entities.A.keys.table.sk: unknown attribute "alsoNot"`,
	} {
		if !strings.Contains(first, want) {
			t.Errorf("errors\n%s\nlack %q", first, want)
		}
	}
	if strings.Index(first, "nope") > strings.Index(first, "alsoNot") {
		t.Errorf("errors are not in file order:\n%s", first)
	}
}

// A value error always names its attribute.
func TestValueErrorNamesItsAttribute(t *testing.T) {
	a := &kpmodel.Attribute{Name: "handle", Type: kpmodel.TypeString}
	_, err := a.DecodeKey("bad%2")
	if err == nil || !strings.Contains(err.Error(), `attribute "handle"`) {
		t.Errorf("DecodeKey error = %v, want it to name the attribute", err)
	}
	if got := (&kpmodel.ValueError{Value: "x", Msg: "m"}).Error(); got != "value x: m" {
		t.Errorf("ValueError without an attribute = %q", got)
	}
}

// sort takes one attribute or a list; directions must agree; a sorted
// collection orders the entity that is not its owner.
func TestSortForms(t *testing.T) {
	base := `table: T
entities:
  Log:
    id: [deviceId, at]
    attributes: {deviceId: string, at: time, state: {values: [ok, fail], immutable: true}}
  Device:
    id: [deviceId]
    attributes: {deviceId: string}
patterns:
  P: %s
`
	tests := []struct {
		name, pattern string
		sort          []string
		desc          bool
		err           string
	}{
		{"one", "{query: Log, where: [deviceId], sort: at desc}", []string{"at"}, true, ""},
		{"list", "{query: Log, where: [deviceId], sort: [state asc, at]}", []string{"state", "at"}, false, ""},
		{"list desc", "{query: Log, where: [deviceId], sort: [state desc, at desc]}", []string{"state", "at"}, true, ""},
		{"mixed directions", "{query: Log, where: [deviceId], sort: [state asc, at desc]}", nil, false,
			"m.yaml:10:56: patterns.P.sort: at is desc but an earlier sort attribute is asc: a query orders by its whole sort key, so every attribute goes the same way"},
		{"twice", "{query: Log, where: [deviceId], sort: [at, at]}", nil, false, `"at" is listed twice`},
		{"collection", "{query: [Device, Log], where: [deviceId], sort: at desc}", []string{"at"}, true, ""},
		{"collection by its owner", "{query: [Device, Log], where: [deviceId], sort: deviceId}", nil, false,
			`patterns.P.sort: "deviceId" is in where already`},
		{"collection by another", "{query: [Device, Log], where: [deviceId], sort: state2}", nil, false,
			`patterns.P.sort: unknown attribute of Log "state2"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := kpmodel.Parse("m.yaml", []byte(fmt.Sprintf(base, tt.pattern)))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := m.Pattern("P")
			if !slices.Equal(p.Sort, tt.sort) || p.Desc != tt.desc {
				t.Errorf("sort %v desc %v, want %v %v", p.Sort, p.Desc, tt.sort, tt.desc)
			}
		})
	}
}

// A query sorted by two attributes is served by a key that orders by both,
// in order (on a GSI: a base key holds the id alone, immutable state or
// not, KP104): a synthetic sort key of both, or a native one.
func TestMultiAttributeSortServed(t *testing.T) {
	const model = `table: T
entities:
  Log:
    id: [deviceId, at]
    attributes: {deviceId: string, at: time, state: {values: [ok, fail], immutable: true}}
patterns:
  ByState: {query: Log, where: [deviceId], sort: [state, at]}
`
	if ix := planText(t, model).Index("GSI1"); !ix.Native() || !slices.Equal(ix.SortKeys, []string{"state", "at"}) {
		t.Errorf("native: GSI1 sorted by %v", ix.SortKeys)
	}
	d := planText(t, "indexKeys: synthetic\n"+model)
	p := d.Pattern("ByState")
	if !p.Served() || p.Index == kpmodel.BaseIndex || len(d.Indexes) != 1 {
		t.Fatalf("ByState on %s (%s), %d GSIs", p.Index, p.Reason, len(d.Indexes))
	}
	if sk := d.Entity("Log").Key(p.Index).SK.String(); sk != "LOG#{state}#{at}" {
		t.Errorf("%s sort key %s, want LOG#{state}#{at}", p.Index, sk)
	}
}
