package server

// A read-only key (keyplan's): with Options.ReadOnlyAccessKeyID set, the
// server accepts a second key, whose requests may read and nothing else.
// A request signed by it for an action that writes (an item, a table, its
// TTL, tags, backups, a PartiQL INSERT, UPDATE or DELETE) is refused, as
// IAM refuses an action no policy allows: AccessDeniedException, HTTP
// 400, naming the action, before anything runs. Every action the server
// dispatches is classified in access; one it does not list is refused
// (TestEveryActionIsClassified keeps the two in step).

import (
	"bytes"
	"encoding/json"

	"github.com/keyplan/keyplan/internal/engine/minidyn/partiql"
)

// actionAccess is what an action does with a read-only key.
type actionAccess int

const (
	// reads: allowed.
	reads actionAccess = iota + 1
	// writes: refused.
	writes
	// statements: PartiQL, allowed when every statement is a SELECT.
	statements
)

// access classifies every action ServeHTTP and serveMore dispatch.
var access = map[string]actionAccess{
	"DescribeTable": reads, "ListTables": reads, "DescribeTimeToLive": reads, "DescribeEndpoints": reads,
	"GetItem": reads, "Query": reads, "Scan": reads, "BatchGetItem": reads, "TransactGetItems": reads,
	"ListStreams": reads, "DescribeStream": reads, "GetShardIterator": reads, "GetRecords": reads,
	"ListTagsOfResource": reads, "DescribeContinuousBackups": reads, "DescribeBackup": reads, "ListBackups": reads,

	"CreateTable": writes, "UpdateTable": writes, "DeleteTable": writes, "UpdateTimeToLive": writes,
	"PutItem": writes, "UpdateItem": writes, "DeleteItem": writes, "BatchWriteItem": writes, "TransactWriteItems": writes,
	"TagResource": writes, "UntagResource": writes, "UpdateContinuousBackups": writes,
	"CreateBackup": writes, "DeleteBackup": writes, "RestoreTableFromBackup": writes,

	"ExecuteStatement": statements, "BatchExecuteStatement": statements, "ExecuteTransaction": statements,
}

// partiqlActions are the IAM actions of PartiQL statements, by kind.
var partiqlActions = map[string]string{
	partiql.Select: "PartiQLSelect", partiql.Insert: "PartiQLInsert", partiql.Update: "PartiQLUpdate", partiql.Delete: "PartiQLDelete",
}

// readOnlyRefusal is the error of a request of the read-only key id for
// op (its body raw, decoded), nil when op only reads.
func readOnlyRefusal(id, op string, raw []byte) error {
	action := op

	switch access[op] {
	case reads:
		return nil
	case statements:
		if action = writingStatement(raw); action == "" {
			return nil
		}
	}

	return &apiError{Code: "AccessDeniedException", Message: "User: " + id + " is not authorized to perform: dynamodb:" + action +
		" because the key is read-only (keyplan local --read-only-key): it may read, never write"}
}

// writingStatement is the IAM action of the first statement of a PartiQL
// request that is not a SELECT, "" when all are. A statement that does
// not parse runs nowhere (the engine parses it alike and refuses it), so
// it passes here to get the engine's own error.
func writingStatement(raw []byte) string {
	type stmt struct {
		Statement *string `json:"Statement"`
	}

	var in struct {
		stmt
		Statements         []stmt `json:"Statements"`
		TransactStatements []stmt `json:"TransactStatements"`
	}

	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&in); err != nil {
		return ""
	}

	for _, s := range append(append([]stmt{in.stmt}, in.Statements...), in.TransactStatements...) {
		if s.Statement == nil {
			continue
		}

		st, err := partiql.Parse(*s.Statement)
		if err != nil || st.Kind == partiql.Select {
			continue
		}

		if a, ok := partiqlActions[st.Kind]; ok {
			return a
		}

		return "PartiQL" + st.Kind
	}

	return ""
}
