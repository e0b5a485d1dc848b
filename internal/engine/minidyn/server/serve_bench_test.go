package server

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkServe: the engine's own cost of each operation of
// enginediff's BenchmarkEngines (the same table of 100,000 items with a
// GSI), the request's JSON body in, the response's out, without HTTP or a
// client: what the engine adds to a request over HTTP.
func BenchmarkServe(b *testing.B) {
	const items, partition, gsiPartitions = 100_000, 100, 50

	s := NewServer()
	run := func(op, body string) int {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)

		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", op, w.Code, w.Body)
		}

		return w.Body.Len()
	}

	run("CreateTable", `{"TableName":"Bench","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"},{"AttributeName":"g1","AttributeType":"S"},{"AttributeName":"g1s","AttributeType":"N"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
		"GlobalSecondaryIndexes":[{"IndexName":"GSI1","Projection":{"ProjectionType":"ALL"},"KeySchema":[{"AttributeName":"g1","KeyType":"HASH"},{"AttributeName":"g1s","KeyType":"RANGE"}]}]}`)

	key := func(i int) string {
		return fmt.Sprintf(`{"pk":{"S":"p#%d"},"sk":{"S":"s#%05d"}}`, i/partition, i%partition)
	}
	item := func(i int) string {
		return fmt.Sprintf(`{"pk":{"S":"p#%d"},"sk":{"S":"s#%05d"},"g1":{"S":"g#%d"},"g1s":{"N":"%d"},"name":{"S":"item %d, with a payload of about a hundred bytes to look like a real item's attributes"},"n":{"N":"%d"}}`,
			i/partition, i%partition, i%gsiPartitions, i, i, i*7)
	}

	for i := 0; i < items; i += 25 {
		var reqs []string
		for j := i; j < i+25; j++ {
			reqs = append(reqs, `{"PutRequest":{"Item":`+item(j)+`}}`)
		}

		run("BatchWriteItem", `{"RequestItems":{"Bench":[`+strings.Join(reqs, ",")+`]}}`)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	bench := func(name, op string, body func() string) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()

			for b.Loop() {
				run(op, body())
			}
		})
	}

	bench("PutItem", "PutItem", func() string { return `{"TableName":"Bench","Item":` + item(rng.IntN(items)) + `}` })
	bench("GetItem", "GetItem", func() string { return `{"TableName":"Bench","Key":` + key(rng.IntN(items)) + `}` })
	bench("QueryTable", "Query", func() string {
		return fmt.Sprintf(`{"TableName":"Bench","Limit":20,"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p#%d"}}}`, rng.IntN(items/partition))
	})
	bench("QueryGSI", "Query", func() string {
		return fmt.Sprintf(`{"TableName":"Bench","IndexName":"GSI1","Limit":20,"KeyConditionExpression":"g1 = :g","ExpressionAttributeValues":{":g":{"S":"g#%d"}}}`, rng.IntN(gsiPartitions))
	})
	bench("ScanPage", "Scan", func() string {
		return `{"TableName":"Bench","Limit":20,"ExclusiveStartKey":` + key(rng.IntN(items)) + `}`
	})
}
