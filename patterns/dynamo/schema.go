package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns"
)

// CreateTableInput is the table of a design (on-demand), for engines that
// are not deployed with the singletable construct: keyplan validate, tests,
// DynamoDB Local.
func CreateTableInput(d *patterns.Design, name string) *dynamodb.CreateTableInput {
	return LockTableInput(patterns.NewLock(d), name)
}

// LockTableInput is the table as a lock's current phase deploys it (the
// accepted base keys, the phase's GSIs), on-demand. Engines without online
// index changes (dynalite) start a migration's table here.
func LockTableInput(l *patterns.Lock, name string) *dynamodb.CreateTableInput {
	d := l.Accepted
	indexes, _ := l.Deployed()
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		KeySchema:            keySchema(d.PK, d.SK),
		AttributeDefinitions: stringAttrs(d.PK, d.SK),
	}
	for _, ix := range indexes {
		in.AttributeDefinitions = addAttrs(in.AttributeDefinitions, indexAttrs(ix))
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:  aws.String(ix.Name),
			KeySchema:  indexKeySchema(ix),
			Projection: projection(ix),
		})
	}
	lsis, attrs := localIndexes(d)
	in.LocalSecondaryIndexes = lsis
	in.AttributeDefinitions = addAttrs(in.AttributeDefinitions, attrs)
	return in
}

func keySchema(pk, sk string) []types.KeySchemaElement {
	return []types.KeySchemaElement{
		{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange},
	}
}

func stringAttrs(names ...string) []types.AttributeDefinition {
	out := make([]types.AttributeDefinition, 0, len(names))
	for _, n := range names {
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS})
	}
	return out
}

func projection(ix *patterns.PhaseIndex) *types.Projection {
	p := &types.Projection{ProjectionType: types.ProjectionType(ix.Projection)}
	if len(ix.NonKeyAttributes) > 0 {
		p.NonKeyAttributes = ix.NonKeyAttributes
	}
	return p
}

// TableAdmin is what creating and dropping a table takes.
type TableAdmin interface {
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error)
}

// CreateTable creates the design's table and waits (at most a minute)
// until it and its indexes are active.
func CreateTable(ctx context.Context, c TableAdmin, d *patterns.Design, name string) error {
	return CreateLockTable(ctx, c, patterns.NewLock(d), name)
}

// CreateLockTable creates the table as the lock's current phase deploys
// it (LockTableInput) and waits (at most a minute) until it and its
// indexes are active.
func CreateLockTable(ctx context.Context, c TableAdmin, l *patterns.Lock, name string) error {
	_, err := createLockTable(ctx, c, l, name)
	return err
}

// ErrTableExists: a table of the name is there already (the engine's
// ResourceInUseException to CreateTable). It is not this run's: nothing
// of keyplan's drops it.
var ErrTableExists = errors.New("exists already")

// createLockTable is CreateLockTable; created reports whether the engine
// accepted the CreateTable request: the table is then the caller's to
// drop, even when waiting for it fails. A table the request did not
// create (ErrTableExists, a request cut short) is never the caller's.
func createLockTable(ctx context.Context, c TableAdmin, l *patterns.Lock, name string) (created bool, err error) {
	if _, err := c.CreateTable(ctx, LockTableInput(l, name)); err != nil {
		var inUse *types.ResourceInUseException
		if errors.As(err, &inUse) {
			return false, fmt.Errorf("table %s %w (the engine: %s)", name, ErrTableExists, inUse.ErrorMessage())
		}
		return false, fmt.Errorf("creating table %s: %w", name, err)
	}
	_, err = waitActive(ctx, c, name, time.Minute, nil)
	return true, err
}

// DropTable deletes a table, waiting while it is still being created (a
// table DynamoDB is creating cannot be deleted) until ctx ends; a table
// already gone is fine. For scratch tables: keyplan validate's, tests';
// only ever a table the caller created (createLockTable's created).
func DropTable(ctx context.Context, c TableAdmin, name string) error {
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		_, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		var nf *types.ResourceNotFoundException
		var inUse *types.ResourceInUseException
		switch {
		case err == nil || errors.As(err, &nf):
			return nil
		case !errors.As(err, &inUse):
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("table %s is still in use: %w", name, err)
		case <-time.After(wait):
		}
	}
}

// Describer is what reading a table's description takes.
type Describer interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

// DescribeTable reads a table's description: an error names a table that
// does not exist.
func DescribeTable(ctx context.Context, c Describer, name string) (*types.TableDescription, error) {
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	var nf *types.ResourceNotFoundException
	switch {
	case errors.As(err, &nf):
		return nil, fmt.Errorf("no such table %s", name)
	case err != nil:
		return nil, fmt.Errorf("describing table %s: %w", name, err)
	case out.Table == nil:
		return nil, fmt.Errorf("describing table %s: the engine returned no table", name)
	}
	return out.Table, nil
}

// building lists a table's GSIs that are not ACTIVE ("GSI3 (CREATING)").
func building(t *types.TableDescription) []string {
	var out []string
	for _, g := range t.GlobalSecondaryIndexes {
		if g.IndexStatus != types.IndexStatusActive {
			out = append(out, fmt.Sprintf("%s (%s)", aws.ToString(g.IndexName), g.IndexStatus))
		}
	}
	return out
}

// waitActive waits until a table and its indexes are ACTIVE, and returns
// its description then. It polls with a growing pause, from 100 ms to 1 s
// within a limit (limit > 0: a local engine's new table), to 5 s without
// one (DynamoDB builds a GSI on a large table for hours); log, when set,
// is told once what it waits for.
func waitActive(ctx context.Context, c TableAdmin, name string, limit time.Duration, log func(string)) (*types.TableDescription, error) {
	start := time.Now()
	longest := 5 * time.Second
	if limit > 0 {
		longest = time.Second
	}
	for pause := 100 * time.Millisecond; ; pause = min(2*pause, longest) {
		t, err := DescribeTable(ctx, c, name)
		if err != nil {
			return nil, err
		}
		b := building(t)
		if t.TableStatus == types.TableStatusActive && len(b) == 0 {
			return t, nil
		}
		if limit > 0 && time.Since(start) > limit {
			return nil, fmt.Errorf("table %s is not active after %v", name, limit)
		}
		if log != nil {
			log(fmt.Sprintf("waiting for %s %s to be ACTIVE (DynamoDB is building it; Ctrl-C stops)", name, strings.Join(b, ", ")))
			log = nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pause):
		}
	}
}

// IndexAdmin is what changing a table's GSIs takes.
type IndexAdmin interface {
	TableAdmin
	UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
}

// indexState is a table's GSIs next to a phase's list.
type indexState struct {
	// missing are the phase's GSIs the table lacks, in the phase's order.
	missing []*patterns.PhaseIndex
	// extra are the table's GSIs the phase does not have, sorted.
	extra []string
	// keyed is an error for a GSI of the phase the table has with other
	// keys: not this design's table.
	keyed error
}

func compareIndexes(t *types.TableDescription, want []*patterns.PhaseIndex) indexState {
	var st indexState
	have := map[string]types.GlobalSecondaryIndexDescription{}
	for _, g := range t.GlobalSecondaryIndexes {
		have[aws.ToString(g.IndexName)] = g
	}
	for _, ix := range want {
		g, ok := have[ix.Name]
		if !ok {
			st.missing = append(st.missing, ix)
			continue
		}
		if got, exp := schemaText(g.KeySchema), schemaText(indexKeySchema(ix)); got != exp && st.keyed == nil {
			st.keyed = fmt.Errorf("%s is keyed %s, the phase's %s: not this model's table", ix.Name, got, exp)
		}
	}
	for n := range have {
		if !slices.ContainsFunc(want, func(ix *patterns.PhaseIndex) bool { return ix.Name == n }) {
			st.extra = append(st.extra, n)
		}
	}
	slices.Sort(st.extra)
	return st
}

// IndexDiff compares a table's GSIs with a phase's list: the phase's GSIs
// the table lacks (in the phase's order), and the table's GSIs the phase
// does not have (sorted).
func IndexDiff(t *types.TableDescription, want []*patterns.PhaseIndex) (missing []*patterns.PhaseIndex, extra []string) {
	st := compareIndexes(t, want)
	return st.missing, st.extra
}

// keyNames reads a key schema's partition and sort key attributes.
func keyNames(schema []types.KeySchemaElement) (pk, sk string) {
	for _, k := range schema {
		if k.KeyType == types.KeyTypeHash {
			pk = aws.ToString(k.AttributeName)
		} else {
			sk = aws.ToString(k.AttributeName)
		}
	}
	return pk, sk
}

// ApplyIndexes brings a table's GSIs to a phase's list (patterns.Phase
// Indexes): it creates the missing ones and deletes the others, one
// UpdateTable at a time (DynamoDB takes one GSI change per update),
// waiting after each until the table and its indexes are ACTIVE, then
// checks the engine did it: dynalite accepts the call and changes
// nothing, which is an error here, not a silent success. For local
// engines and `keyplan migrate --apply-indexes`: on AWS, cdk deploy does
// this.
func ApplyIndexes(ctx context.Context, c IndexAdmin, name string, want []*patterns.PhaseIndex) error {
	t, err := DescribeTable(ctx, c, name)
	if err != nil {
		return err
	}
	// A provisioned table's new index takes the table's capacity; an
	// on-demand table's takes none (DynamoDB refuses it there).
	var capacity *types.ProvisionedThroughput
	if b := t.BillingModeSummary; (b == nil || b.BillingMode == types.BillingModeProvisioned) && t.ProvisionedThroughput != nil &&
		aws.ToInt64(t.ProvisionedThroughput.ReadCapacityUnits) > 0 {
		capacity = &types.ProvisionedThroughput{
			ReadCapacityUnits:  t.ProvisionedThroughput.ReadCapacityUnits,
			WriteCapacityUnits: t.ProvisionedThroughput.WriteCapacityUnits,
		}
	}
	st := compareIndexes(t, want)
	for _, ix := range st.missing {
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: indexAttrs(ix),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName:             aws.String(ix.Name),
				KeySchema:             indexKeySchema(ix),
				Projection:            projection(ix),
				ProvisionedThroughput: capacity,
			}}},
		})
		if err != nil {
			return fmt.Errorf("creating index %s on %s: %w", ix.Name, name, err)
		}
		if _, err := waitActive(ctx, c, name, time.Minute, nil); err != nil {
			return err
		}
	}
	for _, ix := range st.extra {
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName:                   aws.String(name),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(ix)}}},
		})
		if err != nil {
			return fmt.Errorf("deleting index %s on %s: %w", ix, name, err)
		}
		if _, err := waitActive(ctx, c, name, time.Minute, nil); err != nil {
			return err
		}
	}
	after, err := DescribeTable(ctx, c, name)
	if err != nil {
		return err
	}
	if left := compareIndexes(after, want); len(left.missing) > 0 || len(left.extra) > 0 {
		var got, exp []string
		for _, g := range after.GlobalSecondaryIndexes {
			got = append(got, aws.ToString(g.IndexName))
		}
		for _, ix := range want {
			exp = append(exp, ix.Name)
		}
		slices.Sort(got)
		slices.Sort(exp)
		return fmt.Errorf("table %s has indexes %v after the changes, want %v: the engine does not apply online index changes (dynalite does not); create the table at the phase instead (dynamo.LockTableInput)", name, got, exp)
	}
	return nil
}

// PhaseOptions tune PhaseReady.
type PhaseOptions struct {
	// Apply brings the table's GSIs to the phase's with ApplyIndexes when
	// they differ (local engines; on AWS, cdk deploy does it). Default:
	// a table not at the phase is an error (*NotAtPhaseError).
	Apply bool
	// Log, when set, is told what PhaseReady applies and waits for.
	Log func(msg string)
}

// NotAtPhaseError says a table's GSIs are not the phase's: the phase is
// not deployed yet, and no key is written for an index that is not there.
type NotAtPhaseError struct {
	Table          string
	Missing, Extra []string
}

func (e *NotAtPhaseError) Error() string {
	if len(e.Missing) > 0 {
		return fmt.Sprintf("%s does not exist: deploy the phase first (cdk deploy), or apply its indexes on a local engine; keyplan writes no keys for an index that is not there", strings.Join(e.Missing, ", "))
	}
	return fmt.Sprintf("%s still exists, which the phase does not have: deploy the phase first (cdk deploy), or apply its indexes on a local engine", strings.Join(e.Extra, ", "))
}

// PhaseReady checks that a table is deployed at the lock's current phase
// (Lock.Deployed): the accepted design's base key, the phase's GSIs with
// their keys and no other, each ACTIVE (it waits while DynamoDB builds
// one, until ctx ends). It returns the table's description.
func PhaseReady(ctx context.Context, c IndexAdmin, table string, l *patterns.Lock, o PhaseOptions) (*types.TableDescription, error) {
	want, _ := l.Deployed()
	log := o.Log
	if log == nil {
		log = func(string) {}
	}
	applied := false
	for {
		t, err := DescribeTable(ctx, c, table)
		if err != nil {
			return nil, err
		}
		if pk, sk := keyNames(t.KeySchema); pk != l.Accepted.PK || sk != l.Accepted.SK {
			return nil, fmt.Errorf("its key is %s/%s, not the design's %s/%s: not this model's table", pk, sk, l.Accepted.PK, l.Accepted.SK)
		}
		if err := checkLocal(t, l.Accepted); err != nil {
			return nil, err
		}
		st := compareIndexes(t, want)
		if st.keyed != nil {
			return nil, st.keyed
		}
		if len(st.missing) > 0 || len(st.extra) > 0 {
			if !o.Apply || applied {
				e := &NotAtPhaseError{Table: table, Extra: st.extra}
				for _, ix := range st.missing {
					e.Missing = append(e.Missing, ix.Name)
				}
				return nil, e
			}
			var create []string
			for _, ix := range st.missing {
				create = append(create, ix.Name)
			}
			log(fmt.Sprintf("applying the phase's indexes (create %v, delete %v)", create, st.extra))
			if err := ApplyIndexes(ctx, c, table, want); err != nil {
				return nil, err
			}
			applied = true
			continue
		}
		if t.TableStatus == types.TableStatusActive && len(building(t)) == 0 {
			return t, nil
		}
		if _, err := waitActive(ctx, c, table, 0, log); err != nil {
			return nil, err
		}
	}
}
