package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// dispatched are the actions ServeHTTP and serveMore answer: the string
// cases of their switches on op, read from the source, so a new action
// is seen here the day it is added.
func dispatched(t *testing.T) []string {
	t.Helper()

	var ops []string

	fset := token.NewFileSet()

	for _, file := range []string{"server.go", "ops.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}

		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || (fn.Name.Name != "ServeHTTP" && fn.Name.Name != "serveMore") {
				continue
			}

			ast.Inspect(fn.Body, func(n ast.Node) bool {
				sw, ok := n.(*ast.SwitchStmt)
				if !ok {
					return true
				}

				if id, isIdent := sw.Tag.(*ast.Ident); !isIdent || id.Name != "op" {
					return true
				}

				for _, st := range sw.Body.List {
					for _, e := range st.(*ast.CaseClause).List {
						if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							s, _ := strconv.Unquote(lit.Value)
							ops = append(ops, s)
						}
					}
				}

				return true
			})
		}
	}

	if len(ops) < 30 {
		t.Fatalf("found %d dispatched actions in server.go and ops.go: the dispatch moved?", len(ops))
	}

	return ops
}

// Every action the server answers is classified for the read-only key
// (read, write or PartiQL), and the classification names no action the
// server does not answer: a new write action cannot slip through
// unclassified (and an unclassified one is refused anyway).
func TestEveryActionIsClassified(t *testing.T) {
	ops := dispatched(t)
	for _, op := range ops {
		if access[op] == 0 {
			t.Errorf("action %s is dispatched but not classified in readonly.go's access: say whether it reads or writes", op)
		}
	}

	for op := range access {
		if !slices.Contains(ops, op) {
			t.Errorf("access classifies %s, which the server does not dispatch", op)
		}
	}
}

// roServer is a server with a full key and a read-only one, holding a
// table tab with an item, a GSI, a TTL, a tag and a backup.
func roServer(t *testing.T) (send func(key, op, body string) (int, string)) {
	t.Helper()

	srv := NewServerWith(Options{AccessKeyID: "AKIDFULL", SecretAccessKey: "full/secret", ReadOnlyAccessKeyID: "AKIDREAD", ReadOnlySecretAccessKey: "read+secret"})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)

	secrets := map[string]string{"AKIDFULL": "full/secret", "AKIDREAD": "read+secret", "AKIDREADWRONG": "wrong"}
	send = func(key, op, body string) (int, string) {
		r, _ := http.NewRequest(http.MethodPost, ts.URL+"/", strings.NewReader(body))
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")

		sum := sha256.Sum256([]byte(body))
		id := strings.TrimSuffix(key, "WRONG")

		if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: id, SecretAccessKey: secrets[key]}, r,
			hex.EncodeToString(sum[:]), "dynamodb", "eu-west-1", time.Now()); err != nil {
			t.Fatal(err)
		}

		return answer(t, r)
	}

	for _, step := range [][2]string{
		{"CreateTable", `{"TableName":"tab","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],` +
			`"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},{"AttributeName":"G","AttributeType":"S"}],` +
			`"GlobalSecondaryIndexes":[{"IndexName":"GSI1","KeySchema":[{"AttributeName":"G","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],` +
			`"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"},"Tags":[{"Key":"team","Value":"a"}]}`},
		{"PutItem", `{"TableName":"tab","Item":{"PK":{"S":"p#1"},"SK":{"S":"s#1"},"G":{"S":"g"},"n":{"N":"1"}}}`},
		{"PutItem", `{"TableName":"tab","Item":{"PK":{"S":"p#1"},"SK":{"S":"s#2"},"n":{"N":"2"}}}`},
		{"UpdateTimeToLive", `{"TableName":"tab","TimeToLiveSpecification":{"Enabled":true,"AttributeName":"exp"}}`},
		{"CreateBackup", `{"TableName":"tab","BackupName":"bk1"}`},
	} {
		if code, body := send("AKIDFULL", step[0], step[1]); code != 200 {
			t.Fatalf("%s with the full key: %d %s", step[0], code, body)
		}
	}

	return send
}

// state is what a write could change: the items (and the GSI's), the
// table, its TTL, tags, backups and continuous backups, read with the
// full key.
func state(t *testing.T, send func(key, op, body string) (int, string)) string {
	t.Helper()

	var b strings.Builder

	for _, r := range [][2]string{
		{"Scan", `{"TableName":"tab"}`}, {"Scan", `{"TableName":"tab","IndexName":"GSI1"}`}, {"DescribeTable", `{"TableName":"tab"}`},
		{"DescribeTimeToLive", `{"TableName":"tab"}`}, {"DescribeContinuousBackups", `{"TableName":"tab"}`}, {"ListTables", `{}`},
		{"ListTagsOfResource", `{"ResourceArn":"` + describedArn(t, send) + `"}`}, {"ListBackups", `{}`},
	} {
		code, body := send("AKIDFULL", r[0], r[1])
		b.WriteString(r[0] + " " + strconv.Itoa(code) + " " + body + "\n")
	}

	return b.String()
}

func describedArn(t *testing.T, send func(key, op, body string) (int, string)) string {
	t.Helper()

	_, body := send("AKIDFULL", "DescribeTable", `{"TableName":"tab"}`)

	var d struct {
		Table struct{ TableArn, LatestStreamArn string }
	}
	if err := json.Unmarshal([]byte(body), &d); err != nil || d.Table.TableArn == "" {
		t.Fatalf("DescribeTable: %v %s", err, body)
	}

	return d.Table.TableArn
}

// A request for each action that writes, valid as the full key sends it,
// is refused for the read-only key: 400, AccessDeniedException, a message
// naming the action, and nothing changes. Every writing action has a
// request here (the test fails on one that does not), and each is shown
// to write when the full key sends it.
func TestTheReadOnlyKeyCannotWrite(t *testing.T) {
	send := roServer(t)
	arn := describedArn(t, send)
	_, backups := send("AKIDFULL", "ListBackups", `{}`)

	var lb struct{ BackupSummaries []struct{ BackupArn string } }
	if err := json.Unmarshal([]byte(backups), &lb); err != nil || len(lb.BackupSummaries) != 1 {
		t.Fatalf("ListBackups: %v %s", err, backups)
	}

	backup := lb.BackupSummaries[0].BackupArn
	item := `{"PK":{"S":"p#9"},"SK":{"S":"s#9"}}`
	key := `{"PK":{"S":"p#1"},"SK":{"S":"s#1"}}`
	requests := map[string]string{
		"CreateTable": `{"TableName":"uuu","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"}]}`,
		"UpdateTable": `{"TableName":"tab","AttributeDefinitions":[{"AttributeName":"H","AttributeType":"S"}],` +
			`"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"GSI2","KeySchema":[{"AttributeName":"H","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}}]}`,
		"UpdateTimeToLive":        `{"TableName":"tab","TimeToLiveSpecification":{"Enabled":false,"AttributeName":"exp"}}`,
		"PutItem":                 `{"TableName":"tab","Item":` + item + `}`,
		"UpdateItem":              `{"TableName":"tab","Key":` + key + `,"UpdateExpression":"SET n = :v","ExpressionAttributeValues":{":v":{"N":"7"}}}`,
		"DeleteItem":              `{"TableName":"tab","Key":` + key + `}`,
		"BatchWriteItem":          `{"RequestItems":{"tab":[{"PutRequest":{"Item":` + item + `}},{"DeleteRequest":{"Key":` + key + `}}]}}`,
		"TransactWriteItems":      `{"TransactItems":[{"Put":{"TableName":"tab","Item":` + item + `}}]}`,
		"TagResource":             `{"ResourceArn":"` + arn + `","Tags":[{"Key":"k","Value":"v"}]}`,
		"UntagResource":           `{"ResourceArn":"` + arn + `","TagKeys":["team"]}`,
		"UpdateContinuousBackups": `{"TableName":"tab","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true}}`,
		"CreateBackup":            `{"TableName":"tab","BackupName":"bk2"}`,
		"DeleteBackup":            `{"BackupArn":"` + backup + `"}`,
		"RestoreTableFromBackup":  `{"TargetTableName":"rrr","BackupArn":"` + backup + `"}`,
		"DeleteTable":             `{"TableName":"tab"}`,
	}
	partiqlWrites := map[string][2]string{
		"an INSERT":                 {"ExecuteStatement", `{"Statement":"INSERT INTO \"tab\" VALUE {'PK':'p#9','SK':'s#9'}"}`},
		"an UPDATE":                 {"ExecuteStatement", `{"Statement":"UPDATE \"tab\" SET n = 7 WHERE PK = 'p#1' AND SK = 's#1'"}`},
		"a DELETE":                  {"ExecuteStatement", `{"Statement":"DELETE FROM \"tab\" WHERE PK = 'p#1' AND SK = 's#1'"}`},
		"a batch's DELETE":          {"BatchExecuteStatement", `{"Statements":[{"Statement":"SELECT * FROM \"tab\" WHERE PK = 'p#1' AND SK = 's#1'"},{"Statement":"DELETE FROM \"tab\" WHERE PK = 'p#1' AND SK = 's#2'"}]}`},
		"a transaction's UPDATE":    {"ExecuteTransaction", `{"TransactStatements":[{"Statement":"UPDATE \"tab\" SET n = ? WHERE PK = 'p#1' AND SK = 's#1'","Parameters":[{"N":"5"}]}]}`},
		"a lower-case insert":       {"ExecuteStatement", `{"Statement":"insert into \"tab\" value {'PK':'p#8','SK':'s#8'}"}`},
		"an unknown action":         {"ForgetEverything", `{"TableName":"tab"}`},
		"a lower-case field's name": {"ExecuteStatement", `{"statement":"DELETE FROM \"tab\" WHERE PK = 'p#1' AND SK = 's#1'"}`},
	}

	for op, a := range access {
		if _, ok := requests[op]; a == writes && !ok {
			t.Errorf("%s writes: give it a request here, to see the read-only key refused it", op)
		}
	}

	before := state(t, send)
	refused := func(what, op, body, action string) {
		code, answer := send("AKIDREAD", op, body)
		if code != 400 || !strings.Contains(answer, `"__type":"com.amazonaws.dynamodb.v20120810#AccessDeniedException"`) ||
			!strings.Contains(answer, "is not authorized to perform: dynamodb:"+action+" ") {
			t.Errorf("%s (%s) with the read-only key: %d %s; want 400 AccessDeniedException naming dynamodb:%s", what, op, code, answer, action)
		}

		if after := state(t, send); after != before {
			t.Fatalf("%s with the read-only key changed the engine:\nbefore %s\nafter  %s", what, before, after)
		}
	}

	for op, body := range requests {
		refused(op, op, body, op)
	}

	for what, r := range partiqlWrites {
		action := map[string]string{"an INSERT": "PartiQLInsert", "a lower-case insert": "PartiQLInsert", "an UPDATE": "PartiQLUpdate",
			"a transaction's UPDATE": "PartiQLUpdate", "an unknown action": "ForgetEverything"}[what]
		if action == "" {
			action = "PartiQLDelete"
		}

		refused(what, r[0], r[1], action)
	}

	// The requests are writes: the full key's change the engine.
	for _, op := range []string{"PutItem", "UpdateItem", "TagResource", "CreateBackup", "UpdateTable", "CreateTable", "DeleteItem", "BatchWriteItem"} {
		if code, answer := send("AKIDFULL", op, requests[op]); code != 200 {
			t.Errorf("%s with the full key: %d %s", op, code, answer)
		}
	}

	if state(t, send) == before {
		t.Error("the full key's writes changed nothing: the requests above prove nothing")
	}
}

// The read-only key reads: every reading action, and PartiQL SELECTs, are
// served (none refused); a wrong secret for it is refused as for any key.
func TestTheReadOnlyKeyReads(t *testing.T) {
	send := roServer(t)
	arn := describedArn(t, send)
	key := `{"PK":{"S":"p#1"},"SK":{"S":"s#1"}}`

	_, d := send("AKIDFULL", "DescribeTable", `{"TableName":"tab"}`)

	var desc struct {
		Table struct{ LatestStreamArn string }
	}
	_ = json.Unmarshal([]byte(d), &desc)
	_, ss := send("AKIDFULL", "DescribeStream", `{"StreamArn":"`+desc.Table.LatestStreamArn+`"}`)

	var stream struct {
		StreamDescription struct{ Shards []struct{ ShardId string } }
	}
	_ = json.Unmarshal([]byte(ss), &stream)

	if len(stream.StreamDescription.Shards) == 0 {
		t.Fatalf("DescribeStream: %s", ss)
	}

	shard := stream.StreamDescription.Shards[0].ShardId
	_, it := send("AKIDFULL", "GetShardIterator", `{"StreamArn":"`+desc.Table.LatestStreamArn+`","ShardId":"`+shard+`","ShardIteratorType":"TRIM_HORIZON"}`)

	var iter struct{ ShardIterator string }
	_ = json.Unmarshal([]byte(it), &iter)

	_, bl := send("AKIDFULL", "ListBackups", `{}`)

	var lb struct{ BackupSummaries []struct{ BackupArn string } }
	_ = json.Unmarshal([]byte(bl), &lb)

	reads := map[string][2]string{
		"DescribeTable": {`{"TableName":"tab"}`, `"TableName":"tab"`}, "ListTables": {`{}`, `"tab"`},
		"DescribeTimeToLive": {`{"TableName":"tab"}`, `"exp"`}, "DescribeEndpoints": {`{}`, `"Endpoints"`},
		"GetItem":          {`{"TableName":"tab","Key":` + key + `}`, `"n":{"N":"1"}`},
		"Query":            {`{"TableName":"tab","KeyConditionExpression":"PK = :p","ExpressionAttributeValues":{":p":{"S":"p#1"}}}`, `"Count":2`},
		"Scan":             {`{"TableName":"tab","IndexName":"GSI1"}`, `"Count":1`},
		"BatchGetItem":     {`{"RequestItems":{"tab":{"Keys":[` + key + `]}}}`, `"s#1"`},
		"TransactGetItems": {`{"TransactItems":[{"Get":{"TableName":"tab","Key":` + key + `}}]}`, `"s#1"`},
		"ListStreams":      {`{"TableName":"tab"}`, desc.Table.LatestStreamArn}, "DescribeStream": {`{"StreamArn":"` + desc.Table.LatestStreamArn + `"}`, shard},
		"GetShardIterator":   {`{"StreamArn":"` + desc.Table.LatestStreamArn + `","ShardId":"` + shard + `","ShardIteratorType":"TRIM_HORIZON"}`, `"ShardIterator"`},
		"GetRecords":         {`{"ShardIterator":"` + iter.ShardIterator + `"}`, `"INSERT"`},
		"ListTagsOfResource": {`{"ResourceArn":"` + arn + `"}`, `"team"`}, "DescribeContinuousBackups": {`{"TableName":"tab"}`, `"ContinuousBackupsStatus"`},
		"DescribeBackup": {`{"BackupArn":"` + lb.BackupSummaries[0].BackupArn + `"}`, `"bk1"`}, "ListBackups": {`{}`, `"bk1"`},
		"ExecuteStatement":      {`{"Statement":"SELECT * FROM \"tab\" WHERE PK = 'p#1'"}`, `"s#2"`},
		"BatchExecuteStatement": {`{"Statements":[{"Statement":"SELECT * FROM \"tab\" WHERE PK = 'p#1' AND SK = 's#1'"}]}`, `"s#1"`},
		"ExecuteTransaction":    {`{"TransactStatements":[{"Statement":"SELECT * FROM \"tab\" WHERE PK = 'p#1' AND SK = 's#2'"}]}`, `"s#2"`},
	}

	for op, a := range access {
		if _, ok := reads[op]; a != writes && !ok {
			t.Errorf("%s reads: give it a request here, to see the read-only key served", op)
		}
	}

	for op, r := range reads {
		if code, answer := send("AKIDREAD", op, r[0]); code != 200 || !strings.Contains(answer, r[1]) {
			t.Errorf("%s with the read-only key: %d %s; want 200 with %s", op, code, answer, r[1])
		}
	}

	if code, answer := send("AKIDREADWRONG", "ListTables", `{}`); code != 400 || !strings.Contains(answer, "InvalidSignatureException") {
		t.Errorf("the read-only key id with a wrong secret: %d %s", code, answer)
	}
}
