package generator

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"path/filepath"

	"github.com/idemkit/idem/spec/modfs"
)

// Tree is the output of one spec, for PlanAll and WriteAll: its files, as
// Generate returns them, relative to Dir (the spec's folder), and the
// folders it owns (see Plan).
type Tree struct {
	Dir   string
	Files []File
	Owned []string
	// Name names the tree in errors about another tree (the spec's path);
	// Dir when empty.
	Name string
	// KeepOrphan, when set, reports whether WriteAll must not delete the
	// orphan at path (relative to Dir) yet: it empties the file instead
	// (a KindEmpty change), which the next run deletes. idemgen sets it
	// under go generate, which reads every Go file of a package it listed
	// before running the directives and stops when one has gone.
	KeepOrphan func(path string) bool
}

func (t Tree) name() string {
	if t.Name != "" {
		return filepath.ToSlash(t.Name)
	}
	return filepath.ToSlash(t.Dir)
}

// FileError is a problem with one file of a tree in Plan, Write, PlanAll or
// WriteAll.
type FileError struct {
	Tree int    // the index of the tree (0 for Plan and Write)
	Path string // the file, relative to the tree's Dir; "" when the problem is the tree's
	Err  error
}

// Error returns "path: problem", or the problem alone without a path.
func (e *FileError) Error() string {
	if e.Path == "" {
		return e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

// Unwrap returns the problem.
func (e *FileError) Unwrap() error { return e.Err }

// PlanAll is Plan for the output of several specs at once, as one run of
// idemgen writes it: each tree is planned as Plan does, and the trees are
// checked against each other. A file that two trees write is written once
// when both give it the same content and is an error otherwise; a new
// migration whose version another tree's new migration takes in the same
// folder is an error; an orphan that another tree writes is not deleted.
// The changes are returned per tree, in the order of trees; all errors are
// reported at once, as one error wrapping a *FileError for each.
func PlanAll(trees []Tree) ([][]Change, error) {
	work, err := planAll(trees)
	closeAll(work)
	if err != nil {
		return nil, err
	}
	return changesOf(work), nil
}

// WriteAll carries out PlanAll: nothing is written unless every tree plans
// cleanly and agrees with the others. An orphan its tree's KeepOrphan keeps
// is emptied, not deleted (KindEmpty), unless it was emptied before. Then the temporary files of every
// tree are written before any is renamed over its target, as Write does for
// one tree, so that an error while writing leaves every tree as it was.
func WriteAll(trees []Tree) ([][]Change, error) {
	work, err := planAll(trees)
	defer closeAll(work)
	if err != nil {
		return nil, err
	}
	for i, w := range work {
		keep := trees[i].KeepOrphan
		for j, c := range w.changes {
			if c.Kind == KindDelete && keep != nil && !isEmptied(c.Old) && keep(c.File.Path) {
				c.Kind = KindEmpty
				c.File.Data = emptied(c.File.Path, c.Old)
				w.changes[j] = c
			}
		}
	}
	if err := commit(work); err != nil {
		return nil, err
	}
	return changesOf(work), nil
}

func closeAll(work []pending) {
	for _, w := range work {
		if w.t != nil {
			w.t.Close()
		}
	}
}

func changesOf(work []pending) [][]Change {
	out := make([][]Change, len(work))
	for i, w := range work {
		out[i] = w.changes
	}
	return out
}

// planAll opens and plans every tree, then checks them against each other.
// The trees it opened are in the result, even with an error.
func planAll(trees []Tree) ([]pending, error) {
	work := make([]pending, len(trees))
	var errs []error
	for i, tr := range trees {
		work[i].index = i
		t, err := modfs.Open(tr.Dir)
		if err != nil {
			errs = append(errs, &FileError{Tree: i, Err: err})
			continue
		}
		work[i].t = t
		changes, ferrs := plan(t, tr.Files, tr.Owned)
		for _, e := range ferrs {
			e.Tree = i
			errs = append(errs, e)
		}
		work[i].changes = changes
	}
	if len(errs) == 0 {
		errs = across(trees, work)
	}
	if len(errs) > 0 {
		return work, errors.Join(errs...)
	}
	return work, nil
}

// across checks the trees against each other and drops the changes that
// another tree makes already: a file two trees write with the same
// content, and an orphan that another tree writes.
func across(trees []Tree, work []pending) []error {
	type owner struct {
		tree int
		file File
	}
	abs := func(i int, p string) string {
		d, err := filepath.Abs(trees[i].Dir)
		if err != nil {
			d = trees[i].Dir
		}
		return filepath.Join(d, filepath.FromSlash(p))
	}
	var errs []error
	written := map[string]owner{}
	dup := make([]map[string]bool, len(trees)) // per tree: files another tree writes first
	for i, tr := range trees {
		dup[i] = map[string]bool{}
		for _, f := range tr.Files {
			a := abs(i, f.Path)
			first, ok := written[a]
			switch {
			case !ok:
				written[a] = owner{i, f}
			case first.file.Mode == f.Mode && bytes.Equal(first.file.Data, f.Data):
				dup[i][f.Path] = true
			default:
				errs = append(errs, &FileError{Tree: i, Path: f.Path, Err: fmt.Errorf(
					"is also written, with other content, by %s: two specs of one run may share a file only when they agree on it; give each its own output and migrations.dir", trees[first.tree].name())})
			}
		}
	}
	// New migrations of one version in one folder, from different trees,
	// under names the other tree does not write too.
	type slot struct {
		folder  string
		version int
	}
	type migration struct {
		tree      int
		abs, path string
	}
	lists := make([]map[string]bool, len(trees)) // per tree: the absolute paths it writes
	for i, tr := range trees {
		lists[i] = map[string]bool{}
		for _, f := range tr.Files {
			lists[i][abs(i, f.Path)] = true
		}
	}
	slots := map[slot][]migration{}
	var order []migration
	for i, w := range work {
		for _, c := range w.changes {
			if c.Kind != KindCreate || c.File.Mode != ModeMigration {
				continue
			}
			v, ok := migrationVersion(path.Base(c.File.Path))
			if !ok {
				continue
			}
			m := migration{i, abs(i, c.File.Path), c.File.Path}
			k := slot{filepath.Dir(m.abs), v}
			slots[k] = append(slots[k], m)
			order = append(order, m)
		}
	}
	for _, m := range order {
		v, _ := migrationVersion(path.Base(m.path))
		for _, o := range slots[slot{filepath.Dir(m.abs), v}] {
			if o.tree >= m.tree || lists[m.tree][o.abs] || lists[o.tree][m.abs] { // the later tree is at fault
				continue
			}
			errs = append(errs, &FileError{Tree: m.tree, Path: m.path, Err: fmt.Errorf(
				"migration version %d is also taken by %s in the same folder, which %s writes; give the specs their own migrations.dir, or set migrations.version to a free version", v, path.Base(o.path), trees[o.tree].name())})
			break
		}
	}
	for i := range work {
		kept := work[i].changes[:0]
		for _, c := range work[i].changes {
			_, other := written[abs(i, c.File.Path)]
			if dup[i][c.File.Path] || c.Kind == KindDelete && other {
				continue
			}
			kept = append(kept, c)
		}
		work[i].changes = kept
	}
	return errs
}
