/*
Package server serves the DynamoDB JSON API over HTTP from the minidyn core,
so real AWS SDK clients can be pointed at it (httptest.NewServer, or the
parent package's Start).

Operations: CreateTable, UpdateTable, DeleteTable, DescribeTable,
ListTables, DescribeTimeToLive, UpdateTimeToLive, PutItem, GetItem,
UpdateItem, DeleteItem, Query, Scan, BatchWriteItem, BatchGetItem,
TransactWriteItems and TransactGetItems, and the DynamoDB Streams API
(ListStreams, DescribeStream, GetShardIterator, GetRecords) on the same
endpoint; any other answers UnknownOperationException. A GET is a health
check.

Failure emulation (from upstream): EmulateFailure forces
InternalServerError, EmulateFailureForTable for one table or index, so
retry paths can be tested; EmulateUnprocessedItems makes BatchWriteItem
return the sub-requests it matches as UnprocessedItems.

Typical usage:

	srv := httptest.NewServer(server.NewServer())
	defer srv.Close()

	cfg, _ := config.LoadDefaultConfig(ctx, config.WithRegion("us-east-1"))
	ddb := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(srv.URL)
	})

The input shapes in requests.go were generated from the AWS SDK's by a
tool upstream keeps (tools/generate_requests in truora/minidyn, not part
of this fork); they are edited by hand here.
*/
package server
