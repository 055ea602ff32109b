package main

import (
	"os"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/idemkit/idem/analyzer/knowledge"
)

// clientImports are the packages whose importers talk to something outside
// the process: an importer is an API client, a mailer, a store.
var clientImports = []string{"net/http", "database/sql", "net/smtp", "google.golang.org/grpc"}

// Bounds on what clientDeps adds, in bytes of Go source: a package larger
// than maxClientPackage is a server or a platform (an embedded NATS
// server), not a client; the packages added together stay under
// maxClientSource, so that the run costs about what the program does.
const (
	maxClientPackage = 4 << 20
	maxClientSource  = 16 << 20
)

// clientDeps returns the packages, among the direct dependencies of the
// program's own packages (listed with their imports and files), that are
// clients the catalog does not describe: a vendor's generated API client,
// a company's wrapper over a database or over a known client. Those of
// them the program's handlers reach (analyse asks CheckProgramReach) are
// analysed from source like the program, so that an effect inside them
// (the HTTP POST a mail API's SendTransacEmail makes) counts where the
// program calls them; every other dependency is read from export data
// only. A database driver (it implements database/sql/driver) is no such
// client. own holds the program's module paths.
//
// wrappers are those of them that import a broker client the catalog
// knows the consumer side of (a company's mq package over kafka-go): the
// program's handlers are found only once a wrapper's Consume is seen to
// fetch, so wrappers are read from source from the first check on, before
// any other client, and are not among clients.
func clientDeps(listing []*packages.Package, own map[string]bool) (wrappers, clients []string) {
	cat := knowledge.Default()
	seen := map[string]bool{}
	type cand struct {
		path    string
		size    int64
		wrapper bool
	}
	var cands []cand
	for _, p := range listing {
		for _, q := range p.Imports {
			path := q.PkgPath
			if seen[path] || stdPackage(q) || q.Module == nil || own[q.Module.Path] {
				continue
			}
			seen[path] = true
			if cat.Known(path) || cat.Described(path) || cat.PackageRuled(path) || !importsClient(cat, q) {
				continue
			}
			if size := sourceSize(q); size <= maxClientPackage {
				cands = append(cands, cand{path, size, importsBroker(cat, q)})
			}
		}
	}
	// Broker wrappers first, then the smallest first, within the budget: a
	// thin wrapper is likelier a client of the program's own than a large
	// SDK is.
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].wrapper != cands[j].wrapper {
			return cands[i].wrapper
		}
		if cands[i].size != cands[j].size {
			return cands[i].size < cands[j].size
		}
		return cands[i].path < cands[j].path
	})
	var total int64
	for _, c := range cands {
		if total+c.size > maxClientSource {
			break
		}
		total += c.size
		if c.wrapper {
			wrappers = append(wrappers, c.path)
		} else {
			clients = append(clients, c.path)
		}
	}
	sort.Strings(wrappers)
	sort.Strings(clients)
	return wrappers, clients
}

// importsBroker reports whether q imports a broker client whose consumer
// side the catalog knows.
func importsBroker(cat *knowledge.Catalog, q *packages.Package) bool {
	for path, dep := range q.Imports {
		if !stdPackage(dep) && cat.Broker(path) {
			return true
		}
	}
	return false
}

// importsClient reports whether q imports a client package (the standard
// library's HTTP, SQL or SMTP, gRPC, or a third-party client the catalog
// knows) and is no database driver.
func importsClient(cat *knowledge.Catalog, q *packages.Package) bool {
	if _, ok := q.Imports["database/sql/driver"]; ok {
		return false
	}
	for path, dep := range q.Imports {
		for _, c := range clientImports {
			if path == c {
				return true
			}
		}
		if !stdPackage(dep) && (cat.Known(path) || cat.Described(path)) {
			return true
		}
	}
	return false
}

// sourceSize returns the size of q's Go files.
func sourceSize(q *packages.Package) int64 {
	var n int64
	for _, f := range q.GoFiles {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// stdPackage reports whether p is in the standard library.
func stdPackage(p *packages.Package) bool {
	return p.Module == nil && !strings.Contains(strings.SplitN(p.PkgPath, "/", 2)[0], ".")
}
