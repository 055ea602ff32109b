//go:build unix

package generator

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/idemkit/idem/spec/modfs"
)

// TestPlanRefusesHostileFiles: a file at a generated path that is a link
// (to a secret, to /dev/zero, inside the module), a named pipe, a folder or
// too large is an error naming the path, never read (Plan returns in time,
// and no error shows the secret), and Write writes nothing.
func TestPlanRefusesHostileFiles(t *testing.T) {
	tests := []struct {
		name string
		file string // the path within the spec's folder
		make func(t *testing.T, target, outside string)
		want string // in the error, after "<file>: "
		is   error
	}{
		{"link to a secret", "orders/send_sms_idem.go", func(t *testing.T, target, outside string) {
			symlink(t, filepath.Join(outside, "secret"), target)
		}, "is a symbolic link, which idemgen never follows; remove it, and idemgen generate writes the file in its place", modfs.ErrLink},
		{"link to /dev/zero", "orders/send_sms_idem.go", func(t *testing.T, target, _ string) {
			symlink(t, "/dev/zero", target)
		}, "is a symbolic link", modfs.ErrLink},
		{"link inside the module", "orders/send_sms_idem.go", func(t *testing.T, target, _ string) {
			symlink(t, "add_points_idem.go", target)
		}, "is a symbolic link", modfs.ErrLink},
		{"named pipe", "orders/send_sms_idem.go", fifo, "is not a regular file: it is a named pipe", modfs.ErrNotRegular},
		{"stub that is a named pipe", "orders/send_sms_apply.go", fifo, "is not a regular file: it is a named pipe; put the apply function's file itself there", modfs.ErrNotRegular},
		{"stub that is a folder", "orders/send_sms_apply.go", func(t *testing.T, target, _ string) {
			if err := os.Mkdir(target, 0o777); err != nil {
				t.Fatal(err)
			}
		}, "is not a regular file: it is a folder", modfs.ErrNotRegular},
		{"migration that is a link", "migrations/idem/000001_create_idem_keys.up.sql", func(t *testing.T, target, outside string) {
			symlink(t, filepath.Join(outside, "secret"), target)
		}, "is a symbolic link, which idemgen never follows; put the migration itself there (git checkout)", modfs.ErrLink},
		{"too large", "orders/send_sms_idem.go", func(t *testing.T, target, _ string) {
			big := append([]byte("// "+generatedHeader+"\n"), bytes.Repeat([]byte("/"), modfs.MaxFileSize)...)
			if err := os.WriteFile(target, big, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is too large: it has more than 4 MiB", modfs.ErrTooLarge},
		{"output folder through a link", "orders/send_sms_idem.go", func(t *testing.T, target, outside string) {
			dir := filepath.Dir(target)
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			symlink(t, outside, dir)
		}, "the folder orders is a symbolic link, which idemgen never follows", modfs.ErrLink},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := t.TempDir()
			outside := filepath.Join(top, "outside")
			dir := filepath.Join(top, "mod")
			if err := os.MkdirAll(outside, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("SECRET=hunter2\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			files, err := Generate(loadCase(t, "shop_postgres_golang_migrate"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Write(dir, files); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(dir, filepath.FromSlash(tt.file))
			if err := os.Remove(target); err != nil {
				t.Fatal(err)
			}
			tt.make(t, target, outside)
			// Something to write besides: it must not be written either.
			missing := filepath.Join(dir, "orders", "add_points_idem.go")
			if tt.name != "output folder through a link" {
				if err := os.Remove(missing); err != nil {
					t.Fatal(err)
				}
			}

			for op, run := range map[string]func(string, []File, ...string) ([]Change, error){"Plan": Plan, "Write": Write} {
				_, err := run(dir, files, "orders")
				if err == nil {
					t.Fatalf("%s succeeded", op)
				}
				if !strings.Contains(err.Error(), tt.file+": "+tt.want) || !errors.Is(err, tt.is) {
					t.Errorf("%s: error %q, want %q (%v)", op, err, tt.file+": "+tt.want, tt.is)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("%s: the error shows the secret: %v", op, err)
				}
			}
			if _, err := os.Lstat(missing); err == nil && tt.name != "output folder through a link" {
				t.Error("a missing file was written although another was refused")
			}
			entries, _ := os.ReadDir(outside)
			if len(entries) != 1 {
				t.Errorf("outside the module: %v", entries)
			}
		})
	}
}

// fifo makes a named pipe at target.
func fifo(t *testing.T, target, _ string) {
	t.Helper()
	if err := syscall.Mkfifo(target, 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// TestDiffHidesForeignFiles: a file at a generated path that lacks idemgen's
// header is replaced by generate, but its content is not in Old, nor in the
// diff check prints.
func TestDiffHidesForeignFiles(t *testing.T) {
	dir, files := written(t)
	gen := find(t, files, "orders/send_sms_idem.go")
	if err := os.WriteFile(filepath.Join(dir, gen.Path), []byte("SECRET=hunter2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changes, err := Plan(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || !changes[0].Foreign || changes[0].Old != nil || changes[0].Kind != KindUpdate {
		t.Fatalf("Plan = %+v, want one foreign update", changes)
	}
	d := string(Diff(changes))
	if strings.Contains(d, "hunter2") || !strings.Contains(d, "--- a/orders/send_sms_idem.go (not written by idemgen: its content is not shown)\n+++ b/orders/send_sms_idem.go\n") {
		t.Errorf("Diff:\n%s", d)
	}
	if _, err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, gen.Path)); !bytes.Equal(data, gen.Data) {
		t.Error("the foreign file was not replaced")
	}
}

// TestDiffEscapesControlCharacters: what a hand put in an idemgen file is
// shown by check with its control characters escaped, never sent to the
// terminal; an orphan candidate whose name is not a consumer's is neither
// printed nor deleted.
func TestDiffEscapesControlCharacters(t *testing.T) {
	dir, files := written(t)
	gen := find(t, files, "orders/send_sms_idem.go")
	edited := append(bytes.Clone(gen.Data), "// \x1b[2J\x1b]0;owned\x07 \r\n"...)
	if err := os.WriteFile(filepath.Join(dir, gen.Path), edited, 0o644); err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(dir, "orders", "x\x1b[2J_idem.go")
	if err := os.WriteFile(odd, []byte("// "+generatedHeader+"\n\npackage orders\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changes, err := Plan(dir, files, "orders")
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].File.Path != gen.Path {
		t.Fatalf("Plan = %+v, want the edited file only", changes)
	}
	d := string(Diff(changes))
	if strings.ContainsAny(d, "\x1b\x07\r") || !strings.Contains(d, `-// \x1b[2J\x1b]0;owned\a \r`) {
		t.Errorf("Diff:\n%q", d)
	}
	if _, err := Write(dir, files, "orders"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(odd); err != nil {
		t.Errorf("the oddly named file was removed: %v", err)
	}
}
