package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/idemkit/idem/analyzer"
)

// SARIF 2.1.0 output (-format sarif): one run of the tool "idemlint" with
// a rule for every diagnostic code (sarifRules) and a result for every
// finding, at its rule's level. Locations are relative to the repository
// root (uriBaseId %SRCROOT%, which originalUriBaseIds gives as a file: URI):
// the top of the git work tree the working directory is in, else its
// module's root; a file outside it keeps an absolute file: URI. The claim,
// ack or effect a finding is about is a relatedLocation. Columns count
// Unicode code points (columnKind unicodeCodePoints), from the byte columns
// Go reports. Warnings and analysis errors are the invocation's
// notifications (and are printed on stderr too). The exit code is text
// mode's: 3 with findings, 1 when packages could not be loaded or analysed.

// checkFormat checks -format: text, json or sarif; sarif only where the
// standalone drivers run (the old driver has no SARIF output; it prints
// its usage itself, though).
func checkFormat(s standaloneArgs) (code int, bad bool) {
	switch {
	case s.format != "" && s.format != "text" && s.format != "json" && s.format != "sarif":
		fmt.Fprintf(os.Stderr, "idemlint: -format %s: want text, json or sarif\n", s.format)
		return 2, true
	case s.json && s.format != "" && s.format != "json":
		fmt.Fprintf(os.Stderr, "idemlint: -json and -format %s disagree\n", s.format)
		return 2, true
	case s.format == "sarif" && s.fallback != "" && s.fallback != "usage" && !strings.HasPrefix(s.fallback, "flags: "):
		fmt.Fprintf(os.Stderr, "idemlint: -format sarif needs the standalone drivers (the default one or -modular); it is not available with %s, which runs the go/packages driver\n", s.fallback)
		return 2, true
	}
	return 0, false
}

// srcRoot is the uriBaseId of relative locations.
const srcRoot = "%SRCROOT%"

// The SARIF 2.1.0 objects idemlint writes (sarifLog is the file).
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                   `json:"tool"`
	Invocations        []sarifInvocation           `json:"invocations"`
	OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult               `json:"results"`
	ColumnKind         string                      `json:"columnKind"`
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
	ID                   string      `json:"id"`
	Name                 string      `json:"name"`
	ShortDescription     sarifText   `json:"shortDescription"`
	FullDescription      sarifText   `json:"fullDescription"`
	Help                 sarifHelp   `json:"help"`
	HelpURI              string      `json:"helpUri"`
	DefaultConfiguration sarifConfig `json:"defaultConfiguration"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        int             `json:"ruleIndex"`
	Level            string          `json:"level"`
	Message          sarifText       `json:"message"`
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
}

type sarifLocation struct {
	ID               *int          `json:"id,omitempty"`
	Message          *sarifText    `json:"message,omitempty"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
	Region           *sarifRegion     `json:"region,omitempty"`
}

type sarifArtifactLoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

// printSARIF prints the findings as a SARIF 2.1.0 log, locations relative
// to root (repoRoot), positions read relative to dir (the working
// directory).
func (res *results) printSARIF(w io.Writer, dir, root string) error {
	s := sarifWriter{dir: dir, root: root, lines: map[string][]string{}}
	data, err := json.MarshalIndent(s.log(res), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

type sarifWriter struct {
	dir, root string
	lines     map[string][]string // file → its lines, for columns
}

func (s *sarifWriter) log(res *results) sarifLog {
	rules := sarifRules()
	inv := sarifInvocation{ExecutionSuccessful: !res.failed && len(res.errors) == 0}
	for _, m := range res.stderr {
		level := "error"
		if strings.HasPrefix(m, "idemlint: warning: ") {
			level = "warning"
		}
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: level, Message: sarifText{m}})
	}
	for _, e := range res.errors {
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "error", Message: sarifText{e.id + ": " + e.Err}})
	}
	run := sarifRun{
		Tool:        sarifTool{Driver: sarifDriver{Name: "idemlint", InformationURI: "https://github.com/idemkit/idem", Rules: rules}},
		Invocations: []sarifInvocation{inv},
		Results:     []sarifResult{},
		ColumnKind:  "unicodeCodePoints",
	}
	index := map[string]int{}
	for i, r := range rules {
		index[r.ID] = i
	}
	if s.root != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{srcRoot: {URI: fileURI(s.root) + "/"}}
	}
	for _, d := range res.diags {
		i, ok := index[d.Category]
		if !ok {
			// Not reached: every finding's category is its code.
			i = index[string(analyzer.IDEM001)]
		}
		code := rules[i].ID
		r := sarifResult{
			RuleID: code, RuleIndex: i, Level: rules[i].DefaultConfiguration.Level,
			Message:   sarifText{strings.TrimSuffix(d.Message, " ("+code+")")},
			Locations: []sarifLocation{{PhysicalLocation: s.physical(d.Posn, d.End)}},
		}
		for j, rel := range d.Related {
			id := j + 1
			r.RelatedLocations = append(r.RelatedLocations, sarifLocation{ID: &id, Message: &sarifText{rel.Message},
				PhysicalLocation: s.physical(rel.Posn, rel.End)})
		}
		run.Results = append(run.Results, r)
	}
	return sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
}

// physical is the location of a finding's "file:line:col" and its end.
func (s *sarifWriter) physical(posn, end string) sarifPhysical {
	p, e := parsePosn(posn), parsePosn(end)
	file := p.file
	if !filepath.IsAbs(file) {
		file = filepath.Join(s.dir, file)
	}
	loc := sarifArtifactLoc{URI: fileURI(file)}
	if rel, err := filepath.Rel(s.root, file); s.root != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		loc = sarifArtifactLoc{URI: (&url.URL{Path: filepath.ToSlash(rel)}).EscapedPath(), URIBaseID: srcRoot}
	}
	ph := sarifPhysical{ArtifactLocation: loc}
	if p.line > 0 {
		reg := &sarifRegion{StartLine: p.line, StartColumn: s.column(file, p.line, p.col)}
		if e.line > 0 && e.file == p.file && (e.line != p.line || e.col != p.col) {
			reg.EndLine, reg.EndColumn = e.line, s.column(file, e.line, e.col)
		}
		ph.Region = reg
	}
	return ph
}

// column turns a byte column of line (1-based) of file into a code point
// column; it keeps the byte column when the file cannot be read.
func (s *sarifWriter) column(file string, line, col int) int {
	if col <= 1 {
		return col
	}
	lines, ok := s.lines[file]
	if !ok {
		data, err := os.ReadFile(file)
		if err == nil {
			lines = strings.Split(string(data), "\n")
		}
		s.lines[file] = lines
	}
	if line > len(lines) || col-1 > len(lines[line-1]) {
		return col
	}
	return utf8.RuneCountInString(lines[line-1][:col-1]) + 1
}

// fileURI is the file: URI of an absolute path.
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows volume: file:///C:/…
	}
	return "file://" + (&url.URL{Path: p}).EscapedPath()
}

// repoRoot is the root SARIF locations are relative to: the nearest
// directory at or above dir holding .git (a directory, or a file in a
// worktree), else the nearest holding go.mod, else dir.
func repoRoot(dir string) string {
	for _, marker := range []string{".git", "go.mod"} {
		for d := dir; ; {
			if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
				return d
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	return dir
}
