// Package evolvetest holds what the evolution tests share (patterns' and
// the synthesized templates' in test/): the shop's successive model
// edits, the lock round trip, and the checks every migration's phases
// pass.
package evolvetest
