package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemkit/idem/analyzer/knowledge"
)

func TestParse(t *testing.T) {
	src := `version: 1
effects:
  - (*example.com/ledger.Client).Append
  - name: example.com/sms.Send
    kind: http
dedup:
  - name: (example.com/repo.Store).TryClaim
    true: duplicate
    key: id
guarded:
  - name: example.com/dedupe.Once
    arg: fn
    key: key
acks: [(*example.com/bus.Delivery).Done]
nacks: [(*example.com/bus.Delivery).Retry]
fetch: [(*example.com/bus.Consumer).Next]
messages:
  - example.com/bus.Delivery
  - name: example.com/bus.Event
    return_ack: true
handlers:
  - name: (*example.com/bus.Router).Register
    arg: handler
telemetry: [example.com/obs/...]
ignore: [(*example.com/audit.Log).Record]
`
	f, err := Parse("idemlint.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name string
		role knowledge.Role
	}{
		{"(*example.com/ledger.Client).Append", knowledge.Effect},
		{"example.com/sms.Send", knowledge.Effect},
		{"(example.com/repo.Store).TryClaim", knowledge.Dedup},
		{"example.com/dedupe.Once", knowledge.GuardInside},
		{"(*example.com/bus.Delivery).Done", knowledge.Ack},
		{"(*example.com/bus.Delivery).Retry", knowledge.Nack},
		{"(*example.com/bus.Consumer).Next", knowledge.Fetch},
		{"(*example.com/bus.Router).Register", knowledge.Register},
		{"example.com/obs/...", knowledge.Telemetry},
		{"(*example.com/audit.Log).Record", knowledge.Ignore},
	}
	if len(f.Rules) != len(want) {
		t.Fatalf("%d rules, want %d: %+v", len(f.Rules), len(want), f.Rules)
	}
	for i, w := range want {
		if r := f.Rules[i]; r.Name != w.name || r.Role != w.role || r.Pos == "" {
			t.Errorf("rule %d = %s %s at %q, want %s %s", i, r.Name, r.Role, r.Pos, w.name, w.role)
		}
	}
	if r := f.Rules[1]; r.Kind != knowledge.HTTP {
		t.Errorf("kind of %s = %v, want HTTP", r.Name, r.Kind)
	}
	if r := f.Rules[2]; r.Fresh != "duplicate" || r.Key != "id" {
		t.Errorf("dedup rule = %+v", r)
	}
	if r := f.Rules[3]; r.Arg != "fn" || r.Key != "key" {
		t.Errorf("guarded rule = %+v", r)
	}
	if f.Rules[0].Pos != "idemlint.yaml:3:5" {
		t.Errorf("position %q, want idemlint.yaml:3:5", f.Rules[0].Pos)
	}
	if len(f.Messages) != 2 || !f.Messages[1].ReturnAck || f.Messages[0].ReturnAck {
		t.Errorf("messages = %+v", f.Messages)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // each a line of the error, in order
	}{
		{"unknown section", "version: 1\neffect:\n  - a.B\n", []string{`idemlint.yaml:2:1: unknown section "effect"`}},
		{"version", "version: 2\n", []string{"idemlint.yaml:1:10: version: want 1"}},
		{"not a list", "effects: a.B\n", []string{"idemlint.yaml:1:10: effects: want a list"}},
		{"unknown key", "effects:\n  - name: a.B\n    kinds: sql\n", []string{`idemlint.yaml:3:5: effects[0]: unknown key "kinds" (want name, kind)`}},
		{"bad kind", "effects:\n  - name: a.B\n    kind: ftp\n", []string{`idemlint.yaml:3:11: effects[0].kind: want sql, redis, http, email, mongo or custom, not "ftp"`}},
		{"bad name", "acks:\n  - (a.B\n", []string{`idemlint.yaml:2:5: acks[0]: "(a.B": want (pkg.Type).Method`}},
		{"package where a function is wanted", "effects:\n  - example.com/pkg\n", []string{`idemlint.yaml:2:5: effects[0]: "example.com/pkg": want pkg.Func or (pkg.Type).Method, not a package`}},
		{"handler without arg", "handlers:\n  - name: a.Register\n", []string{"idemlint.yaml:2:5: handlers[0]: want arg, the parameter that takes the callback"}},
		{"dedup true", "dedup:\n  - name: a.Seen\n    true: maybe\n", []string{`idemlint.yaml:3:11: dedup[0].true: want fresh or duplicate, not "maybe"`}},
		{"message method", "messages:\n  - (a.B).C\n", []string{"idemlint.yaml:2:5: messages[0]: want a qualified type name (example.com/pkg.Type)"}},
		{"twice", "acks: [a.B]\nacks: [a.C]\n", []string{"idemlint.yaml:2:1: acks given twice"}},
		{"all at once", "effect: []\nacks:\n  - ''\n", []string{`idemlint.yaml:1:1: unknown section "effect"`, "idemlint.yaml:3:5: acks[0]: empty name"}},
		{"bad yaml", "effects:\n  - a\n b: [\n", []string{"idemlint.yaml:2:1: did not find expected key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("idemlint.yaml", []byte(tc.src))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("errors:\n%s\nwant %d lines starting %q", err, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("error %d = %q, want prefix %q", i, lines[i], w)
				}
			}
		})
	}
}

func TestParseEmpty(t *testing.T) {
	for _, src := range []string{"", "# nothing\n", "version: 1\n", "effects:\n"} {
		f, err := Parse("idemlint.yaml", []byte(src))
		if err != nil || len(f.Rules) != 0 {
			t.Errorf("%q: %v, %d rules", src, err, len(f.Rules))
		}
	}
}

func TestLoadAndFind(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Find(sub); got != "" {
		t.Errorf("Find without a rules file = %q", got)
	}
	path := filepath.Join(root, FileName)
	if err := os.WriteFile(path, []byte("acks: [a.B]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Find(sub); got != path {
		t.Errorf("Find = %q, want %q", got, path)
	}
	if f, err := Load(path); err != nil || len(f.Rules) != 1 {
		t.Errorf("Load = %v, %v", f, err)
	}
	// A rules file that is a symbolic link is refused.
	link := filepath.Join(root, "link.yaml")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Load of a link = %v", err)
	}
	big := filepath.Join(root, "big.yaml")
	if err := os.WriteFile(big, make([]byte, maxSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Load of a large file = %v", err)
	}
}
