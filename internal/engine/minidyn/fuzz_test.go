package minidyn

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/keyplan/keyplan/internal/engine/minidyn/server"
)

var fuzzOps = []string{"CreateTable", "UpdateTable", "DeleteTable", "DescribeTable", "PutItem", "DeleteItem", "UpdateItem",
	"GetItem", "Query", "Scan", "BatchWriteItem", "TransactWriteItems", "ListTables", "DescribeTimeToLive", "UpdateTimeToLive", "Nope"}

const fuzzTable = `{"TableName":"tbl","BillingMode":"PAY_PER_REQUEST",
"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"N"},{"AttributeName":"G","AttributeType":"S"}],
"KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],
"GlobalSecondaryIndexes":[{"IndexName":"GSI1","KeySchema":[{"AttributeName":"G","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}]}`

func serve(h http.Handler, op, body string) int {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// Any request, however malformed, gets an answer (a DynamoDB error at
// worst): the engine never panics, since it runs inside keyplan. An
// error is a 4xx: here (no data directory, no Content-Encoding) a 500 is
// an error the engine did not classify (writeError's default), which
// DynamoDB answers as a ValidationException and the SDK would retry.
func FuzzServer(f *testing.F) {
	f.Add(uint8(4), `{"TableName":"tbl","Item":{"PK":{"S":"a"},"SK":{"N":"1"},"G":{"S":"x"}}}`)
	f.Add(uint8(6), `{"TableName":"tbl","Key":{"PK":{"S":"a"},"SK":{"N":"1"}},"UpdateExpression":"ADD n :one REMOVE G","ExpressionAttributeValues":{":one":{"N":"1"}}}`)
	f.Add(uint8(8), `{"TableName":"tbl","IndexName":"GSI1","KeyConditionExpression":"G = :g","ExpressionAttributeValues":{":g":{"S":"x"}},"Limit":1}`)
	f.Add(uint8(9), `{"TableName":"tbl","Segment":1,"TotalSegments":3,"ExclusiveStartKey":{"PK":{"S":"a"},"SK":{"N":"1"}}}`)
	f.Add(uint8(11), `{"TransactItems":[{"Put":{"TableName":"tbl","Item":{"PK":{"S":"b"},"SK":{"N":"2"}},"ConditionExpression":"attribute_not_exists(PK)"}}]}`)
	f.Add(uint8(1), `{"TableName":"tbl","AttributeDefinitions":[{"AttributeName":"H","AttributeType":"S"}],"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"GSI2","KeySchema":[{"AttributeName":"H","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}}]}`)
	f.Add(uint8(4), `{"TableName":"tbl","Item":{"PK":{"S":"a"},"SK":{"N":"1e999"}}}`)
	f.Add(uint8(8), `{"TableName":"tbl","KeyConditionExpression":"PK = :p AND SK BETWEEN :a AND :b","ExpressionAttributeValues":{":p":{"S":"a"},":a":{"N":"-1"},":b":{"N":"x"}}}`)
	// A request of each other operation, so that the fuzzer starts from
	// every one (fuzzOps' order).
	f.Add(uint8(0), fuzzTable)
	f.Add(uint8(2), `{"TableName":"tbl"}`)
	f.Add(uint8(3), `{"TableName":"tbl"}`)
	f.Add(uint8(5), `{"TableName":"tbl","Key":{"PK":{"S":"a"},"SK":{"N":"1"}},"ConditionExpression":"n > :z","ExpressionAttributeValues":{":z":{"N":"0"}},"ReturnValues":"ALL_OLD"}`)
	f.Add(uint8(7), `{"TableName":"tbl","Key":{"PK":{"S":"a"},"SK":{"N":"1"}},"ProjectionExpression":"#n, G","ExpressionAttributeNames":{"#n":"n"},"ConsistentRead":true}`)
	f.Add(uint8(10), `{"RequestItems":{"tbl":[{"PutRequest":{"Item":{"PK":{"S":"c"},"SK":{"N":"3"}}}},{"DeleteRequest":{"Key":{"PK":{"S":"a"},"SK":{"N":"1"}}}}]}}`)
	f.Add(uint8(12), `{"Limit":1,"ExclusiveStartTableName":"a"}`)
	f.Add(uint8(13), `{"TableName":"tbl"}`)
	f.Add(uint8(14), `{"TableName":"tbl","TimeToLiveSpecification":{"AttributeName":"n","Enabled":true}}`)
	f.Add(uint8(15), `{}`)
	f.Fuzz(func(t *testing.T, op uint8, body string) {
		h := server.NewServer()
		if code := serve(h, "CreateTable", fuzzTable); code != http.StatusOK {
			t.Fatalf("CreateTable: %d", code)
		}
		serve(h, "PutItem", `{"TableName":"tbl","Item":{"PK":{"S":"a"},"SK":{"N":"1"},"G":{"S":"x"},"n":{"N":"5"}}}`)
		name := fuzzOps[int(op)%len(fuzzOps)]
		if code := serve(h, name, body); code != http.StatusOK && (code < 400 || code > 499) {
			t.Fatalf("%s %s: status %d", name, body, code)
		}
		// The engine still answers afterwards.
		if code := serve(h, "Scan", `{"TableName":"tbl"}`); code != http.StatusOK && code != http.StatusBadRequest {
			t.Fatalf("Scan after %s: status %d", name, code)
		}
	})
}
