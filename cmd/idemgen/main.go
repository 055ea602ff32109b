// Idemgen generates idempotent message-queue consumers from a spec: for each
// consumer of an idem.yaml, a guarded handler (<consumer>_idem.go) and a
// stub for its effect, a method of Service (<consumer>_apply.go, written
// once); for the spec, the API that wires them all (handlers_idem.go:
// Effects, Stores, Handlers, NewHandlers) and the stub of Service
// (service_apply.go); and the migrations of the dedup table. The spec and
// the generated API are described in docs/spec.md of the repository, its
// operation (migrations, key changes, renames, CI) in docs/operations.md.
//
// Usage:
//
//	idemgen [generate] [-f idem.yaml] [-v] [spec ...]
//	idemgen check [-f idem.yaml] [spec ...]
//	idemgen init [-f idem.yaml] [-package name] [-dialect postgres]
//	idemgen version
//	idemgen help
//
// From go generate, after go get -tool github.com/idemkit/idem/cmd/idemgen:
//
//	//go:generate go tool idemgen
//
// In CI, idemgen check ./... exits 1 with a unified diff on stderr (git's:
// --- a/ on disk, +++ b/ generated) when a generated file is stale or
// missing, and ends with the command that fixes it.
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
