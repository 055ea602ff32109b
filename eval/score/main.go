// Command score scores idemlint's JSON output against a labelled set of
// message handlers (eval/dev.yaml, eval/test.yaml).
//
// Usage:
//
//	go run ./eval/score -list SET.yaml
//	go run ./eval/score -check SET.yaml
//	go run ./eval/score [-mode standalone|vet|all] [-md FILE] SET.yaml OUTDIR
//
// -list prints one line per module of the set, "MODULE VERSION SLUG REPO
// PATTERN...", for eval/run.sh (REPO is "-" for a module from the module
// proxy). -check only validates the set file.
// Otherwise score reads, for each module and mode, OUTDIR/MODE/SLUG.json and
// OUTDIR/MODE/SLUG.stderr (go vet writes its JSON to stderr), and
// OUTDIR/MODE/SLUG.root, the directory the tool ran in, used to turn absolute
// paths into module-relative ones. It prints a table per mode, precision and
// recall, and the findings that lie in no labelled span, and writes a
// markdown fragment to -md (default OUTDIR/results.md).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Set is a labelled evaluation set as stored in eval/*.yaml.
type Set struct {
	Modules  []Module  `yaml:"modules"`
	Handlers []Handler `yaml:"handlers"`
}

// Module is one module of a set, at a fixed version.
type Module struct {
	Module  string `yaml:"module"`
	Version string `yaml:"version"`
	// Repo, when set ("github.com/OWNER/NAME"), is where the module's source
	// comes from instead of the module proxy: that repository at the commit
	// Version, with the module's go.mod at its root. For repositories that
	// publish no module version.
	Repo     string   `yaml:"repo"`
	Broker   string   `yaml:"broker"`
	Why      string   `yaml:"why"`
	Patterns []string `yaml:"patterns"`
}

// Span is a file and an inclusive line range, relative to the module root.
type Span struct {
	File  string `yaml:"file"`
	Lines []int  `yaml:"lines"`
}

// Handler is one labelled message handler.
type Handler struct {
	ID      string   `yaml:"id"`
	Module  string   `yaml:"module"`
	Version string   `yaml:"version"`
	Handler string   `yaml:"handler"`
	File    string   `yaml:"file"`
	Lines   []int    `yaml:"lines"`
	Also    []Span   `yaml:"also"`
	Broker  string   `yaml:"broker"`
	Label   string   `yaml:"label"`
	Codes   []string `yaml:"codes"`
	Effect  string   `yaml:"effect"`
	Reason  string   `yaml:"reason"`
	Shape   []string `yaml:"shape"`
	Note    string   `yaml:"note"`
}

// Spans returns the handler's own span followed by its also spans.
func (h Handler) Spans() []Span {
	return append([]Span{{File: h.File, Lines: h.Lines}}, h.Also...)
}

// Finding is one diagnostic, with its path made module-relative where possible.
type Finding struct {
	Module  string
	Package string
	Code    string
	File    string
	Line    int
	Message string
}

// Mode names: how idemlint was run.
const (
	ModeStandalone = "standalone"
	ModeVet        = "vet"
)

var (
	codeRE  = regexp.MustCompile(`^IDEM00[1-7]$`)
	inMsgRE = regexp.MustCompile(`\((IDEM00[1-7])\)`)
	shapes  = map[string]bool{"direct": true, "helper-registered": true, "interface-effect": true, "func-field": true,
		"dispatch-map": true, "select-loop": true, "goroutine-per-message": true, "orm": true, "redis": true,
		"http": true, "telemetry-heavy": true, "batch": true}
)

func main() {
	list := flag.Bool("list", false, "print the set's modules for eval/run.sh and exit")
	check := flag.Bool("check", false, "validate the set file and exit")
	mode := flag.String("mode", "all", "which output to score: standalone, vet or all")
	md := flag.String("md", "", "where to write the markdown fragment (default OUTDIR/results.md)")
	flag.Parse()
	if err := run(os.Stdout, *list, *check, *mode, *md, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "score:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, list, check bool, mode, md string, args []string) error {
	if len(args) < 1 {
		return errors.New("usage: score [-list|-check] SET.yaml [OUTDIR]")
	}
	set, err := LoadSet(args[0])
	if err != nil {
		return err
	}
	if check {
		fmt.Fprintf(w, "%s: %d handlers (%d bug, %d ok) in %d modules\n", args[0], len(set.Handlers),
			countLabel(set, "bug"), countLabel(set, "ok"), len(set.Modules))
		return nil
	}
	if list {
		for _, m := range set.Modules {
			pats := m.Patterns
			if len(pats) == 0 {
				pats = []string{"./..."}
			}
			repo := m.Repo
			if repo == "" {
				repo = "-"
			}
			fmt.Fprintf(w, "%s %s %s %s %s\n", m.Module, m.Version, Slug(m.Module), repo, strings.Join(pats, " "))
		}
		return nil
	}
	if len(args) != 2 {
		return errors.New("usage: score SET.yaml OUTDIR")
	}
	out := args[1]
	modes := []string{ModeStandalone, ModeVet}
	switch mode {
	case "all":
	case ModeStandalone, ModeVet:
		modes = []string{mode}
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	var mdBuf bytes.Buffer
	fmt.Fprintf(&mdBuf, "### %s\n\n", filepath.Base(args[0]))
	for _, m := range modes {
		findings, problems, err := ReadFindings(set, filepath.Join(out, m))
		if err != nil {
			return err
		}
		r := Score(set, findings)
		r.Mode = m
		r.Problems = problems
		r.WriteText(w)
		r.WriteMarkdown(&mdBuf)
	}
	if md == "" {
		md = filepath.Join(out, "results.md")
	}
	if err := os.WriteFile(md, mdBuf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write markdown: %w", err)
	}
	fmt.Fprintf(w, "markdown fragment: %s\n", md)
	return nil
}

func countLabel(set *Set, label string) int {
	n := 0
	for _, h := range set.Handlers {
		if h.Label == label {
			n++
		}
	}
	return n
}

// Slug is the file-name form of a module path used for output files.
func Slug(module string) string {
	return strings.NewReplacer("/", "_", "@", "_").Replace(module)
}

// LoadSet reads and validates a set file.
func LoadSet(file string) (*Set, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read set: %w", err)
	}
	return ParseSet(data)
}

// ParseSet parses and validates a set.
func ParseSet(data []byte) (*Set, error) {
	var set Set
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&set); err != nil {
		return nil, fmt.Errorf("parse set: %w", err)
	}
	if err := set.Validate(); err != nil {
		return nil, err
	}
	return &set, nil
}

var (
	repoPath   = regexp.MustCompile(`^github\.com/[A-Za-z0-9][A-Za-z0-9_-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)
	commitHash = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// Validate checks that the set is well-formed.
func (s *Set) Validate() error {
	mods := map[string]string{}
	for _, m := range s.Modules {
		if m.Module == "" || m.Version == "" {
			return fmt.Errorf("module entry without module or version: %+v", m)
		}
		if m.Repo != "" {
			if !repoPath.MatchString(m.Repo) {
				return fmt.Errorf("module %s: repo %q is not github.com/OWNER/NAME", m.Module, m.Repo)
			}
			if !commitHash.MatchString(m.Version) {
				return fmt.Errorf("module %s: version %q of a repo is not a full commit hash", m.Module, m.Version)
			}
		}
		if _, dup := mods[m.Module]; dup {
			return fmt.Errorf("module %s listed twice", m.Module)
		}
		mods[m.Module] = m.Version
	}
	ids := map[string]bool{}
	for _, h := range s.Handlers {
		if h.ID == "" {
			return fmt.Errorf("handler without id in %s", h.File)
		}
		if ids[h.ID] {
			return fmt.Errorf("handler id %s used twice", h.ID)
		}
		ids[h.ID] = true
		v, ok := mods[h.Module]
		if !ok {
			return fmt.Errorf("%s: module %s is not in modules", h.ID, h.Module)
		}
		if h.Version != v {
			return fmt.Errorf("%s: version %s differs from the module's %s", h.ID, h.Version, v)
		}
		for _, sp := range h.Spans() {
			if sp.File == "" || len(sp.Lines) != 2 || sp.Lines[0] < 1 || sp.Lines[1] < sp.Lines[0] {
				return fmt.Errorf("%s: bad span %+v", h.ID, sp)
			}
			if path.IsAbs(sp.File) || strings.HasPrefix(path.Clean(sp.File), "..") {
				return fmt.Errorf("%s: span file %s is not module-relative", h.ID, sp.File)
			}
		}
		switch h.Label {
		case "bug":
			if len(h.Codes) == 0 {
				return fmt.Errorf("%s: bug without codes", h.ID)
			}
		case "ok":
			if len(h.Codes) != 0 {
				return fmt.Errorf("%s: ok with codes", h.ID)
			}
		default:
			return fmt.Errorf("%s: label %q is neither bug nor ok", h.ID, h.Label)
		}
		for _, c := range h.Codes {
			if !codeRE.MatchString(c) {
				return fmt.Errorf("%s: unknown code %s", h.ID, c)
			}
		}
		for _, sh := range h.Shape {
			if !shapes[sh] {
				return fmt.Errorf("%s: unknown shape %s", h.ID, sh)
			}
		}
		if h.Handler == "" || h.Reason == "" {
			return fmt.Errorf("%s: handler and reason are required", h.ID)
		}
	}
	return nil
}

// diag is one diagnostic as go/analysis prints it with -json.
type diag struct {
	Category string `json:"category"`
	Posn     string `json:"posn"`
	Message  string `json:"message"`
}

// ReadFindings reads the JSON output of every module of the set from dir
// (one mode). Files that are missing or hold no JSON are reported as
// problems, not errors.
func ReadFindings(set *Set, dir string) ([]Finding, []string, error) {
	var all []Finding
	var problems []string
	for _, m := range set.Modules {
		slug := Slug(m.Module)
		root := ""
		if b, err := os.ReadFile(filepath.Join(dir, slug+".root")); err == nil {
			root = strings.TrimSpace(string(b))
		}
		seen := false
		for _, ext := range []string{".json", ".stderr"} {
			data, err := os.ReadFile(filepath.Join(dir, slug+ext))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, nil, fmt.Errorf("read output: %w", err)
			}
			seen = true
			fs, errs := ParseOutput(data, m.Module, root)
			all = append(all, fs...)
			for _, e := range errs {
				problems = append(problems, m.Module+": "+e)
			}
		}
		if !seen {
			problems = append(problems, m.Module+": no output")
		}
		if b, err := os.ReadFile(filepath.Join(dir, slug+".rc")); err == nil {
			rc := strings.TrimSpace(string(b))
			if rc != "0" && rc != "3" {
				problems = append(problems, fmt.Sprintf("%s: exit code %s", m.Module, rc))
			}
		}
	}
	return all, problems, nil
}

// ParseOutput extracts the findings from one output file: zero or more JSON
// objects, possibly concatenated, with lines starting with '#' (go vet's
// package headers) and other text skipped. Analyzer errors reported inside
// the JSON are returned as strings.
func ParseOutput(data []byte, module, root string) ([]Finding, []string) {
	var findings []Finding
	var errs []string
	for _, obj := range jsonObjects(data) {
		var pkgs map[string]map[string]json.RawMessage
		if err := json.Unmarshal(obj, &pkgs); err != nil {
			errs = append(errs, "unexpected JSON: "+truncate(string(obj), 80))
			continue
		}
		for pkg, analyzers := range pkgs {
			for _, raw := range analyzers {
				raw = bytes.TrimSpace(raw)
				if len(raw) > 0 && raw[0] == '{' {
					var e struct {
						Error string `json:"error"`
					}
					if json.Unmarshal(raw, &e) == nil && e.Error != "" {
						errs = append(errs, pkg+": "+e.Error)
					}
					continue
				}
				var ds []diag
				if err := json.Unmarshal(raw, &ds); err != nil {
					errs = append(errs, pkg+": unexpected diagnostics: "+truncate(string(raw), 80))
					continue
				}
				for _, d := range ds {
					file, line := splitPosn(d.Posn)
					findings = append(findings, Finding{
						Module:  module,
						Package: pkg,
						Code:    findingCode(d),
						File:    Normalize(file, root),
						Line:    line,
						Message: d.Message,
					})
				}
			}
		}
	}
	return findings, errs
}

// jsonObjects returns the top-level JSON objects in data, skipping lines
// that start with '#' and any text that is not JSON.
func jsonObjects(data []byte) []json.RawMessage {
	var clean bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("#")) {
			continue
		}
		clean.Write(line)
	}
	rest := clean.Bytes()
	var objs []json.RawMessage
	for {
		i := bytes.IndexByte(rest, '{')
		if i < 0 {
			return objs
		}
		rest = rest[i:]
		dec := json.NewDecoder(bytes.NewReader(rest))
		var obj json.RawMessage
		if err := dec.Decode(&obj); err != nil {
			rest = rest[1:]
			continue
		}
		objs = append(objs, obj)
		rest = rest[dec.InputOffset():]
	}
}

func findingCode(d diag) string {
	if codeRE.MatchString(d.Category) {
		return d.Category
	}
	if m := inMsgRE.FindStringSubmatch(d.Message); m != nil {
		return m[1]
	}
	return d.Category
}

// splitPosn splits "file:line:col" (or "file:line") into file and line.
func splitPosn(posn string) (string, int) {
	file := posn
	line := 0
	for i := 0; i < 2; i++ {
		j := strings.LastIndexByte(file, ':')
		if j < 0 {
			break
		}
		n, err := strconv.Atoi(file[j+1:])
		if err != nil {
			break
		}
		file, line = file[:j], n
	}
	return file, line
}

// Normalize turns a finding's path into a module-relative slash path: an
// absolute path under root loses the root, a relative path is cleaned. An
// absolute path outside root is returned cleaned; Matches then compares
// by suffix.
func Normalize(file, root string) string {
	file = filepath.ToSlash(file)
	root = strings.TrimSuffix(filepath.ToSlash(root), "/")
	if path.IsAbs(file) {
		file = path.Clean(file)
		if root != "" && strings.HasPrefix(file, root+"/") {
			return file[len(root)+1:]
		}
		return file
	}
	return path.Clean(file)
}

// Matches reports whether a finding lies within the span.
func (f Finding) Matches(sp Span) bool {
	if f.Line < sp.Lines[0] || f.Line > sp.Lines[1] {
		return false
	}
	want := path.Clean(sp.File)
	return f.File == want || strings.HasSuffix(f.File, "/"+want)
}

// Row is one handler's outcome.
type Row struct {
	Handler Handler
	Flagged bool
	Codes   []string
}

// Result is the score of one mode.
type Result struct {
	Mode       string
	Rows       []Row
	TP         int
	FP         int
	FN         int
	TN         int
	Unlabelled []Finding
	Problems   []string
}

// Precision is TP/(TP+FP), or 0 when nothing was flagged.
func (r Result) Precision() float64 {
	if r.TP+r.FP == 0 {
		return 0
	}
	return float64(r.TP) / float64(r.TP+r.FP)
}

// Recall is TP/(TP+FN), or 0 when there are no bugs.
func (r Result) Recall() float64 {
	if r.TP+r.FN == 0 {
		return 0
	}
	return float64(r.TP) / float64(r.TP+r.FN)
}

// Score matches findings against the set's handlers. Only findings with a
// code IDEM001–IDEM007 count.
func Score(set *Set, findings []Finding) Result {
	var r Result
	used := make([]bool, len(findings))
	for _, h := range set.Handlers {
		codes := map[string]bool{}
		for i, f := range findings {
			if f.Module != h.Module || !codeRE.MatchString(f.Code) {
				continue
			}
			for _, sp := range h.Spans() {
				if f.Matches(sp) {
					codes[f.Code] = true
					used[i] = true
					break
				}
			}
		}
		row := Row{Handler: h, Flagged: len(codes) > 0}
		for c := range codes {
			row.Codes = append(row.Codes, c)
		}
		sort.Strings(row.Codes)
		switch {
		case h.Label == "bug" && row.Flagged:
			r.TP++
		case h.Label == "bug":
			r.FN++
		case row.Flagged:
			r.FP++
		default:
			r.TN++
		}
		r.Rows = append(r.Rows, row)
	}
	for i, f := range findings {
		if !used[i] && codeRE.MatchString(f.Code) {
			r.Unlabelled = append(r.Unlabelled, f)
		}
	}
	sort.SliceStable(r.Unlabelled, func(i, j int) bool {
		a, b := r.Unlabelled[i], r.Unlabelled[j]
		if a.Module != b.Module {
			return a.Module < b.Module
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return r
}

func outcome(row Row) string {
	switch {
	case row.Handler.Label == "bug" && row.Flagged:
		return "TP"
	case row.Handler.Label == "bug":
		return "FN"
	case row.Flagged:
		return "FP"
	default:
		return "TN"
	}
}

// WriteText prints the result as plain text.
func (r Result) WriteText(w io.Writer) {
	fmt.Fprintf(w, "== mode %s\n", r.Mode)
	fmt.Fprintf(w, "%-34s %-5s %-8s %-4s %s\n", "id", "label", "flagged", "", "codes found (expected)")
	for _, row := range r.Rows {
		fmt.Fprintf(w, "%-34s %-5s %-8v %-4s %s (%s)\n", row.Handler.ID, row.Handler.Label, row.Flagged,
			outcome(row), strings.Join(row.Codes, ","), strings.Join(row.Handler.Codes, ","))
	}
	fmt.Fprintf(w, "TP %d  FP %d  FN %d  TN %d  precision %.3f  recall %.3f\n", r.TP, r.FP, r.FN, r.TN,
		r.Precision(), r.Recall())
	fmt.Fprintf(w, "findings in no labelled span: %d\n", len(r.Unlabelled))
	for _, f := range r.Unlabelled {
		fmt.Fprintf(w, "  %s %s:%d %s %s\n", f.Module, f.File, f.Line, f.Code, truncate(f.Message, 120))
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
}

// WriteMarkdown writes the result as a markdown fragment.
func (r Result) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "#### mode: %s\n\n", r.Mode)
	fmt.Fprintf(w, "TP %d, FP %d, FN %d, TN %d — precision %.3f, recall %.3f\n\n", r.TP, r.FP, r.FN, r.TN,
		r.Precision(), r.Recall())
	fmt.Fprintln(w, "| id | label | expected | flagged | codes found | outcome |")
	fmt.Fprintln(w, "|----|-------|----------|---------|-------------|---------|")
	for _, row := range r.Rows {
		fmt.Fprintf(w, "| %s | %s | %s | %v | %s | %s |\n", row.Handler.ID, row.Handler.Label,
			strings.Join(row.Handler.Codes, ", "), row.Flagged, strings.Join(row.Codes, ", "), outcome(row))
	}
	fmt.Fprintf(w, "\nFindings in no labelled span (not scored): %d\n\n", len(r.Unlabelled))
	for _, f := range r.Unlabelled {
		fmt.Fprintf(w, "- `%s` `%s:%d` %s\n", f.Module, f.File, f.Line, f.Code)
	}
	if len(r.Problems) > 0 {
		fmt.Fprintf(w, "\nProblems:\n\n")
		for _, p := range r.Problems {
			fmt.Fprintf(w, "- %s\n", p)
		}
	}
	fmt.Fprintln(w)
}

func truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
