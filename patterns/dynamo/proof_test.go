package dynamo_test

import (
	"context"
	"strings"

	"github.com/keyplan/keyplan/patterns/dynamo"
	"github.com/keyplan/keyplan/patterns/prove"
)

func init() {
	dynamo.ValidateExamples = func(ctx context.Context, t *dynamo.Table) (bool, string) {
		rep := prove.Validate(ctx, t)
		var b strings.Builder
		rep.WriteText(&b, t.Design().Model().Source)
		return rep.OK(), b.String()
	}
}
