package minidyn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// BenchmarkEngine: the engine served over HTTP, one request at a time
// through the SDK (as keyplan and users' tests use it), on tables of
// 20,000 and 100,000 items in 100 partitions with a GSI: PutItem,
// GetItem, a Limit-20 Query on the table and on the GSI, a 100-item Scan
// page. Query and Scan cost O(log n + items read), so their time per
// operation stays flat as the table grows.
func BenchmarkEngine(b *testing.B) {
	for _, n := range []int{20_000, 100_000} {
		s, err := Start()
		if err != nil {
			b.Fatal(err)
		}

		db := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint),
			Credentials: credentials.NewStaticCredentialsProvider("k", "k", "")})
		ctx := context.Background()

		_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("bench"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{attr("p", types.ScalarAttributeTypeS), attr("c", types.ScalarAttributeTypeN), attr("g", types.ScalarAttributeTypeS)},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("p"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("c"), KeyType: types.KeyTypeRange}},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("by_g"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
				KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("c"), KeyType: types.KeyTypeRange}}}}})
		if err != nil {
			b.Fatal(err)
		}

		item := func(i int) map[string]types.AttributeValue {
			return map[string]types.AttributeValue{"p": str("p" + strconv.Itoa(i%100)), "c": num(strconv.Itoa(i)),
				"g": str("g" + strconv.Itoa(i%37)), "payload": str("some text of a typical item, a few dozen bytes")}
		}

		for i := 0; i < n; i += 25 {
			reqs := make([]types.WriteRequest, 0, 25)
			for j := i; j < i+25 && j < n; j++ {
				reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item(j)}})
			}

			if _, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"bench": reqs}}); err != nil {
				b.Fatal(err)
			}
		}

		rng := rand.New(rand.NewPCG(1, uint64(n)))

		run := func(name string, op func() error) {
			b.Run(fmt.Sprintf("%s/items=%d", name, n), func(b *testing.B) {
				b.ReportAllocs()

				for b.Loop() {
					if err := op(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}

		run("put", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("bench"), Item: item(rng.IntN(n))})
			return err
		})
		run("get", func() error {
			i := rng.IntN(n)
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("bench"),
				Key: map[string]types.AttributeValue{"p": str("p" + strconv.Itoa(i%100)), "c": num(strconv.Itoa(i))}})

			return err
		})
		run("query-limit20", func() error {
			_, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("bench"), Limit: aws.Int32(20),
				KeyConditionExpression:    aws.String("p = :p AND c > :c"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": str("p" + strconv.Itoa(rng.IntN(100))), ":c": num(strconv.Itoa(rng.IntN(n)))}})

			return err
		})
		run("query-gsi-limit20", func() error {
			_, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("bench"), IndexName: aws.String("by_g"), Limit: aws.Int32(20),
				KeyConditionExpression:    aws.String("g = :g"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":g": str("g" + strconv.Itoa(rng.IntN(37)))}})

			return err
		})
		run("scan-page100", func() error {
			i := rng.IntN(n)
			_, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("bench"), Limit: aws.Int32(100),
				ExclusiveStartKey: map[string]types.AttributeValue{"p": str("p" + strconv.Itoa(i%100)), "c": num(strconv.Itoa(i))}})

			return err
		})

		s.Stop()
	}
}
