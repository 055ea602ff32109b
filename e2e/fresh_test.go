// Package e2e_test runs the handlers idemgen generates: the consumers of
// the shop (deduct_inventory, add_points, update_stats, send_sms and their
// variants), generated from the specs in testdata/<case>/idem.yaml into
// those folders (committed, so that a change of the generator shows in
// review), with real apply functions, against SQLite always and PostgreSQL
// (database/sql and pgx), MariaDB/MySQL, Redis and Redis Cluster when their
// IDEM_TEST_* variables are set (see guardtest.Env). It also applies the
// generated migrations with the real golang-migrate and goose to those
// databases and runs the guard stores on the tables they create.
//
// After a change of the generator, regenerate the cases with
//
//	go test ./e2e -run TestGeneratedFresh -update
package e2e_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemkit/idem/generator"
	"github.com/idemkit/idem/spec"
)

var update = flag.Bool("update", false, "regenerate the cases under testdata/ (generated files and missing stubs and migrations)")

// cases are the folders under testdata holding a spec and its generated Go
// package, imported by these tests.
var cases = []string{"shop", "shoppgx"}

// TestGeneratedFresh checks that the committed output of each case is what
// the generator writes today, so the handlers tested here are the ones
// idemgen generates. With -update it writes the changes instead.
func TestGeneratedFresh(t *testing.T) {
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			s, err := spec.Load(filepath.Join("testdata", c, "idem.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			files, err := generator.Generate(s)
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				changes, err := generator.Write(s.Dir, files)
				if err != nil {
					t.Fatal(err)
				}
				for _, ch := range changes {
					t.Logf("wrote %s", filepath.Join(s.Dir, ch.File.Path))
				}
				return
			}
			changes, err := generator.Plan(s.Dir, files)
			if err != nil {
				t.Fatal(err)
			}
			if len(changes) > 0 {
				t.Errorf("testdata/%s is stale; run go test ./e2e -run TestGeneratedFresh -update\n%s", c, generator.Diff(changes))
			}
			// Every file of the case is one the generator writes (or the spec).
			want := map[string]bool{"idem.yaml": true}
			for _, f := range files {
				want[filepath.FromSlash(f.Path)] = true
			}
			filepath.WalkDir(s.Dir, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(s.Dir, p)
				if !want[rel] {
					t.Errorf("testdata/%s/%s is not generated: remove it", c, filepath.ToSlash(rel))
				}
				return nil
			})
		})
	}
}
