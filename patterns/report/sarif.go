package report

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/keyplan/keyplan/patterns"
)

// SARIF 2.1.0, enough for code-scanning UIs to show each finding on the
// model file's line.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	ShortDescription     sarifText    `json:"shortDescription"`
	HelpURI              string       `json:"helpUri"`
	DefaultConfiguration sarifDefault `json:"defaultConfiguration"`
}

type sarifDefault struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

const (
	sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"
	docsURI     = "https://github.com/keyplan/keyplan/blob/main/docs/checks.md"
)

// WriteSARIF writes findings as a SARIF 2.1.0 log. Locations are the
// diagnostics' files, slash-separated (relative paths stay relative, so
// the code-scanning UI resolves them against the repository).
func WriteSARIF(w io.Writer, ds []patterns.Diagnostic) error {
	driver := sarifDriver{Name: "keyplan", InformationURI: "https://github.com/keyplan/keyplan", Rules: []sarifRule{}}
	index := map[string]int{}
	for i, r := range patterns.Rules() {
		index[r.ID] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID: r.ID, ShortDescription: sarifText{r.Title}, HelpURI: docsURI + "#" + strings.ToLower(r.ID),
			DefaultConfiguration: sarifDefault{Level: string(r.Severity)},
		})
	}
	results := []sarifResult{}
	for _, d := range ds {
		loc := sarifPhysical{ArtifactLocation: sarifArtifact{URI: filepath.ToSlash(d.File)}}
		if d.Pos.Line > 0 {
			loc.Region = &sarifRegion{StartLine: d.Pos.Line, StartColumn: d.Pos.Col}
		}
		msg := d.Subject.String() + ": " + d.Message
		if d.Fix != "" {
			msg += " Fix: " + d.Fix + "."
		}
		results = append(results, sarifResult{RuleID: d.ID, RuleIndex: index[d.ID], Level: string(d.Severity),
			Message: sarifText{msg}, Locations: []sarifLocation{{PhysicalLocation: loc}}})
	}
	return writeJSON(w, sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}}})
}
