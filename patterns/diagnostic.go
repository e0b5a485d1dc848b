package patterns

import "fmt"

// Severities.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Diagnostic is one finding of a check.
type Diagnostic struct {
	// ID is the rule's stable id, e.g. KP101.
	ID       string `json:"id"`
	Severity string `json:"severity"`
	// Subject names what the finding is about: "pattern SeasonLeaderboard".
	Subject string `json:"subject"`
	Message string `json:"message"`
	// Fix suggests what to change.
	Fix  string `json:"fix,omitempty"`
	File string `json:"file,omitempty"`
	Pos  Pos    `json:"pos"`
}

func (d Diagnostic) String() string {
	s := fmt.Sprintf("%s %s [%s] %s: %s", where(d.File, d.Pos), d.Severity, d.ID, d.Subject, d.Message)
	if d.Fix != "" {
		s += " (fix: " + d.Fix + ")"
	}
	if d.File == "" && d.Pos.Line == 0 {
		s = s[1:]
	}
	return s
}
