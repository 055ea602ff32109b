package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/idemkit/idem/generator"
	"github.com/idemkit/idem/spec"
)

// TestStarterSpec checks that the spec of idemgen init is valid and
// declares the four classic consumers, and that it generates.
func TestStarterSpec(t *testing.T) {
	dir := t.TempDir()
	s, err := spec.Parse(filepath.Join(dir, "idem.yaml"), StarterSpec("orders", "postgres"))
	if err != nil {
		t.Fatalf("starter spec does not parse:\n%v", err)
	}
	var names []string
	for _, c := range s.Consumers {
		names = append(names, c.Name)
	}
	want := []string{"deduct_inventory", "add_points", "update_stats", "send_sms"}
	if !slices.Equal(names, want) {
		t.Errorf("consumers = %v, want %v", names, want)
	}
	if s.Package != "orders" {
		t.Errorf("package = %q, want orders", s.Package)
	}
	if _, err := generator.Generate(s); err != nil {
		t.Errorf("starter spec does not generate: %v", err)
	}
	// The commented-out redis consumer is valid too once uncommented.
	uncommented := strings.ReplaceAll(string(StarterSpec("orders", "postgres")), "  # - name: add_points_redis", "  - name: add_points_redis")
	uncommented = strings.ReplaceAll(uncommented, "\n  #   ", "\n    ")
	s, err = spec.Parse(filepath.Join(dir, "idem.yaml"), []byte(uncommented))
	if err != nil {
		t.Fatalf("starter spec with add_points_redis does not parse:\n%v\n%s", err, uncommented)
	}
	if n := len(s.Consumers); n != 5 || s.Consumers[4].HashTag != "user_id" {
		t.Errorf("uncommented add_points_redis not found: %d consumers", n)
	}
}

// TestStarterSpecDialects checks that init's spec names the dialect asked
// for and generates with it.
func TestStarterSpecDialects(t *testing.T) {
	for _, dialect := range dialects {
		t.Run(dialect, func(t *testing.T) {
			s, err := spec.Parse(filepath.Join(t.TempDir(), "idem.yaml"), StarterSpec("orders", dialect))
			if err != nil {
				t.Fatal(err)
			}
			if s.Dialect != dialect {
				t.Errorf("dialect = %q, want %q", s.Dialect, dialect)
			}
			if _, err := generator.Generate(s); err != nil {
				t.Errorf("starter spec for %s does not generate: %v", dialect, err)
			}
		})
	}
}

// TestStarterSpecLongPackage checks that a package name longer than the
// comment column still gives a valid spec.
func TestStarterSpecLongPackage(t *testing.T) {
	pkg := "a_rather_long_package_name_for_orders"
	s, err := spec.Parse(filepath.Join(t.TempDir(), "idem.yaml"), StarterSpec(pkg, "sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Package != pkg {
		t.Errorf("package = %q, want %q", s.Package, pkg)
	}
}

func TestGuessPackage(t *testing.T) {
	t.Setenv("GOPACKAGE", "")
	root := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("billing/a_test.go", "package billing_test\n")
	write("billing/b.go", "package payments\n")
	write("shipping/x.txt", "")
	write("Bad-Name/x.txt", "")

	for _, tc := range []struct{ dir, env, want string }{
		{"billing", "", "payments"},           // the package clause wins over the folder's name
		{"shipping", "", "shipping"},          // no .go file: the folder's name
		{"Bad-Name", "", "orders"},            // not a package name: the default
		{"billing", "generated", "generated"}, // go generate's $GOPACKAGE first
	} {
		t.Setenv("GOPACKAGE", tc.env)
		if got := guessPackage(filepath.Join(root, tc.dir)); got != tc.want {
			t.Errorf("guessPackage(%s) with GOPACKAGE=%q = %q, want %q", tc.dir, tc.env, got, tc.want)
		}
	}
}

func TestFindSpecs(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{
		"idem.yaml",
		"a/idem.yaml",
		"a/b/idem.yml",
		"a/b/idem.yaml",
		"a/testdata/idem.yaml",
		"vendor/x/idem.yaml",
		".hidden/idem.yaml",
		"_skip/idem.yaml",
		"nested/go.mod",
		"nested/idem.yaml",
		"c/not-idem.yaml",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	got, err := findSpecs(root)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		rel, _ := filepath.Rel(root, got[i])
		got[i] = filepath.ToSlash(rel)
	}
	want := []string{"a/b/idem.yaml", "a/b/idem.yml", "a/idem.yaml", "idem.yaml"}
	if !slices.Equal(got, want) {
		t.Errorf("findSpecs = %v, want %v", got, want)
	}

	// A nested module is searched when it is the root of the pattern.
	got, err = findSpecs(filepath.Join(root, "nested"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Errorf("findSpecs(nested) = %v, want its idem.yaml", got)
	}
}

func TestModuleVersion(t *testing.T) {
	for _, tc := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"main module released", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v1.2.3"}}, "v1.2.3"},
		{"main module from a checkout", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}, "(devel)"},
		{"tool of another module", debug.BuildInfo{
			Main: debug.Module{Path: "example.com/app", Version: "(devel)"},
			Deps: []*debug.Module{{Path: "gopkg.in/yaml.v3", Version: "v3.0.1"}, {Path: modulePath, Version: "v0.4.0"}},
		}, "v0.4.0"},
		{"tool replaced by a folder", debug.BuildInfo{
			Main: debug.Module{Path: "example.com/app"},
			Deps: []*debug.Module{{Path: modulePath, Version: "v0.4.0", Replace: &debug.Module{Path: "../idem"}}},
		}, "(devel)"},
		{"tool replaced by a fork", debug.BuildInfo{
			Main: debug.Module{Path: "example.com/app"},
			Deps: []*debug.Module{{Path: modulePath, Version: "v0.4.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v0.4.1"}}},
		}, "v0.4.1"},
		{"not found", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}}, "(devel)"},
	} {
		if got := moduleVersion(&tc.info); got != tc.want {
			t.Errorf("%s: moduleVersion = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestMainInProcess runs a few commands in process, for coverage of the
// paths testscript exercises in a subprocess.
func TestMainInProcess(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"help"}, nil, &stdout, &stderr); code != ExitOK || !strings.Contains(stdout.String(), "Exit status") {
		t.Errorf("help: exit %d, stdout %q", code, stdout.String())
	}
	stdout.Reset()
	if code := Main([]string{"frobnicate"}, nil, &stdout, &stderr); code != ExitUsage {
		t.Errorf("unknown command: exit %d, want %d", code, ExitUsage)
	}
	if got, want := stderr.String(), "idemgen: unknown command \"frobnicate\"\nrun 'idemgen help' for usage\n"; got != want {
		t.Errorf("unknown command: stderr %q, want %q", got, want)
	}
}
