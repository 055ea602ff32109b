package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/idemkit/idem/analyzer"
	"github.com/idemkit/idem/analyzer/rules"
)

// The whole-program driver's result cache: a run whose inputs are those of
// an earlier run — the same idemlint, Go, working directory, arguments and
// settings (the rules file's content included), the same source files of
// the program's own packages and the same versions of their dependencies
// — prints what the earlier run found, without loading the
// program from source. go vet caches its findings per package the same
// way. The cache lives in IDEMLINT_CACHE (default: idemlint under the user
// cache directory; "off" disables it) and keeps the most recent entries.

// cacheEntries bounds how many runs the cache remembers.
const cacheEntries = 64

// resultCache is the cache of one run; dir is "" when it is off.
type resultCache struct{ dir string }

func openCache() resultCache {
	dir := os.Getenv("IDEMLINT_CACHE")
	switch dir {
	case "off":
		return resultCache{}
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return resultCache{}
		}
		dir = filepath.Join(base, "idemlint")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return resultCache{}
	}
	return resultCache{dir: dir}
}

// cacheMode is what the key needs to know of the program: its packages,
// their files and modules. It compiles nothing (no export data, no cgo).
const cacheMode = packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedModule

// key returns the cache key of a run over patterns, whose packages and
// dependencies pkgs lists (cacheMode), "" when the cache is off or the
// inputs cannot all be read.
func (c resultCache) key(s standaloneArgs, cfg analyzer.Config, patterns, build []string, roots, pkgs []*packages.Package) string {
	if c.dir == "" || pkgs == nil {
		return ""
	}
	exe, err := executableHash()
	if err != nil {
		return ""
	}
	cwd, _ := os.Getwd()
	h := sha256.New()
	fmt.Fprintf(h, "idemlint cache 1\n%s\n%s\n%s\n%v\n%q\n%q\n%q\n", exe, runtime.Version(), cwd, s.tests, s.patterns, build, patterns)
	cj, _ := json.Marshal(cfg)
	fmt.Fprintf(h, "%s\n", cj)
	for _, k := range []string{"GOOS", "GOARCH", "GOFLAGS", "CGO_ENABLED", "GOEXPERIMENT", "GOWORK"} {
		fmt.Fprintf(h, "%s=%s\n", k, os.Getenv(k))
	}
	rulesPath := cfg.Rules
	if rulesPath == "" && len(roots) > 0 && len(roots[0].GoFiles) > 0 {
		rulesPath = rules.Find(filepath.Dir(roots[0].GoFiles[0]))
	}
	if rulesPath != "" && rulesPath != "off" {
		if err := hashFile(h, rulesPath); err != nil {
			fmt.Fprintf(h, "rules %s: %v\n", rulesPath, err)
		}
	}
	var all []*packages.Package
	packages.Visit(pkgs, nil, func(p *packages.Package) { all = append(all, p) })
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	for _, p := range all {
		fmt.Fprintf(h, "package %s %d\n", p.ID, len(p.Errors))
		switch m := p.Module; {
		case m == nil && p.PkgPath != "" && !strings.Contains(strings.SplitN(p.PkgPath, "/", 2)[0], "."):
			// The standard library: runtime.Version covers it.
			continue
		case m != nil && !m.Main && m.Replace == nil && m.Version != "":
			// A module from the module cache, which never changes.
			fmt.Fprintf(h, "module %s@%s\n", m.Path, m.Version)
			continue
		case m != nil && m.Replace != nil && m.Replace.Version != "":
			fmt.Fprintf(h, "module %s@%s\n", m.Replace.Path, m.Replace.Version)
			continue
		}
		// The program's own code, a local replacement, GOPATH: the files.
		for _, f := range append(append([]string(nil), p.GoFiles...), p.OtherFiles...) {
			if err := hashFile(h, f); err != nil {
				return ""
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func hashFile(w io.Writer, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(w, "file %s\n", name)
	_, err = io.Copy(w, f)
	return err
}

var (
	exeOnce sync.Once
	exeSum  string
	exeErr  error
)

// executableHash is the hash of the running idemlint, so that a new build
// never reuses an old one's results.
func executableHash() (string, error) {
	exeOnce.Do(func() {
		name, err := os.Executable()
		if err != nil {
			exeErr = err
			return
		}
		h := sha256.New()
		if exeErr = hashFile(h, name); exeErr == nil {
			exeSum = hex.EncodeToString(h.Sum(nil))
		}
	})
	return exeSum, exeErr
}

// cachedRun is a run's results as the cache keeps them.
type cachedRun struct {
	Stderr []string
	Failed bool
	Diags  []cachedDiag
}

type cachedDiag struct {
	ID  string
	Raw json.RawMessage
}

// get returns the results cached under key.
func (c resultCache) get(key string) (*results, bool) {
	if key == "" {
		return nil, false
	}
	data, err := os.ReadFile(filepath.Join(c.dir, key+".json"))
	if err != nil {
		return nil, false
	}
	var run cachedRun
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, false
	}
	res := &results{stderr: run.Stderr, failed: run.Failed}
	for _, cd := range run.Diags {
		d := &diagnostic{raw: cd.Raw, id: cd.ID}
		if err := json.Unmarshal(cd.Raw, d); err != nil {
			return nil, false
		}
		res.diags = append(res.diags, d)
	}
	now := time.Now()
	os.Chtimes(filepath.Join(c.dir, key+".json"), now, now) // recently used
	return res, true
}

// put caches res under key, atomically, and forgets the oldest entries.
func (c resultCache) put(key string, res *results) {
	if key == "" {
		return
	}
	run := cachedRun{Stderr: res.stderr, Failed: res.failed}
	for _, d := range res.diags {
		run.Diags = append(run.Diags, cachedDiag{ID: d.id, Raw: d.raw})
	}
	data, err := json.Marshal(run)
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(c.dir, "tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if err := os.Rename(tmp.Name(), filepath.Join(c.dir, key+".json")); err != nil {
		os.Remove(tmp.Name())
		return
	}
	c.trim()
}

// trim removes all but the cacheEntries most recently used entries.
func (c resultCache) trim() {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type entry struct {
		name string
		mod  time.Time
	}
	var es []entry
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			es = append(es, entry{e.Name(), fi.ModTime()})
		}
	}
	if len(es) <= cacheEntries {
		return
	}
	sort.Slice(es, func(i, j int) bool { return es[i].mod.After(es[j].mod) })
	for _, e := range es[cacheEntries:] {
		os.Remove(filepath.Join(c.dir, e.name))
	}
}
