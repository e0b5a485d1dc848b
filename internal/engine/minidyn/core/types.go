package core

import (
	"fmt"

	"github.com/keyplan/keyplan/internal/engine/minidyn/types"
)

// Limits of DynamoDB's that the engine enforces.
const (
	// MaxItemBytes is the largest item (400 KB).
	MaxItemBytes = 400 * 1024
	// MaxHashKeyBytes and MaxRangeKeyBytes bound a key attribute's value.
	MaxHashKeyBytes  = 2048
	MaxRangeKeyBytes = 1024
	// MaxPageBytes is the most item data one Query or Scan page reads.
	MaxPageBytes = 1 << 20
)

// ErrConditionalRequestFailed is the message of a failed condition.
const ErrConditionalRequestFailed = "The conditional request failed"

// validationError is a ValidationException with DynamoDB's message.
func validationError(format string, args ...any) error {
	return types.NewError("ValidationException", fmt.Sprintf(format, args...), nil)
}

// conditionFailed is a ConditionalCheckFailedException; old is the item
// the condition was evaluated on (nil when there was none), for
// ReturnValuesOnConditionCheckFailure.
func conditionFailed(old map[string]*types.Item) error {
	return &types.ConditionalCheckFailedException{MessageText: ErrConditionalRequestFailed, Item: old}
}
