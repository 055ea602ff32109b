package analyzer_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Floors of the realistic-module score, per -iface policy, over the 182
// labelled handlers of testdata/realmod (95 labelled bugs, 87 correct).
//
//	policy     handler-level P / R   code-level P / R
//	annotated  0.958 / 0.968         0.938 / 0.947   (2026-11-29, 182 handlers)
//	verbs      0.939 / 0.979         0.919 / 0.958
//
// History, so that the figures can be read honestly. Held-out sets were
// written by someone who had not read the analyzer, labelled and committed
// before idemlint was first run over them; labels were never changed after
// a run. Handler-level precision / recall of each set on its first run:
//
//	consumers/kafka, natsc, pgxc, rabbit, streams  41  0.870 / 0.833  (written with the analyzer)
//	consumers/heldout                              26  0.85  / 0.79   (held out)
//	consumers/heldout2                             44  0.778 / 0.808  (held out)
//	consumers/heldout3                             41  0.938 / 0.882  (held out)
//	consumers/heldout4                             30  0.857 / 0.857  (held out)
//
// The last two lines are the most honest estimate of idemlint on code it
// has not seen: about 0.86–0.94 precision, 0.86–0.88 recall. After each run the analyzer was fixed in general ways, each with
// analysistest cases (testdata/src/sqlcx): rows-affected dedup methods,
// Idempotency-Key decided by the caller, guarded goroutines, worker pools
// and whole batches not waited for before the ack, acks before guard's
// Do/Run, IDEM006 across repository methods and for check-then-act, keys
// new on every delivery (rand, the clock, a JetStream consumer sequence,
// through helpers: freshFact), go-redis command errors, poison messages
// parsed by local helpers, retry loops that test their error again, an
// outbox INSERT … DO NOTHING that guards nothing, auto-ack consumers with
// guarded effects, WATCH + EXISTS + MULTI, unique-violation checks kept in
// named results, a guard.Handler called directly, fetch helpers, boolean
// flags (UPDATE … WHERE NOT counted), forward-only upserts (DO UPDATE …
// WHERE t.pos < EXCLUDED.pos) and effects sent straight to a pool after a
// record written elsewhere. So no set is held out any more: a fifth one
// would be the next honest measurement.
//
// The remaining disagreements: three Redis handlers labelled ok
// (RedisStats, UpdateStatsDedup, RedisNXHandler) that idemlint reports as
// IDEM006, because SET NX and INCRBY are two commands and a crash between
// them loses the count (analysistest redisx.setNXThenIncr takes the same
// view; the analyzer's documentation lists SET NX as a dedup check without
// settling this);
// check-then-act labelled IDEM005, which needs -strict; SET NX then an SMS
// (ShippingTexter, labelled IDEM006: idemlint takes SET NX released on
// failure as an at-most-once dedup of an external call); a state looked up
// with SELECT … FOR UPDATE and compared as a string (CompensateStock);
// ConsumeWelcome (an
// unannotated interface with no implementation in the module: found only
// with -iface=verbs) and ConsumeIndex and SearchIndexer (an overwrite-by-id
// AddDocument, false alarms of verbs).
//
// Handler level: a handler is flagged when any finding falls inside it; a
// labelled bug that is flagged is a true positive whatever the code. Code
// level: a flagged handler counts only when one of its findings carries a
// code its label names; a flagged correct handler, or a bug flagged with
// other codes only, is a false positive. For the default policy the
// handler-level floors are the bar, precision 0.9 and recall 0.85;
// the other floors are the measured values minus about 0.05, so that a few
// more misses or false alarms among ~150 handlers pass and a regression
// does not.
var realmodFloors = map[string]struct{ handlerP, handlerR, codeP, codeR float64 }{
	"annotated": {0.90, 0.85, 0.89, 0.90},
	"verbs":     {0.90, 0.93, 0.88, 0.91},
}

// TestRealmod scores idemlint against the truth labels of the handlers in
// testdata/realmod, a module that compiles against the real client libraries
// (amqp091-go, sarama, kafka-go, nats.go, go-redis v9, pgx v5). It needs those
// modules: outside CI it skips when they cannot be downloaded; under CI=true it
// fails instead.
func TestRealmod(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemlint and loads a module with real dependencies")
	}
	mod, err := filepath.Abs("testdata/realmod")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	dl := exec.Command("go", "mod", "download")
	dl.Dir, dl.Env = mod, env
	if out, err := dl.CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("go mod download in testdata/realmod: %v\n%s", err, out)
		}
		t.Skipf("modules of testdata/realmod unavailable (no module cache, no proxy): %v\n%s", err, out)
	}
	bin := filepath.Join(t.TempDir(), "idemlint")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/idemlint").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	handlers := realmodLabels(t, mod)
	nbug := 0
	for _, h := range handlers {
		if h.bug {
			nbug++
		}
	}
	t.Logf("%d labelled handlers, %d bugs", len(handlers), nbug)

	for _, run := range []struct{ mode, policy string }{{"whole", "annotated"}, {"whole", "verbs"}, {"modular", "annotated"}, {"modular", "verbs"}} {
		policy := run.policy
		t.Run(run.mode+"/"+policy, func(t *testing.T) {
			args := []string{"-json", "-iface=" + policy, "./..."}
			if run.mode == "modular" {
				args = append([]string{"-modular"}, args...)
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir, cmd.Env = mod, env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatalf("idemlint: %v", err)
			}
			findings := parseJSONFindings(t, stdout.Bytes(), stderr.String())
			for i := range findings {
				if !filepath.IsAbs(findings[i].file) {
					findings[i].file = filepath.Join(mod, findings[i].file) // the whole-program driver prints relative paths
				}
			}
			codes := map[*labelled][]string{} // flagged handler → codes
			var outside []string
			for _, f := range findings {
				h := enclosing(handlers, f.file, f.line)
				if h == nil {
					outside = append(outside, f.posn+": "+f.category)
					continue
				}
				codes[h] = append(codes[h], f.category)
			}
			var hTP, hFP, cTP, cFP int
			for _, h := range handlers {
				cs, flagged := codes[h]
				switch {
				case !flagged:
					if h.bug {
						t.Logf("missed  %-28s want %s", h.name, strings.Join(h.codes, " "))
					}
					continue
				case !h.bug:
					hFP++
					cFP++
					t.Logf("false   %-28s got %s", h.name, strings.Join(cs, " "))
					continue
				}
				hTP++
				if overlap(cs, h.codes) {
					cTP++
				} else {
					cFP++
					t.Logf("code    %-28s got %s, want %s", h.name, strings.Join(cs, " "), strings.Join(h.codes, " "))
				}
			}
			// Findings outside any labelled handler are false alarms too.
			hFP += len(outside)
			cFP += len(outside)
			for _, o := range outside {
				t.Logf("outside %s", o)
			}
			ratio := func(a, b int) float64 {
				if b == 0 {
					return 1
				}
				return float64(a) / float64(b)
			}
			hP, hR := ratio(hTP, hTP+hFP), ratio(hTP, nbug)
			cP, cR := ratio(cTP, cTP+cFP), ratio(cTP, nbug)
			t.Logf("%s -iface=%s: handler level precision %.3f recall %.3f; code level precision %.3f recall %.3f (%d findings)",
				run.mode, policy, hP, hR, cP, cR, len(findings))
			fl := realmodFloors[policy]
			if hP < fl.handlerP || hR < fl.handlerR || cP < fl.codeP || cR < fl.codeR {
				t.Errorf("-iface=%s below the measured floors %+v", policy, fl)
			}
		})
	}
}

type labelled struct {
	name       string
	file       string
	start, end int // lines
	bug        bool
	codes      []string
}

var truthRE = regexp.MustCompile(`truth:\s*(ok|bug((?:\s+IDEM\d{3})+))`)

// realmodLabels reads the `// truth: …` comment of every function in mod.
func realmodLabels(t *testing.T, mod string) []*labelled {
	var out []*labelled
	fset := token.NewFileSet()
	err := filepath.WalkDir(mod, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Doc == nil {
				continue
			}
			m := truthRE.FindStringSubmatch(fd.Doc.Text())
			if m == nil {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				typ := fd.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					name = id.Name + "." + name
				}
			}
			out = append(out, &labelled{
				name:  name,
				file:  path,
				start: fset.Position(fd.Pos()).Line,
				end:   fset.Position(fd.End()).Line,
				bug:   m[1] != "ok",
				codes: strings.Fields(m[2]),
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("only %d labelled handlers in %s", len(out), mod)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].file+out[i].name < out[j].file+out[j].name })
	return out
}

func enclosing(hs []*labelled, file string, line int) *labelled {
	for _, h := range hs {
		if h.file == file && h.start <= line && line <= h.end {
			return h
		}
	}
	return nil
}

func overlap(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

type jsonFinding struct {
	posn, file, category string
	line                 int
}

// parseJSONFindings reads the -json output of the x/tools drivers:
// {"pkg": {"idemlint": [{"posn": …, "message": …, "category": …}] or {"error": …}}}.
func parseJSONFindings(t *testing.T, out []byte, stderr string) []jsonFinding {
	t.Helper()
	var fs []jsonFinding
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var tree map[string]map[string]json.RawMessage
		if err := dec.Decode(&tree); err != nil {
			t.Fatalf("idemlint -json: %v\n%s\n%s", err, out, stderr)
		}
		for pkg, byAnalyzer := range tree {
			for _, raw := range byAnalyzer {
				var diags []struct {
					Posn     string `json:"posn"`
					Category string `json:"category"`
				}
				if err := json.Unmarshal(raw, &diags); err != nil {
					t.Fatalf("%s: %s", pkg, raw)
				}
				for _, d := range diags {
					// posn is file:line:col
					i := strings.LastIndex(d.Posn, ":")
					j := strings.LastIndex(d.Posn[:i], ":")
					line, err := strconv.Atoi(d.Posn[j+1 : i])
					if err != nil {
						t.Fatalf("bad posn %q", d.Posn)
					}
					fs = append(fs, jsonFinding{posn: d.Posn, file: d.Posn[:j], category: d.Category, line: line})
				}
			}
		}
	}
	return fs
}
