// Idemgen generates idempotent message-queue consumers from a spec: for each
// consumer of an idem.yaml, a guarded handler (<consumer>_idem.go), a stub
// for the effect (<consumer>_apply.go, written once) and the migrations of
// the dedup table.
//
// Usage:
//
//	idemgen [generate] [-f idem.yaml] [-v] [spec ...]
//	idemgen check [-f idem.yaml] [spec ...]
//	idemgen init [-f idem.yaml] [-package name]
//	idemgen version
//	idemgen help
//
// From go generate, after go get -tool github.com/idemkit/idem/cmd/idemgen:
//
//	//go:generate go tool idemgen
//
// In CI, idemgen check ./... exits 1 with a unified diff on stderr when a
// generated file is stale or missing.
//
// Exit status: 0 success; 1 spec errors (each as file:line:col: path:
// message), a stale tree (check), a migration that differs from the one on
// disk, I/O errors; 2 usage errors. See idemgen help.
package main

import (
	"os"

	"github.com/idemkit/idem/cmd/idemgen/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
