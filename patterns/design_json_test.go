package patterns_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/keyplantest"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
	"github.com/keyplan/keyplan/patterns"
	"github.com/keyplan/keyplan/patterns/model"
)

// stripped is a finding without where it was found (a design read back
// has no model file positions).
func stripped(ds []patterns.Diagnostic) []string {
	var out []string
	for _, x := range ds {
		out = append(out, x.ID+" "+x.Subject.String()+": "+x.Message)
	}
	return out
}

// A design written as JSON and read back is the same design: the same
// JSON again, the same findings from the checks.
func TestDesignRoundTrip(t *testing.T) {
	for _, f := range testmodel.Files(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			d := keyplantest.Design(t, f)
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			back, err := patterns.ReadDesign("plan.json", bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			again, _ := json.Marshal(back)
			if !bytes.Equal(b, again) {
				t.Errorf("the JSON changed on the round trip:\n%s\n%s", b, again)
			}
			got, want := stripped(patterns.Check(back)), stripped(patterns.Check(d))
			slices.Sort(got)
			slices.Sort(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("findings after the round trip:\n%s\nbefore:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// Unusable design files are refused with the file and what is wrong.
func TestReadDesignRefuses(t *testing.T) {
	d := keyplantest.Keyed(t, "../examples/leaderboard.yaml", model.IndexKeysSynthetic)
	good, _ := json.Marshal(d)
	native, _ := json.Marshal(keyplantest.Design(t, "../examples/leaderboard.yaml"))
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "plan.json: not valid JSON"},
		{"truncated", string(good[:len(good)/2]), "plan.json: not valid JSON"},
		{"trailing", string(good) + "{}", "more after the value"},
		{"other format", strings.Replace(string(good), `"format":1`, `"format":2`, 1), "format 2; this keyplan reads format 1"},
		{"no format", strings.Replace(string(good), `"format":1,`, ``, 1), "format 0; this keyplan reads format 1"},
		{"not a design", `{"format": 1, "hello": true}`, "not a keyplan design"},
		{"another table", strings.Replace(string(good), `"table":"Leaderboard"`, `"table":"Other"`, 1), `the design is for table "Other" but its model is for "Leaderboard"`},
		{"edited key", strings.Replace(string(good), `PLAYER#SEASON#{season}`, `PLAYER#SEASON#{seasn}`, 1), `reads "seasn", which is no attribute of it`},
		{"bad model", strings.Replace(string(good), `"id":["playerId"]`, `"id":["nope"]`, 1), "its model does not validate"},
		{"native index on no attribute", strings.Replace(string(native), `"partitionKeys":["season"]`, `"partitionKeys":["seasn"]`, 1), "index GSI2 is keyed on seasn, which no entity of the model has"},
		{"native index keyed twice", strings.Replace(string(native), `"partitionKeys":["season"]`, `"partitionKey":"GSI2PK","partitionKeys":["season"]`, 1), "index GSI2 is native (partitionKeys) but also keyed GSI2PK/"},
		{"native key not the index's", strings.Replace(string(native), `"pk":"{season}","sk":"{rating}#{playerId}"`, `"pk":"{season}","sk":"{playerId}#{rating}"`, 1), "its key on native index GSI2 is {season} / {playerId}#{rating}; the index's attributes give {season} / {rating}#{playerId}"},
		{"native index over five", strings.Replace(string(native), `"sortKeys":["rating","playerId"]`, `"sortKeys":["rating","playerId","handle","region","createdAt"]`, 1), "index GSI2 is keyed on 1 partition and 5 sort attributes"},
		{"native index with a discriminator elsewhere", strings.Replace(string(native), `"sortKeys":["rating","playerId"]`, `"sortKeys":["rating","GSI2Entity"]`, 1), "its discriminator GSI2Entity must lead its partition key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := patterns.ReadDesign("plan.json", strings.NewReader(tt.data))
			if err == nil || !errors.Is(err, patterns.ErrDesign) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadDesign = %v, want an ErrDesign containing %q", err, tt.want)
			}
		})
	}
}

// A design whose file states another plan than its keys give (an
// earlier keyplan's request, or an edit) is read with the plan derived
// from the keys: that is what it serves, and RecordedPlans says what the
// file stated. The keys themselves are never re-derived: an edited key
// is refused (TestReadDesignRefuses).
func TestReadDesignServesTheDerivedPlan(t *testing.T) {
	d := keyplantest.Keyed(t, "../examples/leaderboard.yaml", model.IndexKeysSynthetic)
	good, _ := json.Marshal(d)
	edited := strings.Replace(string(good), `"index":"GSI2","keyCondition"`, `"index":"GSI1","keyCondition"`, 1)
	if edited == string(good) {
		t.Fatal("the edit changed nothing")
	}
	back, err := patterns.ReadDesign("plan.json", strings.NewReader(edited))
	if err != nil {
		t.Fatal(err)
	}
	rec := back.RecordedPlans()
	if len(rec) != 1 || rec[0].Name != "SeasonLeaderboard" || rec[0].Index != "GSI1" {
		t.Fatalf("recorded plans %+v, want SeasonLeaderboard's on GSI1", rec)
	}
	if got, want := back.Pattern("SeasonLeaderboard"), d.Pattern("SeasonLeaderboard"); got.Index != want.Index || got.Text != want.Text {
		t.Errorf("serves %s (%s), want %s (%s)", got.Index, got.Text, want.Index, want.Text)
	}
	if again, _ := patterns.ReadDesign("plan.json", bytes.NewReader(good)); len(again.RecordedPlans()) != 0 {
		t.Errorf("the design as planned records %+v", again.RecordedPlans())
	}
}

// FuzzReadDesign: whatever the bytes, ReadDesign returns a design or an
// ErrDesign, never a panic.
func FuzzReadDesign(f *testing.F) {
	m, _ := model.Load("../examples/ecommerce.yaml")
	d, _ := patterns.Plan(m)
	good, _ := json.Marshal(d)
	f.Add(good)
	f.Add([]byte(`{"format":1}`))
	f.Add([]byte(`{"format":1,"model":{"table":"T"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := patterns.ReadDesign("fuzz.json", bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, patterns.ErrDesign) {
				t.Fatalf("error does not match ErrDesign: %v", err)
			}
			return
		}
		if _, err := json.Marshal(d); err != nil {
			t.Fatal(err)
		}
		patterns.Check(d)
		patterns.EstimateCost(d)
	})
}
