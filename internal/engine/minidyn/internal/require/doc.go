// Package require is the subset of github.com/stretchr/testify/require
// that minidyn's tests use, so the fork's tests run without testify and
// its dependencies (among them the archived gopkg.in/yaml.v3).
package require
