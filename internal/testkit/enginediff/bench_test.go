package enginediff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/internal/engine"
)

// The benchmark's table: BenchItems items in partitions of
// BenchPartition (the table's), and a GSI whose partitions hold
// BenchItems/BenchGSIPartitions each. EnvBenchItems changes the item
// count (for a quick look; the figures in reports are at 100,000).
const (
	BenchItems         = 100_000
	BenchPartition     = 100
	BenchGSIPartitions = 50
	BenchPage          = 20
	EnvBenchItems      = "ENGINEDIFF_BENCH_ITEMS"
	benchTable         = "Bench"
	benchGSI           = "GSI1"
	// loaders write batches of 25 items at once
	benchLoaders = 4
)

func benchItems() int {
	if n, err := strconv.Atoi(os.Getenv(EnvBenchItems)); err == nil && n > 0 {
		return n
	}
	return BenchItems
}

// loadedEngine is an engine holding the benchmark's table.
type loadedEngine struct {
	db    *dynamodb.Client
	items int
	load  time.Duration
	err   error
}

var (
	loadedMu sync.Mutex
	loaded   = map[string]*loadedEngine{}
	// results are ns/op by engine and operation, from the run with the
	// largest b.N, for the ratios TestMain prints.
	results = map[string]map[string]benchResult{}
)

type benchResult struct {
	n    int
	nsOp float64
}

// sdkClient is a client of endpoint signing as keyplan's own do (the
// in-process engine's run key).
func sdkClient(endpoint string) *dynamodb.Client { return engine.Client(endpoint, time.Minute) }

func benchKey(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("p#%d", i/BenchPartition)},
		"sk": &types.AttributeValueMemberS{Value: fmt.Sprintf("s#%05d", i%BenchPartition)},
	}
}

func benchItem(i int) map[string]types.AttributeValue {
	it := benchKey(i)
	it["g1"] = &types.AttributeValueMemberS{Value: fmt.Sprintf("g#%d", i%BenchGSIPartitions)}
	it["g1s"] = &types.AttributeValueMemberN{Value: strconv.Itoa(i)}
	it["name"] = &types.AttributeValueMemberS{Value: fmt.Sprintf("item %d, with a payload of about a hundred bytes to look like a real item's attributes", i)}
	it["n"] = &types.AttributeValueMemberN{Value: strconv.Itoa(i * 7)}
	return it
}

// load starts engine name and writes the benchmark's table with
// BatchWriteItem, once per engine and test binary.
func load(b *testing.B, name string) *loadedEngine {
	b.Helper()
	srv := startEngine(b, name)
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if e, ok := loaded[name]; ok {
		if e.err != nil {
			b.Fatal(e.err)
		}
		return e
	}
	e := &loadedEngine{db: sdkClient(srv.Endpoint), items: benchItems()}
	loaded[name] = e
	ctx := context.Background()
	s := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	_, e.err = e.db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(benchTable), BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{s("pk"), s("sk"), s("g1"),
			{AttributeName: aws.String("g1s"), AttributeType: types.ScalarAttributeTypeN}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String(benchGSI),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g1"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("g1s"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}})
	if e.err != nil {
		b.Fatalf("%s: CreateTable: %v", name, e.err)
	}
	began := time.Now()
	batches := make(chan int)
	errs := make(chan error, benchLoaders)
	var wg sync.WaitGroup
	for range benchLoaders {
		wg.Go(func() {
			for first := range batches {
				var reqs []types.WriteRequest
				for i := first; i < min(first+25, e.items); i++ {
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: benchItem(i)}})
				}
				in := map[string][]types.WriteRequest{benchTable: reqs}
				for len(in) > 0 {
					out, err := e.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: in})
					if err != nil {
						errs <- err
						return
					}
					in = out.UnprocessedItems
				}
			}
		})
	}
	go func() {
		defer close(batches)
		for i := 0; i < e.items; i += 25 {
			select {
			case batches <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	wg.Wait()
	select {
	case e.err = <-errs:
		b.Fatalf("%s: loading: %v", name, e.err)
	default:
	}
	e.load = time.Since(began)
	b.Logf("%s: %d items loaded with BatchWriteItem in %s (%.0f items/s)", name, e.items, e.load.Round(time.Millisecond), float64(e.items)/e.load.Seconds())
	return e
}

func record(b *testing.B, eng, op string) {
	if b.N == 0 {
		return
	}
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if results[eng] == nil {
		results[eng] = map[string]benchResult{}
	}
	if r := results[eng][op]; b.N >= r.n {
		results[eng][op] = benchResult{n: b.N, nsOp: float64(b.Elapsed().Nanoseconds()) / float64(b.N)}
	}
}

// The operations BenchmarkEngines times, in the order they print.
var benchOps = []string{"PutItem", "GetItem", "QueryTable", "QueryGSI", "ScanPage"}

// BenchmarkEngines runs one workload on each engine, over HTTP with the
// Go SDK, on a table of 100,000 items loaded once per engine: PutItem
// (an existing item rewritten), GetItem, a Limit-20 Query of a table
// partition (100 items) and of a GSI partition (2,000 items), and a
// Limit-20 page of Scan from a random item's key. allocs/op count the
// client's allocations, and for the in-process engine the engine's too.
// TestMain prints the ratios between the engines (make bench-engine).
func BenchmarkEngines(b *testing.B) {
	for _, name := range engine.Names {
		b.Run(name, func(b *testing.B) {
			e := load(b, name)
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(1, 2))
			run := func(op string, f func() error) {
				b.Run(op, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if err := f(); err != nil {
							b.Fatalf("%s %s: %v", name, op, err)
						}
					}
					record(b, name, op)
				})
			}
			run("PutItem", func() error {
				_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(benchTable), Item: benchItem(rng.IntN(e.items))})
				return err
			})
			run("GetItem", func() error {
				out, err := e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(benchTable), Key: benchKey(rng.IntN(e.items))})
				if err == nil && out.Item == nil {
					err = fmt.Errorf("no item")
				}
				return err
			})
			page := func(in *dynamodb.QueryInput) error {
				out, err := e.db.Query(ctx, in)
				if err == nil && len(out.Items) != min(BenchPage, e.items) {
					err = fmt.Errorf("%d items, not %d", len(out.Items), BenchPage)
				}
				return err
			}
			run("QueryTable", func() error {
				return page(&dynamodb.QueryInput{TableName: aws.String(benchTable), Limit: aws.Int32(BenchPage),
					KeyConditionExpression:    aws.String("pk = :p"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":p": benchKey(rng.IntN(e.items - BenchPartition))["pk"]}})
			})
			run("QueryGSI", func() error {
				return page(&dynamodb.QueryInput{TableName: aws.String(benchTable), IndexName: aws.String(benchGSI), Limit: aws.Int32(BenchPage),
					KeyConditionExpression:    aws.String("g1 = :g"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: fmt.Sprintf("g#%d", rng.IntN(BenchGSIPartitions))}}})
			})
			run("ScanPage", func() error {
				out, err := e.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(benchTable), Limit: aws.Int32(BenchPage),
					ExclusiveStartKey: benchKey(rng.IntN(e.items))})
				if err == nil && len(out.Items) == 0 && out.LastEvaluatedKey != nil {
					err = fmt.Errorf("an empty page that is not the last")
				}
				return err
			})
		})
	}
}

// benchSummary is the table of ns/op by operation and engine, and the
// ratio of the in-process engine's to the fastest other's (above 1: the
// in-process engine is slower), or "" when no benchmark ran.
func benchSummary() string {
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if len(results) == 0 {
		return ""
	}
	var engines []string
	for _, n := range engine.Names {
		if results[n] != nil {
			engines = append(engines, n)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nengines compared (ns/op, over HTTP with the Go SDK; %s ÷ the fastest other, above 1 = slower):\n", engine.Memory)
	fmt.Fprintf(&b, "%-11s", "op")
	for _, n := range engines {
		fmt.Fprintf(&b, " %15s", n)
	}
	fmt.Fprintf(&b, " %22s\n", engine.Memory+" ÷ fastest other")
	for _, op := range benchOps {
		fmt.Fprintf(&b, "%-11s", op)
		best := 0.0
		for _, n := range engines {
			r, ok := results[n][op]
			if !ok {
				fmt.Fprintf(&b, " %15s", "-")
				continue
			}
			fmt.Fprintf(&b, " %15.0f", r.nsOp)
			if n != engine.Memory && (best == 0 || r.nsOp < best) {
				best = r.nsOp
			}
		}
		if m, ok := results[engine.Memory][op]; ok && best > 0 {
			fmt.Fprintf(&b, " %22.2f", m.nsOp/best)
		}
		b.WriteString("\n")
	}
	names := slices.Collect(func(yield func(string) bool) {
		for _, n := range engine.Names {
			if e := loaded[n]; e != nil && e.err == nil && e.load > 0 && !yield(n) {
				return
			}
		}
	})
	for _, n := range names {
		e := loaded[n]
		fmt.Fprintf(&b, "load of %s: %d items in %s (%.0f items/s)\n", n, e.items, e.load.Round(time.Millisecond), float64(e.items)/e.load.Seconds())
	}
	return b.String()
}
