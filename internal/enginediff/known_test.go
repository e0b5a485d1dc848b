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

// numberSpelling reports whether the first difference is a number the
// engine answers as it was written and DynamoDB in canonical form.
func numberSpelling(m *Mismatch) bool {
	if set := regexp.MustCompile(`^(.*\.NS)\[\d+\]$`).FindStringSubmatch(m.Diff.Path); set != nil {
		// a number set: its members in canonical form and in order
		ref, got := valueAt(m.Ref, set[1]), valueAt(m.Got, set[1])
		return canon(ref) != canon(got) && canon(canonicalNumbers(map[string]any{"NS": got})) == canon(map[string]any{"NS": ref})
	}
	r, rok := m.Diff.Ref.(string)
	g, gok := m.Diff.Got.(string)
	c, ok := CanonicalNumber(g)
	return rok && gok && ok && c == r && c != g && strings.HasSuffix(m.Diff.Path, ".N")
}

// valueAt is what path (as firstDifference writes it) leads to in o.
func valueAt(o Outcome, path string) any {
	var cur any = map[string]any(o)
	for _, part := range regexp.MustCompile(`[^.\[\]]+|\[\d+\]`).FindAllString(path, -1) {
		if strings.HasPrefix(part, "[") {
			i := 0
			for _, c := range part[1 : len(part)-1] {
				i = i*10 + int(c-'0')
			}
			l := asList(cur)
			if i >= len(l) {
				return nil
			}
			cur = l[i]
		} else {
			cur = asMap(cur)[part]
		}
	}
	return cur
}

// emptyLosesType reports whether the first difference is an empty list,
// map or binary the engine answers without its type ({}).
func emptyLosesType(m *Mismatch) bool {
	if m.Diff.Got != missing || !regexp.MustCompile(`\.(L|M|B)$`).MatchString(m.Diff.Path) {
		return false
	}
	switch v := m.Diff.Ref.(type) {
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	case string:
		return v == ""
	}
	return false
}

// alwaysSent are the keys DynamoDB puts in every answer of its kind.
var alwaysSent = map[string]bool{"Items": true, "Count": true, "ScannedCount": true, "UnprocessedItems": true, "UnprocessedKeys": true}

// keyLeftOut reports whether the first difference is a key DynamoDB
// always sends (Items, Count, ...) missing from the engine's answer, or
// a page's shape lacking only such keys.
func keyLeftOut(m *Mismatch) bool {
	last := m.Diff.Path[strings.LastIndexByte(m.Diff.Path, '.')+1:]
	if m.Diff.Got == missing && alwaysSent[last] {
		return true
	}
	// a Scan's or an index Query's page shapes: the same once the keys
	// always sent are taken out
	strip := func(shape string) string {
		var keep []string
		for _, k := range strings.Split(shape, ",") {
			if !alwaysSent[k] {
				keep = append(keep, k)
			}
		}
		return strings.Join(keep, ",")
	}
	shapes := func(v any) map[string]bool {
		out := map[string]bool{}
		switch x := v.(type) {
		case string:
			out[strip(x)] = true
		case []any:
			for _, s := range x {
				if str, ok := s.(string); ok {
					out[strip(str)] = true
				}
			}
		case []string:
			for _, s := range x {
				out[strip(s)] = true
			}
		}
		return out
	}
	switch {
	case strings.HasPrefix(m.Diff.Path, "shapes"):
		return canon(shapes(m.Ref["shapes"])) == canon(shapes(m.Got["shapes"]))
	case regexp.MustCompile(`^pages\[\d+\]\.shape$`).MatchString(m.Diff.Path):
		return canon(shapes(m.Diff.Ref)) == canon(shapes(m.Diff.Got))
	}
	return false
}

// knownDifferences are the differences between the in-process engine and
// DynamoDB Local found so far, each with the shortest sequence showing
// it. TestKnownDifferences checks each still differs; the bounded run of
// TestDifferential passes over them.
var knownDifferences = []Known{
	// The engine differs from DynamoDB.
	{
		Name: "nested path into a key attribute",
		Why: "DynamoDB refuses any expression (condition, filter, projection, update) that takes a nested path (a.b or a[0]) into a key attribute of the table or of any index: " +
			"ValidationException \"Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed\"; the engine evaluates it",
		Match: like{ref: "ValidationException", refMsg: `^Key attributes must be scalars`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"GetItem","req":{"Key":{"pk":{"S":"a"}},"ProjectionExpression":"pk.x","TableName":"@T"}}]`),
	},
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
		Name: "an operand repeated in BETWEEN or if_not_exists",
		Why: "DynamoDB refuses a BETWEEN or if_not_exists whose first operand is repeated (b BETWEEN b AND :v): ValidationException " +
			"\"The first operand must be distinct from the remaining operands for this operator or function\"; the engine evaluates it",
		Match: like{ref: "ValidationException", refMsg: `first operand must be distinct from the remaining operands`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Scan","req":{"ExpressionAttributeValues":{":v":{"S":"x"}},"FilterExpression":"b BETWEEN b AND :v","TableName":"@T"}}]`),
	},
	{
		Name: "a false condition before an update of a key attribute",
		Why: "DynamoDB Local answers ConditionalCheckFailedException to an UpdateItem that sets a key attribute when its condition is false (the condition is checked first; " +
			"with a true condition or none: ValidationException \"Cannot update attribute pk\"); the engine refuses the update first",
		Match: like{ops: []string{"UpdateItem"}, ref: "ConditionalCheckFailedException", got: "ValidationException", gotMsg: `part of the key`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"UpdateItem","req":{"ConditionExpression":"attribute_exists(b)","ExpressionAttributeValues":{":v":{"S":"b"}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"SET pk = :v"}}]`),
	},
	{
		Name: "a transaction's update of a key attribute",
		Why: "DynamoDB cancels a transaction whose Update sets a key attribute, with the reason ValidationError for that action, or ConditionalCheckFailed where its condition fails " +
			"(TransactionCanceledException), before it looks at the other actions' keys; the engine refuses the request (ValidationException \"Cannot update attribute pk\", " +
			"or \"The number of conditions on the keys is invalid\" for another action's key)",
		Match: like{ops: []string{"TransactWriteItems"}, ref: "TransactionCanceledException", got: "ValidationException",
			also: func(m *Mismatch) bool {
				return regexp.MustCompile(`part of the key`).MatchString(m.GotMessage) || slices.Contains(reasons(m.Ref), "ValidationError")
			}}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"TransactWriteItems","req":{"TransactItems":[{"Update":{"ExpressionAttributeValues":{":v":{"S":"b"}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"SET pk = :v"}}]}}]`),
	},
	{
		Name: "a filter on what an LSI does not project",
		Why: "DynamoDB Local refuses a Query of an LSI whose FilterExpression names an attribute the index does not project (ValidationException " +
			"\"Secondary index LSI0 does not project one or more filter attributes\"); the engine runs it",
		Match: like{ops: []string{"Query", "Scan"}, ref: "ValidationException", refMsg: `does not project one or more filter attributes`, got: "ok"}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"l","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"LocalSecondaryIndexes":[{"IndexName":"LSI0","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"l","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],"TableName":"@T"}},
{"op":"Query","req":{"ExpressionAttributeValues":{":p":{"S":"a"},":v":{"S":"x"}},"FilterExpression":"c = :v","IndexName":"LSI0","KeyConditionExpression":"pk = :p","TableName":"@T"}}]`),
	},
	{
		Name: "an empty key value in a key condition",
		Why: "DynamoDB refuses a KeyConditionExpression that compares an index key with an empty string or binary (ValidationException " +
			"\"The AttributeValue for a key attribute cannot contain an empty string value\"); the engine runs it and finds nothing",
		Match: like{ops: []string{"Query"}, ref: "ValidationException", refMsg: `cannot contain an empty (string|binary) value`, got: "ok"}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"r","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"r","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Query","req":{"ExpressionAttributeValues":{":g":{"S":"g"},":r":{"S":""}},"IndexName":"GSI0","KeyConditionExpression":"g = :g AND r >= :r","TableName":"@T"}}]`),
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
	{
		Name: "an index read returns what the index does not project",
		Why: "DynamoDB returns only what an index projects from a Query or Scan of it (KEYS_ONLY: the keys); the engine returns the whole item " +
			"from a Scan of a KEYS_ONLY LSI whose FilterExpression names an unprojected attribute",
		Match: like{ops: []string{"Query", "Scan"}, ref: "ok", got: "ok", path: `Items\[\d+\]\.[^.\[]+$`, req: `"IndexName"`,
			also: func(m *Mismatch) bool { return m.Diff.Ref == missing }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"l","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"LocalSecondaryIndexes":[{"IndexName":"LSI0","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"l","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"a":{"S":"x"},"l":{"S":"g"},"pk":{"S":"a"},"sk":{"S":"b"}},"TableName":"@T"}},
{"op":"Scan","req":{"ExpressionAttributeValues":{":v":{"S":"y"}},"FilterExpression":"NOT contains(a, :v)","IndexName":"LSI0","TableName":"@T"}}]`),
	},
	refuses("an ExclusiveStartKey DynamoDB refuses", `provided starting key|Exclusive Start Key must have same size|exclusive start key is invalid`,
		"DynamoDB refuses an ExclusiveStartKey that is empty or lacks a key attribute (\"Exclusive Start Key must have same size as table's key schema\"), or a Query's that does not "+
			"match its key condition (sk BETWEEN -1 AND -1 from sk -1: \"The provided starting key does not match the range key predicate\"); the engine runs the read", []string{"Query", "Scan"}, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"TableName":"@T"}},
{"op":"Query","req":{"ExclusiveStartKey":{},"ExpressionAttributeValues":{":p":{"S":"a"}},"KeyConditionExpression":"pk = :p","TableName":"@T"}}]`),
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

	// The engine on main before the engine's fidelity work (issue 21.1).
	refuses("an item over 400 KB", `Item size has exceeded the maximum allowed size`,
		"DynamoDB refuses an item over 400 KB (a 410,000-character string): ValidationException \"Item size has exceeded the maximum allowed size\", a whole transaction too; the engine stores it", []string{"PutItem", "BatchWriteItem", "UpdateItem"}, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"a":{"S":"@410KB@"},"pk":{"S":"a"}},"TableName":"@T"}}]`),
	{
		Name:  "numbers answered as written",
		Why:   "DynamoDB answers every number in canonical form (1e3 as 1000, -0 as 0, 1.50 as 1.5; test_number.py); the engine answers it as it was written",
		Match: numberSpelling,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"a":{"N":"1e3"},"pk":{"S":"a"}},"TableName":"@T"}}]`),
	},
	{
		Name:  "an empty list, map or binary loses its type",
		Why:   "DynamoDB answers an empty list, map or binary as {\"L\":[]}, {\"M\":{}}, {\"B\":\"\"}; the engine answers {} (no type)",
		Match: emptyLosesType,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"a":{"L":[]},"pk":{"S":"a"}},"TableName":"@T"}}]`),
	},
	{
		Name:  "keys DynamoDB always sends left out",
		Why:   "DynamoDB always answers Items (empty too), Count, ScannedCount (Query, Scan), UnprocessedItems (BatchWriteItem) and UnprocessedKeys (BatchGetItem); the engine leaves them out when empty or zero",
		Match: keyLeftOut,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Scan","req":{"TableName":"@T"}}]`),
	},
	{
		Name:  "BatchGetItem and TransactGetItems missing",
		Why:   "the engine answers UnknownOperationException to BatchGetItem and TransactGetItems",
		Match: like{ops: []string{"BatchGetItem", "TransactGetItems"}, got: "UnknownOperationException"}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"BatchGetItem","req":{"RequestItems":{"@T":{"Keys":[{"pk":{"S":"a"}}]}}}}]`),
	},
	{
		Name: "a write refused and applied",
		Why:  "DynamoDB changes nothing when it refuses a write (a wrong-typed index key, a number beyond 38 digits, a set with duplicates); the engine refuses it and stores it all the same",
		Match: like{ops: []string{"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}, path: `^after`,
			also: func(m *Mismatch) bool { return errName(m.Ref) != "ok" && errName(m.Ref) == errName(m.Got) }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"g":{"N":"1"},"pk":{"S":"a"}},"TableName":"@T"}}]`),
	},
	{
		Name: "expressions the engine's parser refuses",
		Why: "DynamoDB evaluates conditions and updates the engine refuses with a syntax error: comparisons across types (false), size() of a missing or non-string value, contains() on a missing attribute or a map, " +
			"keywords in lower or mixed case (between, Or), nested list indexes in size(), arithmetic on two values (:a + :b)",
		Match: like{got: "ValidationException", gotMsg: `Syntax error|unsupported expression|not supported`,
			also: func(m *Mismatch) bool { return errName(m.Ref) != "ValidationException" }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"ConditionExpression":"a = :v OR b = :v","ExpressionAttributeValues":{":v":{"N":"1"}},"Item":{"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"PutItem","req":{"ConditionExpression":"size(c) < :v","ExpressionAttributeValues":{":v":{"N":"1"}},"Item":{"pk":{"S":"a"}},"TableName":"@T"}}]`),
	},
	{
		Name: "a condition evaluated otherwise",
		Why:  "the engine finds true a condition DynamoDB finds false, or the reverse (a keyword in mixed case: Not attribute_not_exists(a); attribute_type(a.x, :NULL) of a missing path; not pk[2] >= pk)",
		Match: func(m *Mismatch) bool {
			r, g := errName(m.Ref), errName(m.Got)
			failed := func(e string) bool {
				return e == "ConditionalCheckFailedException" || e == "TransactionCanceledException"
			}
			return m.Diff.Path == "error" && (failed(r) && g == "ok" || r == "ok" && failed(g)) && m.Request["Expected"] == nil
		},
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"ConditionExpression":"Not attribute_not_exists(a)","Item":{"pk":{"S":"a"}},"TableName":"@T"}}]`),
	},
	refuses("a number DynamoDB cannot store", `Number (overflow|underflow)|precision up to 38 digits|cannot be converted into a number`,
		"DynamoDB refuses a number of more than 38 significant digits, or beyond 1E+126 or below 1E-130 in magnitude, or not a number (ValidationException); the engine stores it", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"a":{"N":"1e126"},"pk":{"S":"a"}},"TableName":"@T"}}]`),
	refuses("overlapping document paths", `Two document paths (overlap|conflict)`,
		"DynamoDB refuses a projection or update naming a path twice or a path and its parent (\"Two document paths overlap with each other\"); the engine runs it", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"GetItem","req":{"Key":{"pk":{"S":"a"}},"ProjectionExpression":"b, b","TableName":"@T"}}]`),
	refuses("an operand of the wrong type", `Incorrect operand type for operator or function`,
		"DynamoDB refuses an expression comparing with an operand of a type the operator does not take (< on a list, BETWEEN on NULL: \"Incorrect operand type\"); the engine evaluates it", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Scan","req":{"ExpressionAttributeValues":{":v":{"L":[]}},"FilterExpression":"b < :v","TableName":"@T"}}]`),
	refuses("a batch naming one item twice", `Provided list of item keys contains duplicates`,
		"DynamoDB refuses a BatchWriteItem or BatchGetItem naming one key twice; the engine runs it", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"BatchWriteItem","req":{"RequestItems":{"@T":[{"DeleteRequest":{"Key":{"pk":{"S":"a"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"a"}}}}]}}}]`),
	refuses("a set with a repeated member", `contains duplicates`,
		"DynamoDB refuses a set (SS, NS, BS) with a member twice (\"Input collection contains duplicates\"); the engine stores it", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"a":{"NS":["1","1.0"]},"pk":{"S":"a"}},"TableName":"@T"}}]`),
	refuses("an empty set", `may not be empty|should not be empty`,
		"DynamoDB refuses an empty set (\"An string set may not be empty\"); the engine stores or uses it", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"a":{"SS":[]},"pk":{"S":"a"}},"TableName":"@T"}}]`),
	refuses("an empty string as an index key", `A value specified for a secondary index key is not supported`,
		"DynamoDB refuses a write giving an index key an empty string or binary (\"A value specified for a secondary index key is not supported\"); the engine stores it", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"g":{"S":""},"pk":{"S":"a"}},"TableName":"@T"}}]`),
	refuses("a table definition DynamoDB refuses", `Local Secondary indices|Invalid table/index name|No attributes should be specified to be projected|If Projection type INCLUDE is specified|Two global secondary indices have the same name|number of attributes in key schema must match`,
		"DynamoDB refuses a CreateTable whose LSI has another partition key or whose table has no sort key, an index or table name under 3 characters, INCLUDE without attributes or KEYS_ONLY with some, "+
			"two indexes of one name, an attribute defined and no key using it; the engine creates it", []string{"CreateTable"}, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"ab"}}]`),
	refuses("ConsistentRead on a GSI", `Consistent reads? (cannot|are not supported)`,
		"DynamoDB refuses ConsistentRead on a GSI (\"Consistent read cannot be true when scanning a GSI\"); the engine runs it", []string{"Query", "Scan"}, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Scan","req":{"ConsistentRead":true,"IndexName":"GSI0","TableName":"@T"}}]`),
	refuses("SPECIFIC_ATTRIBUTES without a projection", `Must specify the AttributesToGet or ProjectionExpression`,
		"DynamoDB refuses Select: SPECIFIC_ATTRIBUTES without a ProjectionExpression; the engine runs it", []string{"Query", "Scan"}, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Scan","req":{"Select":"SPECIFIC_ATTRIBUTES","TableName":"@T"}}]`),
	refuses("an invalid ReturnValues", `Return values set to invalid value`,
		"DynamoDB refuses a ReturnValues the operation does not take (ALL_NEW on PutItem, any misspelt value); the engine ignores it", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"pk":{"S":"a"}},"ReturnValues":"ALL_NEW","TableName":"@T"}}]`),
	refuses("BETWEEN with its bounds reversed", `BETWEEN operator requires upper bound to be greater than or equal to lower bound`,
		"DynamoDB refuses sk BETWEEN :a AND :b with :a > :b, in a key condition, a filter or a condition; the engine finds nothing, or evaluates it false", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"TableName":"@T"}},
{"op":"Query","req":{"ExpressionAttributeValues":{":p":{"S":"a"},":a":{"N":"10"},":b":{"N":"2"}},"KeyConditionExpression":"pk = :p AND sk BETWEEN :a AND :b","TableName":"@T"}}]`),
	refuses("redundant parentheses", `redundant parentheses`,
		"DynamoDB refuses a condition wrapped in two pairs of parentheses (((a = :v)): \"The expression has redundant parentheses\"); the engine evaluates it", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Scan","req":{"ExpressionAttributeValues":{":v":{"S":"x"}},"FilterExpression":"((a = :v))","TableName":"@T"}}]`),
	refuses("an update reading an attribute the item lacks", `refers to an attribute that does not exist in the item`,
		"DynamoDB refuses an update whose value reads an attribute the item lacks (SET c = b, SET a = b + :v, list_append(b, :l) without b); the engine writes something (c = NULL)", []string{"UpdateItem", "TransactWriteItems"}, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"UpdateItem","req":{"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"SET c = b"}}]`),
	refuses("a Limit below 1", `Limit must be greater than or equal to 1`,
		"DynamoDB refuses Limit 0 (\"Limit must be greater than or equal to 1\"); the engine runs the read", []string{"Query", "Scan"}, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Scan","req":{"Limit":0,"TableName":"@T"}}]`),
	refuses("a filter on a key attribute", `Filter Expression can only contain non-primary key attributes`,
		"DynamoDB refuses a Query whose FilterExpression names a key attribute of the table or the index read; the engine runs it", []string{"Query"}, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Query","req":{"ExpressionAttributeValues":{":p":{"S":"a"}},"FilterExpression":"pk = :p","KeyConditionExpression":"pk = :p","TableName":"@T"}}]`),
	refuses("a malformed key condition", `Invalid operator used in KeyConditionExpression|Query condition missed key schema element|Query key condition not supported|BETWEEN operator requires same data type|Condition parameter type does not match schema type`,
		"DynamoDB refuses a KeyConditionExpression with OR or <>, without an equality on the partition key, on a non-key attribute, a BETWEEN of two types, or a value of another type than the key's; the engine runs it", []string{"Query"}, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"TableName":"@T"}},
{"op":"Query","req":{"ExpressionAttributeValues":{":p":{"S":"a"},":q":{"S":"b"}},"KeyConditionExpression":"pk = :p OR pk = :q","TableName":"@T"}}]`),
	refuses("a read of an index asking for what it does not project", `ALL_PROJECTED_ATTRIBUTES can be used only when|Select type ALL_ATTRIBUTES is not supported for global secondary index|index .* does not project`,
		"DynamoDB refuses ALL_PROJECTED_ATTRIBUTES on a table, ALL_ATTRIBUTES on a GSI that does not project all, a ProjectionExpression or filter naming what a GSI does not project; the engine runs the read", []string{"Query", "Scan"}, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Scan","req":{"IndexName":"GSI0","ProjectionExpression":"c","TableName":"@T"}}]`),
	refuses("an item with an invalid key value", `Type mismatch for Index Key|Invalid attribute value type|cannot contain an empty (string|binary) value|required keys was not given a value|number of conditions on the keys is invalid`,
		"DynamoDB refuses a write whose key or index key has the wrong type, an empty value or is missing, before its condition; the engine evaluates the condition first (ConditionalCheckFailedException), or cancels the transaction", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"ConditionExpression":"attribute_exists(b)","Item":{"g":{"N":"1"},"pk":{"S":"a"}},"TableName":"@T"}}]`),
	refuses("an update of a path whose parent is missing", `document path provided in the update expression is invalid for update`,
		"DynamoDB refuses an update of a nested path (ADD c.x, DELETE c.x, SET c.x) whose parent the item lacks; the engine does nothing and succeeds", []string{"UpdateItem", "TransactWriteItems"}, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"UpdateItem","req":{"ExpressionAttributeValues":{":v":{"N":"1"}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"ADD c.x :v"}}]`),
	{
		Name: "only the first cancellation reason",
		Why:  "DynamoDB reports every failing action of a canceled transaction (ConditionalCheckFailed, ValidationError for each); the engine reports the first and None for the rest",
		Match: like{ops: []string{"TransactWriteItems"}, ref: "TransactionCanceledException", got: "TransactionCanceledException", path: `^CancellationReasons\[\d+\]\.Code$`,
			also: func(m *Mismatch) bool { return m.Diff.Got == "None" }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"TransactWriteItems","req":{"TransactItems":[{"ConditionCheck":{"ConditionExpression":"attribute_exists(b)","Key":{"pk":{"S":"a"}},"TableName":"@T"}},{"ConditionCheck":{"ConditionExpression":"attribute_exists(b)","Key":{"pk":{"S":"b"}},"TableName":"@T"}}]}}]`),
	},
	{
		Name: "Select: COUNT ignored",
		Why:  "DynamoDB answers a Query or Scan with Select: COUNT with counts and no Items; the engine returns the items",
		Match: like{ops: []string{"Query", "Scan"}, ref: "ok", got: "ok", path: `Items(\.length)?$`, req: `"Select":"COUNT"`,
			also: func(m *Mismatch) bool { return m.Diff.Ref == missing || m.Diff.Ref == 0 }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"Scan","req":{"Select":"COUNT","TableName":"@T"}}]`),
	},
	{
		Name: "DELETE from a missing set adds it",
		Why:  "DynamoDB's DELETE of elements from an attribute the item lacks does nothing; the engine stores the set given (and returns it as UPDATED_NEW)",
		Match: like{ops: []string{"UpdateItem", "TransactWriteItems"}, ref: "ok", got: "ok", path: `^(after\[\d+\]|Attributes)\.[^.]+$`, req: `(?i)delete `,
			also: func(m *Mismatch) bool { return m.Diff.Ref == missing }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"UpdateItem","req":{"ExpressionAttributeValues":{":v":{"SS":["x"]}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"DELETE c :v"}}]`),
	},
	refuses("an invalid attribute_type name", `Invalid attribute type name found`,
		"DynamoDB refuses attribute_type(a, :t) with :t not a type name (S, N, B, BOOL, NULL, L, M, SS, NS, BS); the engine finds it false", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Scan","req":{"ExpressionAttributeValues":{":t":{"S":"X"}},"FilterExpression":"attribute_type(a, :t)","TableName":"@T"}}]`),
	{
		Name: "a key condition with AND in another case",
		Why: "DynamoDB reads keywords in any case; the engine's Query with pk = :a And sk > :b (or and) ignores part of the key condition: it answers the items of every partition whose sort key is above :b, " +
			"or the whole partition for sk > :v and pk = :p",
		Match: like{ops: []string{"Query"}, ref: "ok", got: "ok", path: `Count|Items`,
			also: func(m *Mismatch) bool {
				kc, _ := m.Request["KeyConditionExpression"].(string)
				for _, w := range regexp.MustCompile(`(?i)\band\b`).FindAllString(kc, -1) {
					if w != "AND" {
						return true
					}
				}
				return false
			}}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"pk":{"S":"b"},"sk":{"S":"x"}},"TableName":"@T"}},
{"op":"Query","req":{"ExpressionAttributeValues":{":a":{"S":"a"},":b":{"S":"g"}},"KeyConditionExpression":"pk = :a And sk > :b","TableName":"@T"}}]`),
	},
	{
		Name:  "a request that drops the connection",
		Why:   "the engine panics on list_append with one argument, and on a list index past the end in some expressions; the connection is dropped with no answer (DynamoDB answers ValidationException, or evaluates the path as missing)",
		Match: like{got: "transport"}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"UpdateItem","req":{"ExpressionAttributeValues":{":l":{"L":[]}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"SET a = list_append(:l)"}}]`),
	},
	{
		Name:  "ReturnValuesOnConditionCheckFailure ignored",
		Why:   "DynamoDB returns the item with a failed condition when asked (ReturnValuesOnConditionCheckFailure: ALL_OLD), in a transaction's cancellation reasons too; the engine does not",
		Match: like{path: `(^|\.)Item$`, req: `"ReturnValuesOnConditionCheckFailure":"ALL_OLD"`, also: func(m *Mismatch) bool { return m.Diff.Got == missing }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"TransactWriteItems","req":{"TransactItems":[{"Delete":{"ConditionExpression":"attribute_exists(b)","Key":{"pk":{"S":"a"}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD","TableName":"@T"}}]}}]`),
	},
	refuses("a function with too few operands", `Incorrect number of operands`,
		"DynamoDB refuses list_append with one operand (\"Incorrect number of operands for operator or function\") before any condition; the engine evaluates the condition first", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"UpdateItem","req":{"ConditionExpression":"attribute_exists(b)","ExpressionAttributeValues":{":l":{"L":[]}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"SET a = list_append(:l)"}}]`),
	refuses("an update operand of the wrong type", `An operand in the update expression has an incorrect data type`,
		"DynamoDB refuses ADD of a number to a map, and the like (\"An operand in the update expression has an incorrect data type\"), as a whole in a transaction; the engine cancels the transaction on another action's condition", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"c":{"M":{}},"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"TransactWriteItems","req":{"TransactItems":[{"ConditionCheck":{"ConditionExpression":"attribute_exists(b)","Key":{"pk":{"S":"b"}},"TableName":"@T"}},{"Update":{"ExpressionAttributeValues":{":v":{"N":"1"}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"ADD c :v"}}]}}]`),
	{
		Name:  "an item with nothing projected answered as none",
		Why:   "DynamoDB answers a GetItem of an existing item whose ProjectionExpression matches none of its attributes with an empty Item ({}); the engine answers no Item, as if the item did not exist",
		Match: like{ops: []string{"GetItem"}, ref: "ok", got: "ok", path: `^Item$`, also: func(m *Mismatch) bool { return m.Diff.Got == missing && len(asMap(m.Diff.Ref)) == 0 }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"GetItem","req":{"Key":{"pk":{"S":"a"}},"ProjectionExpression":"b","TableName":"@T"}}]`),
	},
	{
		Name: "a transaction's invalid item after its condition",
		Why:  "DynamoDB cancels a transaction whose Put gives an index key another type with the reason ValidationError, whatever its condition; the engine evaluates the condition first and reports ConditionalCheckFailed",
		Match: like{ops: []string{"TransactWriteItems"}, ref: "TransactionCanceledException", got: "TransactionCanceledException", path: `^CancellationReasons\[\d+\]\.Code$`,
			also: func(m *Mismatch) bool {
				return m.Diff.Ref == "ValidationError" && m.Diff.Got == "ConditionalCheckFailed"
			}}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"TransactWriteItems","req":{"TransactItems":[{"Put":{"ConditionExpression":"attribute_exists(c)","Item":{"g":{"N":"1"},"pk":{"S":"a"}},"TableName":"@T"}}]}}]`),
	},
	{
		Name: "a 38-digit number rounded in a set",
		Why:  "DynamoDB keeps the 38 digits of 9.9999999999999999999999999999999999999E+125 in a number set an update writes (ADD c :ns, SET a = :ns); the engine stores 1E+126 (rounded)",
		Match: func(m *Mismatch) bool {
			r, rok := m.Diff.Ref.(string)
			g, gok := m.Diff.Got.(string)
			if !rok || !gok || !regexp.MustCompile(`\.NS\[\d+\]$`).MatchString(m.Diff.Path) {
				return false
			}
			rf, err1 := strconv.ParseFloat(r, 64)
			gf, err2 := strconv.ParseFloat(g, 64)
			c, _ := CanonicalNumber(g)
			return err1 == nil && err2 == nil && rf == gf && c != r // equal only as float64s
		},
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"UpdateItem","req":{"ExpressionAttributeValues":{":v":{"NS":["9.9999999999999999999999999999999999999E+125","0"]}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"ADD c :v"}}]`),
	},
	{
		Name:  "ALL_OLD of an update that creates the item",
		Why:   "DynamoDB answers no Attributes to an UpdateItem asking for ALL_OLD when there was no item; the engine answers the key",
		Match: like{ops: []string{"UpdateItem"}, ref: "ok", got: "ok", path: `^Attributes$`, req: `"ReturnValues":"ALL_OLD"`, also: func(m *Mismatch) bool { return m.Diff.Ref == missing }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"UpdateItem","req":{"ExpressionAttributeValues":{":v":{"N":"1"}},"Key":{"pk":{"S":"a"}},"ReturnValues":"ALL_OLD","TableName":"@T","UpdateExpression":"SET b = :v"}}]`),
	},
	{
		Name:  "UPDATED_OLD and UPDATED_NEW answer more than the update changed",
		Why:   "DynamoDB's UPDATED_OLD and UPDATED_NEW return only the attributes the update changed; the engine returns others too (the key, attributes left alone)",
		Match: like{ops: []string{"UpdateItem"}, ref: "ok", got: "ok", path: `^Attributes(\.[^.]+)?$`, req: `"ReturnValues":"UPDATED_(OLD|NEW)"`, also: func(m *Mismatch) bool { return m.Diff.Ref == missing }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"a":{"N":"-12.50"},"b":{"N":"1e3"},"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"UpdateItem","req":{"ExpressionAttributeValues":{":v":{"N":"10"}},"Key":{"pk":{"S":"a"}},"ReturnValues":"UPDATED_OLD","TableName":"@T","UpdateExpression":"ADD b :v"}}]`),
	},
	{
		Name:  "update actions read what earlier actions wrote",
		Why:   "DynamoDB evaluates every action of an UpdateExpression against the item as it was (SET c = b, b = :v stores the old b in c); the engine runs them in sequence, each reading what the ones before wrote",
		Match: like{ops: []string{"UpdateItem", "TransactWriteItems"}, ref: "ok", got: "ok", path: `^after`, req: `(?i)set [^"]+,`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"b":{"N":"1"},"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"UpdateItem","req":{"ExpressionAttributeValues":{":v":{"N":"2"}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"SET b = :v, c = b"}}]`),
	},
	{
		Name: "an update giving a GSI key another type, silently",
		Why: "UpdateItem SET g = if_not_exists(a[0], :v), or ADD g :n, with a value of another type than the GSI key g: AWS refuses it (test_gsi.py test_gsi_wrong_type_attribute_update), " +
			"DynamoDB Local stores it and indexes it, the engine stores it without error and leaves it out of the index",
		Match: like{ops: []string{"Query", "Scan"}, ref: "ok", got: "ok", req: `"IndexName"`, path: `^(Count|Items|pages)`,
			also: func(m *Mismatch) bool {
				ix := m.Schema.index(asMap(m.Request)["IndexName"].(string))
				if ix == nil {
					return false
				}
				keys := []string{ix.Hash.Name}
				if ix.Range != nil {
					keys = append(keys, ix.Range.Name)
				}
				for _, st := range m.Steps[:m.Step] {
					u := canon(st.Req)
					for _, k := range keys {
						if regexp.MustCompile(`"UpdateExpression":"[^"]*\b` + k + `\b`).MatchString(u) {
							return true
						}
					}
				}
				return false
			}}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"g","AttributeType":"N"},{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"GSI0","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"UpdateItem","req":{"ExpressionAttributeValues":{":v":{"B":"AA=="}},"Key":{"pk":{"S":"a"}},"TableName":"@T","UpdateExpression":"SET g = if_not_exists(a[0], :v)"}},
{"op":"Scan","req":{"IndexName":"GSI0","TableName":"@T"}}]`),
	},
	{
		Name:  "a request refused only on a later page",
		Why:   "DynamoDB refuses an invalid Query or Scan (an overlapping ProjectionExpression) on its first page; the engine answers pages until an item makes it fail",
		Match: like{ops: []string{"Query", "Scan"}, ref: "ValidationException", got: "ValidationException", path: `^page$`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"N"},{"AttributeName":"sk","AttributeType":"B"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"c":{"NS":["-12.50","01","12345678901234567890123456789012345678"]},"g1":{"N":"-0"},"pk":{"N":"1"},"sk":{"B":"/w=="}},"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"g1":{"N":"-0"},"pk":{"N":"-1E-130"},"sk":{"B":"AA=="}},"TableName":"@T"}},
{"op":"Query","req":{"ExpressionAttributeNames":{"#n0":"a","#n1":"c"},"ExpressionAttributeValues":{":v0":{"N":"-0"},":v1":{"N":"-0"}},"KeyConditionExpression":"g1 = :v0 OR g1 = :v1","Limit":1,"ProjectionExpression":"c.x, #n0, #n1","TableName":"@T"}}]`),
	},
	refuses("a key over DynamoDB's size", `Hash primary key values must be under 2048 bytes`,
		"DynamoDB refuses a partition key over 2,048 bytes or a sort key over 1,024 (\"Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 bytes\"), in reads too; the engine uses it", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"GetItem","req":{"Key":{"pk":{"S":"ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"}},"TableName":"@T"}}]`),
	refuses("a reserved word as an attribute name", `Attribute name is a reserved keyword`,
		"DynamoDB refuses an expression naming an attribute by a reserved word (name, size, ...) without a #placeholder; the engine evaluates it", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"Scan","req":{"ProjectionExpression":"name","TableName":"@T"}}]`),
	refuses("legacy and expression parameters together", `Can not use both expression and non-expression parameters`,
		"DynamoDB refuses a request with both a legacy parameter (Expected, AttributesToGet) and an expression one (ConditionExpression, ProjectionExpression); the engine runs it", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"ConditionExpression":"attribute_exists(b)","Expected":{"a":{"Exists":false}},"Item":{"pk":{"S":"a"}},"TableName":"@T"}}]`),
	refuses("an invalid legacy condition", `ComparisonOperator|Invalid number of argument|Exists is false|Value must be provided`,
		"DynamoDB refuses an Expected condition with the wrong number of values for its ComparisonOperator (NOT_NULL with a value); the engine ignores Expected", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Expected":{"a":{"AttributeValueList":[{"N":"1"}],"ComparisonOperator":"NOT_NULL"}},"Item":{"pk":{"S":"a"}},"TableName":"@T"}}]`),
	{
		Name:  "legacy Expected ignored",
		Why:   "DynamoDB honours the legacy Expected condition of a PutItem (Exists: false, Value, ComparisonOperator); the engine ignores it: the write is unconditional",
		Match: like{ops: []string{"PutItem"}, ref: "ConditionalCheckFailedException", got: "ok", req: `"Expected"`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"a":{"N":"1"},"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"PutItem","req":{"Expected":{"a":{"Exists":false}},"Item":{"pk":{"S":"a"}},"TableName":"@T"}}]`),
	},
	{
		Name:  "AttributesToGet ignored",
		Why:   "DynamoDB's GetItem returns only the attributes AttributesToGet names (the legacy projection); the engine returns the whole item",
		Match: like{ops: []string{"GetItem"}, ref: "ok", got: "ok", path: `^Item`, req: `"AttributesToGet"`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"a":{"N":"9"},"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"GetItem","req":{"AttributesToGet":["c"],"Key":{"pk":{"S":"a"}},"TableName":"@T"}}]`),
	},
	{
		Name: "keywords in lower or mixed case in a filter or condition",
		Why:  "DynamoDB reads the keywords of a FilterExpression or ConditionExpression in any case (Not, and, Or, Between); the engine misreads them: other items answered, a true condition failed",
		Match: func(m *Mismatch) bool {
			f, _ := m.Request["FilterExpression"].(string)
			c, _ := m.Request["ConditionExpression"].(string)
			differs := regexp.MustCompile(`Items|Count|^error$`).MatchString(m.Diff.Path)
			for _, w := range regexp.MustCompile(`(?i)\b(and|or|not|between|in)\b`).FindAllString(f+" "+c, -1) {
				if w != strings.ToUpper(w) {
					return differs
				}
			}
			return false
		},
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"c":{"N":"1"},"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"pk":{"S":"b"}},"TableName":"@T"}},
{"op":"Scan","req":{"FilterExpression":"Not attribute_not_exists(c)","TableName":"@T"}}]`),
	},
	{
		Name:  "UPDATED_OLD leaves out an attribute set to its own value",
		Why:   "DynamoDB's UPDATED_OLD returns every attribute the update wrote, one set to the value it had too (ADD g :0); the engine leaves it out",
		Match: like{ops: []string{"UpdateItem"}, ref: "ok", got: "ok", path: `^Attributes(\.[^.]+)?$`, req: `"ReturnValues":"UPDATED_(OLD|NEW)"`, also: func(m *Mismatch) bool { return m.Diff.Got == missing }}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"g":{"N":"1"},"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"UpdateItem","req":{"ExpressionAttributeValues":{":v":{"N":"0"}},"Key":{"pk":{"S":"a"}},"ReturnValues":"UPDATED_OLD","TableName":"@T","UpdateExpression":"ADD g :v"}}]`),
	},
	{
		Name: "an update's new item checked before its condition",
		Why: "DynamoDB answers ConditionalCheckFailedException to an update whose condition is false, whatever it would have written; the engine first checks the item it would write " +
			"(SET l1 = b with b missing writes NULL into an index key: ValidationException), and stores it",
		Match: like{ops: []string{"UpdateItem"}, ref: "ConditionalCheckFailedException", got: "ValidationException", gotMsg: `Invalid attribute value type`}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"l1","AttributeType":"N"},{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"LocalSecondaryIndexes":[{"IndexName":"LSI0","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"l1","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}],"TableName":"@T"}},
{"op":"UpdateItem","req":{"ConditionExpression":"attribute_type(b[0], :t)","ExpressionAttributeValues":{":t":{"S":"NULL"}},"Key":{"pk":{"S":"a"},"sk":{"S":"b"}},"TableName":"@T","UpdateExpression":"SET l1 = b"}}]`),
	},
	refuses("an unused placeholder", `unused in expressions`,
		"DynamoDB refuses a transaction whose ExpressionAttributeNames or ExpressionAttributeValues hold a placeholder no expression uses; the engine evaluates the actions in order and cancels it on an earlier one's condition", nil, `[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"TransactWriteItems","req":{"TransactItems":[{"ConditionCheck":{"ConditionExpression":"attribute_exists(b)","Key":{"pk":{"S":"a"}},"TableName":"@T"}},{"ConditionCheck":{"ConditionExpression":"attribute_exists(b)","ExpressionAttributeNames":{"#u":"a"},"Key":{"pk":{"S":"b"}},"TableName":"@T"}}]}}]`),
	{
		Name: "a NULL attribute taken for a missing one",
		Why:  "DynamoDB's attribute_not_exists(a) is false when a holds NULL; the engine takes NULL for missing",
		Match: like{ops: []string{"Query", "Scan"}, ref: "ok", got: "ok", path: `Items|Count`, req: `attribute_(not_)?exists`,
			also: func(m *Mismatch) bool {
				for _, st := range m.Steps[:m.Step] {
					if strings.Contains(canon(st.Req), `"NULL":true`) {
						return true
					}
				}
				return false
			}}.match,
		Repro: repro(`[
{"op":"CreateTable","req":{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"TableName":"@T"}},
{"op":"PutItem","req":{"Item":{"a":{"NULL":true},"pk":{"S":"a"}},"TableName":"@T"}},
{"op":"Scan","req":{"FilterExpression":"attribute_not_exists(a)","TableName":"@T"}}]`),
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
