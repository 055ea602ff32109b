package generator

import (
	"bytes"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/idemkit/idem/spec/modfs"
)

// The kinds of a Change.
const (
	KindCreate = "create" // the file is missing
	KindUpdate = "update" // the file exists with other content
	KindDelete = "delete" // a generated file that no consumer of the spec produces any more
	// KindEmpty is an orphan that WriteAll emptied instead of deleting it
	// (Tree.KeepOrphan): it holds idemgen's header, a build constraint that
	// no build satisfies and its package clause, and the next run deletes
	// it.
	KindEmpty = "empty"
)

// Change is a file that Write would create, update or delete.
type Change struct {
	File File   // for KindDelete, the orphan's path (Data is nil)
	Old  []byte // the current content; nil when the file is missing or Foreign
	Kind string // KindCreate, KindUpdate, KindDelete or KindEmpty
	// Foreign, for KindUpdate, says that the file on disk does not start
	// with idemgen's header: it is not a file idemgen wrote, so its content
	// is left out of Old and Diff shows none of it.
	Foreign bool
}

// isGenerated reports whether data starts with idemgen's header.
func isGenerated(data []byte) bool {
	return bytes.HasPrefix(data, []byte("// "+generatedHeader+"\n"))
}

// emptiedConstraint is the build constraint of an emptied orphan: no build
// includes the file, and so go generate does not read it.
const emptiedConstraint = "//go:build ignore"

// isEmptied reports whether data, a generated file, is an emptied orphan.
func isEmptied(data []byte) bool {
	return bytes.Contains(data, []byte("\n"+emptiedConstraint+"\n"))
}

// emptied returns what an orphan, old (a generated handler), is emptied
// to: idemgen's header, a build constraint no build satisfies, a comment
// and old's package clause.
func emptied(p string, old []byte) []byte {
	pkg := "main"
	if f, err := parser.ParseFile(token.NewFileSet(), "", old, parser.PackageClauseOnly); err == nil {
		pkg = f.Name.Name
	}
	consumer := strings.TrimSuffix(path.Base(p), "_idem.go")
	return fmt.Appendf(nil, "// %s\n\n%s\n\n// The handler of consumer %s, which is gone from its spec, was here. idemgen\n// emptied the file instead of deleting it, because go generate, which ran\n// idemgen, still had to read it; the next idemgen run deletes it.\n\npackage %s\n",
		generatedHeader, emptiedConstraint, consumer, pkg)
}

// Plan compares files (as Generate returns them) with the folder dir, which
// their paths are relative to (the spec's folder), and returns what Write
// would do, sorted by path: a missing file is created; an existing generated
// file with other content is updated; an existing stub is never a change,
// whatever it holds. An existing migration with other content is an error,
// and so is a new migration whose version another .sql file in its folder
// already has; all errors are reported at once, as one error wrapping each.
//
// Files are read as package modfs reads them, in the tree of the module
// enclosing dir: only regular files, at most modfs.MaxFileSize bytes, never
// through a symbolic link (the file or a folder on its way), never outside
// the module's root. Any other file at a path of files is an error.
//
// owned names folders (slash-separated, relative to dir: the spec's output)
// that hold this spec's generated Go alone. A generated handler there (a
// *_idem.go file that starts with idemgen's header) that files does not
// list belongs to a consumer removed from the spec: Plan returns it as a
// KindDelete change. Its apply stub is the user's and stays; migrations are
// never deleted. A folder two specs write into must not be named.
// Plan only reads.
//
// Errors about a file are *FileError values.
func Plan(dir string, files []File, owned ...string) ([]Change, error) {
	changes, err := PlanAll([]Tree{{Dir: dir, Files: files, Owned: owned}})
	if err != nil {
		return nil, err
	}
	return changes[0], nil
}

// plan is Plan in the opened tree t; its errors have Tree 0.
func plan(t *modfs.Tree, files []File, owned []string) ([]Change, []*FileError) {
	var changes []Change
	var errs []*FileError
	seen := map[string]bool{}
	for _, f := range files {
		if err := checkPath(f.Path); err != nil {
			errs = append(errs, &FileError{Err: err})
			continue
		}
		if seen[f.Path] {
			errs = append(errs, &FileError{Path: f.Path, Err: errors.New("listed twice")})
			continue
		}
		seen[f.Path] = true
		var old []byte
		var err error
		if f.Mode == ModeStub {
			// An existing stub is the user's: only its kind matters.
			_, err = t.Lstat(f.Path)
		} else {
			old, err = t.ReadFile(f.Path, modfs.MaxFileSize)
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changes = append(changes, Change{File: f, Kind: KindCreate})
		case err != nil:
			errs = append(errs, &FileError{Path: f.Path, Err: fmt.Errorf("%w%s", modfs.Reason(err), refusedHint(f.Mode, err))})
		case f.Mode == ModeStub || bytes.Equal(old, f.Data):
		case f.Mode == ModeMigration:
			errs = append(errs, &FileError{Path: f.Path, Err: errors.New("the migration exists with other content; an applied migration is never rewritten: restore it (git checkout), or undo the spec change that altered it (table, dialect, migrations settings)")})
		case !isGenerated(old):
			changes = append(changes, Change{File: f, Kind: KindUpdate, Foreign: true})
		default:
			changes = append(changes, Change{File: f, Old: old, Kind: KindUpdate})
		}
	}
	errs = append(errs, checkVersions(t, changes)...)
	orphans, err := orphans(t, files, owned)
	if err != nil {
		errs = append(errs, err)
	}
	changes = append(changes, orphans...)
	if len(errs) > 0 {
		return nil, errs
	}
	sortChanges(changes)
	return changes, nil
}

func sortChanges(changes []Change) {
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.File.Path, b.File.Path) })
}

// refusedHint says what to do about a file Plan refuses to read.
func refusedHint(m Mode, err error) string {
	if !errors.Is(err, modfs.ErrLink) && !errors.Is(err, modfs.ErrNotRegular) {
		return ""
	}
	switch m {
	case ModeGenerated:
		return "; remove it, and idemgen generate writes the file in its place"
	case ModeStub:
		return "; put the apply function's file itself there (or remove it, and idemgen generate writes a new stub)"
	}
	return "; put the migration itself there (git checkout)"
}

// orphans returns the generated handlers in the owned folders that files
// does not list.
func orphans(t *modfs.Tree, files []File, owned []string) ([]Change, *FileError) {
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
		entries, err := t.ReadDir(folder)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &FileError{Path: folder, Err: modfs.Reason(err)}
		}
		for _, e := range entries {
			p := path.Join(folder, e.Name())
			if !e.Type().IsRegular() || !handlerName.MatchString(e.Name()) || listed[p] {
				continue
			}
			old, err := t.ReadFile(p, modfs.MaxFileSize)
			if err != nil {
				return nil, &FileError{Path: p, Err: modfs.Reason(err)}
			}
			if isGenerated(old) {
				out = append(out, Change{File: File{Path: p, Mode: ModeGenerated}, Old: old, Kind: KindDelete})
			}
		}
	}
	return out, nil
}

// handlerName matches the file names of generated handlers: a consumer's
// name (snake_case) and _idem.go. No other file is an orphan, so none with
// a name that is not plain text is ever deleted or printed.
var handlerName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*_idem\.go$`)

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

// shown returns p, a path read from the disk, as errors print it: quoted
// unless it is plain text.
func shown(p string) string {
	if strings.ContainsFunc(p, func(r rune) bool { return r <= ' ' || isControl(r) || r == '"' }) {
		return strconv.Quote(p)
	}
	return p
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
func checkVersions(t *modfs.Tree, changes []Change) []*FileError {
	mine := map[string]bool{}
	for _, c := range changes {
		mine[c.File.Path] = true
	}
	var errs []*FileError
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
			entries, _ = t.ReadDir(folder)
			listed[folder] = entries
		}
		for _, e := range entries {
			other := path.Join(folder, e.Name())
			if w, ok := migrationVersion(e.Name()); ok && w == v && !mine[other] && !e.IsDir() {
				errs = append(errs, &FileError{Path: c.File.Path, Err: fmt.Errorf("migration version %d is taken by %s; remove that file if it was never applied, or set migrations.version to a free version", v, shown(other))})
			}
		}
	}
	return errs
}

// Write carries out Plan in dir: it creates and updates the changed files,
// and the folders they need, deletes the orphans, and returns the changes.
// Nothing is written unless every check of Plan passes. Each file is written
// to a temporary file in its folder first and renamed over the target only
// when all temporary files are written, so an error while writing (a full
// disk) leaves the tree as it was; a failing rename, after the first, leaves
// the files renamed before it in place. Like Plan, Write never goes through
// a symbolic link or outside the module.
func Write(dir string, files []File, owned ...string) ([]Change, error) {
	changes, err := WriteAll([]Tree{{Dir: dir, Files: files, Owned: owned}})
	if err != nil {
		return nil, err
	}
	return changes[0], nil
}

// pending are the changes to make in one tree, the index-th of its run.
type pending struct {
	index   int
	t       *modfs.Tree
	changes []Change
}

// commit makes the changes of every tree: first every temporary file (and
// the folders they need), then the renames, then the deletions. An error
// before the renames removes what it made.
func commit(work []pending) error {
	type temp struct {
		w         pending
		tmp, path string
	}
	type folder struct {
		t    *modfs.Tree
		path string
	}
	var (
		made  []folder // folders created, outermost first
		temps []temp
	)
	cleanup := func() {
		for _, tm := range temps {
			tm.w.t.Remove(tm.tmp)
		}
		for _, d := range slices.Backward(made) {
			d.t.RemoveFolder(d.path)
		}
	}
	for _, w := range work {
		for _, c := range w.changes {
			if c.Kind == KindDelete {
				continue
			}
			created, err := w.t.MkdirAll(path.Dir(c.File.Path))
			for _, d := range created {
				made = append(made, folder{w.t, d})
			}
			if err != nil {
				cleanup()
				return &FileError{Tree: w.index, Path: c.File.Path, Err: modfs.Reason(err)}
			}
			mode := fs.FileMode(0o644)
			if fi, err := w.t.Lstat(c.File.Path); err == nil {
				mode = fi.Mode().Perm()
			}
			tmp, err := w.t.WriteTemp(c.File.Path, c.File.Data, mode)
			if err != nil {
				cleanup()
				return &FileError{Tree: w.index, Path: c.File.Path, Err: modfs.Reason(err)}
			}
			temps = append(temps, temp{w, tmp, c.File.Path})
		}
	}
	for i, tm := range temps {
		if err := tm.w.t.Rename(tm.tmp, tm.path); err != nil {
			for _, rest := range temps[i:] {
				rest.w.t.Remove(rest.tmp)
			}
			return &FileError{Tree: tm.w.index, Path: tm.path, Err: modfs.Reason(err)}
		}
	}
	for _, w := range work {
		for _, c := range w.changes {
			if c.Kind != KindDelete {
				continue
			}
			if err := w.t.Remove(c.File.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return &FileError{Tree: w.index, Path: c.File.Path, Err: modfs.Reason(err)}
			}
		}
	}
	return nil
}

// Diff returns the changes as a unified diff, as `idemgen check` prints it
// and git writes one: each file under its path, as the changes have it, with
// the prefix a/ on disk and b/ as generated; a created file against
// /dev/null ("new file"), a deleted one (an orphan) as going to /dev/null
// ("deleted file"). It returns nil when there are no changes.
func Diff(changes []Change) []byte {
	var out []byte
	for _, c := range changes {
		a, b := "a/"+c.File.Path, "b/"+c.File.Path
		oldName, newName := a, b
		header := fmt.Sprintf("diff --git %s %s\n", a, b)
		switch {
		case c.Foreign:
			// Not idemgen's file: whatever it holds (it may be anything a
			// link or a hand pointed there) is not shown.
			oldName = a + " (not written by idemgen: its content is not shown)"
		case c.Old == nil:
			oldName = "/dev/null"
			header += "new file mode 100644\n"
		}
		if c.Kind == KindDelete {
			newName = "/dev/null"
			header += "deleted file mode 100644\n"
		}
		// A hand may have put anything in an idemgen file: its control
		// characters are shown escaped, never sent to the terminal.
		old := c.Old
		if old != nil {
			old = []byte(escapeControl(string(old)))
		}
		d := diff.Diff(oldName, old, newName, c.File.Data)
		if d == nil {
			// An empty file created: no lines differ, but it is a change.
			d = fmt.Appendf(nil, "diff\n--- %s\n+++ %s\n", oldName, newName)
		}
		// git's header in place of the first line, "diff old new".
		_, body, _ := bytes.Cut(d, []byte("\n"))
		out = append(out, header...)
		out = append(out, body...)
	}
	return out
}
