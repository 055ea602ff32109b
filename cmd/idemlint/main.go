// Command idemlint reports message handlers that write, call out or ack
// without a dedup check in front. See package
// github.com/idemkit/idem/analyzer for what it checks.
//
// Usage:
//
//	idemlint [flags] ./...                      # standalone
//	go vet -vettool=$(command -v idemlint) ./...  # as a vet tool
//
// # Standalone
//
// Standalone, idemlint drives the go command's vet path: it runs
//
//	go vet -vettool=<idemlint> -json [-tags=…] <analyzer flags> -vetx-report -- <patterns>
//
// so that it shares the build cache with go build and go vet: export data
// comes from the compiler, and each package's facts and findings are cached
// (keyed by the flags), so a second run over unchanged packages costs about
// as much as a warm go vet. Findings are reported for the packages the
// patterns name (with their tests) only, never for their dependencies, each
// once even when a file belongs to a package and its test variant.
//
// -vetx-report is internal: it makes the vet tool report findings in the
// packages go vet analyses only for their facts too (VetxOnly), which the
// driver then filters out. Without it, a package first analysed as a
// dependency is cached with no output, and go vet (through Go 1.26; its
// cache key ignores VetxOnly) replays that empty output when the package is
// later named on the command line, losing its findings. The flag also keeps
// the driver's cache entries apart from those of a user's own
// go vet -vettool runs. To do this the tool writes a copy of go vet's
// vet.cfg with VetxOnly=false next to it, in go vet's work directory.
//
// The old driver (golang.org/x/tools/go/analysis/singlechecker, which loads
// and type-checks every package from source, dependencies included, on
// every run) is used instead when a flag only it implements is given
// (-fix, -diff, -test=false, -debug, -cpuprofile, -memprofile, -trace), when
// a pattern is a list of .go files or a go/packages query (contains "="),
// when no go command is on PATH, or when IDEMLINT_DRIVER=packages is set.
// Both drivers report the same findings in the same format; -tags is given
// to the build in both (through GOFLAGS for the old one). One difference:
// the related position of a finding whose effect is in another package is,
// through go vet, that package's function ("the effect is at file:line"),
// where the old driver, which has the dependency's syntax, points at the
// effect itself.
//
// Output and exit codes (both drivers):
//
//   - plain: each finding as "file:line:col: message" on stderr, followed
//     by its related positions ("file:line:col: \tmessage"); -c=N adds N
//     lines of context. Exit 0 when there is no finding, 3 when findings were
//     reported, 1 when packages could not be loaded, built or analysed (the
//     go command's errors are passed through on stderr).
//   - -json: one JSON object on stdout, {"<package>": {"idemlint":
//     [diagnostics] or {"error": "…"}}}, diagnostics as the x/tools
//     drivers print them. Through go vet the keys are go vet's unit IDs,
//     import paths (p for a package and its in-package tests, p_test for
//     its external tests), and each finding appears once; the go/packages
//     driver keys by its package IDs ("p", "p [p.test]", …) and lists a
//     finding of a file in both p and p's test variant. Exit 0, or 1 when
//     packages could not be loaded or built.
//
// Under go vet (-vettool), idemlint is go vet's analysis tool and go vet
// sets the exit code: 1 when findings were reported.
package main

import (
	"flag"
	"os"

	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/idemkit/idem/analyzer"
)

func main() {
	args := os.Args[1:]
	if cfg, ok := vetUnit(args); ok {
		// Invoked by go vet on one package.
		if flagSet(args, reportFlag) {
			if c, err := reportingConfig(cfg); err == nil {
				os.Args[len(os.Args)-1] = c
			}
		}
		singlechecker.Main(analyzer.Analyzer)
		return
	}
	if code, ok := standalone(args); ok {
		os.Exit(code)
	}
	// The old driver parses the command line itself; it must accept, and
	// its -help list, the whole-program driver's flag too.
	flag.Bool("modular", false, "analyse one package at a time, other packages through facts (through go vet), instead of the whole program")
	singlechecker.Main(analyzer.Analyzer)
}
