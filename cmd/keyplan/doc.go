// Command keyplan plans and checks DynamoDB single-table designs from an
// access-pattern model.
//
//	keyplan plan FILE [--format text|json|markdown] [--strict]
//	keyplan check FILE [--format text|json|sarif] [--strict]
//	keyplan validate FILE [--endpoint URL]
//
// Exit codes: 0 clean, 1 findings (errors; warnings too with --strict),
// 2 unusable input or usage.
package main
