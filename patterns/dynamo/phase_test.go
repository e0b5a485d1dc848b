package dynamo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	enginepkg "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/patterns"
)

// PhaseReady: a table at the phase is ready; one without the phase's GSI
// is not (NotAtPhaseError naming it), unless Apply applies it (on an
// engine with online index changes); a table keyed otherwise, or none,
// is refused.
func TestPhaseReady(t *testing.T) {
	ctx := context.Background()
	d := design(t, "../../examples/ecommerce.yaml")
	tbl := fresh(t, d)
	lock := patterns.NewLock(d)
	got, err := PhaseReady(ctx, engine, tbl.Name(), lock, PhaseOptions{})
	if err != nil || aws.ToString(got.TableName) != tbl.Name() {
		t.Fatalf("PhaseReady at the accepted design: %v", err)
	}

	deployed, _ := lock.Deployed()
	rekeyed := *deployed[0]
	rekeyed.PK = "otherPK"
	lock.Migration = &patterns.Migration{Target: d, Phases: []*patterns.Phase{{Indexes: append([]*patterns.PhaseIndex{&rekeyed}, deployed[1:]...)}}}
	if _, err := PhaseReady(ctx, engine, tbl.Name(), lock, PhaseOptions{}); err == nil || !strings.Contains(err.Error(), rekeyed.Name+" is keyed "+deployed[0].PK) {
		t.Errorf("PhaseReady with %s keyed otherwise: %v", rekeyed.Name, err)
	}
	gsi9 := &patterns.PhaseIndex{Name: "GSI9", PK: "GSI9PK", SK: "GSI9SK", Projection: patterns.ProjectAll}
	lock.Migration = &patterns.Migration{Target: d, Phases: []*patterns.Phase{{Create: []string{"GSI9"}, Indexes: append(slices.Clone(deployed), gsi9)}}}
	_, err = PhaseReady(ctx, engine, tbl.Name(), lock, PhaseOptions{})
	var np *NotAtPhaseError
	if !errors.As(err, &np) || !slices.Equal(np.Missing, []string{"GSI9"}) || len(np.Extra) != 0 {
		t.Fatalf("PhaseReady before the phase is deployed: %v; want GSI9 missing", err)
	}
	var logged []string
	got, err = PhaseReady(ctx, engine, tbl.Name(), lock, PhaseOptions{Apply: true, Log: func(m string) { logged = append(logged, m) }})
	switch engineName {
	case enginepkg.Memory, enginepkg.DynamoDBLocal: // online index creation
		if err != nil || len(got.GlobalSecondaryIndexes) != len(deployed)+1 {
			t.Fatalf("PhaseReady with Apply: %v (%d GSIs)", err, len(got.GlobalSecondaryIndexes))
		}
		if len(logged) == 0 || !strings.Contains(logged[0], "create [GSI9]") {
			t.Errorf("logged %q", logged)
		}
		// Back at the accepted design, GSI9 is one too many.
		lock.Migration = nil
		if _, err := PhaseReady(ctx, engine, tbl.Name(), lock, PhaseOptions{}); !errors.As(err, &np) || !slices.Equal(np.Extra, []string{"GSI9"}) {
			t.Errorf("PhaseReady with an index the phase lacks: %v", err)
		}
	case enginepkg.Dynalite:
		if err == nil || !strings.Contains(err.Error(), "GSI9") {
			t.Fatalf("PhaseReady with Apply on dynalite: %v", err)
		}
	default:
		t.Logf("an outside engine (%s): PhaseReady with Apply returned %v", engineName, err)
	}

	if _, err := engine.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("phase-keyed-ab"), BillingMode: "PAY_PER_REQUEST",
		KeySchema: keySchema("a", "b"), AttributeDefinitions: stringAttrs("a", "b")}); err != nil {
		t.Fatal(err)
	}
	defer engine.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("phase-keyed-ab")})
	if _, err := PhaseReady(ctx, engine, "phase-keyed-ab", patterns.NewLock(d), PhaseOptions{}); err == nil || !strings.Contains(err.Error(), "its key is a/b") {
		t.Errorf("PhaseReady on a table keyed a/b: %v", err)
	}
	if _, err := PhaseReady(ctx, engine, "no-such-table", patterns.NewLock(d), PhaseOptions{}); err == nil || !strings.Contains(err.Error(), "no such table") {
		t.Errorf("PhaseReady without the table: %v", err)
	}
}
