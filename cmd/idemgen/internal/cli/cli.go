// Package cli is the idemgen command: it reads idem specs (package spec),
// generates guarded handlers and dedup-table migrations from them (package
// generator), checks that a tree is up to date, and writes a starter spec.
//
// Main is the whole command; cmd/idemgen's main only calls it, so tests run
// the command in process or, through testscript, as a real binary.
//
// # Commands
//
//	idemgen [generate] [-f idem.yaml] [-v] [spec ...]
//	idemgen check      [-f idem.yaml] [spec ...]
//	idemgen init       [-f idem.yaml] [-package name] [-dialect postgres]
//	idemgen version
//	idemgen help
//
// A spec argument is a spec file, a folder holding idem.yaml (or idem.yml),
// or a pattern dir/... that stands for every idem.yaml and idem.yml at or
// below dir (a spec that is a symbolic link is found, and refused, not
// skipped); standard input (-) is not a spec. Like the go command's ./..., a pattern skips folders named
// testdata or vendor, folders whose name starts with "." or "_", and nested
// modules (folders below dir with a go.mod of their own): name those
// explicitly (idemgen check ./tools/...). Without arguments the spec is -f,
// default idem.yaml in the current folder, which is what
// //go:generate go tool idemgen wants: go generate runs the command in the
// folder of the file holding the directive. Under go generate, a spec that
// would write its Go into that folder with a package name other than
// $GOPACKAGE is refused: the folder's package would not build.
//
// # Exit codes
//
//	0  success: files written (or nothing to write); check found the tree up to date
//	1  a spec error (every error, one per line, as file:line:col: path: message),
//	   a stale or missing generated file (check; a unified diff on stderr),
//	   an existing migration with different content, an I/O error
//	2  a usage error: unknown command or flag, bad arguments
//
// On any error nothing is written: generate plans every spec named, checks
// them against each other (a file two specs write must have the same
// content in both; two new migrations of one folder need two versions),
// and writes the temporary files of all of them before it renames any into
// place.
package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/token"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemkit/idem/generator"
	"github.com/idemkit/idem/spec"
	"github.com/idemkit/idem/spec/modfs"
)

// Exit codes of Main.
const (
	ExitOK    = 0 // success
	ExitError = 1 // spec errors, a stale tree (check), migration conflicts, I/O errors
	ExitUsage = 2 // unknown command or flag, bad arguments
)

// DefaultSpec is the spec file used when none is named.
const DefaultSpec = "idem.yaml"

// usage is the text of idemgen help.
const usage = `idemgen generates idempotent message-queue consumers from a spec.

Usage:

	idemgen [generate] [-f idem.yaml] [-v] [spec ...]
	idemgen check [-f idem.yaml] [spec ...]
	idemgen init [-f idem.yaml] [-package name] [-dialect postgres]
	idemgen version
	idemgen help

Commands:

	generate  write the guarded handlers (<consumer>_idem.go and
	          handlers_idem.go: Effects, Stores, Handlers, NewHandlers), the
	          stubs of the effects (service_apply.go and <consumer>_apply.go,
	          written once, never overwritten) and the dedup-table
	          migrations (written once, never changed) of each spec; prints
	          one line per written file, and what is left of a consumer
	          removed from the spec. The default.
	check     report, as a unified diff on stderr (--- a/ on disk, +++ b/
	          generated, paths from the module's root), every generated file
	          that is stale or missing, and exit 1; silent when up to date
	          (CI, pre-commit). Writes nothing.
	init      write a commented starter spec (the four classic consumers);
	          refuses to overwrite an existing file.
	version   print idemgen's module version.
	help      print this help.

A spec argument is a spec file, a folder holding idem.yaml (or idem.yml), or
dir/... for every idem.yaml and idem.yml at or below dir (skipping testdata,
vendor, folders starting with "." or "_", and nested modules). Without one,
the spec is -f (default idem.yaml in the current folder).

Flags:

	-f file     the spec file (default idem.yaml)
	-v          generate: also list the files that are up to date
	-package p  init: the Go package of the generated code (default: the
	            package of the .go files in the spec's folder, else its name)
	-dialect d  init: the SQL dialect of the migrations: postgres (default),
	            mysql or sqlite

Examples:

	idemgen init                   # write idem.yaml, then edit it
	idemgen                        # generate from ./idem.yaml
	idemgen -f orders/idem.yaml    # generate from another spec
	idemgen check ./...            # CI: fail when anything is stale

	//go:generate go tool idemgen  # in a .go file next to idem.yaml, after
	                               # go get -tool github.com/idemkit/idem/cmd/idemgen

Exit status: 0 success; 1 spec errors, a stale tree (check), a migration
that differs from the one on disk, I/O errors; 2 usage errors.
`

// usageError is an error in the command line: Main exits with ExitUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// errReported is returned once the errors were already written to stderr
// (spec errors, a diff): Main exits with ExitError and adds nothing.
var errReported = errors.New("errors reported")

// Main runs idemgen with args (without the program name) and returns the
// exit status: ExitOK, ExitError or ExitUsage. stdin is unused today and
// kept for the shape of a command.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	_ = stdin
	err := run(args, stdout, stderr)
	var ue *usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "idemgen: %s\nrun 'idemgen help' for usage\n", ue.msg)
		return ExitUsage
	case errors.Is(err, errReported):
		return ExitError
	default:
		fmt.Fprintf(stderr, "idemgen: %v\n", err)
		return ExitError
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	cmd := "generate"
	switch {
	case len(args) == 0:
	case isHelpFlag(args[0]):
		cmd, args = "help", args[1:]
	case strings.HasPrefix(args[0], "-"):
	case looksLikeSpec(args[0]):
		// idemgen ./..., idemgen orders/idem.yaml: generate's arguments.
	default:
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "generate":
		return runGenerate(args, stdout, stderr)
	case "check":
		return runCheck(args, stdout, stderr)
	case "init":
		return runInit(args, stdout, stderr)
	case "version":
		if len(args) > 0 {
			return usagef("version takes no arguments")
		}
		fmt.Fprintf(stdout, "idemgen %s\n", Version())
		return nil
	case "help":
		if len(args) > 0 {
			return usagef("help takes no arguments")
		}
		io.WriteString(stdout, usage)
		return nil
	}
	return usagef("unknown command %q", cmd)
}

// commands are the command names; a first argument that is none of them
// but looks like a path is a spec argument of generate.
var commands = []string{"generate", "check", "init", "version", "help"}

// looksLikeSpec reports whether arg, which is not a command, is a spec
// argument: a path (with a separator or a dot, as in ./... or idem.yaml) or
// an existing file or folder. Anything else is an unknown command.
func looksLikeSpec(arg string) bool {
	if slices.Contains(commands, arg) {
		return false
	}
	if strings.ContainsAny(arg, `./\`) {
		return true
	}
	_, err := os.Stat(arg)
	return err == nil
}

func isHelpFlag(s string) bool {
	switch s {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

// newFlags returns a flag set for cmd that prints nothing itself: parseFlags
// turns its errors into usage errors and prints the help for -h.
func newFlags(cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args, turning flag errors into usage errors; -h prints
// the help on stdout and returns flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		io.WriteString(stdout, usage)
		return err
	default:
		return usagef("%s: %v", fs.Name(), err)
	}
}

// target is one spec to work on: its path as the user would write it.
type target struct {
	path string
}

// specTargets resolves the spec arguments of generate and check. An
// explicit -f and arguments together are a usage error.
func specTargets(file string, fileSet bool, args []string) ([]target, error) {
	if slices.Contains(args, "-") || file == "-" {
		return nil, usagef("a spec is read from a file, not from standard input (-): name the file")
	}
	if slices.Contains(args, "") || file == "" {
		return nil, usagef("an empty spec path: name the file")
	}
	if len(args) == 0 {
		return []target{{path: file}}, nil
	}
	if fileSet {
		return nil, usagef("-f and spec arguments are exclusive")
	}
	var targets []target
	seen := map[string]bool{}
	add := func(p string) {
		key := filepath.Clean(p)
		if !seen[key] {
			seen[key] = true
			targets = append(targets, target{path: p})
		}
	}
	for _, arg := range args {
		if root, ok := strings.CutSuffix(filepath.ToSlash(arg), "..."); ok {
			if root != "" && !strings.HasSuffix(root, "/") {
				return nil, usagef("pattern %q: only dir/... is supported", arg)
			}
			dir := filepath.FromSlash(strings.TrimSuffix(root, "/"))
			if dir == "" {
				dir = "."
			}
			found, err := findSpecs(dir)
			if err != nil {
				return nil, err
			}
			if len(found) == 0 {
				return nil, fmt.Errorf("%s: no idem.yaml or idem.yml found", arg)
			}
			for _, f := range found {
				add(f)
			}
			continue
		}
		fi, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			add(arg)
			continue
		}
		found := specsIn(arg)
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no idem.yaml or idem.yml in this folder", arg)
		}
		for _, f := range found {
			add(f)
		}
	}
	return targets, nil
}

// specNames are the file names a folder's spec may have.
var specNames = []string{"idem.yaml", "idem.yml"}

// specsIn returns the specs directly in dir.
func specsIn(dir string) []string {
	var found []string
	for _, name := range specNames {
		p := filepath.Join(dir, name)
		// A link or another file that is not regular is found too: Load
		// refuses it, rather than check passing over it.
		if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
			found = append(found, p)
		}
	}
	return found
}

// findSpecs returns every spec at or below root, sorted, skipping what the
// go command's ./... skips: testdata and vendor folders, folders starting
// with "." or "_", and nested modules.
func findSpecs(root string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			// A spec that is a link (or not regular) is found too, for Load
			// to refuse: check ./... must not pass over it in silence.
			if slices.Contains(specNames, d.Name()) {
				found = append(found, p)
			}
			return nil
		}
		if p == root {
			return nil
		}
		name := d.Name()
		if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return filepath.SkipDir
		}
		if fi, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && !fi.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(found)
	return found, nil
}

// plan is the generated output of one spec, compared with the disk.
type plan struct {
	spec    *spec.Spec
	files   []generator.File
	changes []generator.Change
}

// owned returns the folders whose generated handlers belong to this spec
// alone: its output folder (a package holds one spec's handlers).
func (p *plan) owned() []string {
	return []string{p.spec.Output}
}

// load loads and generates t. Spec errors are written to stderr and
// reported as errReported.
func load(t target, stderr io.Writer) (*plan, error) {
	s, err := spec.Load(t.path)
	if err != nil {
		return nil, specError(t.path, err, stderr)
	}
	// Existing stubs are never written or compared: do not render them.
	// (Plan refuses a stub that is a link or not a regular file.)
	files, err := generator.GenerateWith(s, generator.Options{StubExists: func(p string) bool {
		_, err := os.Lstat(filepath.Join(s.Dir, filepath.FromSlash(p)))
		return err == nil
	}})
	if err != nil {
		return nil, specError(t.path, err, stderr)
	}
	return &plan{spec: s, files: files}, nil
}

// trees returns the plans as the generator's trees.
func trees(plans []*plan) []generator.Tree {
	trees := make([]generator.Tree, len(plans))
	for i, p := range plans {
		trees[i] = generator.Tree{Dir: p.spec.Dir, Files: p.files, Owned: p.owned(), Name: p.spec.File}
	}
	return trees
}

// planError prints the errors of generator.PlanAll or WriteAll one per
// line, each file (relative to its spec's folder) as the user sees it, and
// returns errReported.
func planError(plans []*plan, err error, stderr io.Writer) error {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		line := e.Error()
		var fe *generator.FileError
		if errors.As(e, &fe) && fe.Tree < len(plans) {
			s := plans[fe.Tree].spec
			if fe.Path != "" {
				line = display(s, fe.Path) + ": " + fe.Err.Error()
			} else {
				line = filepath.ToSlash(s.File) + ": " + fe.Err.Error()
			}
		}
		fmt.Fprintf(stderr, "idemgen: %s\n", line)
	}
	return errReported
}

// specError prints a spec.ErrorList one error per line and returns
// errReported; other errors are returned as they are, with a hint for a
// missing spec.
func specError(path string, err error, stderr io.Writer) error {
	var list spec.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintln(stderr, e)
		}
		return errReported
	}
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w (run 'idemgen init' to write a starter spec)", err)
	}
	return err
}

// display returns p, a path relative to the spec's folder, as the user
// sees it: relative to the current folder when the spec's path was.
func display(s *spec.Spec, p string) string {
	return filepath.ToSlash(filepath.Join(s.Dir, filepath.FromSlash(p)))
}

// loadAll loads every target and plans them all together (every spec before
// any file is written), reporting all the errors before returning.
func loadAll(targets []target, stderr io.Writer) ([]*plan, error) {
	var plans []*plan
	failed := false
	for _, t := range targets {
		p, err := load(t, stderr)
		if err != nil {
			failed = true
			if !errors.Is(err, errReported) {
				fmt.Fprintf(stderr, "idemgen: %v\n", err)
			}
			continue
		}
		plans = append(plans, p)
	}
	if failed {
		return nil, errReported
	}
	// Two specs of one run that write Go into one folder would declare the
	// package-wide API (Effects, Handlers, NewHandlers) twice.
	outputs := map[string]*plan{}
	for _, p := range plans {
		out, err := filepath.Abs(filepath.Join(p.spec.Dir, filepath.FromSlash(p.spec.Output)))
		if err != nil {
			return nil, err
		}
		if first, ok := outputs[out]; ok {
			fmt.Fprintf(stderr, "idemgen: %s and %s both write their Go into %s: a package holds the handlers of one spec (its %s, %s and %s); give each spec an output folder of its own, or merge their consumers into one spec\n",
				filepath.ToSlash(first.spec.File), filepath.ToSlash(p.spec.File), display(p.spec, p.spec.Output), "Effects", "Handlers", "NewHandlers")
			failed = true
			continue
		}
		outputs[out] = p
	}
	if failed {
		return nil, errReported
	}
	changes, err := generator.PlanAll(trees(plans))
	if err != nil {
		return nil, planError(plans, err, stderr)
	}
	for i, p := range plans {
		p.changes = changes[i]
		// A key that changed under the same namespace: refused.
		if err := generator.CheckKeyIdentities(p.spec, p.changes); err != nil {
			failed = true
			specError(p.spec.File, err, stderr)
		}
	}
	if failed {
		return nil, errReported
	}
	return plans, nil
}

func runGenerate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("generate")
	file := fs.String("f", DefaultSpec, "the spec file")
	verbose := fs.Bool("v", false, "also list the files that are up to date")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	targets, err := specTargets(*file, flagSet(fs, "f"), fs.Args())
	if err != nil {
		return err
	}
	// Plan every spec first, so that an error in any writes nothing.
	plans, err := loadAll(targets, stderr)
	if err != nil {
		return err
	}
	if err := checkGoPackage(plans); err != nil {
		return err
	}
	// Every spec's files, written together: nothing unless all plan cleanly.
	ts := trees(plans)
	for i := range ts {
		ts[i].KeepOrphan = keepUnderGoGenerate(ts[i].Dir)
	}
	all, err := generator.WriteAll(ts)
	if err != nil {
		return planError(plans, err, stderr)
	}
	for i, p := range plans {
		changes := all[i]
		written := map[string]bool{}
		for _, c := range changes {
			written[c.File.Path] = true
			if c.Kind == generator.KindCreate || c.Kind == generator.KindUpdate {
				fmt.Fprintf(stdout, "wrote %s\n", display(p.spec, c.File.Path))
			}
		}
		if *verbose {
			for _, f := range p.files {
				if !written[f.Path] {
					fmt.Fprintf(stdout, "unchanged %s\n", display(p.spec, f.Path))
				}
			}
		}
		if err := reportGone(p, changes, true, stderr); err != nil {
			return err
		}
	}
	return nil
}

// reportGone tells, one line each, what is left of the consumers gone from
// p's spec: the generated handler removed (generate) or to remove (check),
// the stub that is the user's to delete or rename, and that a consumer
// renamed is a new namespace.
func reportGone(p *plan, changes []generator.Change, removed bool, w io.Writer) error {
	gone, err := generator.GoneConsumers(p.spec.Dir, p.spec, changes)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.ToSlash(p.spec.File), err)
	}
	specName := filepath.Base(p.spec.File)
	for _, g := range gone {
		var line string
		switch {
		case g.Handler != "" && g.Emptied:
			line = fmt.Sprintf("emptied %s (consumer %s is gone from %s), which go generate still reads: run go generate again to delete it", moduleRel(p.spec, g.Handler), g.Consumer, specName)
		case g.Handler != "" && removed:
			line = fmt.Sprintf("removed %s (consumer %s is gone from %s)", moduleRel(p.spec, g.Handler), g.Consumer, specName)
		case g.Handler != "":
			line = fmt.Sprintf("%s belongs to consumer %s, which is gone from %s: generate removes it", moduleRel(p.spec, g.Handler), g.Consumer, specName)
		default:
			line = fmt.Sprintf("consumer %s is gone from %s", g.Consumer, specName)
		}
		if g.Stub != "" {
			stub := moduleRel(p.spec, g.Stub)
			if g.SameKey && len(g.Renamed) == 1 {
				to := spec.GoName(g.Renamed[0])
				line += fmt.Sprintf("; its %s in %s is yours: if %s is %s renamed, move its body into %s (%s), then delete it; otherwise delete it",
					g.Effect, stub, g.Renamed[0], g.Consumer, to, moduleRel(p.spec, path.Join(path.Dir(g.Stub), g.Renamed[0]+"_apply.go")))
			} else {
				line += fmt.Sprintf("; its %s in %s is yours: delete or rename it", g.Effect, stub)
			}
			if g.Handler == "" {
				line += " (the package does not build until you do)"
			}
		}
		fmt.Fprintf(w, "idemgen: %s\n", line)
		if len(g.Renamed) > 0 && g.Handler != "" {
			fmt.Fprintf(w, "idemgen: if %s was renamed to %s: a renamed consumer is a new namespace, so the messages %s handled count as new under the new name and run their effect again; drain %s's queue before deploying the rename, or keep the name %s (go doc github.com/idemkit/idem/spec, Renaming a consumer)\n",
				g.Consumer, orList(g.Renamed), g.Consumer, g.Consumer, g.Consumer)
		}
	}
	return nil
}

// keepUnderGoGenerate returns, under go generate, which orphans of the
// tree in dir generate must empty instead of deleting: go generate lists
// the Go files of every package before it runs a directive, then reads each
// in turn, and stops at one that is gone. Only an orphan in the directive's
// folder that go generate has read already ($GOFILE's folder, sorting
// before $GOFILE, or any when $GOFILE is a test) may go at once. Outside go
// generate it returns nil: every orphan is deleted.
func keepUnderGoGenerate(dir string) func(string) bool {
	gofile := os.Getenv("GOFILE")
	if gofile == "" || os.Getenv("GOPACKAGE") == "" {
		return nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return func(string) bool { return true }
	}
	return func(p string) bool {
		abs, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || filepath.Dir(abs) != cwd {
			return true
		}
		return !strings.HasSuffix(gofile, "_test.go") && filepath.Base(abs) > gofile
	}
}

// orList joins names: "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// moduleRel returns p, a path relative to the spec's folder, relative to
// the root of the spec's module, as git names files; without a go.mod,
// relative to the current folder, as display does.
func moduleRel(s *spec.Spec, p string) string {
	abs, err := filepath.Abs(filepath.Join(s.Dir, filepath.FromSlash(p)))
	if err != nil {
		return display(s, p)
	}
	root, inModule, err := modfs.Root(s.Dir)
	if err != nil || !inModule {
		return display(s, p)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return display(s, p)
	}
	return filepath.ToSlash(rel)
}

func runCheck(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check")
	file := fs.String("f", DefaultSpec, "the spec file")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	targets, err := specTargets(*file, flagSet(fs, "f"), fs.Args())
	if err != nil {
		return err
	}
	plans, err := loadAll(targets, stderr)
	if err != nil {
		return err
	}
	var stale []generator.Change
	var notes bytes.Buffer
	for _, p := range plans {
		for _, c := range p.changes {
			c.File.Path = moduleRel(p.spec, c.File.Path)
			stale = append(stale, c)
		}
		if err := reportGone(p, p.changes, false, &notes); err != nil {
			return err
		}
	}
	if len(stale) == 0 {
		stderr.Write(notes.Bytes())
		return nil
	}
	var b bytes.Buffer
	b.Write(generator.Diff(stale))
	b.Write(notes.Bytes())
	fmt.Fprintf(&b, "idemgen: the generated code is stale: run \"go generate ./...\" (or %s)\n", shellJoin(append([]string{"idemgen", "generate"}, args...)))
	stderr.Write(b.Bytes())
	return errReported
}

// shellJoin writes a command line as a shell reads it: each word quoted
// unless it is plain.
func shellJoin(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = w
		if w == "" || strings.ContainsFunc(w, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./=:@,+", r))
		}) {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}

// checkGoPackage refuses, under go generate, a spec that would write its Go
// into the directive's own folder under another package name: the package
// would not build. go generate sets GOPACKAGE to the package of the file
// holding the directive and runs idemgen in that file's folder.
func checkGoPackage(plans []*plan) error {
	pkg := strings.TrimSuffix(os.Getenv("GOPACKAGE"), "_test")
	if !token.IsIdentifier(pkg) {
		return nil // unset, or not a package go generate could have named
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil
	}
	for _, p := range plans {
		out, err := filepath.Abs(filepath.Join(p.spec.Dir, filepath.FromSlash(p.spec.Output)))
		if err != nil || out != cwd || p.spec.Package == pkg {
			continue
		}
		return fmt.Errorf("%s: package %s would be written into this folder, whose package is %s (go generate's $GOPACKAGE): set package: %s in the spec, or an output folder of its own",
			filepath.ToSlash(p.spec.File), p.spec.Package, pkg, pkg)
	}
	return nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}
