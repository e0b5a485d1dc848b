package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkPathologicalRequests: the memory one request can take at the
// bounds (B/op): a 4 KB condition of nested parentheses, and an item of
// DefaultMaxRequestValues NULLs (the largest the value bound lets in).
func BenchmarkPathologicalRequests(b *testing.B) {
	s := NewServer()
	run := func(op, body string) {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
		s.ServeHTTP(httptest.NewRecorder(), req)
	}

	run("CreateTable", `{"TableName":"tbl","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"p","AttributeType":"S"}],"KeySchema":[{"AttributeName":"p","KeyType":"HASH"}]}`)

	deep := `{"TableName":"tbl","Item":{"p":{"S":"a"}},"ConditionExpression":"` + strings.Repeat("(", 4000) + `p = p"}`
	wide := `{"TableName":"tbl","Item":{"p":{"S":"a"},"l":{"L":[` + strings.Repeat(`{"NULL":true},`, DefaultMaxRequestValues-6) + `{"NULL":true}]}}}`

	b.Run("deep-expression", func(b *testing.B) {
		b.ReportAllocs()

		for b.Loop() {
			run("PutItem", deep)
		}
	})

	b.Run("max-values", func(b *testing.B) {
		b.ReportAllocs()

		for b.Loop() {
			run("PutItem", wide)
		}
	})
}
