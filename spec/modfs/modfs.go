// Package modfs reads and writes the files of a Go module the way idemgen
// must handle a tree it does not trust: only regular files, never through a
// symbolic link (neither the file itself nor any folder on its way from the
// module's root), never outside the module's root, and never more than a
// size limit.
//
// A [Tree] is the module enclosing a folder, the base: its root is the
// nearest folder at or above the base holding a go.mod, or the base itself
// when there is none ([Root]). Paths given to a Tree are slash-separated and
// relative to the base; they may go up ("../common") as long as they stay
// below the root. Every operation walks the path's folders from the root
// with Lstat and refuses a symbolic link or a non-folder among them, then
// works through an [os.Root] of the root, so that a folder swapped for a
// link in between cannot lead outside either.
//
// Errors are *fs.PathError values whose Path is the path as given; their
// Err wraps [ErrLink], [ErrNotRegular], [ErrNotFolder], [ErrTooLarge] or
// [ErrOutside], or is fs.ErrNotExist for a missing file.
package modfs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Size limits of the files idemgen reads.
const (
	// MaxSpecSize is the largest spec idemgen reads: 1 MiB.
	MaxSpecSize = 1 << 20
	// MaxFileSize is the largest generated file, stub, migration or go.mod
	// idemgen reads: 4 MiB.
	MaxFileSize = 4 << 20
)

// The reasons a path is refused.
var (
	// ErrLink: the file, or a folder on its way, is a symbolic link.
	ErrLink = errors.New("is a symbolic link, which idemgen never follows")
	// ErrNotRegular: the file is a folder, a named pipe, a device or a
	// socket, not a regular file.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrNotFolder: a folder on the path is a file.
	ErrNotFolder = errors.New("is not a folder")
	// ErrTooLarge: the file is larger than the limit of its kind.
	ErrTooLarge = errors.New("is too large")
	// ErrOutside: the path leaves the module's root.
	ErrOutside = errors.New("is outside the module")
)

// Root returns the absolute, clean folder that the files of dir's module
// must stay in: the nearest folder at or above dir that holds a go.mod, or
// dir itself when none does (inModule is then false). A go.mod that is a
// symbolic link is an error: the module's boundary would depend on a file
// elsewhere.
func Root(dir string) (root string, inModule bool, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false, err
	}
	for d := abs; ; {
		fi, err := os.Lstat(filepath.Join(d, "go.mod"))
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			return "", false, &fs.PathError{Op: "open", Path: filepath.Join(d, "go.mod"), Err: fmt.Errorf("the go.mod of its module %w", ErrLink)}
		case err == nil && fi.Mode().IsRegular():
			return d, true, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs, false, nil
		}
		d = parent
	}
}

// Tree is the module enclosing a base folder, whose paths are relative to
// that folder. Close it when done.
type Tree struct {
	root     string // absolute, clean
	base     string // the base, slash-separated, relative to root ("." or "sub/dir")
	inModule bool
	r        *os.Root
}

// Open returns the Tree of the module enclosing dir, with dir as its base.
func Open(dir string) (*Tree, error) {
	root, inModule, err := Root(dir)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	base, err := filepath.Rel(root, abs)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil && (inModule || !errors.Is(err, fs.ErrNotExist)) {
		return nil, err
	}
	// Outside a module the root is dir itself, which may not exist yet:
	// then every file is missing until MkdirAll makes it.
	t := &Tree{root: root, base: filepath.ToSlash(base), inModule: inModule, r: r}
	// The base itself must be reached through real folders; its folders are
	// named relative to the root (relative to the base, each would be ".").
	if err := t.walkNamed(".", t.base, true, func(d string) string { return d }); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Close()
		return nil, err
	}
	return t, nil
}

// Close releases the tree's handle on its root.
func (t *Tree) Close() error {
	if t.r == nil {
		return nil
	}
	return t.r.Close()
}

// lstat is os.Root's Lstat; every file is missing while the root is.
func (t *Tree) lstat(rel string) (fs.FileInfo, error) {
	if t.r == nil {
		return nil, fs.ErrNotExist
	}
	return t.r.Lstat(rel)
}

// RootDir returns the absolute folder of the module's root.
func (t *Tree) RootDir() string { return t.root }

// InModule reports whether the root holds a go.mod (false: the root is the
// base itself).
func (t *Tree) InModule() bool { return t.inModule }

// resolve returns p (relative to the base) relative to the root, or an
// error when it is not a clean relative slash path below the root.
func (t *Tree) resolve(p string) (string, error) {
	if p == "" || strings.Contains(p, `\`) || path.IsAbs(p) || filepath.IsAbs(filepath.FromSlash(p)) || filepath.VolumeName(filepath.FromSlash(p)) != "" {
		return "", fmt.Errorf("%q is not a relative slash path", p)
	}
	rel := path.Join(t.base, p)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", ErrOutside
	}
	return rel, nil
}

// display names the folder rel (relative to the root) as the caller sees
// it: relative to the base.
func (t *Tree) display(rel string) string {
	d, err := filepath.Rel(filepath.FromSlash(t.base), filepath.FromSlash(rel))
	if err != nil {
		return rel
	}
	return filepath.ToSlash(d)
}

// walk checks the folders of rel (relative to the root) below the root,
// from the outermost: each must be a real folder. With self, rel itself is
// checked too, as a folder. A missing folder ends the walk with an error
// wrapping fs.ErrNotExist; the others name the folder at fault.
func (t *Tree) walk(p, rel string, self bool) error {
	return t.walkNamed(p, rel, self, t.display)
}

// walkNamed is walk, naming the folder at fault with name.
func (t *Tree) walkNamed(p, rel string, self bool, name func(string) string) error {
	if rel == "." {
		return nil
	}
	parts := strings.Split(rel, "/")
	if !self {
		parts = parts[:len(parts)-1]
	}
	for i := range parts {
		dir := strings.Join(parts[:i+1], "/")
		fi, err := t.lstat(dir)
		switch {
		case err != nil:
			return &fs.PathError{Op: "open", Path: p, Err: Reason(err)}
		case fi.Mode()&fs.ModeSymlink != 0:
			return &fs.PathError{Op: "open", Path: p, Err: fmt.Errorf("the folder %s %w", name(dir), ErrLink)}
		case !fi.IsDir():
			return &fs.PathError{Op: "open", Path: p, Err: fmt.Errorf("%s %w", name(dir), ErrNotFolder)}
		}
	}
	return nil
}

// Reason drops the *fs.PathError around err (the ones of this package name
// the path as given; those of os.Root, relative to the root) and returns
// why the operation failed, for a caller that names the path itself.
func Reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// kind names what a non-regular file is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// notRegular is the error for a file of mode m that is not regular.
func notRegular(p string, m fs.FileMode) error {
	if m&fs.ModeSymlink != 0 {
		return &fs.PathError{Op: "open", Path: p, Err: ErrLink}
	}
	return &fs.PathError{Op: "open", Path: p, Err: fmt.Errorf("%w: it is %s", ErrNotRegular, kind(m))}
}

// Lstat returns the FileInfo of the regular file p, refusing symbolic links
// and files that are not regular (a missing file wraps fs.ErrNotExist).
func (t *Tree) Lstat(p string) (fs.FileInfo, error) {
	rel, err := t.resolve(p)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	if err := t.walk(p, rel, false); err != nil {
		return nil, err
	}
	fi, err := t.lstat(rel)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: Reason(err)}
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(p, fi.Mode())
	}
	return fi, nil
}

// ReadFile reads the regular file p, of at most limit bytes.
func (t *Tree) ReadFile(p string, limit int64) ([]byte, error) {
	fi, err := t.Lstat(p)
	if err != nil {
		return nil, err
	}
	tooLarge := &fs.PathError{Op: "read", Path: p, Err: fmt.Errorf("%w: it has more than %s", ErrTooLarge, size(limit))}
	if fi.Size() > limit {
		return nil, tooLarge
	}
	rel, _ := t.resolve(p)
	f, err := t.r.OpenFile(rel, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: Reason(err)}
	}
	defer f.Close()
	// The file opened must be the one checked: not swapped for a link, a
	// pipe or a device in between.
	if ofi, err := f.Stat(); err != nil || !ofi.Mode().IsRegular() || !os.SameFile(fi, ofi) {
		return nil, &fs.PathError{Op: "open", Path: p, Err: errors.New("changed while idemgen opened it")}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: p, Err: Reason(err)}
	}
	if int64(len(data)) > limit {
		return nil, tooLarge
	}
	return data, nil
}

// size prints a limit: "4 MiB".
func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// CheckFolder checks the folder p without creating it: every part of it
// that exists must be a real folder, not a link or a file. A missing folder
// is no error.
func (t *Tree) CheckFolder(p string) error {
	rel, err := t.resolve(p)
	if err != nil {
		return &fs.PathError{Op: "open", Path: p, Err: err}
	}
	if err := t.walk(p, rel, true); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// ReadDir lists the folder p, which must be reached through real folders
// and be one itself.
func (t *Tree) ReadDir(p string) ([]fs.DirEntry, error) {
	rel, err := t.resolve(p)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	if err := t.walk(p, rel, true); err != nil {
		return nil, err
	}
	if t.r == nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	f, err := t.r.Open(rel)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: Reason(err)}
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: p, Err: Reason(err)}
	}
	return entries, nil
}

// MkdirAll creates the folder p and the missing folders above it, and
// returns those it created (relative to the base), outermost first. An
// existing part must be a real folder.
func (t *Tree) MkdirAll(p string) ([]string, error) {
	rel, err := t.resolve(p)
	if err != nil {
		return nil, &fs.PathError{Op: "mkdir", Path: p, Err: err}
	}
	if err := t.walk(p, rel, true); (err == nil && t.r != nil) || err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if t.r == nil {
		if err := os.MkdirAll(t.root, 0o777); err != nil {
			return nil, &fs.PathError{Op: "mkdir", Path: p, Err: Reason(err)}
		}
		r, err := os.OpenRoot(t.root)
		if err != nil {
			return nil, &fs.PathError{Op: "mkdir", Path: p, Err: Reason(err)}
		}
		t.r = r
	}
	var made []string
	parts := strings.Split(rel, "/")
	for i := range parts {
		dir := strings.Join(parts[:i+1], "/")
		if dir == "." {
			continue
		}
		fi, err := t.r.Lstat(dir)
		if err == nil {
			if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
				return made, t.walk(p, rel, true)
			}
			continue
		}
		if err := t.r.Mkdir(dir, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return made, &fs.PathError{Op: "mkdir", Path: t.display(dir), Err: Reason(err)}
		}
		made = append(made, t.display(dir))
	}
	// A folder made by someone else meanwhile must be a folder too.
	return made, t.walk(p, rel, true)
}

// WriteTemp writes data to a new temporary file in the folder of p, with
// mode perm, and returns its path (relative to the base), for Rename to
// move over p. The folder must exist.
func (t *Tree) WriteTemp(p string, data []byte, perm fs.FileMode) (string, error) {
	rel, err := t.resolve(p)
	if err != nil {
		return "", &fs.PathError{Op: "write", Path: p, Err: err}
	}
	if err := t.walk(p, rel, false); err != nil {
		return "", err
	}
	if t.r == nil {
		return "", &fs.PathError{Op: "write", Path: p, Err: fs.ErrNotExist}
	}
	dir, name := path.Split(rel)
	var f *os.File
	var tmp string
	for range 100 {
		var b [6]byte
		rand.Read(b[:])
		tmp = dir + "." + name + ".idemgen-" + hex.EncodeToString(b[:])
		f, err = t.r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|openFlags, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", &fs.PathError{Op: "write", Path: p, Err: Reason(err)}
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.r.Remove(tmp)
		return "", &fs.PathError{Op: "write", Path: p, Err: Reason(err)}
	}
	return t.display(tmp), nil
}

// WriteNew writes data to p, which must not exist (an error wrapping
// fs.ErrExist otherwise, even for a dangling link), with mode perm. A
// failed write removes the file.
func (t *Tree) WriteNew(p string, data []byte, perm fs.FileMode) error {
	rel, err := t.resolve(p)
	if err != nil {
		return &fs.PathError{Op: "write", Path: p, Err: err}
	}
	if err := t.walk(p, rel, false); err != nil {
		return err
	}
	if t.r == nil {
		return &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	f, err := t.r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL|openFlags, perm)
	if err != nil {
		return &fs.PathError{Op: "open", Path: p, Err: Reason(err)}
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.r.Remove(rel)
		return &fs.PathError{Op: "write", Path: p, Err: Reason(err)}
	}
	return nil
}

// Rename moves the file from (a temporary file of WriteTemp) over p. p,
// when it exists, must be a regular file.
func (t *Tree) Rename(from, p string) error {
	src, err := t.resolve(from)
	if err != nil {
		return &fs.PathError{Op: "rename", Path: from, Err: err}
	}
	if _, err := t.Lstat(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	dst, _ := t.resolve(p)
	if err := t.r.Rename(src, dst); err != nil {
		return &fs.PathError{Op: "rename", Path: p, Err: Reason(err)}
	}
	return nil
}

// Remove removes the regular file p; a link or a folder is refused.
func (t *Tree) Remove(p string) error {
	if _, err := t.Lstat(p); err != nil {
		return err
	}
	rel, _ := t.resolve(p)
	if err := t.r.Remove(rel); err != nil {
		return &fs.PathError{Op: "remove", Path: p, Err: Reason(err)}
	}
	return nil
}

// RemoveFolder removes the empty folder p (one MkdirAll made); a link or a
// file is refused.
func (t *Tree) RemoveFolder(p string) error {
	rel, err := t.resolve(p)
	if err != nil {
		return &fs.PathError{Op: "remove", Path: p, Err: err}
	}
	if err := t.walk(p, rel, true); err != nil {
		return err
	}
	if t.r == nil || rel == "." {
		return &fs.PathError{Op: "remove", Path: p, Err: errors.New("is the module's root")}
	}
	if err := t.r.Remove(rel); err != nil {
		return &fs.PathError{Op: "remove", Path: p, Err: Reason(err)}
	}
	return nil
}

// ReadFileAt reads the regular file name (a path in the operating system's
// form, as a user gives it) of at most limit bytes, through the Tree of its
// folder: neither the file nor a folder between its module's root and it
// may be a link. Errors name the path as given.
func ReadFileAt(name string, limit int64) ([]byte, error) {
	t, err := Open(filepath.Dir(name))
	if err != nil {
		return nil, rename(err, name)
	}
	defer t.Close()
	data, err := t.ReadFile(filepath.Base(name), limit)
	return data, rename(err, name)
}

// rename sets the path of a *fs.PathError to name.
func rename(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}
