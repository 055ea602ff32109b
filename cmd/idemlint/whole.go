package main

import (
	"encoding/json"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/idemkit/idem/analyzer"
)

// wholeMode is the packages.Load mode of the whole-program driver: the
// program's own packages (and the client packages among their direct
// dependencies, see clientDeps) from syntax, the other dependencies from
// export data.
const wholeMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
	packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedTypesSizes | packages.NeedModule

// whole runs idemlint over the whole program of the packages s names: it
// loads every package of their modules (so that implementations wired in
// by main, and handlers registered through the service's own helpers, are
// seen) and reports the findings in the named packages.
func whole(s standaloneArgs) int {
	var build []string
	if s.tagsSet {
		build = append(build, "-tags="+s.tags)
	}
	roots, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedModule, BuildFlags: build, Tests: s.tests}, s.patterns...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "idemlint: %v\n", err)
		return 1
	}
	targets := map[string]string{} // file -> package path
	named := map[string]bool{}     // package paths the patterns name
	var mods []string
	seenMod := map[string]bool{}
	failed := false
	for _, p := range roots {
		for _, e := range p.Errors {
			if e.Kind == packages.ListError {
				fmt.Fprintf(os.Stderr, "%v\n", e)
				failed = true
			}
		}
		named[p.PkgPath] = true
		for _, f := range p.GoFiles {
			targets[f] = p.PkgPath
		}
		if p.Module != nil && !seenMod[p.Module.Path] {
			seenMod[p.Module.Path] = true
			mods = append(mods, p.Module.Path+"/...")
		}
	}
	if len(targets) == 0 {
		if !failed {
			fmt.Fprintf(os.Stderr, "idemlint: no Go files in %s\n", strings.Join(s.patterns, " "))
		}
		return 1
	}
	patterns := mods
	if len(patterns) == 0 {
		patterns = s.patterns // GOPATH mode: the packages named
	}
	for _, f := range s.analyzer {
		name, value, _ := strings.Cut(strings.TrimPrefix(f, "-"), "=")
		if err := analyzer.Analyzer.Flags.Set(name, value); err != nil {
			fmt.Fprintf(os.Stderr, "idemlint: -%s: %v\n", name, err)
			return 1
		}
	}
	cfg := analyzer.FlagConfig()
	// The program's packages and their dependencies, listed (nothing
	// compiled): the client packages among its direct dependencies are
	// analysed from source too, and the cache key hashes the listing.
	listing, lerr := packages.Load(&packages.Config{Mode: cacheMode, BuildFlags: build, Tests: s.tests}, patterns...)
	if lerr != nil && len(mods) > 0 {
		// The module-wide patterns fail where the packages named load (a
		// go.sum entry of a module outside the build that no longer
		// verifies): analyse the packages named and what they import.
		first, _, _ := strings.Cut(lerr.Error(), "\n")
		fmt.Fprintf(os.Stderr, "idemlint: warning: %s could not be listed (%s); analysing the packages named only\n", strings.Join(mods, " "), first)
		patterns, mods = s.patterns, nil
		listing, lerr = packages.Load(&packages.Config{Mode: cacheMode, BuildFlags: build, Tests: s.tests}, patterns...)
	}
	if lerr != nil {
		listing = nil
	}
	var wrappers, clients []string
	if len(mods) > 0 {
		wrappers, clients = clientDeps(listing, seenMod)
		patterns = append(patterns, wrappers...)
	}
	if os.Getenv("IDEMLINT_TRACE") != "" {
		for _, w := range wrappers {
			fmt.Fprintf(os.Stderr, "idemlint: broker wrapper from source: %s\n", w)
		}
	}
	// A run over the same files, dependencies, settings and idemlint as an
	// earlier one prints what that run found.
	cache := openCache()
	key := cache.key(s, cfg, append(slices.Clip(patterns), clients...), build, roots, listing)
	if res, ok := cache.get(key); ok {
		return res.print(s)
	}
	res := &results{}
	if !analyse(s, cfg, patterns, clients, build, named, targets, failed, res) {
		return 1
	}
	if !res.failed {
		cache.put(key, res)
	}
	return res.print(s)
}

// analyse loads the program of patterns, checks it and collects into res
// the findings in the files of targets (res.failed says whether packages
// the patterns name did not load). It reports false, after printing why,
// when the run could not be done.
//
// clients are dependencies that may be analysed from source (clientDeps).
// The program is checked first with every dependency from export data;
// when its handlers reach some of clients, it is loaded again with those
// from source and checked again, and that run's findings count. Reading
// only what the handlers reach keeps a large service with many API
// clients among its dependencies from paying for all of them.
func analyse(s standaloneArgs, cfg analyzer.Config, patterns, clients, build []string, named map[string]bool, targets map[string]string, failed bool, res *results) bool {
	trace := os.Getenv("IDEMLINT_TRACE") != ""
	prog, ok := load(s, patterns, build, named, &failed, res)
	if !ok {
		return false
	}
	diags, reached, err := analyzer.CheckProgramReach(prog, cfg, clients)
	if trace {
		fmt.Fprintf(os.Stderr, "idemlint: client dependencies: %d candidates, %d reached by handlers\n", len(clients), len(reached))
		for _, d := range reached {
			fmt.Fprintf(os.Stderr, "idemlint:   from source: %s\n", d)
		}
	}
	if err == nil && len(reached) > 0 {
		prog = nil
		res.stderr = nil
		if prog, ok = load(s, append(slices.Clip(patterns), reached...), build, named, &failed, res); !ok {
			return false
		}
		diags, err = analyzer.CheckProgram(prog, cfg)
	}
	return report(prog, diags, err, targets, failed, res)
}

// load loads the packages of patterns with syntax and types (their
// dependencies from export data) and returns those that loaded; a package
// of the program that did not is a warning in res, one the patterns name
// sets *failed.
func load(s standaloneArgs, patterns, build []string, named map[string]bool, failed *bool, res *results) ([]*packages.Package, bool) {
	pkgs, err := packages.Load(&packages.Config{Mode: wholeMode, BuildFlags: build, Tests: s.tests}, patterns...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "idemlint: %v\n", err)
		return nil, false
	}
	var prog []*packages.Package
	errSeen := map[string]bool{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			// A package the patterns name must load; another one of the
			// program (a cgo helper, a tool) is skipped with a warning, and
			// the rest is analysed.
			msg := relPosn(e.Error())
			if !named[p.PkgPath] {
				msg = "idemlint: warning: " + p.PkgPath + " not analysed: " + msg
			}
			if !errSeen[msg] {
				errSeen[msg] = true
				res.stderr = append(res.stderr, msg)
			}
			if named[p.PkgPath] {
				*failed = true
			}
		}
		if p.Types != nil && len(p.Syntax) > 0 {
			prog = append(prog, p)
		}
	}
	return prog, true
}

// report collects into res the findings of a check of prog in the files
// of targets, or prints why the check failed and reports false.
func report(prog []*packages.Package, diags []analyzer.Finding, err error, targets map[string]string, failed bool, res *results) bool {
	if err != nil {
		for _, m := range res.stderr {
			fmt.Fprintln(os.Stderr, m)
		}
		fmt.Fprintf(os.Stderr, "idemlint: %v\n", err)
		return false
	}
	res.failed = failed
	if len(prog) == 0 {
		if len(res.stderr) == 0 {
			res.stderr = append(res.stderr, "idemlint: no package of the program could be loaded")
		}
		res.failed = true
		return true
	}
	fset := prog[0].Fset
	seen := map[string]bool{}
	for _, d := range diags {
		pos := fset.Position(d.Pos)
		pkg, ok := targets[pos.Filename]
		if !ok {
			continue
		}
		dd, err := findingDiag(fset, d, pkg)
		if err != nil {
			fmt.Fprintf(os.Stderr, "idemlint: %v\n", err)
			return false
		}
		k := dd.Posn + "\x00" + dd.Category + "\x00" + dd.Message
		if seen[k] {
			continue
		}
		seen[k] = true
		res.diags = append(res.diags, dd)
	}
	sort.SliceStable(res.diags, func(i, j int) bool { return res.diags[i].id < res.diags[j].id })
	return true
}

// print prints a run's warnings and findings in the format s asks for,
// and returns the exit code. Text and SARIF exit 0 when there is no
// finding, 3 when there are findings and 1 when packages could not be
// loaded or analysed; -json exits 0, or 1 when packages failed.
func (res *results) print(s standaloneArgs) int {
	for _, m := range res.stderr {
		fmt.Fprintln(os.Stderr, m)
	}
	switch s.format {
	case "json":
		if err := res.printJSON(os.Stdout); err != nil || res.failed {
			return 1
		}
		return 0
	case "sarif":
		for _, e := range res.errors {
			fmt.Fprintf(os.Stderr, "%s: %s\n", e.analyzer, e.Err)
		}
		if err := res.printSARIF(os.Stdout, cwd, repoRoot(cwd)); err != nil {
			fmt.Fprintf(os.Stderr, "idemlint: %v\n", err)
			return 1
		}
	default:
		res.printText(os.Stderr, s.context)
	}
	switch {
	case res.failed || len(res.errors) > 0:
		return 1
	case len(res.diags) > 0:
		return 3
	}
	return 0
}

// findingDiag is a finding of package id as every output format reads it:
// its -json form, and the fields decoded from that.
func findingDiag(fset *token.FileSet, f analyzer.Finding, id string) (*diagnostic, error) {
	jd := toJSON(fset, f.Diagnostic)
	jd.Handler = f.Handler
	raw, err := json.Marshal(jd)
	if err != nil {
		return nil, err
	}
	dd := &diagnostic{raw: raw, id: id}
	if err := json.Unmarshal(raw, dd); err != nil {
		return nil, err
	}
	return dd, nil
}

// jsonDiagnostic is a finding as -json prints it, with the fields of the
// x/tools drivers' output, the URL of the code's documentation and the
// handler the finding is about.
type jsonDiagnostic struct {
	Category string        `json:"category,omitempty"`
	Posn     string        `json:"posn"`
	End      string        `json:"end,omitempty"`
	Message  string        `json:"message"`
	URL      string        `json:"url,omitempty"`
	Handler  string        `json:"handler,omitempty"`
	Related  []jsonRelated `json:"related,omitempty"`
}

type jsonRelated struct {
	Posn    string `json:"posn"`
	End     string `json:"end,omitempty"`
	Message string `json:"message"`
}

func toJSON(fset *token.FileSet, d analysis.Diagnostic) jsonDiagnostic {
	jd := jsonDiagnostic{Category: d.Category, Posn: relPos(fset, d.Pos), Message: d.Message, URL: d.URL}
	jd.End = jd.Posn
	if d.End.IsValid() {
		jd.End = relPos(fset, d.End)
	}
	for _, r := range d.Related {
		jr := jsonRelated{Posn: relPos(fset, r.Pos), Message: r.Message}
		if r.End.IsValid() {
			jr.End = relPos(fset, r.End)
		}
		jd.Related = append(jd.Related, jr)
	}
	return jd
}

// relPos prints a position with its file relative to the working directory
// when the file is below it, as go vet does.
func relPos(fset *token.FileSet, p token.Pos) string {
	pos := fset.Position(p)
	pos.Filename = relFile(pos.Filename)
	return pos.String()
}

var cwd, _ = os.Getwd()

func relFile(name string) string {
	if cwd == "" || !filepath.IsAbs(name) {
		return name
	}
	if r, err := filepath.Rel(cwd, name); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return name
}

// relPosn makes the file of a "file:line:col: msg" text relative.
func relPosn(msg string) string {
	if i := strings.Index(msg, ":"); i > 0 && filepath.IsAbs(msg[:i]) {
		return relFile(msg[:i]) + msg[i:]
	}
	return msg
}
