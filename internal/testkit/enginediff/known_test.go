package enginediff

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// like matches a mismatch by its operation, each side's error name ("ok"
// for a success, "" for any), each side's message, the path of the first
// difference and the request (regular expressions, "" for any), and
// also, when set. The reference's messages are DynamoDB Local 1.25.1's
// and do not change; the engine's may.
type like struct {
	ops            []string
	ref, got       string
	refMsg, gotMsg string
	path, req      string
	also           func(*Mismatch) bool
}

func errName(o Outcome) string {
	if e, ok := o["error"].(string); ok {
		return e
	}
	return "ok"
}

func (l like) match(m *Mismatch) bool {
	re := func(pat, s string) bool { return pat == "" || regexp.MustCompile(pat).MatchString(s) }
	return (len(l.ops) == 0 || slices.Contains(l.ops, m.Op())) &&
		(l.ref == "" || l.ref == errName(m.Ref)) && (l.got == "" || l.got == errName(m.Got)) &&
		re(l.refMsg, m.RefMessage) && re(l.gotMsg, m.GotMessage) && re(l.path, m.Diff.Path) &&
		re(l.req, canon(m.Request)) && (l.also == nil || l.also(m))
}

// bigValue stands in a Repro for a string of 410,000 characters, over
// DynamoDB's 400 KB item limit; @300KB@ for one of 300,000.
const bigValue = "@410KB@"

func repro(s string) []Step {
	s = strings.ReplaceAll(s, bigValue, strings.Repeat("x", 410_000))
	s = strings.ReplaceAll(s, "@300KB@", strings.Repeat("x", 300_000))
	steps, err := ParseSteps(s)
	if err != nil {
		panic("a known difference's Repro does not parse: " + err.Error())
	}
	return steps
}

// reasons are a transaction's cancellation codes in o.
func reasons(o Outcome) []string {
	var out []string
	for _, r := range asList(o["CancellationReasons"]) {
		c, _ := asMap(r)["Code"].(string)
		out = append(out, c)
	}
	return out
}

// keysRepeatAsNumbers reports whether two of the keys the step names are
// one key once their numbers are in canonical form, and not before.
func keysRepeatAsNumbers(m *Mismatch) bool {
	var keys []map[string]any
	switch m.Op() {
	case "BatchGetItem":
		for _, k := range asList(asMap(asMap(m.Request["RequestItems"])[TableT])["Keys"]) {
			keys = append(keys, asMap(k))
		}
	default:
		keys = writtenKeys(m.Schema, m.Steps[m.Step])
	}
	raw, norm := map[string]bool{}, map[string]bool{}
	dupRaw, dupNorm := false, false
	for _, k := range keys {
		r, n := canon(k), canon(canonicalNumbers(k))
		dupRaw = dupRaw || raw[r]
		dupNorm = dupNorm || norm[n]
		raw[r], norm[n] = true, true
	}
	return dupNorm && !dupRaw
}

// spuriousDefinition reports whether a CreateTable defines an attribute
// no key schema uses.
func spuriousDefinition(m *Mismatch) bool {
	used := map[string]bool{}
	keys := func(ks any) {
		for _, k := range asList(ks) {
			n, _ := asMap(k)["AttributeName"].(string)
			used[n] = true
		}
	}
	keys(m.Request["KeySchema"])
	for _, kind := range []string{"GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
		for _, ix := range asList(m.Request[kind]) {
			keys(asMap(ix)["KeySchema"])
		}
	}
	for _, d := range asList(m.Request["AttributeDefinitions"]) {
		if n, _ := asMap(d)["AttributeName"].(string); !used[n] {
			return true
		}
	}
	return false
}

// onlyRemoves reports whether the update that wrote the differing
// item (an UpdateItem's, or the transaction's action on the key the
// difference is at) only takes attributes away: REMOVE and DELETE.
func onlyRemoves(m *Mismatch) bool {
	expr, _ := m.Request["UpdateExpression"].(string)
	if i := regexp.MustCompile(`^after\[(\d+)\]`).FindStringSubmatch(m.Diff.Path); i != nil && m.Op() == "TransactWriteItems" {
		n, _ := strconv.Atoi(i[1])
		keys := writtenKeys(m.Schema, m.Steps[m.Step])
		if n >= len(keys) {
			return false
		}
		for _, a := range asList(m.Request["TransactItems"]) {
			u := asMap(asMap(a)["Update"])
			if u != nil && canon(u["Key"]) == canon(keys[n]) {
				expr, _ = u["UpdateExpression"].(string)
			}
		}
	}
	return expr != "" && !regexp.MustCompile(`(?i)\b(set|add)\b`).MatchString(expr)
}

// refuses is a known difference where DynamoDB refuses (ValidationException
// with a message refMsg matches) what the engine accepts or answers
// otherwise.
func refuses(name, refMsg, why string, ops []string, steps string) Known {
	k := Known{Name: name, Why: why,
		Match: like{ops: ops, ref: "ValidationException", refMsg: refMsg, also: func(m *Mismatch) bool { return errName(m.Got) != "ValidationException" }}.match}
	if steps != "" {
		k.Repro = repro(steps)
	}
	return k
}

// knownDifferences are the differences between the in-process engine and
// DynamoDB Local found so far, each with the shortest sequence showing
// it. TestKnownDifferences checks each still differs; the bounded run of
// TestDifferential passes over them.
var knownDifferences = []Known{
	// The engine differs from DynamoDB.
	{
		Name: "if_not_exists with a missing fallback",
		Why: "DynamoDB Local refuses if_not_exists(b, c) when c is an attribute the item lacks, even where b exists and c is not needed: ValidationException " +
			"\"The provided expression refers to an attribute that does not exist in the item\"; the engine takes b (AWS's behaviour is not established)",
		Match: like{ops: []string{"UpdateItem", "TransactWriteItems"}, ref: "ValidationException", refMsg: `refers to an attribute that does not exist in the item`, got: "ok", req: `if_not_exists`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"pk":{"S":"a"},"b":{"S":"x"}},"TableName":"@T"}},
{"op":"UpdateItem","req":{"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"SET d = if_not_exists(b, c)"}}]`),
	},
	{
		Name: "a transaction's update of a key attribute",
		Why: "DynamoDB cancels a transaction whose Update sets a key attribute (the reason ValidationError for that action, or ConditionalCheckFailed where its condition fails; " +
			"TransactionCanceledException) before it looks at the other actions' keys; the engine refuses the request when another action's key is not the table's " +
			"(ValidationException \"The number of conditions on the keys is invalid\"). The update alone is fixed (minidyn's TestAnUpdateOfAKeyAttributeChecksItsConditionFirst)",
		Match: like{ops: []string{"TransactWriteItems"}, ref: "TransactionCanceledException", got: "ValidationException",
			also: func(m *Mismatch) bool {
				return regexp.MustCompile(`part of the key`).MatchString(m.GotMessage) || slices.Contains(reasons(m.Ref), "ValidationError")
			}}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"TransactWriteItems","req":{"TransactItems":[{"Update":{"ExpressionAttributeValues":{":v":{"S":"b"}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"SET pk = :v"}},{"ConditionCheck":{"ConditionExpression":"attribute_exists(b)","Key":{"pk":{"S":"b"},"x":{"S":"c"}},"TableName":"@T"}}]}}]`),
	},
	{
		Name: "a LastEvaluatedKey after the last item a key condition selects",
		Why: "DynamoDB Local answers a Limit-ed Query whose page ends on the last item the key condition can select (sk <= :v ending at :v, BETWEEN reaching a bound, " +
			"a table without a sort key) without a LastEvaluatedKey; the engine returns one, and then an empty page",
		Match: like{ops: []string{"Query"}, ref: "ok", got: "ok", path: `^pages\[\d+\]\.LastEvaluatedKey$`, also: func(m *Mismatch) bool { return m.Diff.Ref == missing }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"pk":{"S":"a"},"sk":{"N":"1"}},"TableName":"@T"}},
{"op":"Query","req":{"ExpressionAttributeValues":{":p":{"S":"a"},":v":{"N":"1"}},"KeyConditionExpression":"pk = :p AND sk <= :v","Limit":1,"TableName":"@T"}}]`),
	},
	refuses("an ExclusiveStartKey DynamoDB refuses", `provided starting key|Exclusive Start Key must have same size|exclusive start key is invalid`,
		"DynamoDB refuses a Query's ExclusiveStartKey that does not match its key condition as it reads it (sk BETWEEN -1 AND -1 from sk -1: "+
			"\"The provided starting key does not match the range key predicate\"); the engine runs the read. An empty one is fixed (refused; minidyn's TestQueryFromAStartKeyWithoutASortKey)", []string{"Query", "Scan"}, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"TableName":"@T"}},
{"op":"Query","req":{"ExclusiveStartKey":{"pk":{"S":"a"},"sk":{"N":"-1"}},"ExpressionAttributeValues":{":p":{"S":"a"},":v":{"N":"-1"}},"KeyConditionExpression":"pk = :p AND sk BETWEEN :v AND :v","TableName":"@T"}}]`),
	{
		Name: "a 300 KB item in a table with an LSI",
		Why: "DynamoDB Local refuses an item of 300 KB in a table with an LSI projecting it (\"Item size has exceeded the maximum allowed size\": the item and its LSI copy count together, it seems); " +
			"the engine stores it, or evaluates its condition (AWS's behaviour is not established)",
		Match: like{ref: "ValidationException", refMsg: `Item size has exceeded the maximum allowed size`,
			also: func(m *Mismatch) bool {
				if errName(m.Got) == "ValidationException" {
					return false
				}
				if n := len(canon(m.Request)); n < 250_000 || n > 400_000 {
					return false // an item under 400 KB
				}
				for _, ix := range m.Schema.Indexes {
					if ix.Local {
						return true
					}
				}
				return false
			}}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"l","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"LocalSecondaryIndexes":[{"IndexName":"LSI0","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"l","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"a":{"S":"@300KB@"},"l":{"S":"g"},"pk":{"S":"a"},"sk":{"S":"b"}},"TableName":"@T"}}]`),
	},

	// Found after the engine's fidelity work (issue 21.1).
	{
		Name:      "reference: REMOVE of a nested path on a missing item",
		Reference: true,
		Why: "On AWS an update that REMOVEs a nested path (x.y, x[0]) of an item that does not exist succeeds and does nothing, while on an item that exists but lacks the parent it is refused " +
			"(ScyllaDB's test_update_expression.py test_nested_attribute_remove_from_missing_item and test_nested_attribute_update_bad_path_dot, written against AWS); " +
			"DynamoDB Local refuses both (ValidationException \"The document path provided in the update expression is invalid for update\"); the engine does as AWS " +
			"(on an existing item it refuses too, which both engines agree on)",
		Match: like{ops: []string{"UpdateItem", "TransactWriteItems"}, ref: "ValidationException", refMsg: `document path provided in the update expression is invalid for update`, got: "ok"}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"UpdateItem","req":{"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"REMOVE c.x"}}]`),
	},

	{
		Name:      "reference: a transaction with an invalid item, key or path",
		Reference: true,
		Why: "On AWS a transaction whose action has an invalid item (a key of another type) is canceled with the reason ValidationError for that action and None for the others " +
			"(ScyllaDB's test_transact.py test_transact_write_cancellation_reasons_validationerror and _one, written against AWS; AWS's TransactionCanceledException reference: " +
			"\"an item size becomes too large ... or a similar validation error\", \"a user error, such as an invalid data format\"), which the engine does for each of the errors below; " +
			"DynamoDB Local refuses as a whole (ValidationException) a transaction with a Put whose index key is not a key type, a key value that is empty or missing, " +
			"or an update of a path whose parent is missing (\"Invalid attribute value type\", \"cannot contain an empty string value\", \"One of the required keys was not given a value\", " +
			"\"The document path provided in the update expression is invalid for update\", \"The provided expression refers to an attribute that does not exist in the item\", \"An operand in the update expression has an incorrect data type\", " +
			"\"Item size has exceeded the maximum allowed size\"); " +
			"the engine cancels it with the reason ValidationError",
		Match: like{ops: []string{"TransactWriteItems"}, ref: "ValidationException", got: "TransactionCanceledException",
			refMsg: `Invalid attribute value type|cannot contain an empty (string|binary) value|required keys was not given a value|document path provided in the update expression is invalid|refers to an attribute that does not exist in the item|An operand in the update expression has an incorrect data type|Item size has exceeded the maximum allowed size|precision up to 38 digits`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"TransactWriteItems","req":{"TransactItems":[{"Put":{"Item":{"g":{"BOOL":true},"pk":{"S":"a"}},"TableName":"@T"}}]}}]`),
	},

	{
		Name:      "reference: a transaction's conditions beside a ValidationError",
		Reference: true,
		Why: "On AWS the actions of a transaction are validated before any condition is evaluated: beside an action with a ValidationError the others' reasons are None, even a false condition's " +
			"(ScyllaDB's test_transact.py test_transact_write_cancellation_reasons_validationerror, written against AWS), as the engine reports; " +
			"DynamoDB Local still evaluates the other actions' conditions and reports ConditionalCheckFailed for those that fail",
		Match: like{ops: []string{"TransactWriteItems"}, ref: "TransactionCanceledException", got: "TransactionCanceledException", path: `^CancellationReasons\[\d+\]\.Code$`,
			also: func(m *Mismatch) bool {
				return slices.Contains(reasons(m.Got), "ValidationError") && m.Diff.Ref == "ConditionalCheckFailed" && m.Diff.Got == "None"
			}}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"TransactWriteItems","req":{"TransactItems":[{"Put":{"Item":{"g":{"N":"1"},"pk":{"S":"a"}},"TableName":"@T"}},{"ConditionCheck":{"ConditionExpression":"attribute_exists(b)","Key":{"pk":{"S":"b"}},"TableName":"@T"}}]}}]`),
	},

	{
		Name:      "reference: an ExclusiveStartKey on a table without a sort key",
		Reference: true,
		Why: "AWS refuses a Query of a table without a sort key given an ExclusiveStartKey (ValidationException \"The provided exclusive start key is invalid\"; " +
			"ScyllaDB's test_query.py test_query_no_sort_key_exclusive_start_key, written against AWS); DynamoDB Local reads the empty page after it; the engine refuses it",
		Match: like{ops: []string{"Query"}, ref: "ok", got: "ValidationException", gotMsg: `no sort key`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"Query","req":{"ExclusiveStartKey":{"pk":{"S":"a"}},"ExpressionAttributeValues":{":v":{"S":"a"}},"KeyConditionExpression":"pk = :v","TableName":"@T"}}]`),
	},
	{
		Name:      "reference: an attribute definition no key uses",
		Reference: true,
		Why: "AWS refuses a CreateTable whose AttributeDefinitions name an attribute no key schema uses (ValidationException; ScyllaDB's test_table.py " +
			"test_create_table_spurious_attribute_definitions, written against AWS); DynamoDB Local compares the count of definitions with the count of key schema entries, " +
			"an attribute keying the table and an index counted twice, and creates the table; the engine refuses it",
		Match: like{ops: []string{"CreateTable"}, ref: "ok", got: "ValidationException", also: spuriousDefinition}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"},{"AttributeName":"zz","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"sk","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"TableName":"@T"}}]`),
	},

	{
		Name:      "reference: an update that only removes creates the item",
		Reference: true,
		Why: "On AWS an UpdateItem that only takes attributes away (REMOVE, DELETE) does not create a missing item (test_item.py test_update_item_non_existent); " +
			"DynamoDB Local creates it with its key; the engine does not",
		Match: like{ops: []string{"UpdateItem", "TransactWriteItems"}, path: `^(Attributes|after)`, also: onlyRemoves}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"UpdateItem","req":{"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"REMOVE c"}}]`),
	},

	{
		Name:      "reference: keys equal as numbers are one key",
		Reference: true,
		Why: "On AWS 1 and 1.0 are one number, so one key (test_number.py test_number_range_key_representation): a batch naming both names one item twice " +
			"(ValidationException \"Provided list of item keys contains duplicates\"); DynamoDB Local compares their spelling and runs it; the engine refuses it",
		Match: like{ops: []string{"BatchGetItem", "BatchWriteItem", "TransactWriteItems", "TransactGetItems"}, got: "ValidationException", also: keysRepeatAsNumbers}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"N"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"BatchGetItem","req":{"RequestItems":{"@T":{"Keys":[{"pk":{"N":"1"}},{"pk":{"N":"1.0"}}]}}}}]`),
	},

	{
		Name:      "reference: one cancellation reason for several actions",
		Reference: true,
		Why: "AWS gives a canceled transaction one cancellation reason per action, in order (the TransactWriteItems reference: \"CancellationReasons ... ordered in the same order as the TransactItems\"); " +
			"DynamoDB Local gives a single ValidationError when an Update sets a key attribute; the engine gives one per action",
		Match: like{ops: []string{"TransactWriteItems"}, ref: "TransactionCanceledException", got: "TransactionCanceledException",
			also: func(m *Mismatch) bool {
				return len(reasons(m.Ref)) != len(asList(m.Request["TransactItems"])) && len(reasons(m.Got)) == len(asList(m.Request["TransactItems"]))
			}}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"TransactWriteItems","req":{"TransactItems":[{"Update":{"ExpressionAttributeValues":{":v":{"S":"b"}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"SET pk = :v"}},{"Put":{"Item":{"g":{"N":"1"},"pk":{"S":"c"}},"TableName":"@T"}}]}}]`),
	},
	{
		Name:      "reference: UPDATED_NEW of a nested path",
		Reference: true,
		Why: "AWS's UPDATED_OLD and UPDATED_NEW of an update of a nested path (ADD c.x :v, SET l[1] = :v) return only that path, nested (test_returnvalues.py test_update_item_returnvalues_nested); " +
			"DynamoDB Local returns the whole top-level attribute; the engine returns the path",
		Match: like{ops: []string{"UpdateItem"}, ref: "ok", got: "ok", path: `^Attributes\.[^.]+\.`, req: `"ReturnValues":"UPDATED_(OLD|NEW)"`,
			also: func(m *Mismatch) bool {
				u, _ := m.Request["UpdateExpression"].(string)
				return regexp.MustCompile(`(?i)\b(set|add|remove|delete)\s+[#\w]+[.\[]|,\s*[#\w]+[.\[]`).MatchString(u)
			}}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"c":{"M":{"y":{"S":"z"}}},"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"UpdateItem","req":{"ExpressionAttributeValues":{":v":{"N":"1"}},"Key":{"pk":{"S":"a"}},"ReturnValues":"UPDATED_NEW","TableName":"@T","UpdateExpression":"ADD c.x :v"}}]`),
	},
	// DynamoDB Local differs from AWS: the engine is right.
	{
		Name:      "reference: an update giving an index key another type",
		Reference: true,
		Why: "AWS refuses an UpdateItem that gives an index key attribute a value of another type (ValidationException \"Type mismatch for Index Key\"; test_gsi.py " +
			"test_gsi_wrong_type_attribute_update); DynamoDB Local stores it (and the item leaves the index); the engine refuses it",
		Match: like{ops: []string{"UpdateItem", "TransactWriteItems"}, got: "ValidationException", gotMsg: `Type mismatch for Index Key|Invalid attribute value type`,
			also: func(m *Mismatch) bool {
				return errName(m.Ref) == "ok" || errName(m.Ref) == "TransactionCanceledException" && !slices.Contains(reasons(m.Ref), "ValidationError")
			}}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"UpdateItem","req":{"ExpressionAttributeValues":{":v":{"N":"1"}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"SET g = :v"}}]`),
	},
	{
		Name:      "reference: two actions on one item",
		Reference: true,
		Why: "AWS refuses a transaction with two actions on one item (ValidationException \"Transaction request cannot include multiple operations on one item\"; " +
			"test_transact.py test_transact_write_items_multi_action_conflict); DynamoDB Local evaluates the conditions first and, when one fails, cancels instead, " +
			"and misses the repetition when the key holds a number spelt 1e3 (it runs both actions); the engine refuses",
		Match: like{ops: []string{"TransactWriteItems"}, got: "ValidationException", gotMsg: `multiple operations on one item`,
			also: func(m *Mismatch) bool { return errName(m.Ref) != "ValidationException" }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"TransactWriteItems","req":{"TransactItems":[{"Put":{"Item":{"pk":{"S":"a"}},"TableName":"@T"}},{"ConditionCheck":{"ConditionExpression":"attribute_exists(b)","Key":{"pk":{"S":"a"}},"TableName":"@T"}}]}}]`),
	},
}

// fixedDifferences were known differences the engine no longer has, each
// with its repro: TestFixedDifferences checks both engines now agree on
// it, step by step (a regression test against DynamoDB Local), beside the
// engine's own fidelity test its Why names.
var fixedDifferences = []Known{
	{
		Name: "nested path into a key attribute",
		Why: "Fixed: refused in a condition, filter, key condition or projection (key attributes of the table and of every index), as DynamoDB Local refuses them, in a transaction's Put, Update and Delete conditions too (before any is evaluated), except in a ConditionCheck's, which it evaluates; an update's own paths are refused after its condition (\"Cannot update attribute\"); minidyn's TestExpressionsDynamoDBRefuses. Was: " +
			"DynamoDB refuses any expression (condition, filter, projection, update) that takes a nested path (a.b or a[0]) into a key attribute of the table or of any index: " +
			"ValidationException \"Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed\"; the engine evaluates it",
		Match: like{ref: "ValidationException", refMsg: `^Key attributes must be scalars`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"GetItem","req":{"Key":{"pk":{"S":"a"}},"ProjectionExpression":"pk.x","TableName":"@T"}}]`),
	},
	{
		Name: "an operand repeated in BETWEEN or if_not_exists",
		Why: "Fixed: refused as DynamoDB does; minidyn's TestExpressionsDynamoDBRefuses. Was: " +
			"DynamoDB refuses a BETWEEN or if_not_exists whose first operand is repeated (b BETWEEN b AND :v): ValidationException " +
			"\"The first operand must be distinct from the remaining operands for this operator or function\"; the engine evaluates it",
		Match: like{ref: "ValidationException", refMsg: `first operand must be distinct from the remaining operands`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Scan","req":{"ExpressionAttributeValues":{":v":{"S":"x"}},"FilterExpression":"b BETWEEN b AND :v","TableName":"@T"}}]`),
	},
	{
		Name: "an empty key value in a key condition",
		Why: "Fixed: refused, partition and sort key values, on the table and on indexes; minidyn's TestExpressionsDynamoDBRefuses. Was: " +
			"DynamoDB refuses a KeyConditionExpression that compares an index key with an empty string or binary (ValidationException " +
			"\"The AttributeValue for a key attribute cannot contain an empty string value\"); the engine runs it and finds nothing",
		Match: like{ops: []string{"Query"}, ref: "ValidationException", refMsg: `cannot contain an empty (string|binary) value`, got: "ok"}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"r","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"r","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Query","req":{"ExpressionAttributeValues":{":g":{"S":"g"},":r":{"S":""}},"IndexName":"GSI0","KeyConditionExpression":"g = :g AND r >= :r","TableName":"@T"}}]`),
	},
	{
		Name: "a false condition before an update of a key attribute",
		Why: "Fixed: the condition is checked before the key update is refused; minidyn's TestAnUpdateOfAKeyAttributeChecksItsConditionFirst. Was: " +
			"DynamoDB Local answers ConditionalCheckFailedException to an UpdateItem that sets a key attribute when its condition is false (the condition is checked first; " +
			"with a true condition or none: ValidationException \"Cannot update attribute pk\"); the engine refuses the update first",
		Match: like{ops: []string{"UpdateItem"}, ref: "ConditionalCheckFailedException", got: "ValidationException", gotMsg: `part of the key`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"UpdateItem","req":{"ConditionExpression":"attribute_exists(b)","ExpressionAttributeValues":{":v":{"S":"b"}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"SET pk = :v"}}]`),
	},
	{
		Name: "a filter on what an LSI does not project",
		Why: "Fixed: a Query's filter naming what the index does not project is refused (GSI and LSI); minidyn's TestIndexFiltersOnUnprojectedAttributes. Was: " +
			"DynamoDB Local refuses a Query of an LSI whose FilterExpression names an attribute the index does not project (ValidationException " +
			"\"Secondary index LSI0 does not project one or more filter attributes\"); the engine runs it",
		Match: like{ops: []string{"Query", "Scan"}, ref: "ValidationException", refMsg: `does not project one or more filter attributes`, got: "ok"}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"l","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"LocalSecondaryIndexes":[{"IndexName":"LSI0","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"l","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],"TableName":"@T"}},
{"op":"Query","req":{"ExpressionAttributeValues":{":p":{"S":"a"},":v":{"S":"x"}},"FilterExpression":"c = :v","IndexName":"LSI0","KeyConditionExpression":"pk = :p","TableName":"@T"}}]`),
	},
	{
		Name: "an index read returns what the index does not project",
		Why: "Fixed: a Scan's filter on what the index does not project runs on the whole item, and the page holds what the index projects; minidyn's TestIndexFiltersOnUnprojectedAttributes. Was: " +
			"DynamoDB returns only what an index projects from a Query or Scan of it (KEYS_ONLY: the keys); the engine returns the whole item " +
			"from a Scan of a KEYS_ONLY LSI whose FilterExpression names an unprojected attribute",
		Match: like{ops: []string{"Query", "Scan"}, ref: "ok", got: "ok", path: `Items\[\d+\]\.[^.\[]+$`, req: `"IndexName"`,
			also: func(m *Mismatch) bool { return m.Diff.Ref == missing }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"l","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"LocalSecondaryIndexes":[{"IndexName":"LSI0","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"l","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"a":{"S":"x"},"l":{"S":"g"},"pk":{"S":"a"},"sk":{"S":"b"}},"TableName":"@T"}},
{"op":"Scan","req":{"ExpressionAttributeValues":{":v":{"S":"y"}},"FilterExpression":"NOT contains(a, :v)","IndexName":"LSI0","TableName":"@T"}}]`),
	},
	{
		Name: "a filter on what a GSI does not project",
		Why: "Fixed: a Scan of a GSI filtered on what it does not project runs on the whole item; minidyn's TestIndexFiltersOnUnprojectedAttributes. Was: " +
			"DynamoDB Local runs a Scan or Query of a GSI whose FilterExpression names an attribute the index does not project (the attribute is absent there); " +
			"the engine refuses it (ValidationException \"Secondary index GSI0 does not project one or more filter attributes\"); on an LSI both refuse",
		Match: like{ops: []string{"Scan", "Query"}, ref: "ok", got: "ValidationException", gotMsg: `does not project one or more filter attributes`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Scan","req":{"ExpressionAttributeValues":{":v":{"S":"x"}},"FilterExpression":"c = :v","IndexName":"GSI0","TableName":"@T"}}]`),
	},
	{
		Name: "TransactGetItems with an invalid key",
		Why: "Fixed: TransactionCanceledException without reasons, DynamoDB Local's message; minidyn's TestTransactGetItemsWithAnInvalidKey. Was: " +
			"DynamoDB Local answers TransactionCanceledException (without reasons) to a TransactGetItems whose key is incomplete or of the wrong type; " +
			"the engine answers ValidationException (AWS's behaviour is not established)",
		Match: like{ops: []string{"TransactGetItems"}, ref: "TransactionCanceledException", got: "ValidationException"}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"TransactGetItems","req":{"TransactItems":[{"Get":{"Key":{"pk":{"N":"1"}},"TableName":"@T"}}]}}]`),
	},
}
