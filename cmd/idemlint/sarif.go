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
)

// SARIF 2.1.0 output (-format sarif, or -sarif): one run of the tool
// "idemlint" with a rule for every diagnostic code (sarifRules) and a
// result for every finding. A result's level is its rule's (error for
// IDEM001 … IDEM007, warning for IDEM000: a malformed directive breaks no
// handler, but the suppression it meant does not apply). Locations are
// relative to the repository root (uriBaseId %SRCROOT%): the top of the git
// work tree the current directory is in, else its module's root; a file
// outside it keeps an absolute file: URI. Related positions (the claim, ack
// or effect a finding is about) are relatedLocations. Columns count Unicode
// code points (columnKind unicodeCodePoints), from the byte columns Go
// reports. Like -json, it exits 0 with findings, 1 when packages could not
// be loaded.

// checkFormat checks -format: text, json or sarif, and json or sarif only
// where the standalone drivers run (the old driver knows -json alone).
func checkFormat(s standaloneArgs) (code int, bad bool) {
	switch {
	case s.format != "" && s.format != "text" && s.format != "json" && s.format != "sarif":
		fmt.Fprintf(os.Stderr, "idemlint: -format %s: want text, json or sarif\n", s.format)
		return 2, true
	case s.format == "sarif" && s.fallback != "":
		fmt.Fprintf(os.Stderr, "idemlint: -format sarif is not available with %s (the go/packages driver)\n", s.fallback)
		return 2, true
	}
	return 0, false
}

// print prints res as -json or -format sarif ask, with the exit code
// (1 when packages failed, else 0); done is false for plain text.
func (res *results) print(s standaloneArgs, failed bool) (code int, done bool) {
	var err error
	switch {
	case s.format == "sarif":
		dir, _ := os.Getwd()
		err = res.printSARIF(os.Stdout, dir, repoRoot(dir))
	case s.json:
		err = res.printJSON(os.Stdout)
	default:
		return 0, false
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "idemlint: %v\n", err)
		return 1, true
	}
	if failed {
		return 1, true
	}
	return 0, true
}

// srcRoot is the uriBaseId of relative locations.
const srcRoot = "%SRCROOT%"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                   `json:"tool"`
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
	HelpURI              string      `json:"helpUri"`
	DefaultConfiguration sarifConfig `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
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
	run := sarifRun{
		Tool:       sarifTool{Driver: sarifDriver{Name: "idemlint", InformationURI: "https://github.com/idemkit/idem", Rules: []sarifRule{}}},
		Results:    []sarifResult{},
		ColumnKind: "unicodeCodePoints",
	}
	index := map[string]int{}
	for i, r := range rules {
		index[r.code] = i
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID: r.code, Name: r.name, ShortDescription: sarifText{r.title}, FullDescription: sarifText{r.text},
			HelpURI: r.url, DefaultConfiguration: sarifConfig{r.level},
		})
	}
	if s.root != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{srcRoot: {URI: fileURI(s.root) + "/"}}
	}
	for _, d := range res.diags {
		var meta struct {
			Category string `json:"category"`
		}
		json.Unmarshal(d.raw, &meta) // raw was decoded before
		i, ok := index[meta.Category]
		if !ok {
			i = index["IDEM001"] // not reached: every finding has its code
		}
		code := rules[i].code
		r := sarifResult{
			RuleID: code, RuleIndex: i, Level: rules[i].level,
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
