//go:build unix

package modfs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// tree makes a module in a temporary folder: go.mod, a.go, sub/b.go, a
// secret outside the module, and links to it and to folders.
func tree(t *testing.T) (outside, mod string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on windows")
	}
	top := t.TempDir()
	outside = filepath.Join(top, "outside")
	mod = filepath.Join(top, "mod")
	for _, d := range []string{outside, filepath.Join(mod, "sub"), filepath.Join(mod, "real")} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(outside, "secret"):   "SECRET=1\n",
		filepath.Join(mod, "go.mod"):       "module example.com/m\n",
		filepath.Join(mod, "a.go"):         "package m\n",
		filepath.Join(mod, "sub", "b.go"):  "package sub\n",
		filepath.Join(mod, "real", "c.go"): "package real\n",
	}
	for name, data := range files {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(mod, "secret.go"):      filepath.Join(outside, "secret"),
		filepath.Join(mod, "zero.go"):        "/dev/zero",
		filepath.Join(mod, "inside.go"):      "a.go",
		filepath.Join(mod, "out"):            outside,
		filepath.Join(mod, "alias"):          "real",
		filepath.Join(mod, "sub", "dangles"): filepath.Join(outside, "nope"),
	}
	for name, target := range links {
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(mod, "fifo.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	return outside, mod
}

func TestReadFile(t *testing.T) {
	_, mod := tree(t)
	big := bytes.Repeat([]byte("x"), 100)
	if err := os.WriteFile(filepath.Join(mod, "big.go"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		base, path string
		want       string // content, or the error's text after "path: "
		is         error
	}{
		{".", "a.go", "package m\n", nil},
		{"sub", "b.go", "package sub\n", nil},
		{"sub", "../a.go", "package m\n", nil},
		{"sub", "../real/c.go", "package real\n", nil},
		{".", "secret.go", "is a symbolic link, which idemgen never follows", ErrLink},
		{".", "inside.go", "is a symbolic link, which idemgen never follows", ErrLink},
		{".", "zero.go", "is a symbolic link, which idemgen never follows", ErrLink},
		{".", "out/secret", "the folder out is a symbolic link, which idemgen never follows", ErrLink},
		{".", "alias/c.go", "the folder alias is a symbolic link, which idemgen never follows", ErrLink},
		{"sub", "../out/secret", "the folder ../out is a symbolic link, which idemgen never follows", ErrLink},
		{".", "fifo.go", "is not a regular file: it is a named pipe", ErrNotRegular},
		{".", "sub", "is not a regular file: it is a folder", ErrNotRegular},
		{".", "a.go/x", "a.go is not a folder", ErrNotFolder},
		{".", "big.go", "is too large: it has more than 10 bytes", ErrTooLarge},
		{".", "../outside/secret", "is outside the module", ErrOutside},
		{"sub", "../../outside/secret", "is outside the module", ErrOutside},
		{".", "missing.go", "no such file or directory", fs.ErrNotExist},
		{".", "nope/missing.go", "no such file or directory", fs.ErrNotExist},
		{".", "/etc/passwd", `"/etc/passwd" is not a relative slash path`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.base+":"+tt.path, func(t *testing.T) {
			tr, err := Open(filepath.Join(mod, tt.base))
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			limit := int64(MaxFileSize)
			if tt.path == "big.go" {
				limit = 10
			}
			data, err := tr.ReadFile(tt.path, limit)
			if err == nil {
				if string(data) != tt.want {
					t.Errorf("read %q, want %q", data, tt.want)
				}
				return
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != tt.path {
				t.Errorf("error %v does not name the path %q", err, tt.path)
			}
			if got := err.Error(); !strings.HasSuffix(got, tt.path+": "+tt.want) {
				t.Errorf("error %q, want it to end in %q", got, tt.path+": "+tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error %v shows the secret", err)
			}
		})
	}
}

func TestRoot(t *testing.T) {
	_, mod := tree(t)
	for _, tt := range []struct {
		dir, root string
		inModule  bool
	}{
		{mod, mod, true},
		{filepath.Join(mod, "sub"), mod, true},
		{filepath.Join(mod, "sub", "missing"), mod, true},
	} {
		root, in, err := Root(tt.dir)
		if err != nil || root != tt.root || in != tt.inModule {
			t.Errorf("Root(%s) = %s, %v, %v; want %s, %v", tt.dir, root, in, err, tt.root, tt.inModule)
		}
	}
	linked := t.TempDir()
	if err := os.Symlink(filepath.Join(mod, "go.mod"), filepath.Join(linked, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Root(linked); !errors.Is(err, ErrLink) {
		t.Errorf("Root of a folder whose go.mod is a link: %v, want ErrLink", err)
	}
	if _, err := Open(filepath.Join(mod, "alias")); !errors.Is(err, ErrLink) {
		t.Errorf("Open through a linked folder: %v, want ErrLink", err)
	}
}

func TestWrite(t *testing.T) {
	outside, mod := tree(t)
	tr, err := Open(filepath.Join(mod, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()

	made, err := tr.MkdirAll("../gen/x")
	if err != nil || strings.Join(made, ",") != "../gen,../gen/x" {
		t.Fatalf("MkdirAll = %v, %v", made, err)
	}
	tmp, err := tr.WriteTemp("../gen/x/f.go", []byte("package x\n"), 0o640)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Rename(tmp, "../gen/x/f.go"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(mod, "gen", "x", "f.go"))
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("written file: %v, %v", fi, err)
	}
	if err := tr.Remove("../gen/x/f.go"); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"../gen/x", "../gen"} {
		if err := tr.RemoveFolder(d); err != nil {
			t.Fatal(err)
		}
	}

	if err := tr.WriteNew("new.go", []byte("package sub\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := tr.ReadFile("new.go", MaxFileSize); err != nil || string(data) != "package sub\n" {
		t.Errorf("WriteNew wrote %q, %v", data, err)
	}

	// Nothing goes through a link or outside.
	for _, tt := range []struct {
		name string
		err  error
		is   error
	}{
		{"mkdir through a link", second(tr.MkdirAll("../out/x")), ErrLink},
		{"mkdir over a file", second(tr.MkdirAll("../a.go/x")), ErrNotFolder},
		{"mkdir outside", second(tr.MkdirAll("../../outside/x")), ErrOutside},
		{"temp through a link", second(tr.WriteTemp("../out/f.go", nil, 0o644)), ErrLink},
		{"rename over a link", tr.Rename("b.go", "dangles"), ErrLink},
		{"new over a file", tr.WriteNew("new.go", nil, 0o644), fs.ErrExist},
		{"new over a dangling link", tr.WriteNew("dangles", nil, 0o644), fs.ErrExist},
		{"new through a link", tr.WriteNew("../out/new.go", nil, 0o644), ErrLink},
		{"remove a link", tr.Remove("../secret.go"), ErrLink},
		{"remove a folder", tr.Remove("../real"), ErrNotRegular},
		{"remove through a link", tr.Remove("../out/secret"), ErrLink},
	} {
		if !errors.Is(tt.err, tt.is) {
			t.Errorf("%s: %v, want %v", tt.name, tt.err, tt.is)
		}
	}
	entries, err := os.ReadDir(outside)
	if err != nil || len(entries) != 1 {
		t.Errorf("outside holds %v (%v), want the secret alone", entries, err)
	}
	if _, err := os.Lstat(filepath.Join(mod, "sub", "dangles")); err != nil {
		t.Errorf("the dangling link was replaced: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

func TestReadDirAndCheckFolder(t *testing.T) {
	_, mod := tree(t)
	tr, err := Open(mod)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if entries, err := tr.ReadDir("sub"); err != nil || len(entries) != 2 {
		t.Errorf("ReadDir(sub) = %v, %v", entries, err)
	}
	for _, tt := range []struct {
		dir string
		is  error
	}{
		{"out", ErrLink},
		{"alias", ErrLink},
		{"a.go", ErrNotFolder},
		{"missing", fs.ErrNotExist},
	} {
		if _, err := tr.ReadDir(tt.dir); !errors.Is(err, tt.is) {
			t.Errorf("ReadDir(%s) = %v, want %v", tt.dir, err, tt.is)
		}
	}
	for _, tt := range []struct {
		dir string
		is  error
	}{
		{"sub", nil},
		{"missing/deeper", nil},
		{"out/x", ErrLink},
		{"alias", ErrLink},
		{"a.go", ErrNotFolder},
		{"../x", ErrOutside},
	} {
		if err := tr.CheckFolder(tt.dir); !errors.Is(err, tt.is) && !(tt.is == nil && err == nil) {
			t.Errorf("CheckFolder(%s) = %v, want %v", tt.dir, err, tt.is)
		}
	}
}

func TestReadFileAt(t *testing.T) {
	_, mod := tree(t)
	if data, err := ReadFileAt(filepath.Join(mod, "sub", "b.go"), MaxSpecSize); err != nil || string(data) != "package sub\n" {
		t.Errorf("ReadFileAt = %q, %v", data, err)
	}
	name := filepath.Join(mod, "alias", "c.go")
	_, err := ReadFileAt(name, MaxSpecSize)
	var pe *fs.PathError
	if !errors.Is(err, ErrLink) || !errors.As(err, &pe) || pe.Path != name {
		t.Errorf("ReadFileAt through a link: %v", err)
	}
}

// TestMissingRoot: outside a module the root is the folder itself, which
// may not exist yet; its files are missing until MkdirAll makes it.
func TestMissingRoot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "folder")
	if _, in, _ := Root(dir); in {
		t.Skipf("%s is inside a module", dir)
	}
	tr, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := tr.ReadFile("a.go", MaxFileSize); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile in a missing root: %v", err)
	}
	if err := tr.CheckFolder("x"); err != nil {
		t.Errorf("CheckFolder in a missing root: %v", err)
	}
	if _, err := tr.MkdirAll("x"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "x")); err != nil || !fi.IsDir() {
		t.Errorf("MkdirAll in a missing root: %v, %v", fi, err)
	}
	if _, err := tr.ReadFile("../a.go", MaxFileSize); !errors.Is(err, ErrOutside) {
		t.Errorf("outside the root: %v", err)
	}
}
