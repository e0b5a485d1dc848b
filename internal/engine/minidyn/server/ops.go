package server

import (
	"context"
	"net/http"
)

// serveMore runs the operations beyond the data plane's and tables'
// (ServeHTTP's own switch): DescribeEndpoints, tags, backups and
// PartiQL; any other is UnknownOperationException.
func (s *Server) serveMore(r *http.Request, op string, raw []byte) (any, error) {
	c := s.client

	switch op {
	case "DescribeEndpoints":
		return decodeAndRun(raw, func(context.Context, *struct{}) (*DescribeEndpointsOutput, error) {
			return describeEndpoints(r.Host), nil
		})
	case "TagResource":
		return decodeAndRun(raw, c.TagResource)
	case "UntagResource":
		return decodeAndRun(raw, c.UntagResource)
	case "ListTagsOfResource":
		return decodeAndRun(raw, c.ListTagsOfResource)
	case "DescribeContinuousBackups":
		return decodeAndRun(raw, c.DescribeContinuousBackups)
	case "UpdateContinuousBackups":
		return decodeAndRun(raw, c.UpdateContinuousBackups)
	case "CreateBackup":
		return decodeAndRun(raw, c.CreateBackup)
	case "DescribeBackup":
		return decodeAndRun(raw, c.DescribeBackup)
	case "ListBackups":
		return decodeAndRun(raw, c.ListBackups)
	case "DeleteBackup":
		return decodeAndRun(raw, c.DeleteBackup)
	case "RestoreTableFromBackup":
		return decodeAndRun(raw, c.RestoreTableFromBackup)
	case "ExecuteStatement":
		return decodeAndRun(raw, c.ExecuteStatement)
	case "BatchExecuteStatement":
		return decodeAndRun(raw, c.BatchExecuteStatement)
	case "ExecuteTransaction":
		return decodeAndRun(raw, c.ExecuteTransaction)
	}

	return nil, &apiError{Code: "UnknownOperationException", Message: "An unknown operation was requested: " + op}
}

type (
	endpointJSON struct {
		Address              string `json:"Address"`
		CachePeriodInMinutes int64  `json:"CachePeriodInMinutes"`
	}
	// DescribeEndpointsOutput mirrors DynamoDB's.
	DescribeEndpointsOutput struct {
		Endpoints []endpointJSON `json:"Endpoints"`
	}
)

// describeEndpoints is DescribeEndpoints' answer: the one endpoint, the
// host the request was sent to (DynamoDB answers its regional endpoint),
// cached 1,440 minutes as DynamoDB says.
func describeEndpoints(host string) *DescribeEndpointsOutput {
	return &DescribeEndpointsOutput{Endpoints: []endpointJSON{{Address: host, CachePeriodInMinutes: 1440}}}
}
