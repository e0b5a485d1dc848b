package singletable

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/patterns"
)

// PatternAccess is what reading some patterns needs: the DynamoDB actions
// and the indexes ("table" or GSI names) they run on.
type PatternAccess struct {
	Actions []string
	Indexes []string
}

// Access computes the least privilege for the named patterns, or an error
// naming every unknown or unserved pattern.
func Access(d *patterns.Design, names ...string) (PatternAccess, error) {
	var a PatternAccess
	var bad []string
	for _, n := range names {
		p := d.Pattern(n)
		switch {
		case p == nil:
			var all []string
			for _, x := range d.Patterns {
				all = append(all, x.Name)
			}
			bad = append(bad, fmt.Sprintf("unknown pattern %q (the design has %s)", n, strings.Join(all, ", ")))
			continue
		case !p.Served():
			bad = append(bad, fmt.Sprintf("pattern %q is not served by any index", n))
			continue
		}
		action := "dynamodb:" + p.Operation
		if !contains(a.Actions, action) {
			a.Actions = append(a.Actions, action)
		}
		if !contains(a.Indexes, p.Index) {
			a.Indexes = append(a.Indexes, p.Index)
		}
	}
	sort.Strings(a.Actions)
	sort.Strings(a.Indexes)
	if len(bad) > 0 {
		return a, fmt.Errorf("GrantPatterns: %s", strings.Join(bad, "; "))
	}
	if len(names) == 0 {
		return a, fmt.Errorf("GrantPatterns: name at least one pattern")
	}
	return a, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// GrantPatterns grants exactly what reading the named patterns takes:
// GetItem and/or Query, on the table's ARN if a pattern reads the base table
// and on the ARN of each GSI a pattern reads, nothing else (plus
// kms:Decrypt with a customer managed key). An unknown pattern fails
// synthesis.
func (t *Table) GrantPatterns(grantee awsiam.IGrantable, names ...string) awsiam.Grant {
	if !t.built() {
		return nil
	}
	a, err := Access(t.Design, names...)
	if err != nil {
		t.problems = append(t.problems, err.Error())
		return nil
	}
	var resources []*string
	for _, ix := range a.Indexes {
		if ix == patterns.Table {
			resources = append(resources, t.Table.TableArn())
		} else {
			resources = append(resources, jsii.String(*t.Table.TableArn()+"/index/"+ix))
		}
	}
	g := awsiam.Grant_AddToPrincipal(&awsiam.GrantOnPrincipalOptions{
		Grantee:      grantee,
		Actions:      jsii.Strings(a.Actions...),
		ResourceArns: &resources,
	})
	if t.props.Encryption != nil && t.props.Encryption.Kind == CustomerManaged {
		t.Table.GrantOnKey(grantee, jsii.String("kms:Decrypt"))
	}
	return g
}
