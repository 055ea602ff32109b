package generator

import (
	"cmp"
	"fmt"
	"path"
	"runtime"
	"slices"
	"sync"

	"github.com/idemkit/idem/spec"
)

// Mode says how a generated file is written.
type Mode int

const (
	// ModeGenerated files are rewritten whenever their content changes.
	ModeGenerated Mode = iota
	// ModeStub files are written when missing and never overwritten: once
	// written they belong to the user.
	ModeStub
	// ModeMigration files are immutable: a missing one is written, an
	// existing one with different content is an error.
	ModeMigration
)

// String returns "generated", "stub" or "migration".
func (m Mode) String() string {
	switch m {
	case ModeGenerated:
		return "generated"
	case ModeStub:
		return "stub"
	case ModeMigration:
		return "migration"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// File is one file idemgen writes.
type File struct {
	// Path is slash-separated and relative to the spec's folder (spec.Dir).
	Path string
	Data []byte
	Mode Mode
}

// Generate returns the files for s: per consumer the generated handler and
// the stub of its effect method in s.Output, the package-wide API
// (HandlersFile) and the stub of the type that implements it (ServiceFile)
// there too, and the migrations of the dedup table in
// s.Migrations.Dir when a consumer keeps its records in SQL. The result is
// deterministic and sorted by Path. Names that would collide in the
// generated package are reported as a spec.ErrorList positioned at the
// consumers involved.
func Generate(s *spec.Spec) ([]File, error) {
	return GenerateWith(s, Options{})
}

// Options tune GenerateWith.
type Options struct {
	// StubExists, when set, reports whether the stub at path (slash path
	// relative to the spec's folder) already exists. Such a stub is never
	// written or compared (Plan), so GenerateWith returns it with nil Data
	// instead of rendering it: idemgen check and generate skip that work.
	StubExists func(path string) bool
}

// GenerateWith is Generate with options.
func GenerateWith(s *spec.Spec, o Options) ([]File, error) {
	if s == nil {
		return nil, fmt.Errorf("generator: nil spec")
	}
	for i, c := range s.Consumers {
		if c.Message.Type != "" && c.Message.Resolved == nil {
			return nil, fmt.Errorf("generator: consumers[%d] %q: message.type %s is not resolved (load the spec with spec.Load, or call spec.Resolve)", i, c.Name, c.Message.Type)
		}
	}
	// A Spec built or edited by a program gets the checks of Parse that the
	// generated code depends on: no string outside its grammar reaches the
	// output.
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := checkNames(s); err != nil {
		return nil, err
	}
	pkgPath := outputImportPath(s)

	// Each consumer's two Go files are independent: render them in parallel,
	// each into its own slot, so the order stays that of the spec.
	type result struct {
		files []File
		err   error
	}
	results := make([]result, len(s.Consumers))
	var wg sync.WaitGroup
	work := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(s.Consumers)) {
		wg.Go(func() {
			for i := range work {
				files, err := consumerFiles(s, i, pkgPath, o.StubExists)
				results[i] = result{files, err}
			}
		})
	}
	for i := range s.Consumers {
		work <- i
	}
	close(work)
	wg.Wait()

	files, err := newPackageGen(s, pkgPath).files(o.StubExists)
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		files = append(files, r.files...)
	}
	migrations, err := migrationFiles(s)
	if err != nil {
		return nil, err
	}
	files = append(files, migrations...)
	slices.SortFunc(files, func(a, b File) int { return cmp.Compare(a.Path, b.Path) })
	for i := 1; i < len(files); i++ {
		if files[i].Path == files[i-1].Path {
			return nil, fmt.Errorf("generator: two files at %s", files[i].Path)
		}
	}
	return files, nil
}

// consumerFiles renders the handler and the stub of s.Consumers[i]; a stub
// for which stubExists reports true is returned unrendered (nil Data).
func consumerFiles(s *spec.Spec, i int, pkgPath string, stubExists func(string) bool) ([]File, error) {
	g := newConsumerGen(s, i, pkgPath)
	handler, err := g.handlerFile()
	if err != nil {
		return nil, fmt.Errorf("generator: consumer %s: %w", g.c.Name, err)
	}
	dir := path.Clean(s.Output)
	stubPath := path.Join(dir, g.c.Name+"_apply.go")
	var stub []byte
	if stubExists == nil || !stubExists(stubPath) {
		if stub, err = g.stubFile(); err != nil {
			return nil, fmt.Errorf("generator: consumer %s: %w", g.c.Name, err)
		}
	}
	return []File{
		{Path: path.Join(dir, g.c.Name+"_idem.go"), Data: handler, Mode: ModeGenerated},
		{Path: stubPath, Data: stub, Mode: ModeStub},
	}, nil
}
