package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const testSet = `
modules:
  - module: example.com/svc
    version: v1.0.0
    broker: nats
    why: test
  - module: example.com/other/v2
    version: v2.1.0
    broker: kafka
    why: test
    patterns: ["./consumer/..."]
  - module: github.com/acme/shop
    version: 0123456789abcdef0123456789abcdef01234567
    repo: github.com/acme/shop
    broker: rabbitmq
    why: test
handlers:
  - id: svc-bug-1
    module: example.com/svc
    version: v1.0.0
    handler: "(*H).Handle"
    file: handler/h.go
    lines: [10, 20]
    also:
      - {file: store/store.go, lines: [5, 9]}
    broker: nats
    label: bug
    codes: [IDEM001]
    effect: insert
    reason: no dedup
    shape: [interface-effect]
  - id: svc-ok-1
    module: example.com/svc
    version: v1.0.0
    handler: "okHandler"
    file: handler/ok.go
    lines: [1, 30]
    broker: nats
    label: ok
    reason: guarded
  - id: other-bug-1
    module: example.com/other/v2
    version: v2.1.0
    handler: "consume"
    file: consumer/c.go
    lines: [40, 60]
    broker: kafka
    label: bug
    codes: [IDEM002]
    reason: ack first
`

func TestParseSetInvalid(t *testing.T) {
	tests := []struct {
		name, from, to, want string
	}{
		{"bad label", "label: ok\n    reason: guarded", "label: maybe\n    reason: guarded", "neither bug nor ok"},
		{"bug without codes", "codes: [IDEM002]\n", "codes: []\n", "bug without codes"},
		{"unknown code", "codes: [IDEM002]", "codes: [IDEM009]", "unknown code"},
		{"bad span", "lines: [40, 60]", "lines: [60, 40]", "bad span"},
		{"unknown module", "module: example.com/other/v2\n    version: v2.1.0\n    handler", "module: example.com/nope\n    version: v2.1.0\n    handler", "not in modules"},
		{"duplicate id", "id: svc-ok-1", "id: svc-bug-1", "used twice"},
		{"unknown field", "reason: ack first", "reason: ack first\n    colour: red", "field colour not found"},
		{"unknown shape", "shape: [interface-effect]", "shape: [teleport]", "unknown shape"},
		{"repo not on github", "repo: github.com/acme/shop", "repo: gitlab.com/acme/shop", "not github.com/OWNER/NAME"},
		{"repo at a tag", "version: 0123456789abcdef0123456789abcdef01234567", "version: v1.2.0", "not a full commit hash"},
	}
	if _, err := ParseSet([]byte(testSet)); err != nil {
		t.Fatalf("valid set rejected: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(testSet, tt.from) {
				t.Fatalf("test set lacks %q", tt.from)
			}
			_, err := ParseSet([]byte(strings.Replace(testSet, tt.from, tt.to, 1)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestSplitPosnNormalize(t *testing.T) {
	tests := []struct {
		posn, root, file string
		line             int
	}{
		{"/abs/w/svc/handler/h.go:12:3", "/abs/w/svc", "handler/h.go", 12},
		{"/abs/w/svc/handler/h.go:12:3", "/abs/w/svc/", "handler/h.go", 12},
		{"handler/h.go:7:1", "/abs/w/svc", "handler/h.go", 7},
		{"./handler/h.go:7", "", "handler/h.go", 7},
		{"/elsewhere/svc/handler/h.go:9:2", "/abs/w/svc", "/elsewhere/svc/handler/h.go", 9},
		{"C:/w/x.go:3:4", "", "C:/w/x.go", 3},
		{"nopos", "", "nopos", 0},
	}
	for _, tt := range tests {
		file, line := splitPosn(tt.posn)
		if got := Normalize(file, tt.root); got != tt.file || line != tt.line {
			t.Errorf("%q root %q: got %q:%d, want %q:%d", tt.posn, tt.root, got, line, tt.file, tt.line)
		}
	}
}

func TestParseOutput(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		root  string
		want  []string // "code file:line"
		nerrs int
	}{
		{
			name: "single object, absolute path",
			data: `{"example.com/svc/handler": {"idemlint": [{"category": "IDEM001", "posn": "/abs/w/svc/handler/h.go:12:2", "end": "/abs/w/svc/handler/h.go:12:9", "message": "effect without dedup (IDEM001)", "related": [{"posn": "/abs/w/svc/store/store.go:6:1", "message": "here"}]}]}}`,
			root: "/abs/w/svc",
			want: []string{"IDEM001 handler/h.go:12"},
		},
		{
			name: "concatenated objects with vet headers and relative paths",
			data: "# example.com/svc/handler\n" +
				`{"example.com/svc/handler": {"idemlint": [{"category": "IDEM003", "posn": "handler/h.go:15:1", "message": "ack on failure (IDEM003)"}]}}` + "\n" +
				"# example.com/svc/store\n" +
				`{"example.com/svc/store": {"idemlint": [{"posn": "./store/store.go:8:4", "message": "insert (IDEM001)"}]}}` + "\n",
			want: []string{"IDEM003 handler/h.go:15", "IDEM001 store/store.go:8"},
		},
		{
			name: "objects on one line, text between, empty object",
			data: `{}{"p": {"idemlint": []}} some noise {"p": {"idemlint": [{"category": "IDEM002", "posn": "a.go:1:1", "message": "m"}]}}`,
			want: []string{"IDEM002 a.go:1"},
		},
		{
			name:  "analyzer error object",
			data:  `{"p": {"idemlint": {"error": "type-checking failed"}}}`,
			nerrs: 1,
		},
		{
			name:  "not JSON at all",
			data:  "go: downloading example.com/x v1.0.0\nbuild failed\n",
			nerrs: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, errs := ParseOutput([]byte(tt.data), "example.com/svc", tt.root)
			var got []string
			for _, f := range fs {
				got = append(got, f.Code+" "+f.File+":"+strconv.Itoa(f.Line))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
			if len(errs) != tt.nerrs {
				t.Errorf("errors %v, want %d", errs, tt.nerrs)
			}
		})
	}
}

func TestScoreEndToEnd(t *testing.T) {
	set, err := ParseSet([]byte(testSet))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, m := range []string{ModeStandalone, ModeVet} {
		if err := os.MkdirAll(filepath.Join(dir, m), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(mode, name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, mode, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// standalone: absolute paths under the recorded root. The svc bug is
	// found only through its also span, the ok handler is flagged (FP), and
	// one finding lies in no span. A non-IDEM category is ignored.
	write(ModeStandalone, "example.com_svc.root", "/abs/w/svc\n")
	write(ModeStandalone, "example.com_svc.rc", "3\n")
	write(ModeStandalone, "example.com_svc.json",
		`{"example.com/svc/store": {"idemlint": [{"category": "IDEM001", "posn": "/abs/w/svc/store/store.go:7:2", "message": "m (IDEM001)"}]}}`+
			`{"example.com/svc/handler": {"idemlint": [{"category": "IDEM004", "posn": "/abs/w/svc/handler/ok.go:30:1", "message": "m"}, {"category": "IDEM001", "posn": "/abs/w/svc/handler/other.go:3:1", "message": "m"}, {"category": "note", "posn": "/abs/w/svc/handler/h.go:11:1", "message": "m"}]}}`)
	write(ModeStandalone, "example.com_svc.stderr", "")
	write(ModeStandalone, "example.com_other_v2.root", "/abs/w/other")
	write(ModeStandalone, "example.com_other_v2.rc", "1")
	write(ModeStandalone, "example.com_other_v2.stderr", "idemlint: load failed\n")
	// vet: JSON on stderr, '#' headers, relative paths; the other module's
	// bug is found, svc's is not.
	write(ModeVet, "example.com_svc.json", "")
	write(ModeVet, "example.com_svc.stderr", "# example.com/svc/handler\n{}\n")
	write(ModeVet, "example.com_other_v2.stderr",
		"# example.com/other/v2/consumer\n"+`{"example.com/other/v2/consumer": {"idemlint": [{"category": "IDEM002", "posn": "consumer/c.go:41:5", "message": "ack before effect (IDEM002)"}]}}`+"\n")
	// the repository module has no handlers and no findings in either mode
	for _, m := range []string{ModeStandalone, ModeVet} {
		write(m, "github.com_acme_shop.root", "/abs/w/shop\n")
		write(m, "github.com_acme_shop.rc", "0\n")
		write(m, "github.com_acme_shop.json", "")
		write(m, "github.com_acme_shop.stderr", "")
	}

	tests := []struct {
		mode           string
		tp, fp, fn, tn int
		flagged        []bool
		unlabelled     int
		problems       int
	}{
		{ModeStandalone, 1, 1, 1, 0, []bool{true, true, false}, 1, 1},
		{ModeVet, 1, 0, 1, 1, []bool{false, false, true}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			fs, problems, err := ReadFindings(set, filepath.Join(dir, tt.mode))
			if err != nil {
				t.Fatal(err)
			}
			r := Score(set, fs)
			if r.TP != tt.tp || r.FP != tt.fp || r.FN != tt.fn || r.TN != tt.tn {
				t.Errorf("TP %d FP %d FN %d TN %d, want %d %d %d %d", r.TP, r.FP, r.FN, r.TN, tt.tp, tt.fp, tt.fn, tt.tn)
			}
			for i, row := range r.Rows {
				if row.Flagged != tt.flagged[i] {
					t.Errorf("%s flagged %v, want %v", row.Handler.ID, row.Flagged, tt.flagged[i])
				}
			}
			if len(r.Unlabelled) != tt.unlabelled {
				t.Errorf("unlabelled %v, want %d", r.Unlabelled, tt.unlabelled)
			}
			if len(problems) != tt.problems {
				t.Errorf("problems %v, want %d", problems, tt.problems)
			}
		})
	}

	var out bytes.Buffer
	md := filepath.Join(dir, "frag.md")
	if err := run(&out, false, false, "all", md, []string{writeSet(t, dir), dir}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"== mode standalone", "== mode vet", "precision 0.500", "handler/other.go:3 IDEM001"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, out.String())
		}
	}
	frag, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(frag), "| svc-bug-1 | bug | IDEM001 | true | IDEM001 | TP |") {
		t.Errorf("markdown lacks the svc-bug-1 row:\n%s", frag)
	}
}

func writeSet(t *testing.T, dir string) string {
	t.Helper()
	f := filepath.Join(dir, "set.yaml")
	if err := os.WriteFile(f, []byte(testSet), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestList(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, true, false, "all", "", []string{writeSet(t, t.TempDir())}); err != nil {
		t.Fatal(err)
	}
	want := "example.com/svc v1.0.0 example.com_svc - ./...\n" +
		"example.com/other/v2 v2.1.0 example.com_other_v2 - ./consumer/...\n" +
		"github.com/acme/shop 0123456789abcdef0123456789abcdef01234567 github.com_acme_shop github.com/acme/shop ./...\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestSets checks that the committed sets parse, validate, and are disjoint
// (dev, the former test set, and the fresh held-out set).
func TestSets(t *testing.T) {
	mods := map[string]string{}
	for _, name := range []string{"dev", "test", "fresh", "fresh2", "fresh3", "fresh4"} {
		file := filepath.Join("..", name+".yaml")
		if _, err := os.Stat(file); os.IsNotExist(err) {
			continue
		}
		set, err := LoadSet(file)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, m := range set.Modules {
			if other, ok := mods[m.Module]; ok {
				t.Errorf("module %s is in both %s and %s", m.Module, other, name)
			}
			mods[m.Module] = name
		}
	}
}
