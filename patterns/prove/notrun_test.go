package prove

import (
	"context"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/testkit/keyplantest"
	"github.com/keyplan/keyplan/internal/testkit/testmodel"
)

// erringModel has three patterns: one served (GetUser), one no index
// serves (ByEmail, KP101) and one a GSI serves with a strongly consistent
// read DynamoDB refuses (ByTeam, KP102); and a write of each kind.
const erringModel = testmodel.ErringUsersWithWrite

// A design with errors is proved where the errors do not reach: the
// patterns without one are run, those with one are reported as not run
// (with the rule ids), and the report says how many.
func TestValidateProvesWhatErrorsDoNotConcern(t *testing.T) {
	d := keyplantest.Parse(t, "users.yaml", []byte(erringModel))
	if len(d.Errors()) < 2 {
		t.Fatalf("the model has errors %v; the test needs KP101 and KP102", d.Errors())
	}
	rep := Validate(context.Background(), fresh(t, d))
	got := map[string]*Result{}
	for _, r := range rep.Results {
		got[r.Pattern] = r
	}
	if r := got["GetUser"]; r == nil || !r.OK() || r.NotRun != "" {
		t.Errorf("GetUser: %v", r)
	}
	for p, id := range map[string]string{"ByEmail": "KP101", "ByTeam": "KP102"} {
		if r := got[p]; r == nil || r.OK() || !strings.Contains(r.NotRun, id) || r.Actual != nil {
			t.Errorf("%s: %+v; want it not run, naming %s", p, r, id)
		}
	}
	if len(rep.Steps) != 1 || !rep.Steps[0].OK() || rep.Loaded != 1 {
		t.Errorf("the write ran: %+v, %d loaded", rep.Steps, rep.Loaded)
	}
	var b strings.Builder
	failed, _ := rep.WriteText(&b, "users.yaml")
	if failed != 0 || !strings.Contains(b.String(), "SKIP ByTeam(team=t1): not run: pattern ByTeam has error(s) KP102 (keyplan check)") {
		t.Errorf("%d failed:\n%s", failed, b.String())
	}
	if s := rep.Summary("users.yaml", "here"); s != "users.yaml: 1 item(s) loaded, 1 write(s), 3 expectation(s), 0 failed, 2 not run (their patterns have errors) (here)" {
		t.Errorf("summary %q", s)
	}
	if rep.OK() {
		t.Error("a report with expectations not run is OK")
	}
}
