// Command idemlint reports message handlers that write, call out or ack
// without a dedup check in front. See package
// github.com/idemkit/idem/analyzer for what it checks.
//
// Usage:
//
//	idemlint [flags] ./...                      # standalone (-json, -fix, -diff, -test)
//	go vet -vettool=$(command -v idemlint) ./...  # as a vet tool
//
// Exit codes follow the x/tools drivers: standalone, 0 when there is no
// finding, 3 when findings were reported, 1 when packages could not be
// loaded or analysed (with -json the exit code is 0 unless loading failed);
// under go vet, 1 when findings were reported.
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/idemkit/idem/analyzer"
)

func main() { singlechecker.Main(analyzer.Analyzer) }
