package model

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrInvalidModel is matched (errors.Is) by every error about a model's
// content: the input is unusable and nothing was planned.
var ErrInvalidModel = errors.New("invalid model")

// Error is one problem with a model file: where it is, which field, and what
// was expected. Loading collects all of them and returns them joined.
type Error struct {
	File  string
	Pos   Pos
	Field string // dotted path, e.g. "patterns.SeasonLeaderboard.sort"
	Msg   string // what is wrong and what was expected
	Hint  string // e.g. `did you mean "rating"?`
	// Err is the error underneath, when there is one (the file cannot be
	// opened: errors.Is(err, fs.ErrNotExist)).
	Err error
}

// Error renders the problem on one line, safe to print (Printable: the
// field path and the message may hold the file's own text).
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Where())
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	return Printable(b.String())
}

// Where renders "file:line:col", omitting what is unknown.
func (e *Error) Where() string { return e.Pos.In(e.File) }

// Is makes every *Error match ErrInvalidModel.
func (e *Error) Is(target error) bool { return target == ErrInvalidModel }

// Unwrap is the error underneath (Err), or nil.
func (e *Error) Unwrap() error { return e.Err }

// errorList collects model errors; err() joins them, sorted by position.
type errorList struct {
	file string
	errs []*Error
}

func (l *errorList) add(pos Pos, field, format string, args ...any) *Error {
	for i, a := range args { // the file's own text, maybe huge
		if s, ok := a.(string); ok {
			args[i] = clip(s)
		}
	}
	e := &Error{File: l.file, Pos: pos, Field: clip(field), Msg: fmt.Sprintf(format, args...)}
	l.errs = append(l.errs, e)
	return e
}

// unknown records an unknown name, suggesting the closest candidate.
func (l *errorList) unknown(pos Pos, field, what, name string, candidates []string) {
	e := l.add(pos, field, "unknown %s %q; expected one of: %s", what, name, list(candidates))
	if s := suggest(name, candidates); s != "" {
		e.Hint = fmt.Sprintf("did you mean %q?", s)
	}
}

func (l *errorList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	sort.SliceStable(l.errs, func(i, j int) bool {
		a, b := l.errs[i].Pos, l.errs[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	errs := make([]error, len(l.errs))
	for i, e := range l.errs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// nameList is a list of names for a message, made by list: add does not
// clip it as a whole (a list cut mid-name reads as a name); each name in
// it is clipped, and it holds at most a dozen.
type nameList string

func list(names []string) nameList {
	if len(names) == 0 {
		return "(none declared)"
	}
	const max = 12
	shown := make([]string, 0, min(len(names), max))
	for _, n := range names[:min(len(names), max)] {
		shown = append(shown, clip(n))
	}
	if len(names) > max {
		return nameList(strings.Join(shown, ", ") + fmt.Sprintf(", … (%d more)", len(names)-max))
	}
	return nameList(strings.Join(shown, ", "))
}

// suggest returns the candidate closest to name when it is close enough to be
// a likely typo, else "".
func suggest(name string, candidates []string) string {
	if len(name) > maxShown || len(candidates) > 1000 {
		return "" // no typo of a real name is that long; bounded work
	}
	best, bestD := "", 0
	for _, c := range candidates {
		if len(c) > maxShown {
			continue
		}
		d := distance(strings.ToLower(name), strings.ToLower(c))
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	limit := len(name) / 3
	if limit < 1 {
		limit = 1
	}
	if best != "" && bestD <= limit && bestD < len(best) {
		return best
	}
	// A name cut short ("venue" for "venueId"): the one candidate it
	// begins.
	var began string
	for _, c := range candidates {
		if len(name) >= 3 && len(c) <= maxShown && strings.HasPrefix(strings.ToLower(c), strings.ToLower(name)) {
			if began != "" {
				return ""
			}
			began = c
		}
	}
	return began
}

// distance is the edit distance counting a swap of two neighbours as one
// edit (optimal string alignment): "tiem" is one edit from "time".
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
