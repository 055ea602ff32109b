//go:build quickstart

package quickstart_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// modulePath is the module the README's go get commands name.
const modulePath = "github.com/idemkit/idem"

// section is the heading of the README's quick start.
const section = "## Quick start in your own module"

// A step of the quick start, in README order: a ```sh block (commands,
// run by bash in the folder the previous block ended in), a file block
// (```go file=path: its content written to path), or an output block
// (```text output: what the previous sh block prints on stdout).
type step struct {
	kind string // "sh", "file" or "output"
	path string // for "file"
	text string
	line int // of the block's opening fence in README.md
}

var fence = regexp.MustCompile("^```(\\S*)(.*)$")

// parseSection returns the steps of the quick start and its text.
func parseSection(readme string) ([]step, string, error) {
	start := strings.Index(readme, "\n"+section+"\n")
	if start < 0 {
		return nil, "", fmt.Errorf("README.md: no %q section", section)
	}
	start++
	body := readme[start:]
	if end := strings.Index(body[len(section):], "\n## "); end >= 0 {
		body = body[:len(section)+end+1]
	}
	line0 := strings.Count(readme[:start], "\n") + 1
	var steps []step
	lines := strings.Split(body, "\n")
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		open := i
		var text []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			text = append(text, lines[i])
		}
		if i == len(lines) {
			return nil, "", fmt.Errorf("README.md:%d: unclosed code block", line0+open)
		}
		st := step{text: strings.Join(text, "\n") + "\n", line: line0 + open}
		info := strings.Fields(m[2])
		switch {
		case m[1] == "sh":
			st.kind = "sh"
		case m[1] == "text" && len(info) == 1 && info[0] == "output":
			st.kind = "output"
		case len(info) == 1 && strings.HasPrefix(info[0], "file="):
			st.kind, st.path = "file", strings.TrimPrefix(info[0], "file=")
		default:
			return nil, "", fmt.Errorf("README.md:%d: a block of the quick start is ```sh, ```text output or ```<lang> file=<path>, not %q", line0+open, lines[open])
		}
		steps = append(steps, st)
	}
	return steps, body, nil
}

// TestQuickStart follows the README's quick start in a fresh module, with
// this checkout served as github.com/idemkit/idem by a file proxy: every
// command must succeed and print what the README shows, the program must
// refuse the duplicate, and idemlint must be clean on the guarded code
// (exit 0) while it still reports an unguarded handler added to it.
func TestQuickStart(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps, text, err := parseSection(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	checkShape(t, steps, text, root)

	env := goEnv(t, root)
	cwd := t.TempDir()
	state := filepath.Join(t.TempDir(), "cwd")
	var last string // stdout of the last sh block
	for _, st := range steps {
		switch st.kind {
		case "sh":
			start := time.Now()
			cmd := exec.Command("bash", "-euo", "pipefail", "-c", st.text+`pwd > "$QUICKSTART_CWD"`+"\n")
			cmd.Dir = cwd
			cmd.Env = append(env, "QUICKSTART_CWD="+state)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			t.Logf("README.md:%d: %s(%s)", st.line, strings.ReplaceAll(st.text, "\n", "; "), time.Since(start).Round(time.Millisecond))
			if err != nil {
				t.Fatalf("README.md:%d: %v\n%s\n--- stdout\n%s--- stderr\n%s", st.line, err, st.text, stdout.String(), stderr.String())
			}
			dir, err := os.ReadFile(state)
			if err != nil {
				t.Fatal(err)
			}
			cwd, last = strings.TrimSpace(string(dir)), stdout.String()
		case "file":
			p := filepath.Join(cwd, filepath.FromSlash(st.path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(st.text), 0o644); err != nil {
				t.Fatal(err)
			}
		case "output":
			if last != st.text {
				t.Fatalf("README.md:%d: the command before printed\n%s\nnot, as the README says,\n%s", st.line, last, st.text)
			}
		}
	}

	// The clean run above means something: the same idemlint reports an
	// unguarded handler in the module (exit 3).
	naive := filepath.Join(cwd, "naive", "naive.go")
	if err := os.MkdirAll(filepath.Dir(naive), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(naive, []byte(naiveHandler), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "tool", "idemlint", "./...")
	cmd.Dir, cmd.Env = cwd, env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !bytes.Contains(out, []byte("(IDEM001)")) {
		t.Errorf("go tool idemlint ./... with an unguarded handler: %v, want exit 3 and IDEM001\n%s", err, out)
	}
}

// naiveHandler deducts stock for every delivery, duplicates included.
const naiveHandler = `package naive

import (
	"context"
	"database/sql"

	"github.com/nats-io/nats.go/jetstream"
)

func deduct(ctx context.Context, db *sql.DB, msg jetstream.Msg) error {
	if _, err := db.ExecContext(ctx, "UPDATE stock SET qty = qty - 1 WHERE sku = ?", string(msg.Data())); err != nil {
		return err
	}
	return msg.Ack()
}
`

// checkShape checks what the quick start must keep whatever its wording:
// the Go version it names is go.mod's, it installs both tools with go get
// -tool, it shows a duplicate refused, and it ends with idemlint.
func checkShape(t *testing.T, steps []step, text, root string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	goVersion := strings.Join(strings.SplitN(mf.Go.Version, ".", 3)[:2], ".")
	named := regexp.MustCompile(`\bGo (\d+\.\d+)\b`).FindAllStringSubmatch(text, -1)
	if len(named) == 0 {
		t.Errorf("the quick start names no Go version; go.mod has %s", goVersion)
	}
	for _, n := range named {
		if n[1] != goVersion {
			t.Errorf("the quick start names Go %s; go.mod has %s", n[1], goVersion)
		}
	}
	var commands []string
	duplicate := false
	for _, st := range steps {
		switch st.kind {
		case "sh":
			commands = append(commands, strings.Split(strings.TrimSpace(st.text), "\n")...)
		case "output":
			duplicate = duplicate || strings.Contains(st.text, ": duplicate\n")
		}
	}
	for _, want := range []string{"go get -tool " + modulePath + "/cmd/idemgen@", "go get -tool " + modulePath + "/cmd/idemlint@", "go generate ./..."} {
		found := false
		for _, c := range commands {
			found = found || strings.HasPrefix(c, want)
		}
		if !found {
			t.Errorf("the quick start has no command %s…", want)
		}
	}
	if !duplicate {
		t.Error("no output of the quick start shows a duplicate refused")
	}
	if len(commands) == 0 || commands[len(commands)-1] != "go tool idemlint ./..." {
		t.Error("the quick start does not end with go tool idemlint ./...")
	}
}

// goEnv returns the environment of the quick start's commands: this
// machine's go command, module and build caches, and GOPROXY=file://<a
// proxy serving this checkout as github.com/idemkit/idem>,
// https://proxy.golang.org, with GONOSUMDB for the module (the checksum
// database does not know this checkout).
func goEnv(t *testing.T, root string) []string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	machine := map[string]string{}
	for _, name := range []string{"GOPATH", "GOMODCACHE", "GOCACHE"} {
		out, err := exec.Command(goCmd, "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		machine[name] = strings.TrimSpace(string(out))
	}
	proxy := t.TempDir()
	version := serveModule(t, root, proxy)
	removeFromCache(t, machine["GOMODCACHE"], version)
	t.Cleanup(func() { removeFromCache(t, machine["GOMODCACHE"], version) })
	return []string{
		"PATH=" + filepath.Dir(goCmd) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"GOENV=off",
		"GOPATH=" + machine["GOPATH"],
		"GOMODCACHE=" + machine["GOMODCACHE"],
		"GOCACHE=" + machine["GOCACHE"],
		"GOPROXY=file://" + filepath.ToSlash(proxy) + ",https://proxy.golang.org",
		"GONOSUMDB=" + modulePath,
		"GOFLAGS=-modcacherw", // so that the cleanup can remove this version from the module cache
		"GOTOOLCHAIN=local",
		"GOWORK=off",
	}
}

// serveModule writes a file proxy in dir that serves the working tree of
// the checkout at root (its tracked files and the untracked ones git does
// not ignore) as modulePath at a pseudo-version named by the content's
// hash, as its only and latest version, and returns the version.
func serveModule(t *testing.T, root, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []zip.File
	h := sha256.New()
	for p := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		f := file{root: root, path: p}
		fi, err := f.Lstat()
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
		files = append(files, f)
	}
	stamp := time.Now().UTC()
	version := module.PseudoVersion("v0", "", stamp, hex.EncodeToString(h.Sum(nil))[:12])
	at := filepath.Join(dir, filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	var zipped bytes.Buffer
	if err := zip.Create(&zipped, module.Version{Path: modulePath, Version: version}, files); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, stamp})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		filepath.Join(at, "list"):                  nil, // no tagged version: @latest answers
		filepath.Join(at, version+".info"):         info,
		filepath.Join(at, version+".mod"):          gomod,
		filepath.Join(at, version+".zip"):          zipped.Bytes(),
		filepath.Join(filepath.Dir(at), "@latest"): info,
	} {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("serving %s@%s (%d files, %d KiB zipped) from %s", modulePath, version, len(files), zipped.Len()>>10, dir)
	return version
}

// file is a file of the checkout, for zip.Create.
type file struct{ root, path string }

func (f file) Path() string { return f.path }
func (f file) Lstat() (os.FileInfo, error) {
	return os.Lstat(filepath.Join(f.root, filepath.FromSlash(f.path)))
}
func (f file) Open() (io.ReadCloser, error) {
	return os.Open(filepath.Join(f.root, filepath.FromSlash(f.path)))
}

// removeFromCache removes modulePath at version from the module cache: its
// extracted tree and its downloads, and the version from the cache's list.
func removeFromCache(t *testing.T, cache, version string) {
	t.Helper()
	esc, err := module.EscapePath(modulePath)
	if err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(cache, filepath.FromSlash(esc)+"@"+version)
	filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755) // a tree extracted without -modcacherw is read-only
		}
		return nil
	})
	if err := os.RemoveAll(tree); err != nil {
		t.Errorf("removing %s from the module cache: %v", modulePath, err)
	}
	dl := filepath.Join(cache, "cache", "download", filepath.FromSlash(esc), "@v")
	matches, _ := filepath.Glob(filepath.Join(dl, version+".*"))
	for _, m := range matches {
		if err := os.Remove(m); err != nil {
			t.Errorf("removing %s from the module cache: %v", m, err)
		}
	}
	list := filepath.Join(dl, "list")
	if data, err := os.ReadFile(list); err == nil {
		var kept []string
		for v := range strings.Lines(string(data)) {
			if strings.TrimSpace(v) != version {
				kept = append(kept, v)
			}
		}
		os.WriteFile(list, []byte(strings.Join(kept, "")), 0o644)
		if len(kept) == 0 {
			os.Remove(list)
		}
	}
	// The folders the module's versions were in, if no other is left.
	for _, d := range []string{dl, filepath.Dir(dl), filepath.Dir(filepath.Dir(dl)), filepath.Dir(tree)} {
		os.Remove(d)
	}
}
