package dynamo

import (
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Writes next to the same requests written by hand with the SDK's
// expression builder: a status change that moves a ticket into the sparse
// open-tickets index (its GSI1 key rebuilt from the values passed, every
// one of them conditioned, the version checked and bumped), and a
// transaction of ten comments.

var statusChange = Changes{Set: Values{"status": "OPEN"}, With: Values{"assigneeId": "ann", "priority": 3}, Version: 4}

func BenchmarkUpdateItemInput(b *testing.B) {
	tbl := load(b, ticketsModel)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tbl.UpdateInput("Ticket", Values{"ticketId": "t1"}, statusChange); err != nil {
			b.Fatal(err)
		}
	}
}

var statuses = map[string]bool{"OPEN": true, "PENDING": true, "CLOSED": true}

func updateByHand(ticketID, status, assigneeID string, priority, version int) (*dynamodb.UpdateItemInput, error) {
	if !statuses[status] || priority < 0 || priority > 9 || len(assigneeID) > 40 || len(ticketID) > 40 {
		return nil, fmt.Errorf("bad value")
	}
	id, who := keyEscaper.Replace(ticketID), keyEscaper.Replace(assigneeID)
	upd := expression.Add(expression.Name("revision"), expression.Value(&types.AttributeValueMemberN{Value: "1"})).
		Set(expression.Name("status"), expression.Value(&types.AttributeValueMemberS{Value: status}))
	if status == "OPEN" {
		upd = upd.Set(expression.Name("GSI1PK"), expression.Value(&types.AttributeValueMemberS{Value: "TICKET#ASSIGNEEID#" + who + "#STATUS#OPEN"})).
			Set(expression.Name("GSI1SK"), expression.Value(&types.AttributeValueMemberS{Value: "TICKET#" + strconv.Itoa(priority) + "#" + id}))
	} else {
		upd = upd.Remove(expression.Name("GSI1PK")).Remove(expression.Name("GSI1SK"))
	}
	cond := expression.And(expression.AttributeExists(expression.Name("PK")),
		expression.Name("assigneeId").Equal(expression.Value(&types.AttributeValueMemberS{Value: assigneeID})),
		expression.Name("priority").Equal(expression.Value(&types.AttributeValueMemberN{Value: strconv.Itoa(priority)})),
		expression.Name("revision").Equal(expression.Value(&types.AttributeValueMemberN{Value: strconv.Itoa(version)})))
	expr, err := expression.NewBuilder().WithCondition(cond).WithUpdate(upd).Build()
	if err != nil {
		return nil, err
	}
	return &dynamodb.UpdateItemInput{
		TableName: aws.String("Desk"),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "TICKET#" + id},
			"SK": &types.AttributeValueMemberS{Value: "TICKET"},
		},
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}, nil
}

func BenchmarkUpdateItemInputByHand(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := updateByHand("t1", "OPEN", "ann", 3, 4); err != nil {
			b.Fatal(err)
		}
	}
}

// The baselines build the very requests the runtime builds.
func TestHandBuiltWritesAreTheSame(t *testing.T) {
	tbl := New(load(t, ticketsModel).d, nil, "Desk")
	got, err := tbl.UpdateInput("Ticket", Values{"ticketId": "t1"}, statusChange)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := updateByHand("t1", "OPEN", "ann", 3, 4)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UpdateInput\n%s\nby hand\n%s", dumpUpdate(got), dumpUpdate(want))
	}
	tin, err := tbl.TransactInput(commentOps(10)...)
	if err != nil {
		t.Fatal(err)
	}
	hand, _ := commentsByHand(10)
	if !reflect.DeepEqual(tin, hand) {
		t.Errorf("TransactInput %+v\nby hand %+v", tin.TransactItems[0].Put, hand.TransactItems[0].Put)
	}
}

func dumpUpdate(in *dynamodb.UpdateItemInput) string {
	if in == nil {
		return "nil"
	}
	vals := map[string]string{}
	for k, v := range in.ExpressionAttributeValues {
		vals[k] = text(v)
	}
	return fmt.Sprintf("%s\n%s\n%v\n%v", aws.ToString(in.UpdateExpression), aws.ToString(in.ConditionExpression), in.ExpressionAttributeNames, vals)
}

func BenchmarkTransactInput10(b *testing.B) {
	tbl := load(b, ticketsModel)
	ops := commentOps(10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tbl.TransactInput(ops...); err != nil {
			b.Fatal(err)
		}
	}
}

func commentsByHand(n int) (*dynamodb.TransactWriteItemsInput, error) {
	in := &dynamodb.TransactWriteItemsInput{}
	seen := map[string]bool{}
	for i := range n {
		ticketID, commentID, author, body := "t1", fmt.Sprintf("c%02d", i), "ann", "line "+fmt.Sprint(i)
		if len(ticketID) > 40 || len(commentID) > 40 || len(author) > 40 || len(body) > 4000 {
			return nil, fmt.Errorf("bad value")
		}
		pk, sk := "TICKET#"+keyEscaper.Replace(ticketID), "COMMENT#"+keyEscaper.Replace(commentID)
		if seen[pk+" "+sk] {
			return nil, fmt.Errorf("an item twice")
		}
		seen[pk+" "+sk] = true
		expr, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name("PK"))).Build()
		if err != nil {
			return nil, err
		}
		in.TransactItems = append(in.TransactItems, types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String("Desk"),
			Item: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk},
				"ticketId": &types.AttributeValueMemberS{Value: ticketID}, "commentId": &types.AttributeValueMemberS{Value: commentID},
				"author": &types.AttributeValueMemberS{Value: author}, "body": &types.AttributeValueMemberS{Value: body},
			},
			ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}})
	}
	return in, nil
}

func BenchmarkTransactInput10ByHand(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := commentsByHand(10); err != nil {
			b.Fatal(err)
		}
	}
}
