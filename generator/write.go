package generator

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
)

// The kinds of a Change.
const (
	KindCreate = "create" // the file is missing
	KindUpdate = "update" // the file exists with other content
	KindDelete = "delete" // a generated file that no consumer of the spec produces any more
)

// Change is a file that Write would create, update or delete.
type Change struct {
	File File   // for KindDelete, the orphan's path (Data is nil)
	Old  []byte // the current content; nil when the file is missing
	Kind string // KindCreate, KindUpdate or KindDelete
}

// Plan compares files (as Generate returns them) with the folder dir, which
// their paths are relative to (the spec's folder), and returns what Write
// would do, sorted by path: a missing file is created; an existing generated
// file with other content is updated; an existing stub is never a change,
// whatever it holds. An existing migration with other content is an error,
// and so is a new migration whose version another .sql file in its folder
// already has; all errors are reported at once, as one error wrapping each.
//
// owned names folders (slash-separated, relative to dir: the spec's output)
// that hold this spec's generated Go alone. A generated handler there (a
// *_idem.go file that starts with idemgen's header) that files does not
// list belongs to a consumer removed from the spec: Plan returns it as a
// KindDelete change. Its apply stub is the user's and stays; migrations are
// never deleted. A folder two specs write into must not be named.
// Plan only reads.
func Plan(dir string, files []File, owned ...string) ([]Change, error) {
	var changes []Change
	var errs []error
	seen := map[string]bool{}
	for _, f := range files {
		if err := checkPath(f.Path); err != nil {
			errs = append(errs, err)
			continue
		}
		if seen[f.Path] {
			errs = append(errs, fmt.Errorf("%s: listed twice", f.Path))
			continue
		}
		seen[f.Path] = true
		old, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changes = append(changes, Change{File: f, Kind: KindCreate})
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", f.Path, unwrapPathError(err)))
		case f.Mode == ModeStub || bytes.Equal(old, f.Data):
		case f.Mode == ModeMigration:
			errs = append(errs, fmt.Errorf("%s: the migration exists with other content; an applied migration is never rewritten: restore it (git checkout), or undo the spec change that altered it (table, dialect, migrations settings)", f.Path))
		default:
			changes = append(changes, Change{File: f, Old: old, Kind: KindUpdate})
		}
	}
	errs = append(errs, checkVersions(dir, changes)...)
	orphans, err := orphans(dir, files, owned)
	if err != nil {
		errs = append(errs, err)
	}
	changes = append(changes, orphans...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.File.Path, b.File.Path) })
	return changes, nil
}

// orphans returns the generated handlers in the owned folders that files
// does not list.
func orphans(dir string, files []File, owned []string) ([]Change, error) {
	listed := map[string]bool{}
	folders := map[string]bool{}
	for _, o := range owned {
		folders[path.Clean(o)] = true
	}
	for _, f := range files {
		listed[f.Path] = true
	}
	var out []Change
	for _, folder := range slices.Sorted(maps.Keys(folders)) {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(folder)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", folder, unwrapPathError(err))
		}
		for _, e := range entries {
			p := path.Join(folder, e.Name())
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), "_idem.go") || listed[p] {
				continue
			}
			old, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, unwrapPathError(err))
			}
			if bytes.HasPrefix(old, []byte("// "+generatedHeader+"\n")) {
				out = append(out, Change{File: File{Path: p, Mode: ModeGenerated}, Old: old, Kind: KindDelete})
			}
		}
	}
	return out, nil
}

// checkPath rejects a path that is not a clean, slash-separated relative
// path. It may leave the spec's folder ("../x.go"): spec.Parse already keeps
// output and migrations.dir inside the module.
func checkPath(p string) error {
	if p == "" || path.Clean(p) != p || path.IsAbs(p) || filepath.IsAbs(filepath.FromSlash(p)) ||
		filepath.VolumeName(filepath.FromSlash(p)) != "" || strings.Contains(p, `\`) {
		return fmt.Errorf("%q: not a clean relative path", p)
	}
	return nil
}

// unwrapPathError drops the *fs.PathError around err, whose path (absolute,
// or relative to the process) the caller replaces with the file's path.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// migrationVersion returns the version at the start of a migration's file
// name ("000012_create_t.up.sql" → 12).
func migrationVersion(name string) (int, bool) {
	digits, _, ok := strings.Cut(name, "_")
	if !ok || digits == "" || !strings.HasSuffix(name, ".sql") {
		return 0, false
	}
	v, err := strconv.Atoi(digits)
	return v, err == nil
}

// checkVersions reports new migrations whose version is taken by another
// .sql file of their folder (written before with another name, after a
// change of the table's name, say): migration tools refuse two migrations of
// one version, or apply only one of them.
func checkVersions(dir string, changes []Change) []error {
	mine := map[string]bool{}
	for _, c := range changes {
		mine[c.File.Path] = true
	}
	var errs []error
	listed := map[string][]os.DirEntry{}
	for _, c := range changes {
		if c.File.Mode != ModeMigration || c.Kind != KindCreate {
			continue
		}
		v, ok := migrationVersion(path.Base(c.File.Path))
		if !ok {
			continue
		}
		folder := path.Dir(c.File.Path)
		entries, done := listed[folder]
		if !done {
			entries, _ = os.ReadDir(filepath.Join(dir, filepath.FromSlash(folder)))
			listed[folder] = entries
		}
		for _, e := range entries {
			other := path.Join(folder, e.Name())
			if w, ok := migrationVersion(e.Name()); ok && w == v && !mine[other] && !e.IsDir() {
				errs = append(errs, fmt.Errorf("%s: migration version %d is taken by %s; remove that file if it was never applied, or set migrations.version to a free version", c.File.Path, v, other))
			}
		}
	}
	return errs
}

// Write carries out Plan in dir: it creates and updates the changed files,
// and the folders they need, and returns the changes. Nothing is written
// unless every check of Plan passes. Each file is written to a temporary
// file in its folder first and renamed over the target only when all
// temporary files are written, so an error while writing (a full disk)
// leaves the tree as it was; a failing rename, after the first, leaves the
// files renamed before it in place.
func Write(dir string, files []File, owned ...string) ([]Change, error) {
	changes, err := Plan(dir, files, owned...)
	if err != nil {
		return nil, err
	}
	var (
		made  []string // folders created, outermost first
		temps []string // temporary files, by change
	)
	cleanup := func() {
		for _, t := range temps {
			os.Remove(t)
		}
		for _, d := range slices.Backward(made) {
			os.Remove(d)
		}
	}
	var deletes []Change
	changes, deletes = splitDeletes(changes)
	for _, c := range changes {
		target := filepath.Join(dir, filepath.FromSlash(c.File.Path))
		created, err := mkdirAll(filepath.Dir(target))
		made = append(made, created...)
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("%s: %w", c.File.Path, err)
		}
		tmp, err := writeTemp(target, c.File.Data)
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("%s: %w", c.File.Path, err)
		}
		temps = append(temps, tmp)
	}
	for i, c := range changes {
		target := filepath.Join(dir, filepath.FromSlash(c.File.Path))
		if err := os.Rename(temps[i], target); err != nil {
			for _, t := range temps[i:] {
				os.Remove(t)
			}
			return nil, fmt.Errorf("%s: %w", c.File.Path, err)
		}
	}
	for _, c := range deletes {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(c.File.Path))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", c.File.Path, unwrapPathError(err))
		}
	}
	all := append(changes, deletes...)
	slices.SortFunc(all, func(a, b Change) int { return strings.Compare(a.File.Path, b.File.Path) })
	return all, nil
}

// splitDeletes separates the KindDelete changes from the others.
func splitDeletes(changes []Change) (writes, deletes []Change) {
	for _, c := range changes {
		if c.Kind == KindDelete {
			deletes = append(deletes, c)
		} else {
			writes = append(writes, c)
		}
	}
	return writes, deletes
}

// mkdirAll creates folder d and its missing parents, and returns those it
// created, outermost first.
func mkdirAll(d string) ([]string, error) {
	var missing []string
	for p := d; ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	slices.Reverse(missing)
	for i, p := range missing {
		if err := os.Mkdir(p, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return missing[:i], err
		}
	}
	return missing, nil
}

// writeTemp writes data to a new temporary file next to target, with
// target's permissions when it exists (0644 otherwise), and returns its name.
func writeTemp(target string, data []byte) (string, error) {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("not a regular file")
		}
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".idemgen-*")
	if err != nil {
		return "", unwrapPathError(err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", unwrapPathError(err)
	}
	return f.Name(), nil
}

// Diff returns the changes as a unified diff, as `idemgen check` prints it:
// each file under its path relative to the folder, a created file against
// /dev/null, a deleted one (an orphan) as going to /dev/null. It returns nil
// when there are no changes.
func Diff(changes []Change) []byte {
	var out []byte
	for _, c := range changes {
		oldName, newName := c.File.Path, c.File.Path
		if c.Old == nil {
			oldName = "/dev/null"
		}
		if c.Kind == KindDelete {
			newName = "/dev/null"
		}
		d := diff.Diff(oldName, c.Old, newName, c.File.Data)
		if d == nil && c.Old == nil {
			// An empty file created: no lines differ, but it is a change.
			d = fmt.Appendf(nil, "diff %s %s\n--- %s\n+++ %s\n", oldName, c.File.Path, oldName, c.File.Path)
		}
		out = append(out, d...)
	}
	return out
}
