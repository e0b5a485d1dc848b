package server

// Tags: TagResource, UntagResource, ListTagsOfResource and CreateTable's
// Tags, with DynamoDB's restrictions (docs: "Tagging restrictions in
// DynamoDB"): a table's tags are at most 50, each key 1 to 128 Unicode
// characters and each value 0 to 256, of letters, white space, numbers
// and + - = . _ : / only; a key starting "aws:" is AWS's. A table's tags
// are table metadata: CreateTable's input as the data directory keeps it
// (createInputOf) carries them across a restart.

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/keyplan/keyplan/internal/engine/minidyn/core"
)

// MaxTags is how many tags a table may have.
const MaxTags = 50

type (
	// TagResourceInput mirrors DynamoDB's.
	TagResourceInput struct {
		ResourceArn *string        `json:"ResourceArn"`
		Tags        []ddbtypes.Tag `json:"Tags"`
	}
	// UntagResourceInput mirrors DynamoDB's.
	UntagResourceInput struct {
		ResourceArn *string  `json:"ResourceArn"`
		TagKeys     []string `json:"TagKeys"`
	}
	// ListTagsOfResourceInput mirrors DynamoDB's.
	ListTagsOfResourceInput struct {
		ResourceArn *string `json:"ResourceArn"`
		NextToken   *string `json:"NextToken,omitempty"`
	}
	tagJSON struct {
		Key   string `json:"Key"`
		Value string `json:"Value"`
	}
	// ListTagsOfResourceOutput mirrors DynamoDB's.
	ListTagsOfResourceOutput struct {
		Tags []tagJSON `json:"Tags"`
	}
)

// checkTags checks tags as DynamoDB does (field names the request's
// member, "tags").
func checkTags(tags []ddbtypes.Tag) error {
	for i, t := range tags {
		at := fmt.Sprintf("tags.%d.member", i+1)

		switch {
		case t.Key == nil:
			return validation("1 validation error detected: Value null at '%s.key' failed to satisfy constraint: Member must not be null", at)
		case t.Value == nil:
			return validation("1 validation error detected: Value null at '%s.value' failed to satisfy constraint: Member must not be null", at)
		case *t.Key == "":
			return validation("1 validation error detected: Value '' at '%s.key' failed to satisfy constraint: Member must have length greater than or equal to 1", at)
		case utf8.RuneCountInString(*t.Key) > 128:
			return validation("1 validation error detected: Value '%s' at '%s.key' failed to satisfy constraint: Member must have length less than or equal to 128", *t.Key, at)
		case utf8.RuneCountInString(*t.Value) > 256:
			return validation("1 validation error detected: Value '%s' at '%s.value' failed to satisfy constraint: Member must have length less than or equal to 256", *t.Value, at)
		}

		for _, s := range []string{*t.Key, *t.Value} {
			if !tagText(s) {
				return validation("One or more parameter values were invalid: Tag %q: %q holds a character a tag may not: letters, white space, numbers and + - = . _ : / only", *t.Key, s)
			}
		}

		if strings.HasPrefix(strings.ToLower(*t.Key), "aws:") {
			return validation("One or more parameter values were invalid: Tag key %q: the aws: prefix is reserved for AWS", *t.Key)
		}
	}

	return nil
}

// tagText says whether s holds only what a tag may: letters, white space,
// numbers and + - = . _ : /.
func tagText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}

	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsSpace(r) || unicode.Is(unicode.Zs, r) || strings.ContainsRune("+-=._:/", r) {
			continue
		}

		return false
	}

	return true
}

// mergeTags is old with tags set (a key already there takes the new
// value, in its old place), refused past MaxTags.
func mergeTags(old, tags []ddbtypes.Tag) ([]ddbtypes.Tag, error) {
	out := append([]ddbtypes.Tag(nil), old...)

next:
	for _, t := range tags {
		for i := range out {
			if *out[i].Key == *t.Key {
				out[i].Value = aws.String(*t.Value)
				continue next
			}
		}

		out = append(out, ddbtypes.Tag{Key: aws.String(*t.Key), Value: aws.String(*t.Value)})
	}

	if len(out) > MaxTags {
		return nil, validation("One or more parameter values were invalid: The number of tags would be %d: a table has at most %d", len(out), MaxTags)
	}

	return out, nil
}

// tableArn is table's ARN, as DescribeTable gives it.
func tableArn(name string) string {
	return "arn:aws:dynamodb:" + region + ":" + account + ":table/" + name
}

// tableOfArn finds the table a resource ARN names: a DynamoDB table ARN
// (arn:PARTITION:dynamodb:REGION:ACCOUNT:table/NAME; the region and
// account are not compared, as the engine has one of each). Not an ARN,
// an index's or a stream's is ValidationException; a table that does
// not exist, ResourceNotFoundException. c.mu is held.
func (c *Client) tableOfArn(arn *string) (*tableMeta, string, error) {
	if arn == nil {
		return nil, "", validation("1 validation error detected: Value null at 'resourceArn' failed to satisfy constraint: Member must not be null")
	}

	a := *arn
	if !strings.HasPrefix(a, "arn:") {
		return nil, "", validation("Invalid TableArn: Invalid ResourceArn provided as input %s: ARNs must start with 'arn:'", a)
	}

	parts := strings.SplitN(a, ":", 6)
	if len(parts) != 6 || parts[2] != "dynamodb" || parts[1] == "" {
		return nil, "", validation("Invalid TableArn: Invalid ResourceArn provided as input %s", a)
	}

	name, ok := strings.CutPrefix(parts[5], "table/")
	if !ok || strings.Contains(name, "/") || !core.ValidName(name) {
		return nil, "", validation("One or more parameter values were invalid: Invalid resource arn provided, only a table is accepted. Provided resource arn: %s", a)
	}

	m, ok := c.meta[name]
	if !ok {
		return nil, "", &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found: ResourceArn: " + a + " not found"}
	}

	return m, name, nil
}

// TagResource adds tags to a table or changes their values.
func (c *Client) TagResource(_ context.Context, in *TagResourceInput) (any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	m, _, err := c.tableOfArn(in.ResourceArn)
	if err != nil {
		return nil, err
	}

	switch {
	case in.Tags == nil:
		return nil, validation("1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null")
	case len(in.Tags) == 0:
		return nil, validation("1 validation error detected: Value '[]' at 'tags' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}

	if err := checkTags(in.Tags); err != nil {
		return nil, err
	}

	tags, err := mergeTags(m.tags, in.Tags)
	if err != nil {
		return nil, err
	}

	m.tags = tags

	return emptyResponse{}, nil
}

// UntagResource removes tags from a table (keys it does not have are no
// error).
func (c *Client) UntagResource(_ context.Context, in *UntagResourceInput) (any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	m, _, err := c.tableOfArn(in.ResourceArn)
	if err != nil {
		return nil, err
	}

	if in.TagKeys == nil {
		return nil, validation("1 validation error detected: Value null at 'tagKeys' failed to satisfy constraint: Member must not be null")
	}

	for i, k := range in.TagKeys {
		if k == "" || utf8.RuneCountInString(k) > 128 {
			return nil, validation("1 validation error detected: Value '%s' at 'tagKeys.%d.member' failed to satisfy constraint: Member must have length between 1 and 128", k, i+1)
		}
	}

	var kept []ddbtypes.Tag

	for _, t := range m.tags {
		gone := false

		for _, k := range in.TagKeys {
			gone = gone || *t.Key == k
		}

		if !gone {
			kept = append(kept, t)
		}
	}

	m.tags = kept

	return emptyResponse{}, nil
}

// ListTagsOfResource lists a table's tags, all on one page (a table has
// at most 50).
func (c *Client) ListTagsOfResource(_ context.Context, in *ListTagsOfResourceInput) (*ListTagsOfResourceOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()

	m, _, err := c.tableOfArn(in.ResourceArn)
	if err != nil {
		return nil, err
	}

	out := &ListTagsOfResourceOutput{Tags: []tagJSON{}}
	for _, t := range m.tags {
		out.Tags = append(out.Tags, tagJSON{Key: *t.Key, Value: *t.Value})
	}

	return out, nil
}

// createTags checks CreateTable's Tags (none is no tags).
func createTags(tags []ddbtypes.Tag) ([]ddbtypes.Tag, error) {
	if err := checkTags(tags); err != nil {
		return nil, err
	}

	return mergeTags(nil, tags)
}
