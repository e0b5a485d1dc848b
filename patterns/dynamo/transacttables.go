package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/keyplan/keyplan/patterns/model"
)

// A transaction across tables: DynamoDB's TransactWriteItems takes items
// of several tables of one account and Region. In a model of several
// tables (tables:), each table has its runtime (a *Table of its design)
// and its write patterns; TransactTables runs write patterns of several
// of them as one transaction, all or nothing.

// TableCall is one write pattern of one table's runtime, for
// TransactTables.
type TableCall struct {
	Table  *Table
	Write  string
	Params Params
}

// TransactTables runs write patterns of several tables as one
// TransactWriteItems, all or nothing: say, an Order placed in the Orders
// table and the Session that placed it marked in the Sessions table. Each
// call's item writes (guard items included) are built by its table's
// runtime, as Write builds them, and sent with the first call's table's
// client (the tables are one account's and Region's). DynamoDB's limits
// hold across the tables: at most patterns.MaxTransactItems items
// (ErrTooLarge), no item written twice (an item is its table and key),
// and no item keeping values in S3 (ErrObjectsAlone). A failed condition
// comes back as a *ConditionError whose Subject names the call ("StartSession
// (op 2)") and Entity the entity of its table.
func TransactTables(ctx context.Context, calls ...TableCall) error {
	subject := fmt.Sprintf("%d ops", len(calls))
	tws, in, err := transactTables(calls)
	if err != nil {
		return wrap("TransactTables", subject, err)
	}
	_, err = tws[0].t.client.TransactWriteItems(ctx, in)
	if tce, ok := errors.AsType[*types.TransactionCanceledException](err); ok {
		for i, r := range tce.CancellationReasons {
			if aws.ToString(r.Code) == "ConditionalCheckFailed" && i < len(tws) {
				return tws[i].t.explain("TransactTables", subject, tws[i].w, r.Item, r.Item != nil)
			}
		}
	}
	return wrap("TransactTables", subject, err)
}

// TransactTablesInput builds the transaction TransactTables sends, for
// callers that send it themselves.
func TransactTablesInput(calls ...TableCall) (*dynamodb.TransactWriteItemsInput, error) {
	_, in, err := transactTables(calls)
	if err != nil {
		return nil, wrap("TransactTablesInput", fmt.Sprintf("%d ops", len(calls)), err)
	}
	return in, nil
}

// tableWrite is one item write of a TransactTables, with its table.
type tableWrite struct {
	t *Table
	w *itemWrite
}

func transactTables(calls []TableCall) ([]tableWrite, *dynamodb.TransactWriteItemsInput, error) {
	if len(calls) == 0 {
		return nil, nil, errors.New("no op to run")
	}
	var tws []tableWrite
	for i, c := range calls {
		if c.Table == nil {
			return nil, nil, fmt.Errorf("op %d (%s): no table", i+1, c.Write)
		}
		ws, err := c.Table.writes(c.Write, c.Params)
		if err != nil {
			return nil, nil, fmt.Errorf("op %d (%s, table %s): %w", i+1, c.Write, c.Table.name, err)
		}
		for _, w := range ws {
			w.op, w.opName = i+1, c.Write
			if !w.guard && len(c.Table.objectAttrs(w.entity)) > 0 {
				return nil, nil, fmt.Errorf("op %d (%s): %w (%s)", i+1, c.Write, ErrObjectsAlone, w.entity)
			}
			tws = append(tws, tableWrite{c.Table, w})
		}
	}
	if len(tws) > model.MaxTransactItems {
		return nil, nil, fmt.Errorf("%w: %d items over the tables (guard items included); DynamoDB takes %d", ErrTooLarge, len(tws), model.MaxTransactItems)
	}
	seen := make(map[string]int, len(tws))
	in := &dynamodb.TransactWriteItemsInput{TransactItems: make([]types.TransactWriteItem, 0, len(tws))}
	for i, tw := range tws {
		d := tw.t.d
		k := tw.w.keyOf(d)
		pk, _ := k[d.PK].(*types.AttributeValueMemberS)
		sk, _ := k[d.SK].(*types.AttributeValueMemberS)
		if pk != nil && sk != nil {
			id := tw.t.name + "\x00" + pk.Value + "\x00" + sk.Value
			if j, dup := seen[id]; dup {
				return nil, nil, fmt.Errorf("%s and %s write the same item (%s of table %s): a transaction touches an item once", tws[j].w.name(), tw.w.name(), KeyText(d, k), tw.t.name)
			}
			seen[id] = i
		}
		r, err := tw.t.request(tw.w, true)
		if err != nil {
			return nil, nil, err
		}
		in.TransactItems = append(in.TransactItems, r.tx)
	}
	return tws, in, nil
}
