package spec

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestParseBounded: whatever a spec's aliases and merge keys expand to, Parse
// reads at most maxNodes nodes and reports at most maxErrors errors (and a
// line for the rest), quickly.
func TestParseBounded(t *testing.T) {
	many := func(n int, f func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = f(i)
		}
		return strings.Join(parts, ", ")
	}
	tests := []struct {
		name string
		src  string
		want []string // lines the errors must contain
		not  string   // what they must not contain
	}{
		{
			// 62 KB: 3000 consumers merging 3000 unknown fields each.
			"merge of many unknown fields",
			"version: 1\npackage: p\ndialect: sqlite\nx: &b {" + many(3000, func(i int) string { return fmt.Sprintf("k%d: 1", i) }) + "}\nconsumers:\n" +
				strings.Repeat("  - <<: *b\n", 3000),
			[]string{"the spec expands to more than 250000 YAML nodes", "fuzz.yaml: too many errors: "},
			"",
		},
		{
			"many merges of valid settings",
			"version: 1\npackage: p\ndialect: sqlite\nx: [" + many(5000, func(i int) string { return fmt.Sprintf("&m%d {effect: sql}", i) }) + "]\n" +
				"ms: &ms [" + many(5000, func(i int) string { return fmt.Sprintf("*m%d", i) }) + "]\nconsumers:\n" +
				strings.Repeat("  - {name: a, message: {fields: {id: string}}, key: [id], <<: *ms}\n", 100),
			[]string{"the spec expands to more than 250000 YAML nodes"},
			"",
		},
		{
			"billion laughs",
			"version: 1\npackage: p\na0: &a0 [x,x,x,x,x,x,x,x,x,x]\n" + func() string {
				var b strings.Builder
				for i := 1; i < 10; i++ {
					fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, many(10, func(int) string { return fmt.Sprintf("*a%d", i-1) }))
				}
				return b.String()
			}() + "consumers: *a9\n",
			[]string{`fuzz.yaml:12:1: unknown field "a9"`},
			"",
		},
		{
			"the densest spec of 1 MiB is within the bound",
			dense(),
			[]string{`dialect: unknown dialect "oracle"`},
			"expands to more than",
		},
		{
			"larger than 1 MiB",
			"version: 1\n#" + strings.Repeat("x", 1<<20) + "\n",
			[]string{"fuzz.yaml:1:1: the spec is larger than 1 MiB"},
			"",
		},
		{
			"deep nesting",
			"version: 1\npackage: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n",
			[]string{"fuzz.yaml:2:1: yaml: exceeded max depth of 10000"},
			"",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := Parse("fuzz.yaml", []byte(tt.src))
			// Without the bound, the first case took 300 s and 4 GB.
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("Parse took %v", d)
			}
			if err == nil {
				t.Fatal("Parse accepted the spec")
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) > maxErrors+2 {
				t.Errorf("%d lines of errors, want at most %d", len(lines), maxErrors+2)
			}
			if tt.not != "" && strings.Contains(err.Error(), tt.not) {
				t.Errorf("errors contain %q:\n%s", tt.not, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("errors lack %q:\n%s", w, strings.Join(lines[max(0, len(lines)-3):], "\n"))
				}
			}
		})
	}
}

// TestParseEncodings: a byte order mark and CRLF line ends are read as the
// plain spec is; NUL bytes and invalid UTF-8 are positioned errors.
func TestParseEncodings(t *testing.T) {
	plain := "version: 1\npackage: p\ndialect: sqlite\nconsumers:\n  - name: a\n    message: {fields: {id: string}}\n    key: [id]\n    effect: sql\n"
	want, err := Parse("idem.yaml", []byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		"byte order mark": "\ufeff" + plain,
		"CRLF":            strings.ReplaceAll(plain, "\n", "\r\n"),
	} {
		got, err := Parse("idem.yaml", []byte(src))
		if err != nil || got.Consumers[0].KeyIdentity() != want.Consumers[0].KeyIdentity() || got.Package != want.Package {
			t.Errorf("%s: %v, %v", name, got, err)
		}
	}
	for name, tt := range map[string]struct{ src, want string }{
		"NUL":           {"version: 1\npackage: p\x00\n", "idem.yaml: yaml: control characters are not allowed"},
		"invalid UTF-8": {"version: 1\npackage: p\xff\n", "idem.yaml: yaml: invalid leading UTF-8 octet"},
		"tag escapes":   {"version: 1\npackage: !<tag:%1b[2J> x\n", `idem.yaml:2:10: package: expected a string, got "tag:\x1b[2J" "x"`},
	} {
		_, err := Parse("idem.yaml", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %s", name, err, tt.want)
		}
	}
}

// dense returns a spec of almost 1 MiB of consumers written out, which Parse
// must read whole: its only error is the dialect at the end of the file.
func dense() string {
	var b strings.Builder
	b.WriteString("version: 1\npackage: p\nconsumers:\n")
	for i := 0; b.Len() < 1<<20-400; i++ {
		fmt.Fprintf(&b, "  - {name: c_%d, message: {fields: {order_id: string, sku: string}}, key: [order_id, sku], fingerprint: [sku], effect: redis}\n", i)
	}
	b.WriteString("dialect: oracle\n")
	return b.String()
}
