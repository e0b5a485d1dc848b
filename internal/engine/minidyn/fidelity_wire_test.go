package minidyn

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"hash/crc32"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The wire around the requests (issue 38): sets in DynamoDB's order,
// DynamoDB's response headers, compressed bodies both ways, JSON that
// is not a request object, tags, backups and DescribeEndpoints.

func TestSetsComeBackInDynamoDBsOrder(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		name := makeTable(t, e.db, schema{})
		key := map[string]types.AttributeValue{"p": str("x")}
		_, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{
			"p":  str("x"),
			"ss": &types.AttributeValueMemberSS{Value: []string{"b", "a", "c", "10", "9", "B", "ab", "é", "aa"}},
			"ns": &types.AttributeValueMemberNS{Value: []string{"10", "9", "1.5", "-3", "100", "0", "-10.5", "2e3", "0.001"}},
			"bs": &types.AttributeValueMemberBS{Value: [][]byte{{2}, {1}, {0xff}, {0, 1}, []byte("a"), {0x80}}},
		}})
		if err != nil {
			t.Fatal(err)
		}

		// As written, before any update.
		got, err := e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: key, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}

		if ss, want := got.Item["ss"].(*types.AttributeValueMemberSS).Value, []string{"10", "9", "B", "a", "aa", "ab", "b", "c", "é"}; !slices.Equal(ss, want) {
			t.Errorf("string set as put: %q, want %q", ss, want)
		}

		_, err = e.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: key,
			UpdateExpression: aws.String("ADD ss :s, ns :n DELETE bs :b"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":s": &types.AttributeValueMemberSS{Value: []string{"0", "aaa", "A"}},
				":n": &types.AttributeValueMemberNS{Value: []string{"5", "-1"}},
				":b": &types.AttributeValueMemberBS{Value: [][]byte{{1}}},
			}})
		if err != nil {
			t.Fatal(err)
		}

		got, err = e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: key, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}

		ss := got.Item["ss"].(*types.AttributeValueMemberSS).Value
		ns := got.Item["ns"].(*types.AttributeValueMemberNS).Value
		bs := got.Item["bs"].(*types.AttributeValueMemberBS).Value

		if want := []string{"0", "10", "9", "A", "B", "a", "aa", "aaa", "ab", "b", "c", "é"}; !slices.Equal(ss, want) {
			t.Errorf("string set: %q, want %q", ss, want)
		}

		if want := []string{"-10.5", "-3", "-1", "0", "0.001", "1.5", "5", "9", "10", "100", "2000"}; !slices.Equal(ns, want) {
			t.Errorf("number set: %q, want %q", ns, want)
		}

		if want := [][]byte{{0, 1}, {2}, []byte("a"), {0x80}, {0xff}}; !slices.EqualFunc(bs, want, bytes.Equal) {
			t.Errorf("binary set: %v, want %v", bs, want)
		}
	})
}

// post sends one request as the SDK would (signed by no one: the engines
// under test check no signature), its body encoded with encoding.
func post(t *testing.T, db *dynamodb.Client, op string, body []byte, header map[string]string) (*http.Response, []byte) {
	t.Helper()

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, aws.ToString(db.Options().BaseEndpoint), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}

	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=k/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
	// Go's client asks for gzip and undoes it unless told otherwise.
	req.Header.Set("Accept-Encoding", "identity")

	for k, v := range header {
		req.Header.Set(k, v)
	}

	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}

	defer func() { _ = res.Body.Close() }()

	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}

	return res, raw
}

func TestResponsesCarryDynamoDBsHeaders(t *testing.T) {
	requestID := regexp.MustCompile(`^[A-Z0-9]{52}$`)

	each(t, func(t *testing.T, e engineUnderTest) {
		name := makeTable(t, e.db, schema{})

		// The SDK reports the request id (DynamoDB Local's is a UUID).
		out, err := e.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: map[string]types.AttributeValue{"p": str("x")}})
		if err != nil {
			t.Fatal(err)
		}

		if id, ok := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata); !ok || id == "" {
			t.Errorf("the SDK reports no request id")
		}

		e.awsOnly(t, "DynamoDB Local sends no x-amz-crc32 and a UUID as the request id")

		for _, body := range []string{`{"TableName":"` + name + `","Key":{"p":{"S":"x"}}}`, `{"TableName":"nope","Key":{"p":{"S":"x"}}}`} {
			res, raw := post(t, e.db, "GetItem", []byte(body), nil)
			if id := res.Header.Get("x-amzn-RequestId"); !requestID.MatchString(id) {
				t.Errorf("%d: x-amzn-RequestId %q: want 52 of A-Z0-9", res.StatusCode, id)
			}

			if crc := res.Header.Get("x-amz-crc32"); crc != strconv.FormatUint(uint64(crc32.ChecksumIEEE(raw)), 10) {
				t.Errorf("%d: x-amz-crc32 %q is not the body's CRC-32", res.StatusCode, crc)
			}

			if res.Header.Get("Content-Type") != "application/x-amz-json-1.0" || res.Header.Get("Content-Length") != strconv.Itoa(len(raw)) {
				t.Errorf("%d: headers %v", res.StatusCode, res.Header)
			}
		}
	})
}

func TestCompressedRequestsAndResponses(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		e.awsOnly(t, "DynamoDB Local 1.25.1 decodes no Content-Encoding and compresses no response")

		name := makeTable(t, e.db, schema{})
		big := strings.Repeat("x", 5000)
		put := []byte(`{"TableName":"` + name + `","Item":{"p":{"S":"x"},"big":{"S":"` + big + `"}}}`)

		var gz, df bytes.Buffer

		gw := gzip.NewWriter(&gz)
		_, _ = gw.Write(put[:10])
		_ = gw.Close()
		gw = gzip.NewWriter(&gz) // a second member, as gzip allows
		_, _ = gw.Write(put[10:])
		_ = gw.Close()

		zw := zlib.NewWriter(&df)
		_, _ = zw.Write(put)
		_ = zw.Close()

		for _, c := range []struct {
			encoding string
			body     []byte
			status   int
		}{
			{"gzip", gz.Bytes(), 200}, {"deflate", df.Bytes(), 200}, {"GZIP", gz.Bytes(), 200},
			{"gzip", put, 500}, {"deflate", put, 500}, {"gzip", nil, 500}, {"gzip", gz.Bytes()[:gz.Len()-1], 500}, {"br", put, 500},
		} {
			res, raw := post(t, e.db, "PutItem", c.body, map[string]string{"Content-Encoding": c.encoding})
			if res.StatusCode != c.status {
				t.Errorf("PutItem with Content-Encoding %s (%d bytes): %d %s, want %d", c.encoding, len(c.body), res.StatusCode, raw, c.status)
			}
		}

		get := []byte(`{"TableName":"` + name + `","Key":{"p":{"S":"x"}},"ConsistentRead":true}`)

		for _, c := range []struct{ accept, want string }{
			{"gzip", "gzip"}, {"deflate", "deflate"}, {"identity", ""}, {"br, deflate, gzip", "deflate"}, {"gzip;q=0", ""}, {"*", "gzip"},
		} {
			res, raw := post(t, e.db, "GetItem", get, map[string]string{"Accept-Encoding": c.accept})
			if got := res.Header.Get("Content-Encoding"); got != c.want {
				t.Errorf("Accept-Encoding %q: Content-Encoding %q, want %q", c.accept, got, c.want)
				continue
			}

			var rd io.Reader = bytes.NewReader(raw)

			switch c.want {
			case "gzip":
				rd, _ = gzip.NewReader(rd)
			case "deflate":
				rd, _ = zlib.NewReader(rd)
			}

			plain, err := io.ReadAll(rd)
			if err != nil || !bytes.Contains(plain, []byte(big)) {
				t.Errorf("Accept-Encoding %q: the body does not decode to the item: %v", c.accept, err)
			}
		}

		// Below 4 KB a response is sent as it is.
		small := []byte(`{"TableName":"` + name + `","Key":{"p":{"S":"x"}},"ProjectionExpression":"p"}`)
		if res, _ := post(t, e.db, "GetItem", small, map[string]string{"Accept-Encoding": "gzip"}); res.Header.Get("Content-Encoding") != "" {
			t.Errorf("a small response was compressed")
		}

		// A decompressed body past 16 MB is refused (413), however small
		// it came.
		var bomb bytes.Buffer

		gw = gzip.NewWriter(&bomb)
		_, _ = gw.Write([]byte(`{"TableName":"` + name + `",`))
		_, _ = gw.Write(bytes.Repeat([]byte(" "), 17<<20))
		_, _ = gw.Write([]byte(`"Item":{"p":{"S":"bomb"}}}`))
		_ = gw.Close()

		if res, raw := post(t, e.db, "PutItem", bomb.Bytes(), map[string]string{"Content-Encoding": "gzip"}); res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("a 17 MB body in %d bytes of gzip: %d %s", bomb.Len(), res.StatusCode, raw)
		}
	})
}

func TestBodiesThatAreNotARequestObject(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		e.awsOnly(t, "DynamoDB Local answers 500 InternalFailure; DynamoDB SerializationException")

		for _, body := range []string{"null", "[]", "", "{broken json", `{"Limit": "x"}`, "{} {}"} {
			res, raw := post(t, e.db, "ListTables", []byte(body), nil)
			if res.StatusCode != 400 || !strings.Contains(string(raw), "SerializationException") {
				t.Errorf("%q: %d %s", body, res.StatusCode, raw)
			}
		}

		if _, raw := post(t, e.db, "PutItem", []byte("{broken json"), nil); !strings.Contains(string(raw), "at 1") {
			t.Errorf("a syntax error does not say where: %s", raw)
		}
	})
}

func TestDescribeEndpoints(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		e.awsOnly(t, "DynamoDB Local 1.25.1 has no DescribeEndpoints")

		out, err := e.db.DescribeEndpoints(ctx, &dynamodb.DescribeEndpointsInput{})
		if err != nil {
			t.Fatal(err)
		}

		host := strings.TrimPrefix(aws.ToString(e.db.Options().BaseEndpoint), "http://")
		if len(out.Endpoints) != 1 || aws.ToString(out.Endpoints[0].Address) != host || out.Endpoints[0].CachePeriodInMinutes != 1440 {
			t.Errorf("endpoints %+v, want %s cached 1440 minutes", out.Endpoints, host)
		}
	})
}

func TestTags(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		e.awsOnly(t, "Tagging is not currently supported in DynamoDB Local")

		name := uniqueName(t)
		_, err := e.db.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{attr("p", types.ScalarAttributeTypeS)},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("p"), KeyType: types.KeyTypeHash}},
			Tags:                 []types.Tag{{Key: aws.String("team"), Value: aws.String("core")}, {Key: aws.String("empty"), Value: aws.String("")}},
		})
		if err != nil {
			t.Fatal(err)
		}

		desc, err := e.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}

		arn := desc.Table.TableArn
		tags := func() map[string]string {
			t.Helper()

			out, err := e.db.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: arn})
			if err != nil {
				t.Fatal(err)
			}

			m := map[string]string{}
			for _, tg := range out.Tags {
				m[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
			}

			return m
		}

		if got := tags(); len(got) != 2 || got["team"] != "core" || got["empty"] != "" {
			t.Errorf("tags from CreateTable: %v", got)
		}

		tag := func(kv ...string) error {
			var ts []types.Tag
			for i := 0; i < len(kv); i += 2 {
				ts = append(ts, types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
			}

			_, err := e.db.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: ts})

			return err
		}

		if err := tag("team", "edge", "ünïcode Ѯ", "a+b-c=d._:/ 9"); err != nil {
			t.Fatal(err)
		}

		if got := tags(); len(got) != 3 || got["team"] != "edge" || got["ünïcode Ѯ"] != "a+b-c=d._:/ 9" {
			t.Errorf("after TagResource: %v", got)
		}

		for _, kv := range [][]string{{"", "v"}, {strings.Repeat("k", 129), "v"}, {"k", strings.Repeat("v", 257)}, {"hi!", "v"}, {"k", "d%g"}, {"aws:x", "v"}} {
			wantAPIError(t, tag(kv...), "ValidationException")
		}

		if err := tag(strings.Repeat("ж", 128), strings.Repeat("ж", 256)); err != nil {
			t.Errorf("128 and 256 Unicode characters: %v", err)
		}

		var many []string
		for i := range 47 {
			many = append(many, "k"+strconv.Itoa(i), "v")
		}

		wantAPIError(t, tag(many...), "ValidationException", "50")

		if _, err := e.db.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: arn, TagKeys: []string{"team", "never-there"}}); err != nil {
			t.Fatal(err)
		}

		if got := tags(); len(got) != 3 || got["team"] != "" {
			t.Errorf("after UntagResource: %v", got)
		}

		for arn, code := range map[string]string{
			"I_do_not_exist": "ValidationException", aws.ToString(arn) + "x": "ResourceNotFoundException",
			aws.ToString(arn) + "/index/g": "ValidationException", "arn:aws:dynamodb:us-east-1:1:table/": "ValidationException",
		} {
			_, err := e.db.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
			wantAPIError(t, err, code)
		}

		// Too many tags at creation create no table.
		var fifty1 []types.Tag
		for i := range 51 {
			fifty1 = append(fifty1, types.Tag{Key: aws.String(strconv.Itoa(i)), Value: aws.String("v")})
		}

		_, err = e.db.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name + "2"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{attr("p", types.ScalarAttributeTypeS)},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("p"), KeyType: types.KeyTypeHash}}, Tags: fifty1,
		})
		wantAPIError(t, err, "ValidationException")

		_, err = e.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name + "2")})
		wantAPIError(t, err, "ResourceNotFoundException")
	})
}

func TestBackups(t *testing.T) {
	each(t, func(t *testing.T, e engineUnderTest) {
		e.awsOnly(t, "DynamoDB Local 1.25.1 has no backups")

		name := makeTable(t, e.db, schema{sortType: types.ScalarAttributeTypeN})
		for _, c := range []string{"1", "2"} {
			if _, err := e.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{"p": str("a"), "c": num(c)}}); err != nil {
				t.Fatal(err)
			}
		}

		cb, err := e.db.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
		if err != nil || cb.ContinuousBackupsDescription.ContinuousBackupsStatus != types.ContinuousBackupsStatusDisabled ||
			cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
			t.Errorf("DescribeContinuousBackups: %+v, %v", cb, err)
		}

		_, err = e.db.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
		wantAPIError(t, err, "ValidationException", "no history")

		_, err = e.db.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name + "x")})
		wantAPIError(t, err, "TableNotFoundException")

		b, err := e.db.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String(name), BackupName: aws.String("before")})
		if err != nil {
			t.Fatal(err)
		}

		arn := b.BackupDetails.BackupArn
		if b.BackupDetails.BackupStatus != types.BackupStatusAvailable || !strings.HasPrefix(aws.ToString(arn), "arn:aws:dynamodb:") {
			t.Errorf("CreateBackup: %+v", b.BackupDetails)
		}

		// A write after the backup is not in it.
		if _, err := e.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: map[string]types.AttributeValue{"p": str("a"), "c": num("1")}}); err != nil {
			t.Fatal(err)
		}

		list, err := e.db.ListBackups(ctx, &dynamodb.ListBackupsInput{TableName: aws.String(name)})
		if err != nil || len(list.BackupSummaries) != 1 || aws.ToString(list.BackupSummaries[0].BackupArn) != aws.ToString(arn) {
			t.Errorf("ListBackups: %+v, %v", list, err)
		}

		desc, err := e.db.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: arn})
		if err != nil || aws.ToInt64(desc.BackupDescription.SourceTableDetails.ItemCount) != 2 {
			t.Errorf("DescribeBackup: %+v, %v", desc, err)
		}

		restored := name + "r"
		if _, err := e.db.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String(restored), BackupArn: arn}); err != nil {
			t.Fatal(err)
		}

		t.Cleanup(func() { _, _ = e.db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(restored)}) })

		got, err := e.db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(restored)})
		if err != nil || got.Count != 2 {
			t.Errorf("the restored table: %+v, %v", got, err)
		}

		_, err = e.db.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String(restored), BackupArn: arn})
		wantAPIError(t, err, "TableAlreadyExistsException")

		if _, err := e.db.DeleteBackup(ctx, &dynamodb.DeleteBackupInput{BackupArn: arn}); err != nil {
			t.Fatal(err)
		}

		_, err = e.db.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: arn})
		wantAPIError(t, err, "BackupNotFoundException")
	})
}

// A table's tags are table metadata: they outlive a restart on a data
// directory.
func TestTagsOutliveARestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")

	s, err := Serve(Options{DataDir: dir})
	mustOK(t, err)

	db := clientFor(s, "k")
	name := makeTable(t, db, schema{})
	arn := tableArnOf(t, db, name)

	_, err = db.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("core")}}})
	mustOK(t, err)
	mustOK(t, s.Close())

	db2 := clientFor(serveFor(t, Options{DataDir: dir}), "k")

	out, err := db2.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: arn})
	mustOK(t, err)

	if len(out.Tags) != 1 || aws.ToString(out.Tags[0].Key) != "team" || aws.ToString(out.Tags[0].Value) != "core" {
		t.Fatalf("tags after a restart: %+v", out.Tags)
	}
}

func tableArnOf(t *testing.T, db *dynamodb.Client, name string) *string {
	t.Helper()

	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	mustOK(t, err)

	return d.Table.TableArn
}
