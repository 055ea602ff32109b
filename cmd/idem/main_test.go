package main

import (
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemkit/idem/cmd/idem/internal/ops"
	"github.com/idemkit/idem/guard"
)

// TestMain makes the test binary double as idem, so that the tests run the
// real main: its standard input is what the test gives the process.
func TestMain(m *testing.M) {
	if os.Getenv("IDEM_TEST_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// idem runs the command in a process of its own with stdin as its input.
func idem(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "IDEM_TEST_RUN_MAIN=1", "IDEM_STORE=")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

func TestHelp(t *testing.T) {
	code, out, _ := idem(t, "", "--help")
	if code != ops.ExitOK {
		t.Fatalf("idem --help: exit %d", code)
	}
	for _, c := range []string{"stats", "list", "show", "resolve", "purge"} {
		if !strings.Contains(out, "\n  "+c+" ") {
			t.Errorf("idem --help does not list %s:\n%s", c, out)
		}
	}
}

// TestResolveReadsTheTerminal: with standard input a pipe, resolve refuses
// to run without --yes, whatever the pipe holds.
func TestResolveReadsTheTerminal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "idem.db")
	db, err := sql.Open("sqlite", guard.SQLiteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store, err := guard.NewSQLStore(db, guard.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(t.Context()); err != nil {
		t.Fatal(err)
	}
	l, err := store.Claim(t.Context(), "send_sms", "v1 1:k", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Fail(t.Context(), errors.New("provider: invalid number")); err != nil {
		t.Fatal(err)
	}
	args := []string{"resolve", "--store", "sqlite:" + path, "--consumer", "send_sms", "--release", "--reason", "number fixed", "v1 1:k"}
	code, _, stderr := idem(t, "yes\n", args...)
	if code != ops.ExitUsage || !strings.Contains(stderr, "--yes") {
		t.Fatalf("resolve with a pipe for input: exit %d, %s; want %d naming --yes", code, stderr, ops.ExitUsage)
	}
	if r, err := store.Inspect(t.Context(), "send_sms", "v1 1:k"); err != nil || r == nil || r.State != guard.StateFailed {
		t.Fatalf("after a refused resolve: %+v, %v; want the key still failed", r, err)
	}
	if code, _, stderr := idem(t, "", append(args, "--yes")...); code != ops.ExitOK {
		t.Fatalf("resolve --yes: exit %d: %s", code, stderr)
	}
	if r, err := store.Inspect(t.Context(), "send_sms", "v1 1:k"); err != nil || r != nil {
		t.Fatalf("after resolve --release: %+v, %v; want no record", r, err)
	}
}
