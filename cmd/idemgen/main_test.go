package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/idemkit/idem/cmd/idemgen/internal/cli"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/script/*.txtar")

// TestMain makes this test binary double as idemgen, so that the scripts
// run the real command (exec idemgen …) in a process of its own.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"idemgen": func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScript runs the CLI scripts of testdata/script (idemgen_*.txtar).
func TestScript(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(root, "testdata", "script"),
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"replace": cmdReplace,
		},
		Setup: func(env *testscript.Env) error {
			// For scripts that build against this checkout with the go
			// command (go tool idemgen): the module, and the go command's
			// caches and proxy of this machine.
			env.Setenv("IDEM_ROOT", root)
			for _, name := range []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOPROXY"} {
				v, err := goEnv(name)
				if err != nil {
					return err
				}
				env.Setenv(name, v)
			}
			env.Setenv("GOTOOLCHAIN", "local")
			return nil
		},
	})
}

// goEnv returns the go command's setting name.
func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// cmdReplace is the script command "replace file old new": it replaces the
// first old in file with new (the way a hand edit changes one line), and
// fails when file does not contain old. The strings may use \n for newlines.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace file old new")
	}
	name := ts.MkAbs(args[0])
	data, err := os.ReadFile(name)
	ts.Check(err)
	old := strings.ReplaceAll(args[1], `\n`, "\n")
	repl := strings.ReplaceAll(args[2], `\n`, "\n")
	if !strings.Contains(string(data), old) {
		ts.Fatalf("%s does not contain %q", args[0], old)
	}
	ts.Check(os.WriteFile(name, []byte(strings.Replace(string(data), old, repl, 1)), 0o666))
}
