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
//	idemgen init       [-f idem.yaml] [-package name]
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
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemkit/idem/generator"
	"github.com/idemkit/idem/spec"
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
	idemgen init [-f idem.yaml] [-package name]
	idemgen version
	idemgen help

Commands:

	generate  write the guarded handlers (<consumer>_idem.go), the apply
	          stubs (<consumer>_apply.go, written once, never overwritten)
	          and the dedup-table migrations (written once, never changed)
	          of each spec; prints one line per written file. The default.
	check     report, as a unified diff on stderr, every generated file that
	          is stale or missing, and exit 1; silent when up to date (CI,
	          pre-commit). Writes nothing.
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
	shared  bool // another spec of this run writes Go into the same folder
}

// owned returns the folders whose generated handlers belong to this spec
// alone: its output folder, unless another spec of the run shares it (then
// no handler there counts as an orphan).
func (p *plan) owned() []string {
	if p.shared {
		return nil
	}
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
	// Specs of one run that write into one folder: neither owns it.
	outputs := map[string][]*plan{}
	for _, p := range plans {
		out := filepath.Clean(filepath.Join(p.spec.Dir, filepath.FromSlash(p.spec.Output)))
		outputs[out] = append(outputs[out], p)
	}
	for _, ps := range outputs {
		if len(ps) < 2 {
			continue
		}
		for _, p := range ps {
			p.shared = true
		}
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
	all, err := generator.WriteAll(trees(plans))
	if err != nil {
		return planError(plans, err, stderr)
	}
	for i, p := range plans {
		changes := all[i]
		written := map[string]bool{}
		for _, c := range changes {
			written[c.File.Path] = true
			if c.Kind == generator.KindDelete {
				fmt.Fprintf(stdout, "removed %s (its consumer is no longer in the spec; its apply stub, if any, stays)\n", display(p.spec, c.File.Path))
				continue
			}
			fmt.Fprintf(stdout, "wrote %s\n", display(p.spec, c.File.Path))
		}
		if *verbose {
			for _, f := range p.files {
				if !written[f.Path] {
					fmt.Fprintf(stdout, "unchanged %s\n", display(p.spec, f.Path))
				}
			}
		}
	}
	return nil
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
	for _, p := range plans {
		for _, c := range p.changes {
			c.File.Path = display(p.spec, c.File.Path)
			stale = append(stale, c)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	var b bytes.Buffer
	b.Write(generator.Diff(stale))
	orphans := 0
	for _, c := range stale {
		if c.Kind == generator.KindDelete {
			orphans++
		}
	}
	if n := len(stale) - orphans; n == 1 {
		fmt.Fprintf(&b, "idemgen: 1 file is stale or missing; run idemgen generate\n")
	} else if n > 1 {
		fmt.Fprintf(&b, "idemgen: %d files are stale or missing; run idemgen generate\n", n)
	}
	if orphans == 1 {
		fmt.Fprintf(&b, "idemgen: 1 generated file belongs to no consumer of its spec; run idemgen generate to remove it\n")
	} else if orphans > 1 {
		fmt.Fprintf(&b, "idemgen: %d generated files belong to no consumer of their spec; run idemgen generate to remove them\n", orphans)
	}
	stderr.Write(b.Bytes())
	return errReported
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
