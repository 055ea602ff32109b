package cli

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemkit/idem/spec"
	"github.com/idemkit/idem/spec/modfs"
)

// starterSpec is the spec idemgen init writes: the four consumers of the
// shop example, every setting commented. The verbs are the Go package name
// and the dialect.
const starterSpec = `# idem spec: what idemgen generates guarded, idempotent consumers from.
# Run "idemgen" (or "go generate" with //go:generate go tool idemgen) after
# each change, fill in the effect methods of Service (<consumer>_apply.go),
# apply the migrations, and build the handlers with NewHandlers.
# Reference: docs/spec.md of github.com/idemkit/idem (go doc github.com/idemkit/idem/spec)
# yaml-language-server: $schema=https://raw.githubusercontent.com/idemkit/idem/main/spec/idem.schema.json
version: 1
package: %-20s # Go package of the generated code
output: .                     # folder of the generated Go, relative to this file
sql_package: database/sql     # database/sql | pgx/v5
dialect: %-21s # postgres | mysql | sqlite: selects the migrations only
table: idem_keys              # the dedup table
migrations:
  dir: ./migrations/idem      # the dedup table's migrations, in their own folder
  format: golang-migrate      # golang-migrate | goose | plain
  version: 1                  # version number of the first file
retention: 168h               # how long outcomes are kept (redeliveries later run again)

consumers:
  # Stock goes negative when an order is handled twice: the dedup row is
  # written in the same SQL transaction as the UPDATE.
  - name: deduct_inventory    # snake_case, unique: names the generated types
    topic: orders.created     # documentation and example wiring
    message:
      fields:                 # name: type (string int int32 int64 uint32 uint64
        order_id: string      #   bool float64 time bytes uuid); JSON names
        sku: string
        quantity: int64
    key: [order_id, sku]      # the business key, in order
    fingerprint: [quantity]   # same key, different quantity: a conflict, not a duplicate
    effect: sql               # sql | redis | external

  # A user credited three times gets 3x the points: same transaction again.
  - name: add_points
    topic: orders.paid
    message:
      fields: {order_id: string, user_id: string, points: int64}
    key: [order_id]
    effect: sql

  # Counting an order twice inflates the day's revenue: the key is the
  # message id plus the aggregation key (the day).
  - name: update_stats
    topic: orders.paid
    message:
      fields: {message_id: string, day: string, amount: int64}
    key: [message_id, day]
    effect: sql

  # An SMS cannot share a transaction: the claim is a lease, and the
  # provider receives lease.Key() as its idempotency key.
  - name: send_sms
    topic: orders.shipped
    message:
      fields: {order_id: string, phone: string, template: string}
    key: [order_id, template]
    fingerprint: [phone]
    effect: external
    store: sql                # where the claim lives: sql | redis
    lease: 30s                # a claim blocks duplicates this long, then may be taken over
    delivery: at-least-once   # at-least-once (take over after the lease) | at-most-once
    on_error: release         # release (a retry runs again) | keep (a failed key stays failed)

  # With Redis, the points and the dedup record share one MULTI; hash_tag
  # keeps both in one Redis Cluster slot.
  # - name: add_points_redis
  #   message: {fields: {order_id: string, user_id: string, points: int64}}
  #   key: [order_id]
  #   effect: redis
  #   hash_tag: user_id
`

// StarterSpec returns the spec idemgen init writes, for package pkg and the
// SQL dialect of its migrations.
func StarterSpec(pkg, dialect string) []byte {
	return fmt.Appendf(nil, starterSpec, pkg, dialect)
}

// dialects are the values of init's -dialect.
var dialects = []string{spec.DialectPostgres, spec.DialectMySQL, spec.DialectSQLite}

func runInit(args []string, stdout, _ io.Writer) error {
	fs := newFlags("init")
	file := fs.String("f", DefaultSpec, "the spec file to write")
	pkg := fs.String("package", "", "the Go package of the generated code")
	dialect := fs.String("dialect", spec.DialectPostgres, "the SQL dialect of the migrations")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if !slices.Contains(dialects, *dialect) {
		return usagef("-dialect %q: one of %s", *dialect, strings.Join(dialects, ", "))
	}
	if fs.NArg() > 0 {
		return usagef("init takes no arguments (use -f file)")
	}
	if *pkg != "" && !spec.ValidPackageName(*pkg) {
		return usagef("-package %q: not a Go package name (lowercase letters, digits and _)", *pkg)
	}
	if *pkg == "" {
		*pkg = guessPackage(filepath.Dir(*file))
	}
	if *file == "" {
		return usagef("init: -f names no file")
	}
	// Written as idemgen writes every file: never through a link, never over
	// an existing file (not even a dangling link).
	t, err := modfs.Open(filepath.Dir(*file))
	if err != nil {
		return err
	}
	defer t.Close()
	// The spec's folder, when it is new (idemgen init -f orders/idem.yaml).
	if _, err := t.MkdirAll("."); err != nil {
		return fmt.Errorf("%s: %w", filepath.ToSlash(filepath.Dir(*file)), modfs.Reason(err))
	}
	err = t.WriteNew(filepath.Base(*file), StarterSpec(*pkg, *dialect), 0o666)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s already exists; not overwriting it", *file)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", *file, modfs.Reason(err))
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.ToSlash(*file))
	return nil
}

// guessPackage returns the Go package the starter spec names for a spec in
// dir: $GOPACKAGE (set by go generate), else the package of the .go files
// in dir (test packages aside), else dir's name when it is a package name,
// else "orders".
func guessPackage(dir string) string {
	valid := spec.ValidPackageName
	if p := os.Getenv("GOPACKAGE"); valid(p) && !strings.HasSuffix(p, "_test") {
		return p
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	slices.Sort(names)
	fset := token.NewFileSet()
	if t, err := modfs.Open(dir); err == nil {
		defer t.Close()
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			// Read as idemgen reads: a link (to /dev/zero, say), a pipe or a
			// huge file is skipped, not read.
			src, err := t.ReadFile(filepath.Base(name), modfs.MaxFileSize)
			if err != nil {
				continue
			}
			f, err := parser.ParseFile(fset, name, src, parser.PackageClauseOnly)
			if err == nil && valid(f.Name.Name) {
				return f.Name.Name
			}
		}
	}
	if abs, err := filepath.Abs(dir); err == nil {
		if base := filepath.Base(abs); valid(base) {
			return base
		}
	}
	return "orders"
}
