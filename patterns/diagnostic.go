package patterns

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// Severity is how serious a finding is.
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	// SeverityInfo is for changes and notes that need no action.
	SeverityInfo Severity = "info"
)

// SubjectKind names what a finding is about.
type SubjectKind string

// Subject kinds.
const (
	SubjectTable   SubjectKind = "table"
	SubjectIndex   SubjectKind = "index"
	SubjectEntity  SubjectKind = "entity"
	SubjectPattern SubjectKind = "pattern"
	SubjectWrite   SubjectKind = "write"
)

// Subject is what a finding is about: a kind and a name. It reads (and is
// written in JSON) as "pattern SeasonLeaderboard".
type Subject struct {
	Kind SubjectKind
	Name string
}

func (s Subject) String() string {
	if s.Kind == "" {
		return s.Name
	}
	return string(s.Kind) + " " + s.Name
}

// MarshalJSON writes the text form, "pattern SeasonLeaderboard".
func (s Subject) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads the text form.
func (s *Subject) UnmarshalJSON(b []byte) error {
	var text string
	if err := json.Unmarshal(b, &text); err != nil {
		return err
	}
	kind, name, ok := strings.Cut(text, " ")
	if !ok {
		*s = Subject{Name: text}
		return nil
	}
	*s = Subject{Kind: SubjectKind(kind), Name: name}
	return nil
}

// Diagnostic is one finding of a check.
type Diagnostic struct {
	// ID is the rule's stable id, e.g. KP101.
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	// Subject names what the finding is about: "pattern SeasonLeaderboard".
	Subject Subject `json:"subject"`
	Message string  `json:"message"`
	// Fix suggests what to change.
	Fix  string    `json:"fix,omitempty"`
	File string    `json:"file,omitempty"`
	Pos  model.Pos `json:"pos"`
}

// Key names the finding for an acknowledgement: "KP401:SeasonLeaderboard"
// (the rule id and the subject's name). The singletable construct uses it
// as the CDK warning's id, so `cdk synth` prints the key to acknowledge.
func (d Diagnostic) Key() string { return d.ID + ":" + d.Subject.Name }

func (d Diagnostic) String() string {
	s := fmt.Sprintf("%s [%s] %s: %s", d.Severity, d.ID, d.Subject, d.Message)
	if at := d.Pos.In(d.File); at != "" {
		s = at + " " + s
	}
	if d.Fix != "" {
		s += " (fix: " + d.Fix + ")"
	}
	return model.Printable(s)
}
