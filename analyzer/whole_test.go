package analyzer_test

import (
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/idemkit/idem/analyzer"
	"github.com/idemkit/idem/analyzer/knowledge"
)

// checkWhole runs the whole-program check over the testdata packages named
// by patterns (GOPATH mode, like analysistest) and compares its findings
// with the `// want` comments of their files, as analysistest does for the
// modular analyzer: every expectation must match a finding on its line,
// and every finding must be expected. Fact expectations are ignored.
func checkWhole(t *testing.T, patterns ...string) {
	t.Helper()
	checkWholeWith(t, analyzer.Config{}, patterns...)
}

// checkWholeWith is checkWhole with settings.
func checkWholeWith(t *testing.T, c analyzer.Config, patterns ...string) {
	t.Helper()
	gopath, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	roots, prog := loadTestdata(t, gopath, patterns...)
	diags, err := analyzer.CheckProgram(prog, c)
	if err != nil {
		t.Fatal(err)
	}
	compareWant(t, gopath, roots, diags)
}

// loadWhole loads testdata packages as a whole program (see loadTestdata).
func loadWhole(t *testing.T, patterns ...string) []*packages.Package {
	gopath, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	_, prog := loadTestdata(t, gopath, patterns...)
	return prog
}

// loadTestdata loads the packages patterns name from testdata/src (GOPATH
// mode), with syntax for all; prog is the program CheckProgram is given:
// every loaded package but std's and the catalogued clients'.
func loadTestdata(t *testing.T, gopath string, patterns ...string) (roots, prog []*packages.Package) {
	t.Helper()
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps |
			packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedTypesSizes,
		Dir: filepath.Join(gopath, "src"),
		Env: append(os.Environ(), "GOPATH="+gopath, "GO111MODULE=off", "GOFLAGS=", "GOWORK=off"),
	}
	roots, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, p := range roots {
		named[p.PkgPath] = true
	}
	cat := knowledge.Default()
	packages.Visit(roots, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		first, _, _ := strings.Cut(p.PkgPath, "/")
		std := !strings.Contains(first, ".") && !named[p.PkgPath] && !isTestdataPkg(gopath, p.PkgPath)
		if !std && !cat.Described(p.PkgPath) {
			prog = append(prog, p)
		}
	})
	return roots, prog
}

// compareWant compares findings with the `// want` comments of the roots'
// files.
func compareWant(t *testing.T, gopath string, roots []*packages.Package, diags []analyzer.Finding) {
	t.Helper()
	fset := roots[0].Fset
	type key struct {
		file string
		line int
	}
	want := map[key][]*regexp.Regexp{}
	files := map[string]bool{}
	for _, p := range roots {
		for _, f := range p.Syntax {
			files[fset.File(f.Pos()).Name()] = true
			for _, cg := range f.Comments {
				for _, c := range cg.List {
					for _, re := range wantRegexps(t, fset, c) {
						pos := fset.Position(c.Pos())
						want[key{pos.Filename, pos.Line}] = append(want[key{pos.Filename, pos.Line}], re)
					}
				}
			}
		}
	}
	var unexpected []string
	for _, d := range diags {
		pos := fset.Position(d.Pos)
		if !files[pos.Filename] {
			continue
		}
		k := key{pos.Filename, pos.Line}
		matched := false
		for i, re := range want[k] {
			if re.MatchString(d.Message) {
				want[k] = append(want[k][:i], want[k][i+1:]...)
				matched = true
				break
			}
		}
		if !matched {
			unexpected = append(unexpected, fmt.Sprintf("%s:%d:%d: unexpected diagnostic: %s", rel(gopath, pos.Filename), pos.Line, pos.Column, d.Message))
		}
	}
	var missing []string
	for k, res := range want {
		for _, re := range res {
			missing = append(missing, fmt.Sprintf("%s:%d: no diagnostic matching %q", rel(gopath, k.file), k.line, re))
		}
	}
	sort.Strings(unexpected)
	sort.Strings(missing)
	for _, m := range append(unexpected, missing...) {
		t.Error(m)
	}
}

func rel(gopath, file string) string {
	if r, err := filepath.Rel(filepath.Join(gopath, "src"), file); err == nil {
		return r
	}
	return file
}

// isTestdataPkg reports whether path is a package of testdata/src.
func isTestdataPkg(gopath, path string) bool {
	_, err := os.Stat(filepath.Join(gopath, "src", path))
	return err == nil
}

var wantRe = regexp.MustCompile(`^//\s*want\s+(.*)$`)

// wantRegexps returns the expectations of a `// want` comment: its quoted
// or backquoted strings, not those of facts (name:"…").
func wantRegexps(t *testing.T, fset *token.FileSet, c *ast.Comment) []*regexp.Regexp {
	text := c.Text
	if i := strings.Index(text, "// want "); i > 0 {
		text = text[i:]
	}
	m := wantRe.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	rest := strings.TrimSpace(m[1])
	var out []*regexp.Regexp
	for rest != "" {
		fact := false
		if i := strings.IndexAny(rest, "\"`"); i > 0 && strings.HasSuffix(strings.TrimSpace(rest[:i]), ":") {
			fact = true
			rest = rest[i:]
		}
		if rest == "" || (rest[0] != '"' && rest[0] != '`') {
			break
		}
		q := rest[0]
		end := strings.IndexByte(rest[1:], q)
		for q == '"' && end >= 0 && rest[end] == '\\' {
			next := strings.IndexByte(rest[end+2:], q)
			if next < 0 {
				end = -1
				break
			}
			end += next + 1
		}
		if end < 0 {
			t.Errorf("%s: unterminated want", fset.Position(c.Pos()))
			break
		}
		lit := rest[:end+2]
		rest = strings.TrimSpace(rest[end+2:])
		if fact {
			continue
		}
		s, err := strconv.Unquote(lit)
		if err != nil {
			t.Errorf("%s: %v", fset.Position(c.Pos()), err)
			continue
		}
		re, err := regexp.Compile(s)
		if err != nil {
			t.Errorf("%s: %v", fset.Position(c.Pos()), err)
			continue
		}
		out = append(out, re)
	}
	return out
}

// TestWholeProgramSynthetic runs the whole-program check over the packages
// the modular analyzer is tested on, as one program: it must find what the
// modular analyzer finds there (every `// want` of those packages).
func TestWholeProgramSynthetic(t *testing.T) {
	checkWhole(t, "a", "rabbit", "smsdk", "shop", "saramax", "orders", "js", "redisx", "kafkago", "wm", "ps", "sqsx", "asynqx", "franz", "confluent", "rocket", "svc/pg", "svc", "realistic", "orm", "sqlcx",
		"nsqx", "pulsarx", "gocloudx", "riverx", "daprx", "microx", "azsbx", "sqsv1x", "redislist", "mailx", "notifyx", "entx", "entq", "bunx", "mqttx", "slackx", "popx", "statex", "stanx", "natscore", "bulkx", "grpcx", "archivex", "dpkafkax", "builderx", "lambdax", "clusterx", "bunconflict", "squirrelx", "gizmox", "rpcquery", "replacex", "inferx", "lockx", "republish", "gormv1x", "postgrestx",
		// Handlers found by a registration call only (Register rules apply
		// in this mode only).
		"machineryx", "kqx", "microsubx", "cqrsx", "slacksubx", "rpcx", "dropx", "reporterx", "callbackx", "gocraftx", "handoffx", "mqttqos")
}

// TestWholeProgramEmbedded runs the whole-program check over a store whose
// database accessor embeds *sqlx.DB behind the program's own interfaces: the
// promoted database/sql methods are what the statements run on. A program
// of its own: its accessor implements the other packages' DBTX interfaces,
// which would reach it through calls VTA finds no value for.
func TestWholeProgramEmbedded(t *testing.T) {
	checkWhole(t, "embedx")
}

// TestWholeProgramOwnConsumer runs the whole-program check over a service's
// own Redis-streams consumer: a reader fetches and queues entries on a
// channel of its own type, workers call the registered handler (inside a
// recover wrapper) and ack; the handlers are found through the channel.
func TestWholeProgramOwnConsumer(t *testing.T) {
	checkWhole(t, "ownstream/...")
}

// TestWholeProgram runs the whole-program check over a service shaped like
// real ones: handlers registered through its own helpers (a batch consumer
// that acks by a bool, a router with a dispatch map and a select loop),
// effects behind interfaces implemented in another package and wired in by
// main, service structs several calls deep, telemetry in between.
// Under -iface=verbs too: the implementations the program has, not method
// names, decide what an interface call does.
func TestWholeProgram(t *testing.T) {
	for _, iface := range []string{"annotated", "verbs"} {
		t.Run(iface, func(t *testing.T) { checkWholeWith(t, analyzer.Config{Iface: iface}, "wholeprog/...") })
	}
}

// TestRulesFile runs the whole-program check with a rules file that
// describes a team's own bus and ledger; a rules file naming functions
// that do not exist is an error with their positions.
func TestRulesFile(t *testing.T) {
	rules, err := filepath.Abs("testdata/rulesprog.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checkWholeWith(t, analyzer.Config{Rules: rules}, "rulesprog/...")

	typo, err := filepath.Abs("testdata/rulesprog-typo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := loadWhole(t, "rulesprog/...")
	_, err = analyzer.CheckProgram(pkgs, analyzer.Config{Rules: typo})
	if err == nil {
		t.Fatal("no error for a rules file naming functions that do not exist")
	}
	for _, want := range []string{
		"rulesprog-typo.yaml:3:5: (*rulesprog/bus.Delivery).Finish: no such function or method in rulesprog/bus",
		"rulesprog-typo.yaml:5:5: rulesprog/nosuch.Send: package rulesprog/nosuch is not part of the program",
		`rulesprog-typo.yaml:7:11: (*rulesprog/ledger.Client).Seen has no parameter "key"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error\n%v\nlacks %q", err, want)
		}
	}
}

// TestOwnQueue runs the whole-program check over a service with its own
// queue layer and no broker client: a persistent work queue whose workers
// call the handlers registered with it (acked by the items they return),
// and a disk spool replayed to targets (acked by a nil error). An
// in-memory worker pool in the same program dispatches nothing.
func TestOwnQueue(t *testing.T) {
	checkWhole(t, "ownqueue/...")
}

// TestJobTable runs the whole-program check over a service's own job
// tables: a worker that claims a row with UPDATE … RETURNING and runs the
// job built from it, and a pool that claims through a repository's
// interface and runs the handler registered for the task's type. The
// jobs are handlers acked by a nil error; the queues' own bookkeeping (a
// failed task put back) is not.
func TestJobTable(t *testing.T) {
	checkWhole(t, "jobtable/...")
}

// TestScannedInsert: an INSERT … RETURNING that fails at its row's Scan
// (sqlc's :one) is a unique insert where a caller tests its error for a
// duplicate key, here by the error's text.
func TestScannedInsert(t *testing.T) {
	checkWhole(t, "sqlcone")
}

// TestWholeProgramDeadLetter: a program that declares a dead-letter
// exchange dead-letters what it rejects without requeue.
func TestWholeProgramDeadLetter(t *testing.T) {
	checkWhole(t, "dropdlx")
}

// TestFetchWrapper runs the whole-program check over services that consume
// through a company's wrapper of kafka-go: one that reads with ReadMessage
// on a grouped reader (commits as it reads) and serves the converted
// messages from a channel behind an interface, like ecodeclub/mq-api, and
// one that fetches and commits when told, and a thin layer that copies
// each fetched message into its own type field by field. The wrappers'
// Consume, Next and FetchMessage are fetches, their types messages. A handler whose one call is a dedup
// and its effect in a transaction (credit) still loses its message when
// the wrapper committed it first.
func TestFetchWrapper(t *testing.T) {
	checkWhole(t, "mqwrap/...")
}

// TestBatchFetcher runs the whole-program check over a consumer's own
// batch fetcher: a function that fetches and returns the messages in its
// own type (which keeps the client's message) is a fetch API, so the loop
// that calls it handles messages and the handlers it hands batches to are
// handlers.
func TestBatchFetcher(t *testing.T) {
	checkWhole(t, "batchx")
}

// TestProcessorDispatch runs the whole-program check over a shared Kafka
// consumer that hands each decoded event to a Processor interface wired in
// main and commits when Process returns nil: every implementation is a
// handler judged on its own (the points processor's increment is flagged
// in its own file, the rank overwrite and the claimed welcome are not), and
// a consumer that claims the event's id before it dispatches guards what
// its processors do.
func TestProcessorDispatch(t *testing.T) {
	checkWhole(t, "procx/...")
}

// TestMessageAdapters runs the whole-program check over a consumer that
// adapts each delivery to the program's own interface before handing it
// on: the function given the interface acks through it and is a handler
// (its ack after a failure is reported); an interface of the program the
// adapter implements without acking makes no message.
func TestMessageAdapters(t *testing.T) {
	checkWhole(t, "adapterx")
}

// TestSchemaKeys runs the whole-program check over a module whose
// migrations declare unique keys: an insert setting a natural key is no
// effect, one keyed by a fresh id or missing a column of the key is; a
// down migration's DROP is not read.
func TestSchemaKeys(t *testing.T) {
	checkWhole(t, "schemax")
}

// TestSkippedFailures runs the whole-program check over a shared kafka-go
// loop that logs a handler's error and fetches on: the handler handed to
// it is reported where it returns the failure that the loop will commit
// past; a handler that never fails is not, and neither is the loop, whose
// every callee there is told.
func TestSkippedFailures(t *testing.T) {
	checkWhole(t, "skipx")
}

// TestInbox runs the whole-program check over an inbox table used as the
// dedup through an interface: a lookup of the message id that selects a
// literal (SELECT 1 … WHERE message_id = $1, compared with 1) guards the
// work recorded with it; a handler that stores the id without looking it
// up is reported.
func TestInbox(t *testing.T) {
	checkWhole(t, "inboxx")
}

// TestReadModifyWrite runs the whole-program check over handlers that read
// a row, change a field by arithmetic on its read value (in the handler or
// a method of the row) and write the column back: an effect; an overwrite
// with the message's value, or a total recounted from zero, is not.
func TestReadModifyWrite(t *testing.T) {
	checkWhole(t, "rmwx")
}

// TestGenerics runs the whole-program check over effects behind generic
// repositories: a failure in an instance's origin body is the effect
// failing, and a model of the type parameter is the instance's table.
func TestGenerics(t *testing.T) {
	checkWhole(t, "genericx")
}

// TestAckField runs the whole-program check over a consumer that acks by
// a bool field of its handler's result.
func TestAckField(t *testing.T) {
	checkWhole(t, "ackfieldx")
}

// TestEventFunctions runs the whole-program check over Cloud Functions
// background functions: exported functions of a Pub/Sub event struct,
// called by the platform with no registration in the code.
func TestEventFunctions(t *testing.T) {
	checkWhole(t, "eventfn")
}

// TestSearchIndex runs the whole-program check over a search index's
// document writes, by primary key: no effect, but work a lost message
// loses.
func TestSearchIndex(t *testing.T) {
	checkWhole(t, "searchx")
}

// TestUnwiredImplementations runs the whole-program check over an
// implementation of a handler interface that the program never calls:
// it may be behind the interface's calls (wired where the analysis cannot
// see).
func TestUnwiredImplementations(t *testing.T) {
	checkWhole(t, "orphanx")
}

// TestAckHolder runs the whole-program check over a consumer that returns
// its own delivery type holding ack closures over the broker's delivery.
func TestAckHolder(t *testing.T) {
	checkWhole(t, "ackholderx")
}

// TestAutoAckHelper runs the whole-program check over an autoAck consumer
// that hands each body to a callback registered through an interface.
func TestAutoAckHelper(t *testing.T) {
	checkWhole(t, "autoackhelper")
}

// TestBookkeepingInterface runs the whole-program check over status rows
// written through an interface whose implementations only keep books.
func TestBookkeepingInterface(t *testing.T) {
	checkWhole(t, "bookkeepingiface")
}

// TestNamedQueries runs the whole-program check over statements kept in
// the module's .sql files under names and loaded into tagged struct
// fields (goyesql).
func TestNamedQueries(t *testing.T) {
	checkWhole(t, "namedqx")
}

// TestClientInterfaceFeed runs the whole-program check over a consumer
// that reads through the program's own interface over a client and feeds
// a channel its caller made to workers.
func TestClientInterfaceFeed(t *testing.T) {
	checkWhole(t, "clientfeed")
}

// TestRetryDispatch runs the whole-program check over a consumer helper
// that acks on its handler's nil error and, on an error, publishes the
// message again before acking it.
func TestRetryDispatch(t *testing.T) {
	checkWhole(t, "retrydispatch")
}

// TestSQLCRead runs the whole-program check over sqlc's DBTX filled with a
// pool in the program: a read whose error is discarded degrades, a write
// whose error is discarded loses work.
func TestSQLCRead(t *testing.T) {
	checkWhole(t, "sqlcread")
}

// TestStateInTx runs the whole-program check over a status guard read FOR
// UPDATE in a transaction a repository finds in the context.
func TestStateInTx(t *testing.T) {
	checkWhole(t, "statetx")
}

// TestSQSCopyWrapper runs the whole-program check over an SQS wrapper that
// copies each message's fields into the service's own struct.
func TestSQSCopyWrapper(t *testing.T) {
	checkWhole(t, "sqscopyx")
}

// TestSQSPool runs the whole-program check over an SQS poller whose send
// to the worker pool's channel sits in the pool's Submit.
func TestSQSPool(t *testing.T) {
	checkWhole(t, "sqspool")
}

// TestHandoffParam runs the whole-program check over a reader that hands
// messages to a pool over a channel main made: the reader has it as a
// parameter, the pool in a field.
func TestHandoffParam(t *testing.T) {
	checkWhole(t, "handoffparam")
}

// TestClaimPair runs the whole-program check over a job table claimed by
// a pick and a conditional update rather than one UPDATE … RETURNING.
func TestClaimPair(t *testing.T) {
	checkWhole(t, "claimpair")
}

// TestRetryCommit runs the whole-program check over a consumer behind the
// program's interface over a kafka-go reader that commits until the
// commit succeeds.
func TestRetryCommit(t *testing.T) {
	checkWhole(t, "retrycommit")
}

// TestRetryLast runs the whole-program check over a consumer whose retry
// loop returns the error on its last attempt and whose batch fallback
// loops over a batch known not to be empty.
func TestRetryLast(t *testing.T) {
	checkWhole(t, "retrylast")
}

// TestKindDispatch runs the whole-program check over consumers that hand
// each message to the function for its kind (a switch on the command's
// type, a handler looked up by the event's status).
func TestKindDispatch(t *testing.T) {
	checkWhole(t, "kinddispatch")
}

// TestPopQueue runs the whole-program check over a worker that pops its
// jobs through the program's own queue layer, which decodes the popped job
// into the worker's variable.
func TestPopQueue(t *testing.T) {
	checkWhole(t, "popqueue")
}

// TestListQueue runs the whole-program check over pipeline stages linked
// by the program's own queue over Redis lists: its pushes publish.
func TestListQueue(t *testing.T) {
	checkWhole(t, "listqueue/...")
}

// TestSDKEmbed runs the whole-program check over a consumer that mails
// through its own interface, filled by an AWS SDK client embedded in the
// program's type or converted to it directly.
func TestSDKEmbed(t *testing.T) {
	checkWhole(t, "sdkembed")
}

// TestAckChan runs the whole-program check over a consumer whose Consume
// returns a channel of the program's events that ack through func fields.
func TestAckChan(t *testing.T) {
	checkWhole(t, "ackchan")
}

// TestSQSOneCopy runs the whole-program check over an SQS wrapper that
// returns one message copied into the service's own struct and deletes
// it given that struct.
func TestSQSOneCopy(t *testing.T) {
	checkWhole(t, "sqsonex")
}
