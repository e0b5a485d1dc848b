package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	localengine "github.com/keyplan/keyplan/internal/engine"
	"github.com/keyplan/keyplan/internal/engine/usercache"
	"github.com/keyplan/keyplan/internal/testkit/enginepass"
	"github.com/keyplan/keyplan/patterns"
)

// A layout of a published single-table design, made by hand with the SDK:
// its GSIs (each GSI<n>PK/GSI<n>SK, projecting ALL) and its items.
type layout struct {
	name  string
	gsis  []string
	items []map[string]string
	// key is an entity's keys: line the new pattern's GSI2 key goes
	// after, pattern the new pattern, want the items GSI2 then holds
	// under partition key GSI2PK.
	key, pattern, partition string
	want                    int
	// hot is the attribute a GSI partitions on that takes few values
	// (a hot partition once the model says how few; "" for none).
	hot string
}

var layouts = []layout{
	// Item collections: The DynamoDB Book's e-commerce store (a
	// customer and its orders in one partition, an order's items on GSI1).
	{"Store", []string{"GSI1"}, []map[string]string{
		{"PK": "CUSTOMER#alexdebrie", "SK": "CUSTOMER#alexdebrie", "username": "alexdebrie", "email": "alex@example.com"},
		{"PK": "CUSTOMER#t1", "SK": "CUSTOMER#t1", "username": "t1", "email": "t1@example.com"},
		{"PK": "CUSTOMER#alexdebrie", "SK": "#ORDER#1a2b", "username": "alexdebrie", "orderId": "1a2b", "status": "SHIPPED"},
		{"PK": "CUSTOMER#alexdebrie", "SK": "#ORDER#3c4d", "username": "alexdebrie", "orderId": "3c4d", "status": "PLACED"},
		{"PK": "CUSTOMER#t1", "SK": "#ORDER#t10", "username": "t1", "orderId": "t10", "status": "PLACED"},
		{"PK": "ORDER#1a2b#ITEM#i1", "SK": "ORDER#1a2b#ITEM#i1", "orderId": "1a2b", "itemId": "i1", "GSI1PK": "ORDER#1a2b", "GSI1SK": "ITEM#i1"},
		{"PK": "ORDER#1a2b#ITEM#i2", "SK": "ORDER#1a2b#ITEM#i2", "orderId": "1a2b", "itemId": "i2", "GSI1PK": "ORDER#1a2b", "GSI1SK": "ITEM#i2"},
		{"PK": "ORDER#t10#ITEM#i1", "SK": "ORDER#t10#ITEM#i1", "orderId": "t10", "itemId": "i1", "GSI1PK": "ORDER#t10", "GSI1SK": "ITEM#i1"},
	}, "      table: {pk: 'CUSTOMER#{username}', sk: '#ORDER#{orderId}'}\n      GSI2: {pk: 'STATUS#{status}', sk: '#ORDER#{orderId}'}",
		"OrdersByStatus: {query: CUSTOMER, where: [status], sort: orderId}", "STATUS#PLACED", 2, ""},
	// An overloaded GSI: AWS's guide's HR example, employees and projects
	// of an organization on one GSI1, told apart by their sort keys.
	{"HR", []string{"GSI1"}, []map[string]string{
		{"PK": "EMP#e1", "SK": "EMP#e1", "empId": "e1", "org": "eng", "name": "ann", "GSI1PK": "ORG#eng", "GSI1SK": "EMP#ann"},
		{"PK": "EMP#e2", "SK": "EMP#e2", "empId": "e2", "org": "eng", "name": "bob", "GSI1PK": "ORG#eng", "GSI1SK": "EMP#bob"},
		{"PK": "EMP#e3", "SK": "EMP#e3", "empId": "e3", "org": "ops", "name": "cy", "GSI1PK": "ORG#ops", "GSI1SK": "EMP#cy"},
		{"PK": "PROJ#p1", "SK": "PROJ#p1", "projId": "p1", "org": "eng", "title": "db", "GSI1PK": "ORG#eng", "GSI1SK": "PROJ#db"},
		{"PK": "PROJ#p2", "SK": "PROJ#p2", "projId": "p2", "org": "ops", "title": "ci", "GSI1PK": "ORG#ops", "GSI1SK": "PROJ#ci"},
	}, "      table: {pk: 'EMP#{empId}', sk: 'EMP#{empId}'}\n      GSI2: {pk: 'NAME#{name}', sk: 'EMP#{empId}'}",
		"EmployeesByName: {query: EMP, where: [name]}", "NAME#ann", 1, "org"},
	// A sparse index: seed 003's pending orders alone on GSI1.
	{"Payments", []string{"GSI1"}, []map[string]string{
		{"PK": "ORDER#o1", "SK": "ORDER", "orderId": "o1", "merchantId": "m1", "status": "PENDING", "GSI1PK": "MERCHANT#m1#STATUS#PENDING", "GSI1SK": "ORDER#o1"},
		{"PK": "ORDER#o2", "SK": "ORDER", "orderId": "o2", "merchantId": "m1", "status": "SETTLED"},
		{"PK": "ORDER#o3", "SK": "ORDER", "orderId": "o3", "merchantId": "m2", "status": "PENDING", "GSI1PK": "MERCHANT#m2#STATUS#PENDING", "GSI1SK": "ORDER#o3"},
		{"PK": "ORDER#o4", "SK": "ORDER", "orderId": "o4", "merchantId": "m2", "status": "SETTLED"},
		{"PK": "ORDER#o5", "SK": "ORDER", "orderId": "o5", "merchantId": "m1", "status": "SETTLED"},
	}, "      table: {pk: 'ORDER#{orderId}', sk: ORDER}\n      GSI2: {pk: 'STATUS#{status}', sk: 'ORDER#{orderId}'}",
		"OrdersByStatus: {query: ORDER, where: [status], sort: orderId}", "STATUS#SETTLED", 3, ""},
}

// create makes the layout's table by hand, as its designers would.
func (l layout) create(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	ctx := context.Background()
	defs := []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS}}
	in := &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange}}}
	for _, g := range l.gsis {
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(g + "PK"), AttributeType: types.ScalarAttributeTypeS}, types.AttributeDefinition{AttributeName: aws.String(g + "SK"), AttributeType: types.ScalarAttributeTypeS})
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{IndexName: aws.String(g), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String(g + "PK"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(g + "SK"), KeyType: types.KeyTypeRange}}})
	}
	in.AttributeDefinitions = defs
	if _, err := c.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	active(t, c, name)
	for _, it := range l.items {
		item := map[string]types.AttributeValue{}
		for k, v := range it {
			item[k] = &types.AttributeValueMemberS{Value: v}
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
}

// active waits until a table just created is ACTIVE (dynalite creates
// one in the background).
func active(t *testing.T, c *dynamodb.Client, table string) {
	t.Helper()
	w := dynamodb.NewTableExistsWaiter(c, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 20*time.Millisecond, 200*time.Millisecond
	})
	if err := w.Wait(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
}

// settle waits until the table's GSI name is ACTIVE (or gone, when not
// want): engines that build a GSI in the background (DynamoDB Local)
// refuse to delete one being created.
func settle(t *testing.T, c *dynamodb.Client, table, name string, want bool) {
	t.Helper()
	for range 600 {
		out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(out.Table.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndexDescription) bool { return *g.IndexName == name })
		if !want && i < 0 || want && i >= 0 && out.Table.GlobalSecondaryIndexes[i].IndexStatus == types.IndexStatusActive {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("GSI %s of %s did not settle", name, table)
}

// collections are, per published layout, the collections KP408 finds
// unbounded in its imported model ("PARTITION partition of INDEX"), the
// ones it must not (bounded: one item a partition), and an attribute
// whose declared cardinality bounds the first of them.
var collections = map[string]struct {
	unbounded, bounded []string
	answer             string
}{
	"Store":    {[]string{"CUSTOMER#{username} partition of the table", "ORDER#{orderId} partition of GSI1"}, []string{"entity CUSTOMER2:"}, "orderId"},
	"HR":       {[]string{"EMP items one ORG#{org} partition of GSI1", "PROJ items one ORG#{org} partition of GSI1"}, []string{"partition of the table"}, ""},
	"Payments": {[]string{"MERCHANT#{merchantId}#STATUS#{status} partition of GSI1"}, []string{"partition of the table"}, "orderId"},
}

// unboundedCollections checks keyplan check's KP408 on a layout's
// imported model: where the layout is unbounded, and nowhere else; with
// the cardinality answered, that finding goes.
func unboundedCollections(t *testing.T, layout, src, out string) {
	t.Helper()
	want := collections[layout]
	var found []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "[KP408]") {
			found = append(found, line)
		}
	}
	all := strings.Join(found, "\n")
	for _, u := range want.unbounded {
		if !strings.Contains(all, u) {
			t.Errorf("%s: KP408 does not find the %s unbounded:\n%s", layout, u, out)
		}
	}
	for _, b := range want.bounded {
		if strings.Contains(all, b) {
			t.Errorf("%s: KP408 fires where the layout is bounded (%s):\n%s", layout, b, all)
		}
	}
	if len(found) != len(want.unbounded) {
		t.Errorf("%s: %d KP408 finding(s), want %d:\n%s", layout, len(found), len(want.unbounded), all)
	}
	if want.answer == "" {
		return
	}
	answered := filepath.Join(t.TempDir(), "bounded.yaml")
	os.WriteFile(answered, []byte(strings.ReplaceAll(src, "      "+want.answer+": string\n", "      "+want.answer+": {type: string, cardinality: 500}\n")), 0o644)
	code, out, errs := keyplan("check", answered)
	if code != 0 || strings.Contains(out, want.unbounded[0]) || strings.Count(out, "[KP408]") != len(want.unbounded)-1 {
		t.Errorf("%s: with %s's cardinality declared, check: exit %d, want the %s finding gone\n%s%s", layout, want.answer, code, want.unbounded[0], out, errs)
	}
}

// Acceptance (issue 36): three published layouts made by hand are
// imported; the model's examples validate against the live table, diff
// --live is clean and reports a GSI added by hand, and a new pattern on
// the imported model migrates with backfill.
func TestAdoptPublishedLayouts(t *testing.T) {
	t.Parallel()
	ep := engine(t)
	c := localengine.Client(ep, 0)
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			table := fmt.Sprintf("adopt-%s-%d", l.name, tableSeq.Add(1))
			l.create(t, c, table)
			model := filepath.Join(t.TempDir(), strings.ToLower(l.name)+".yaml")
			code, out, errs := keyplan("import", "table", table, "--endpoint", ep, "--out", model)
			src, _ := os.ReadFile(model)
			if code != 0 || !strings.Contains(out, model+".lock.json") && !strings.Contains(out, "lock.json") {
				t.Fatalf("import: exit %d\n%s%s\n%s", code, out, errs, src)
			}
			if code, out, errs := keyplan("validate", model, "--existing", "--table", table, "--endpoint", ep); code != 0 {
				t.Fatalf("validate --existing: exit %d\n%s%s\n%s", code, out, errs, src)
			}
			if code, out, errs := keyplan("check", model); code != 0 {
				t.Errorf("check: exit %d\n%s%s", code, out, errs)
			} else {
				unboundedCollections(t, l.name, string(src), out)
			}
			// What the sample cannot say is asked; answered, check reports the weakness.
			if l.hot != "" {
				q := "GSI1 partitions it by " + l.hot + ": how many values do they take in the table?"
				if !strings.Contains(string(src), q) || !strings.Contains(errs, q) {
					t.Errorf("the model and stderr do not ask %q\n%s", q, errs)
				}
				answered := filepath.Join(t.TempDir(), "answered.yaml")
				os.WriteFile(answered, []byte(strings.Replace(string(src), "      "+l.hot+": string\n", "      "+l.hot+": {type: string, cardinality: 2}\n", 1)), 0o644)
				if code, out, errs := keyplan("check", answered); code != 0 || !strings.Contains(out, "KP401") {
					t.Errorf("check of the answered model: exit %d, want 0 and KP401\n%s%s", code, out, errs)
				}
			}
			// The expectations are the keys': a model keyed otherwise fails them.
			broken := filepath.Join(t.TempDir(), "broken.yaml")
			os.WriteFile(broken, []byte(strings.Replace(string(src), "table: {pk: '", "table: {pk: 'X", 1)), 0o644)
			if code, out, errs := keyplan("validate", broken, "--existing", "--table", table, "--endpoint", ep); code != 1 {
				t.Errorf("validate --existing of a model keyed otherwise: exit %d, want 1\n%s%s", code, out, errs)
			}
			live := func(want int, holds ...string) {
				t.Helper()
				code, out, errs := keyplan("diff", model, "--live", "--table", table, "--endpoint", ep)
				for _, h := range holds {
					if !strings.Contains(out, h) {
						code = -1
					}
				}
				if code != want {
					t.Fatalf("diff --live: exit %d, want %d and %q\n%s%s", code, want, holds, out, errs)
				}
			}
			live(0, "is as its lock says")
			if why := engineOn.Lacks(localengine.OnlineIndexes); why != "" {
				t.Skip(why) // the rest creates GSIs on a table that holds items
			}
			// A GSI added by hand is drift, and the phases deploy from it.
			ctx := context.Background()
			_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("email"), AttributeType: types.ScalarAttributeTypeS}},
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("Manual"),
					KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("email"), KeyType: types.KeyTypeHash}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
			if err != nil {
				t.Fatal(err)
			}
			settle(t, c, table, "Manual", true)
			live(1, "gsi-unexpected index Manual", "phase 1 from the table as it is: delete Manual", "differs from its lock: 1 difference(s)")
			if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("Manual")}}}}); err != nil {
				t.Fatal(err)
			}
			settle(t, c, table, "Manual", false)
			live(0, "is as its lock says")

			// A new pattern on the adopted model: diff, lock, migrate with backfill.
			line, _, _ := strings.Cut(l.key, "\n")
			grown := strings.Replace(string(src), line+"\n", l.key+"\n", 1)
			grown = strings.Replace(grown, "\npatterns:\n", "\npatterns:\n  "+l.pattern+"\n", 1)
			if grown == string(src) || !strings.Contains(grown, "GSI2") {
				t.Fatalf("the new pattern did not go in:\n%s", grown)
			}
			os.WriteFile(model, []byte(grown), 0o644)
			if code, out, errs := keyplan("diff", model); code != 1 || !strings.Contains(out, "GSI2") {
				t.Fatalf("diff: exit %d\n%s%s", code, out, errs)
			}
			if code, out, errs := keyplan("lock", model); code != 0 || !strings.Contains(out, "migration at phase 1") {
				t.Fatalf("lock: exit %d\n%s%s", code, out, errs)
			}
			if code, out, errs := keyplan("migrate", model, "--table", table, "--endpoint", ep, "--apply-indexes", "--progress", "0"); code != 0 {
				t.Fatalf("migrate: exit %d\n%s%s", code, out, errs)
			}
			q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("GSI2"),
				KeyConditionExpression: aws.String("GSI2PK = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: l.partition}}})
			if err != nil || len(q.Items) != l.want {
				t.Fatalf("GSI2 %s after the backfill: %v, %d item(s), want %d", l.partition, err, len(q.Items), l.want)
			}
			if code, out, errs := keyplan("validate", model, "--existing", "--table", table, "--endpoint", ep); code != 0 {
				t.Fatalf("validate --existing after the migration: exit %d\n%s%s", code, out, errs)
			}
			live(0, "is as its lock says")
		})
	}
}

// What a table made by hand may hold that the inference cannot read:
// each import still writes a model that loads (or says, exit 1, why it
// does not), says what it could not infer on stderr, and never panics.
func TestImportTableBadInput(t *testing.T) {
	t.Parallel()
	ep := engine(t)
	c := localengine.Client(ep, 0)
	many := layout{name: "Fifty", gsis: []string{"GSI1"}}
	for i := range 50 {
		many.items = append(many.items, map[string]string{"PK": fmt.Sprintf("KIND%d#x", i), "SK": fmt.Sprintf("KIND%d#x", i), "v": "1"})
	}
	noPattern := layout{name: "Noise"}
	for _, k := range []string{"a", "b#c", "{x}", "d%e", "ORDER#", "#", "t1", "t10", "x#y#z"} {
		noPattern.items = append(noPattern.items, map[string]string{"PK": k, "SK": k + "!", "GSI1PK": "p"})
	}
	small := layout{name: "Small", gsis: []string{"GSI1"}, items: layouts[0].items}
	guarded := layout{name: "Guarded", items: append(slices.Clone(layouts[1].items), map[string]string{"PK": patterns.GuardTag + "#EMP#NAME#ann", "SK": patterns.GuardTag, "owner": "EMP#e1"})}
	for _, tt := range []struct {
		l     layout
		args  []string
		codes []int
		says  string
	}{
		{layout{name: "Empty", gsis: []string{"GSI1"}}, nil, []int{0}, "question: entities: nothing in the sample says what the table's entities are"},
		{many, nil, []int{0, 1}, "50 item(s)"},
		{noPattern, nil, []int{0, 1}, "guess"},
		{small, []string{"--items", "2"}, []int{0, 1}, "the sample is 2 of some"},
		{guarded, nil, []int{0}, "1 item(s) are keyplan's own bookkeeping"},
	} {
		t.Run(tt.l.name, func(t *testing.T) {
			table := fmt.Sprintf("bad-%s-%d", tt.l.name, tableSeq.Add(1))
			tt.l.create(t, c, table)
			model := filepath.Join(t.TempDir(), "m.yaml")
			code, out, errs := keyplan(append([]string{"import", "table", table, "--endpoint", ep, "--out", model}, tt.args...)...)
			src, err := os.ReadFile(model)
			if !slices.Contains(tt.codes, code) || err != nil || !strings.Contains(errs, tt.says) || !strings.Contains(string(src), tt.says) {
				t.Fatalf("exit %d, want %v and %q on stderr and in the model\n%s%s\n%s", code, tt.codes, tt.says, out, errs, src)
			}
			if code == 0 {
				if code, out, errs := keyplan("check", model); code > 1 {
					t.Errorf("check: exit %d\n%s%s", code, out, errs)
				}
			}
			// Never over what it wrote.
			if code, _, errs := keyplan("import", "table", table, "--endpoint", ep, "--out", model); code != 2 || !strings.Contains(errs, "exists") {
				t.Errorf("a second import over the model: exit %d\n%s", code, errs)
			}
		})
	}
	// Binary keys: keyplan's are strings, which the model says.
	table := fmt.Sprintf("bad-Binary-%d", tableSeq.Add(1))
	ctx := context.Background()
	b := func(s string) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(s), KeyType: map[string]types.KeyType{"PK": types.KeyTypeHash, "SK": types.KeyTypeRange}[s]}
	}
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest, KeySchema: []types.KeySchemaElement{b("PK"), b("SK")},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeB}, {AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeB}}}); err != nil {
		t.Fatal(err)
	}
	defer c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	active(t, c, table)
	for _, k := range []string{"\x00\x01", "USER#1", "\xff"} {
		c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberB{Value: []byte(k)}, "SK": &types.AttributeValueMemberB{Value: []byte(k)}}})
	}
	model := filepath.Join(t.TempDir(), "bin.yaml")
	code, out, errs := keyplan("import", "table", table, "--endpoint", ep, "--out", model)
	src, _ := os.ReadFile(model)
	if code != 0 || !strings.Contains(string(src), "its keys are not strings (B, B)") || !strings.Contains(string(src), "its base key is PK/SK (B, B)") || !strings.Contains(errs, "its base key is PK/SK (B, B)") {
		t.Errorf("binary keys: exit %d\n%s%s\n%s", code, out, errs, src)
	}
	if code, _, errs := keyplan("import", "table", "no-such-table", "--endpoint", ep, "--out", filepath.Join(t.TempDir(), "m.yaml")); code != 2 || !strings.Contains(errs, "no-such-table") {
		t.Errorf("a table that does not exist: exit %d\n%s", code, errs)
	}
}

// snapshot is what a write could change on table: its items as a
// consistent Scan answers them, and DescribeTable's answer, the bytes the
// engine sends, read with the engine's full key.
func snapshot(t *testing.T, endpoint, id, secret, table string) string {
	t.Helper()
	var b strings.Builder
	for _, r := range [][2]string{{"Scan", `{"TableName":"` + table + `","ConsistentRead":true}`}, {"DescribeTable", `{"TableName":"` + table + `"}`},
		{"DescribeTimeToLive", `{"TableName":"` + table + `"}`}, {"ListTables", `{}`}} {
		req, _ := http.NewRequest(http.MethodPost, endpoint+"/", strings.NewReader(r[1]))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+r[0])
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		sum := sha256.Sum256([]byte(r[1]))
		if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: id, SecretAccessKey: secret}, req, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", time.Now()); err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", r[0], resp.StatusCode, body)
		}
		fmt.Fprintf(&b, "%s: %s\n", r[0], body)
	}
	return b.String()
}

// keyplan import table only reads: with keyplan local's read-only key
// (AWS_PROFILE=read-only), it imports each published layout's table,
// populated, as it does with the full key, and diff --live compares it;
// the table's items and DescribeTable's answer are byte for byte what they
// were, and a write signed so is refused.
func TestImportTableOnlyReads(t *testing.T) {
	enginepass.Independent(t)
	t.Setenv(usercache.Env, t.TempDir())
	t.Setenv("AWS_PROFILE", "")
	l, err := localengine.ServeLocal(localengine.LocalOptions{Port: 0, ReadOnlyAccessKeyID: "IMPORT_READER"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() }) // after the tables' cleanups

	id, secret, err := localengine.ReadKeyFile(l.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	c := localengine.Client(l.Endpoint, 0)
	for i, lay := range layouts {
		table := fmt.Sprintf("readonly-%d", i)
		lay.create(t, c, table)
		before := snapshot(t, l.Endpoint, id, secret, table)
		t.Setenv("AWS_PROFILE", localengine.ReadOnlyProfile)
		if got := localengine.AccessKeyID(l.Endpoint); got != "IMPORT_READER" {
			t.Fatalf("keyplan signs with %q under AWS_PROFILE=read-only", got)
		}
		model := filepath.Join(t.TempDir(), "m.yaml")
		if code, out, errs := keyplan("import", "table", table, "--endpoint", l.Endpoint, "--out", model, "--items", "3", "--max-rcu", "1000"); code != 0 {
			t.Fatalf("%s: import with the read-only key: exit %d\n%s%s", lay.name, code, out, errs)
		}
		if code, out, errs := keyplan("diff", model, "--live", "--table", table, "--endpoint", l.Endpoint); code != 0 {
			t.Errorf("%s: diff --live with the read-only key: exit %d\n%s%s", lay.name, code, out, errs)
		}
		_, err := localengine.Client(l.Endpoint, 0).PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table),
			Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "x"}, "SK": &types.AttributeValueMemberS{Value: "x"}}})
		if err == nil || !strings.Contains(err.Error(), "AccessDeniedException") || !strings.Contains(err.Error(), "dynamodb:PutItem") {
			t.Errorf("a write with the read-only key: %v", err)
		}
		t.Setenv("AWS_PROFILE", "")
		if after := snapshot(t, l.Endpoint, id, secret, table); after != before {
			t.Errorf("%s: the table changed under a read-only import:\nbefore %s\nafter  %s", lay.name, before, after)
		}
	}
}
