package test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// A model of two tables (../patterns/testdata/tables/storefront.yaml):
// Orders (Customer, Order: no TTL; Order.customerName a copy the fanout
// handler keeps) and Sessions (Session, Cart: TTL expiresAt; expired
// sessions archived), made by singletable.NewTables, one Table
// construct each, and one role granted patterns of both.

const storefrontModel = "../patterns/testdata/tables/storefront.yaml"

var storefrontGrants = []string{"GetCustomer", "CustomerOrders", "PlaceOrder", "GetSession", "CartItems"}

// tableOf names the storefront table a logical id belongs to.
func tableOf(id string) string {
	for _, name := range []string{"Orders", "Sessions"} {
		if strings.HasPrefix(id, "Storefront"+name) {
			return name
		}
	}
	return "?" + id
}

// storefrontArn renders a table ARN reference as its table's name, and
// an index ARN as "Orders/index/GSI1".
func storefrontArn(r any) string {
	o := obj(r)
	if ga, ok := o["Fn::GetAtt"]; ok {
		return tableOf(list(ga)[0].(string))
	}
	if j, ok := o["Fn::Join"]; ok {
		parts := list(list(j)[1])
		if len(parts) == 2 {
			return storefrontArn(parts[0]) + parts[1].(string)
		}
	}
	b, _ := json.Marshal(r)
	return string(b)
}

func TestStorefrontTwoTables(t *testing.T) {
	tmpl := templates["storefront"]
	tables := resources(tmpl, "AWS::DynamoDB::GlobalTable")
	got := map[string]map[string]any{}
	for id, r := range tables {
		got[tableOf(id)] = props(r)
	}
	// GIVEN two declared tables THEN two tables, each with its own keys,
	// GSIs and TTL
	if len(tables) != 2 || got["Orders"] == nil || got["Sessions"] == nil {
		t.Fatalf("tables %v", slices.Collect(func(yield func(string) bool) {
			for id := range tables {
				yield(id)
			}
		}))
	}
	if ttl := got["Sessions"]["TimeToLiveSpecification"]; fmt.Sprint(ttl) != "map[AttributeName:expiresAt Enabled:true]" {
		t.Errorf("Sessions TTL %v", ttl)
	}
	if ttl := got["Orders"]["TimeToLiveSpecification"]; ttl != nil {
		t.Errorf("Orders TTL %v: no entity of Orders has one", ttl)
	}
	indexes := func(name string) (out []string) {
		for _, g := range list(got[name]["GlobalSecondaryIndexes"]) {
			out = append(out, obj(g)["IndexName"].(string))
		}
		return out
	}
	if fmt.Sprint(indexes("Orders")) != "[GSI1 GSI2]" || fmt.Sprint(indexes("Sessions")) != "[GSI1]" {
		t.Errorf("indexes: Orders %v, Sessions %v", indexes("Orders"), indexes("Sessions"))
	}
	// AND each table is its design's (storefront.Table)
	for _, name := range []string{"Orders", "Sessions"} {
		if tb := storefront.Table(name); tb == nil || tb.Design.Table != name || tb.Lock == nil || !strings.HasSuffix(tb.Lock.Source(), "storefront."+name+".lock.json") {
			t.Errorf("%s: %+v", name, tb)
		}
	}
}

// Each stream handler reads the stream of the table whose entities it
// serves: the fanout of Order.customerName Orders', the archive of
// expired sessions Sessions'.
func TestStorefrontHandlersPerTable(t *testing.T) {
	tmpl := templates["storefront"]
	fns := resources(tmpl, "AWS::Lambda::Function")
	var got []string
	for _, es := range resources(tmpl, "AWS::Lambda::EventSourceMapping") {
		fn := obj(props(es)["FunctionName"])["Ref"].(string)
		src := list(obj(props(es)["EventSourceArn"])["Fn::GetAtt"])
		if fns[fn] == nil || src[1] != "StreamArn" {
			t.Fatalf("event source %v", props(es))
		}
		got = append(got, tableOf(fn)+" handler on "+tableOf(src[0].(string))+"'s stream")
	}
	sort.Strings(got)
	if want := "[Orders handler on Orders's stream Sessions handler on Sessions's stream]"; fmt.Sprint(got) != want {
		t.Errorf("handlers %v, want %s", got, want)
	}
}

// One role granted patterns of both tables: each pattern's actions on
// its own table's ARN (and the index it reads there), nothing across.
func TestStorefrontGrantsPerTable(t *testing.T) {
	tmpl := templates["storefront"]
	var got []string
	for _, st := range list(obj(props(policyOf(t, tmpl, "Checkout"))["PolicyDocument"])["Statement"]) {
		st := obj(st)
		var actions, res []string
		for _, a := range many(st["Action"]) {
			actions = append(actions, a.(string))
		}
		for _, r := range many(st["Resource"]) {
			res = append(res, storefrontArn(r))
		}
		sort.Strings(actions)
		sort.Strings(res)
		got = append(got, strings.Join(actions, ",")+" on "+strings.Join(res, ","))
	}
	sort.Strings(got)
	want := []string{
		"dynamodb:ConditionCheckItem,dynamodb:GetItem,dynamodb:PutItem on Orders", // GetCustomer, PlaceOrder

		"dynamodb:GetItem,dynamodb:Query on Sessions", // GetSession, CartItems (the base table)
		"dynamodb:Query on Orders/index/GSI1",         // CustomerOrders
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("statements\n got %q\nwant %q", got, want)
	}
}

// Alarms per table: each table's throttling alarms name it.
func TestStorefrontAlarmsPerTable(t *testing.T) {
	tmpl := templates["storefront"]
	per := map[string]int{}
	for _, a := range resources(tmpl, "AWS::CloudWatch::Alarm") {
		for _, d := range list(props(a)["Dimensions"]) {
			if obj(d)["Name"] == "TableName" {
				per[tableOf(obj(obj(d)["Value"])["Ref"].(string))]++
			}
		}
	}
	if per["Orders"] == 0 || per["Sessions"] == 0 || len(per) != 2 {
		t.Errorf("alarms per table %v", per)
	}
}
