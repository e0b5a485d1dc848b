// Package stacks holds keyplan's example CDK stacks: the seed domains as
// single tables, with least-privilege readers, checked by cdk-nag and by
// the GlobalTable rule pack.
package stacks
