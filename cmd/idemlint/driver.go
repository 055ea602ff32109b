package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/idemkit/idem/analyzer"
)

// standaloneArgs is a standalone command line, parsed.
type standaloneArgs struct {
	json     bool
	context  int
	tags     string
	tagsSet  bool
	analyzer []string // analyzer flags set, as -name=value, by name
	patterns []string
	fallback string // why the old driver must run instead; "" if not
	modular  bool   // -modular: one package at a time through go vet, not the whole program
	tests    bool   // -test given explicitly as true: the whole program includes tests
}

// parseStandalone parses args with the flags singlechecker.Main accepts.
// On a parse error, -help, -V, -flags, "help" or no pattern, fallback is
// set: singlechecker.Main prints the same errors and usage as before.
func parseStandalone(args []string) standaloneArgs {
	var s standaloneArgs
	fs := flag.NewFlagSet("idemlint", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	analyzerFlags := map[string]bool{}
	analyzer.Analyzer.Flags.VisitAll(func(f *flag.Flag) {
		analyzerFlags[f.Name] = true
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		fs.Var(&rawValue{isBool: ok && b.IsBoolFlag()}, f.Name, "")
	})
	// The driver's own flags (x/tools analysisflags and checker).
	fs.BoolVar(&s.json, "json", false, "")
	fs.IntVar(&s.context, "c", -1, "")
	fs.StringVar(&s.tags, "tags", "", "")
	for _, n := range []string{"fix", "diff", "flags", "V", "source", "v", "all"} {
		fs.Var(&rawValue{isBool: true}, n, "")
	}
	test := fs.Bool("test", true, "")
	fs.BoolVar(&s.modular, "modular", false, "")
	for _, n := range []string{"debug", "cpuprofile", "memprofile", "trace"} {
		fs.String(n, "", "")
	}
	if err := fs.Parse(args); err != nil {
		s.fallback = "flags: " + err.Error()
		return s
	}
	s.patterns = fs.Args()
	fs.Visit(func(f *flag.Flag) {
		switch {
		case f.Name == reportFlag:
			// The driver sets it.
		case analyzerFlags[f.Name]:
			s.analyzer = append(s.analyzer, "-"+f.Name+"="+f.Value.String())
		case f.Name == "tags":
			s.tagsSet = true
		case f.Name == "test":
			s.tests = *test
			if !*test && s.modular {
				s.fallback = "-test=false"
			}
		case f.Name == "modular":
		case f.Name == "json", f.Name == "c", f.Name == "source", f.Name == "v", f.Name == "all":
			// -source, -v and -all have no effect in either driver.
		default: // fix, diff, flags, V, debug, cpuprofile, memprofile, trace
			if s.fallback == "" {
				s.fallback = "-" + f.Name
			}
		}
	})
	switch {
	case s.fallback != "":
	case len(s.patterns) == 0 || s.patterns[0] == "help":
		s.fallback = "usage"
	case os.Getenv("IDEMLINT_DRIVER") == "packages":
		s.fallback = "IDEMLINT_DRIVER=packages"
	case os.Getenv("IDEMLINT_DRIVER") == "vet":
		s.modular = true
	default:
		for _, p := range s.patterns {
			if strings.HasSuffix(p, ".go") || strings.Contains(p, "=") {
				s.fallback = "pattern " + p
				break
			}
		}
	}
	return s
}

// rawValue is a flag.Value keeping the text it was set to.
type rawValue struct {
	isBool bool
	s      string
}

func (v *rawValue) String() string     { return v.s }
func (v *rawValue) Set(s string) error { v.s = s; return nil }
func (v *rawValue) IsBoolFlag() bool   { return v.isBool }

// standalone runs idemlint over the packages of args through go vet. It
// returns ok false when the old driver (singlechecker) must run instead,
// after adding -tags to GOFLAGS for it.
func standalone(args []string) (code int, ok bool) {
	s := parseStandalone(args)
	goCmd, err := exec.LookPath("go")
	if s.fallback == "" && err != nil {
		s.fallback = "no go command"
	}
	self, err := os.Executable()
	if s.fallback == "" && err != nil {
		s.fallback = "no executable"
	}
	if s.fallback == "" && !s.modular {
		return whole(s), true
	}
	if s.fallback != "" {
		if s.tagsSet && s.tags != "" {
			// singlechecker ignores -tags; go/packages honours GOFLAGS.
			tags := strings.ReplaceAll(strings.TrimSpace(s.tags), " ", ",")
			os.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -tags="+tags))
		}
		return 0, false
	}

	var build []string
	if s.tagsSet {
		build = append(build, "-tags="+s.tags)
	}

	// The root packages (go list -find: the packages the patterns match,
	// imports not loaded). They are needed only to filter findings, so go
	// list starts when go vet's output has the first one (or an error),
	// concurrently with the rest of go vet; a clean run never lists.
	var (
		roots    map[string]bool
		listErr  error
		wg       sync.WaitGroup
		listOnce sync.Once
	)
	startList := func() {
		listOnce.Do(func() {
			wg.Go(func() {
				list := exec.Command(goCmd, append(append([]string{"list", "-e", "-find", "-f", "{{.ImportPath}}"}, build...), append([]string{"--"}, s.patterns...)...)...)
				var stderr bytes.Buffer
				list.Stderr = &stderr
				out, err := list.Output()
				if err != nil {
					listErr = fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
					return
				}
				roots = map[string]bool{}
				for _, p := range strings.Fields(string(out)) {
					roots[p] = true
				}
			})
		})
	}

	vetArgs := []string{"vet", "-vettool=" + self, "-json"}
	vetArgs = append(vetArgs, build...)
	vetArgs = append(vetArgs, s.analyzer...)
	vetArgs = append(vetArgs, "-"+reportFlag, "--")
	vetArgs = append(vetArgs, s.patterns...)
	vet := exec.Command(goCmd, vetArgs...)
	var stderr bytes.Buffer
	vet.Stderr = &stderr
	stdout, err := vet.StdoutPipe()
	if err == nil {
		err = vet.Start()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "idemlint: go vet: %v\n", err)
		return 1, true
	}
	units, decErr := decodeUnits(stdout, startList)
	io.Copy(io.Discard, stdout)
	vetErr := vet.Wait()
	wg.Wait()

	os.Stderr.Write(stderr.Bytes())
	failed := false
	if vetErr != nil {
		var ee *exec.ExitError
		if !errors.As(vetErr, &ee) {
			fmt.Fprintf(os.Stderr, "idemlint: go vet: %v\n", vetErr)
		}
		failed = true
	}
	if decErr != nil {
		fmt.Fprintf(os.Stderr, "idemlint: reading go vet -json output: %v\n", decErr)
		return 1, true
	}
	if listErr != nil {
		if !failed {
			fmt.Fprintf(os.Stderr, "idemlint: %v\n", listErr)
		}
		return 1, true
	}
	res, err := collect(units, roots)
	if err != nil {
		fmt.Fprintf(os.Stderr, "idemlint: reading go vet -json output: %v\n", err)
		return 1, true
	}
	if s.json {
		if err := res.printJSON(os.Stdout); err != nil || failed {
			return 1, true
		}
		return 0, true
	}
	res.printText(os.Stderr, s.context)
	switch {
	case failed || len(res.errors) > 0:
		return 1, true
	case len(res.diags) > 0:
		return 3, true
	}
	return 0, true
}

// A diagnostic as unitchecker prints it with -json
// (x/tools internal/analysis/driverutil.JSONDiagnostic); the raw text is
// what -json prints back.
type diagnostic struct {
	Posn    string `json:"posn"`
	End     string `json:"end"`
	Message string `json:"message"`
	Related []struct {
		Posn    string `json:"posn"`
		End     string `json:"end"`
		Message string `json:"message"`
	} `json:"related"`
	raw json.RawMessage
	id  string
}

type unitError struct {
	id, analyzer string
	raw          json.RawMessage
	Err          string `json:"error"`
}

type results struct {
	diags  []*diagnostic
	errors []*unitError
	// The whole-program driver's: warnings to print before the findings,
	// and whether packages the patterns name did not load.
	stderr []string
	failed bool
}

// A tree is the -json output of the vet tool on one unit:
// {"<ID>": {"<analyzer>": [diagnostics] or {"error": …}}}, or {} when the
// unit has no finding.
type tree = map[string]map[string]json.RawMessage

// decodeUnits decodes go vet's -json stream, the vet tool's output on each
// unit in turn, calling found (from this goroutine) on each that has a
// finding or an error.
func decodeUnits(r io.Reader, found func()) ([]tree, error) {
	var trees []tree
	dec := json.NewDecoder(r)
	for {
		var t tree
		err := dec.Decode(&t)
		if err == io.EOF {
			return trees, nil
		}
		if err != nil {
			return trees, err
		}
		for _, out := range t {
			if len(out) > 0 {
				found()
				trees = append(trees, t)
				break
			}
		}
	}
}

// collect reads go vet's -json output (the non-empty trees), keeps the units
// of root packages and their tests, and drops findings already seen in
// another unit: a file of package p is analysed in p and in p's test
// variant, and p may also be analysed as a dependency of another root.
// go vet (1.26) gives each unit its import path as ID (p, p for the test
// variant, p_test for the external test); an ID "p [q.test]", as
// go/packages writes them, is also understood, the unit of p's own tests
// coming first.
func collect(stream []tree, roots map[string]bool) (*results, error) {
	type unit struct {
		id   string
		rank int
		out  map[string]json.RawMessage
	}
	var units []unit
	for _, tree := range stream {
		for id, out := range tree {
			path, variant, _ := strings.Cut(id, " [")
			variant = strings.TrimSuffix(variant, "]")
			base := path
			if !roots[base] {
				base = strings.TrimSuffix(path, "_test")
				if base == path || !roots[base] {
					continue
				}
			}
			rank := 2 // a variant for another package's test
			switch variant {
			case "":
				rank = 1
			case base + ".test":
				rank = 0 // the unit go vet reports for a package with tests
			}
			units = append(units, unit{id, rank, out})
		}
	}
	slices.SortFunc(units, func(a, b unit) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.id, b.id))
	})
	res := new(results)
	seen := map[string]bool{}
	for _, u := range units {
		names := make([]string, 0, len(u.out))
		for n := range u.out {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, name := range names {
			raw := u.out[name]
			if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] != '[' {
				e := &unitError{id: u.id, analyzer: name, raw: raw}
				if err := json.Unmarshal(raw, e); err != nil {
					return nil, fmt.Errorf("%s: %v", u.id, err)
				}
				res.errors = append(res.errors, e)
				continue
			}
			var raws []json.RawMessage
			if err := json.Unmarshal(raw, &raws); err != nil {
				return nil, fmt.Errorf("%s: %v", u.id, err)
			}
			for _, r := range raws {
				d := &diagnostic{raw: r, id: u.id}
				if err := json.Unmarshal(r, d); err != nil {
					return nil, fmt.Errorf("%s: %v", u.id, err)
				}
				k := name + "\x00" + d.Posn + "\x00" + d.End + "\x00" + d.Message
				if seen[k] {
					continue
				}
				seen[k] = true
				res.diags = append(res.diags, d)
			}
		}
	}
	return res, nil
}

// printJSON prints the findings as one JSON tree, as the x/tools checker
// does with -json.
func (res *results) printJSON(w io.Writer) error {
	tree := map[string]map[string]any{}
	unit := func(id string) map[string]any {
		m := tree[id]
		if m == nil {
			m = map[string]any{}
			tree[id] = m
		}
		return m
	}
	for _, e := range res.errors {
		unit(e.id)[e.analyzer] = e.raw
	}
	for _, d := range res.diags {
		m := unit(d.id)
		l, _ := m[analyzer.Analyzer.Name].([]json.RawMessage)
		m[analyzer.Analyzer.Name] = append(l, d.raw)
	}
	data, err := json.MarshalIndent(tree, "", "\t")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// printText prints errors, then the findings sorted by position, as the
// x/tools checker does (driverutil.PrintPlain): "posn: message", then each
// related position as "posn: \tmessage", with context lines if context >= 0.
func (res *results) printText(w io.Writer, context int) {
	for _, e := range res.errors {
		fmt.Fprintf(w, "%s: %s\n", e.analyzer, e.Err)
	}
	slices.SortStableFunc(res.diags, func(a, b *diagnostic) int {
		pa, pb := parsePosn(a.Posn), parsePosn(b.Posn)
		return cmp.Or(cmp.Compare(pa.file, pb.file), cmp.Compare(pa.line, pb.line),
			cmp.Compare(pa.col, pb.col), cmp.Compare(a.Message, b.Message))
	})
	var buf bytes.Buffer
	print := func(posn, end, msg string) {
		fmt.Fprintf(&buf, "%s: %s\n", posn, msg)
		if context < 0 {
			return
		}
		start, stop := parsePosn(posn), parsePosn(cmp.Or(end, posn))
		if start.line == 0 {
			return
		}
		if stop.line == 0 {
			stop = start
		}
		data, _ := os.ReadFile(start.file)
		lines := strings.Split(string(data), "\n")
		for i := start.line - context; i <= stop.line+context; i++ {
			if 1 <= i && i <= len(lines) {
				fmt.Fprintf(&buf, "%d\t%s\n", i, lines[i-1])
			}
		}
	}
	for _, d := range res.diags {
		print(d.Posn, d.End, d.Message)
		for _, r := range d.Related {
			print(r.Posn, r.End, "\t"+r.Message)
		}
	}
	w.Write(buf.Bytes())
}

type posn struct {
	file      string
	line, col int
}

// parsePosn parses "file:line:col" (or "file:line"); line is 0 if s is
// not a position.
func parsePosn(s string) posn {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return posn{file: s}
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return posn{file: s}
	}
	j := strings.LastIndexByte(s[:i], ':')
	if j >= 0 {
		if line, err := strconv.Atoi(s[j+1 : i]); err == nil {
			return posn{s[:j], line, n}
		}
	}
	return posn{s[:i], n, 0}
}
