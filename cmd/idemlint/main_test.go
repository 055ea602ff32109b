package main_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDrivers builds idemlint and runs it both ways over the module in
// ../../analyzer/testdata/vetmodule: standalone (exit 3 with findings, 0
// without) and as go vet's -vettool (exit 1 with findings), with facts
// flowing from the billing package to its caller in both.
func TestDrivers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary and runs go vet")
	}
	bin := filepath.Join(t.TempDir(), "idemlint")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mod, err := filepath.Abs("../../analyzer/testdata/vetmodule")
	if err != nil {
		t.Fatal(err)
	}
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	// run (driver_test.go) with the usual build cache, output merged.
	lint := func(name string, args ...string) (string, int) {
		r := run(t, mod, strings.TrimSpace(string(gocache)), nil, name, args...)
		return r.stdout + r.stderr, r.code
	}
	wantFindings := func(t *testing.T, out string) {
		t.Helper()
		for _, want := range []string{
			`handlers.go:14:26: effect sql.DB.ExecContext "UPDATE users SET points = points + $1 WHERE id = $2" in handler AddPoints is not guarded by a dedup check (IDEM001)`,
			`handlers.go:20:23: effect billing.Charge → http.Client.Do POST in handler ChargeOrder is not guarded by a dedup check (IDEM001)`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "Guarded") {
			t.Errorf("a finding in the guarded handler:\n%s", out)
		}
	}

	t.Run("standalone", func(t *testing.T) {
		out, code := lint(bin, "./...")
		wantFindings(t, out)
		if code != 3 {
			t.Errorf("exit code %d, want 3 (findings)", code)
		}
		out, code = lint(bin, "./clean")
		if code != 0 || out != "" {
			t.Errorf("clean package: exit %d, output %q", code, out)
		}
	})
	t.Run("json", func(t *testing.T) {
		out, code := lint(bin, "-json", "./handlers")
		if code != 0 || !strings.Contains(out, `"category": "IDEM001"`) {
			t.Errorf("-json: exit %d, output:\n%s", code, out)
		}
	})
	t.Run("vet", func(t *testing.T) {
		out, code := lint("go", "vet", "-vettool="+bin, "./...")
		wantFindings(t, out)
		if code != 1 {
			t.Errorf("exit code %d, want 1 (go vet with findings)", code)
		}
		out, _ = lint("go", "vet", "-vettool="+bin, "-json", "./handlers")
		if !strings.Contains(out, `"message": "the effect is at billing.go:15"`) {
			t.Errorf("vet -json: no related position for the dependency's effect:\n%s", out)
		}
		out, code = lint("go", "vet", "-vettool="+bin, "./clean")
		if code != 0 {
			t.Errorf("clean package under go vet: exit %d\n%s", code, out)
		}
	})
}
