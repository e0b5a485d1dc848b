// Package expression parses and evaluates DynamoDB's expression language:
// ConditionExpression, FilterExpression, KeyConditionExpression,
// ProjectionExpression and UpdateExpression, and the legacy parameters
// (Expected, QueryFilter, ScanFilter, KeyConditions, AttributeUpdates,
// AttributesToGet) built into the same values.
//
// An expression is parsed once per request and refused with DynamoDB's
// own ValidationException messages before any item is read: syntax,
// undefined or unused placeholders, reserved words, operand types of
// constants, overlapping update paths, nesting and size limits. Evaluation
// then follows DynamoDB's semantics: a comparison of values of different
// types, or of a missing attribute, is false; every update action reads
// the item as it was before the update.
package expression
