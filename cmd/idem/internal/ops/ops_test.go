package ops

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
	"github.com/idemkit/idem/guard/redisguard"
)

// fixture is a store of one backend with a fresh table (or key prefix), as
// the command reaches it (args) and as a service writes it (store, tamper).
type fixture struct {
	name   string
	args   []string // --store … --table …
	store  guard.Store
	tamper guardtest.Tamper
	redis  bool // records expire by themselves: Purge has nothing to delete
}

// backends are the stores the tests run on, each opened on the server
// .ci/run starts (IDEM_TEST_*): every one under CI.
var backends = []struct {
	name string
	open func(t *testing.T, table string, opts ...guard.Option) *fixture
}{
	{"sqlite", openSQLite},
	{"postgres", openPostgres},
	{"mysql", openMySQL},
	{"redis", openRedisFixture},
	{"redis-cluster", openRedisCluster},
}

func forBackends(t *testing.T, test func(t *testing.T, f func(opts ...guard.Option) *fixture)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			test(t, func(opts ...guard.Option) *fixture { return b.open(t, freshTable(t), opts...) })
		})
	}
}

func freshTable(t *testing.T) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "idem_ops_" + hex.EncodeToString(b)
}

func sqlFixture(t *testing.T, name string, db *sql.DB, d guard.Dialect, table string, storeArgs []string, opts []guard.Option) *fixture {
	t.Helper()
	s, err := guard.NewSQLStore(db, d, append([]guard.Option{guard.WithTable(table)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTable(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stmts, _ := guard.DropTableSQL(d, table)
		for _, q := range stmts {
			db.ExecContext(context.Background(), q)
		}
		db.Close()
	})
	exec := func(ctx context.Context, q string, args ...any) (int64, error) {
		r, err := db.ExecContext(ctx, q, args...)
		if err != nil {
			return 0, err
		}
		return r.RowsAffected()
	}
	return &fixture{name: name, args: append(storeArgs, "--table", table), store: s, tamper: guardtest.SQLTamper(exec, d, table)}
}

func openSQLite(t *testing.T, table string, opts ...guard.Option) *fixture {
	path := filepath.Join(t.TempDir(), "idem.db")
	db, err := sql.Open("sqlite", guard.SQLiteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	return sqlFixture(t, "sqlite", db, guard.SQLite, table, []string{"--store", "sqlite:" + path}, opts)
}

func openPostgres(t *testing.T, table string, opts ...guard.Option) *fixture {
	dsn := guardtest.Env(t, "IDEM_TEST_POSTGRES")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	return sqlFixture(t, "postgres", db, guard.Postgres, table, []string{"--store", dsn}, opts)
}

// mysqlURL is the mysql:// URL of a go-sql-driver/mysql DSN.
func mysqlURL(t *testing.T, dsn string) string {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "mysql", User: url.UserPassword(cfg.User, cfg.Passwd), Host: cfg.Addr, Path: "/" + cfg.DBName}).String()
}

func openMySQL(t *testing.T, table string, opts ...guard.Option) *fixture {
	dsn := guardtest.Env(t, "IDEM_TEST_MYSQL")
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	return sqlFixture(t, "mysql", db, guard.MySQL, table, []string{"--store", mysqlURL(t, dsn)}, opts)
}

func redisFixture(t *testing.T, name string, client redis.UniversalClient, prefix string, storeArgs []string, opts []guard.Option) *fixture {
	t.Helper()
	s, err := redisguard.New(client, append([]guard.Option{guard.WithTable(prefix)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		del := func(ctx context.Context, c *redis.Client) error {
			it := c.Scan(ctx, 0, "*"+prefix+":*", 1000).Iterator()
			for it.Next(ctx) {
				c.Del(ctx, it.Val())
			}
			return it.Err()
		}
		ctx := context.Background()
		if cc, ok := client.(*redis.ClusterClient); ok {
			cc.ForEachMaster(ctx, del)
		} else {
			del(ctx, client.(*redis.Client))
		}
		client.Close()
	})
	tm := guardtest.RedisTamper(client, func(c, k string) string { return s.RecordKey(c, k, "") },
		func(c string) string { return prefix + ":" + c + ":*" })
	return &fixture{name: name, args: append(storeArgs, "--table", prefix), store: s, tamper: tm, redis: true}
}

func openRedisFixture(t *testing.T, prefix string, opts ...guard.Option) *fixture {
	addr := guardtest.Env(t, "IDEM_TEST_REDIS")
	return redisFixture(t, "redis", redis.NewClient(&redis.Options{Addr: addr}), prefix, []string{"--store", "redis://" + addr}, opts)
}

func openRedisCluster(t *testing.T, prefix string, opts ...guard.Option) *fixture {
	addrs := guardtest.Env(t, "IDEM_TEST_REDIS_CLUSTER")
	client := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(addrs, ",")})
	return redisFixture(t, "redis-cluster", client, prefix, []string{"--store", "redis+cluster://" + addrs}, opts)
}

// result is what one run of the command did.
type result struct {
	code           int
	stdout, stderr string
}

// idem runs the command on f's store: args[0] is the command, f's store
// flags follow it, then the rest of args. stdin is its input; terminal
// says whether that is a terminal.
func (f *fixture) idem(t *testing.T, stdin string, terminal bool, args ...string) result {
	t.Helper()
	full := append(append([]string{args[0]}, f.args...), args[1:]...)
	return runIdem(t, stdin, terminal, full...)
}

func runIdem(t *testing.T, stdin string, terminal bool, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(t.Context(), args, Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Terminal: terminal,
		Getenv: func(string) string { return "" }})
	return result{code, out.String(), errOut.String()}
}

// want fails unless the run exited with code.
func (r result) want(t *testing.T, code int, what string) result {
	t.Helper()
	if r.code != code {
		t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", what, r.code, code, r.stdout, r.stderr)
	}
	return r
}

const (
	sms    = "send_sms"
	points = "add_points"
)

// The keys of the records of seed.
var (
	keyDone      = "v1 3:abc"
	keyWeird     = "v1 \x1b[2J\x00\xff\u202e" // a terminal escape, NUL, a byte that is not UTF-8, a right-to-left override
	keyLive      = "v1 4:live"
	keyUncertain = "v1 9:uncertain"
	keySecond    = "v1 6:second"
	keyFailed    = "v1 6:failed"
)

// seed writes the records the tests read, through the service's store (at
// most once, so that an ended lease makes a key uncertain). It returns the
// live lease of keyLive.
func (f *fixture) seed(t *testing.T) *guard.Lease {
	t.Helper()
	ctx := t.Context()
	claim := func(consumer, key string) *guard.Lease {
		t.Helper()
		l, err := f.store.Claim(ctx, consumer, key, nil)
		if err != nil || l.Outcome() != guard.Applied {
			t.Fatalf("Claim(%s, %q) = %v, %v; want a lease", consumer, key, l, err)
		}
		return l
	}
	for _, k := range []string{keyDone, keyWeird} {
		if err := claim(sms, k).Complete(ctx, []byte("sent")); err != nil {
			t.Fatal(err)
		}
	}
	if err := claim(points, keyDone).Complete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{keyUncertain, keySecond} {
		claim(sms, k)
		if err := f.tamper.ExpireLease(ctx, sms, k); err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.Claim(ctx, sms, k, nil); !errors.Is(err, guard.ErrUncertain) {
			t.Fatalf("Claim after an at-most-once lease ended: %v, want ErrUncertain", err)
		}
	}
	if err := claim(sms, keyFailed).Fail(ctx, errors.New("provider: invalid number")); err != nil {
		t.Fatal(err)
	}
	return claim(sms, keyLive)
}

func TestHelpListsCommands(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		r := runIdem(t, "", false, args...).want(t, ExitOK, strings.Join(args, " "))
		for _, c := range []string{"stats", "list", "show", "resolve", "purge"} {
			if !strings.Contains(r.stdout, "\n  "+c+" ") {
				t.Errorf("idem %s does not list %s:\n%s", strings.Join(args, " "), c, r.stdout)
			}
		}
	}
	runIdem(t, "", false).want(t, ExitUsage, "no command")
	runIdem(t, "", false, "frobnicate").want(t, ExitUsage, "unknown command")
	r := runIdem(t, "", false, "resolve", "--help").want(t, ExitOK, "resolve --help")
	if !strings.Contains(r.stdout, "-release") || !strings.Contains(r.stdout, "-reason") {
		t.Errorf("resolve --help does not list its flags:\n%s", r.stdout)
	}
}

func TestStatsAndList(t *testing.T) {
	forBackends(t, func(t *testing.T, open func(...guard.Option) *fixture) {
		f := open(guard.WithDelivery(guard.AtMostOnce), guard.WithLease(30*time.Second))
		f.seed(t)

		r := f.idem(t, "", false, "stats", "--json").want(t, ExitOK, "stats --json")
		var st struct {
			Table     string `json:"table"`
			SizeBytes int64  `json:"size_bytes"`
			Consumers []struct {
				Consumer      string           `json:"consumer"`
				States        map[string]int64 `json:"states"`
				ExpiredLeases int64            `json:"expired_leases"`
				OldestPending *time.Time       `json:"oldest_pending"`
			} `json:"consumers"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
			t.Fatalf("stats --json: %v\n%s", err, r.stdout)
		}
		want := map[string]map[string]int64{
			points: {"pending": 0, "done": 1, "failed": 0, "uncertain": 0},
			sms:    {"pending": 1, "done": 2, "failed": 1, "uncertain": 2},
		}
		if len(st.Consumers) != 2 || st.SizeBytes <= 0 {
			t.Fatalf("stats --json = %+v, want 2 consumers and a size", st)
		}
		for _, c := range st.Consumers {
			if fmt.Sprint(c.States) != fmt.Sprint(want[c.Consumer]) {
				t.Errorf("stats: %s has %v, want %v", c.Consumer, c.States, want[c.Consumer])
			}
			if (c.Consumer == sms) != (c.OldestPending != nil) {
				t.Errorf("stats: %s oldest pending %v", c.Consumer, c.OldestPending)
			}
		}
		r = f.idem(t, "", false, "stats").want(t, ExitOK, "stats")
		for _, s := range []string{"CONSUMER", "UNCERTAIN", sms, points, "table " + st.Table} {
			if !strings.Contains(r.stdout, s) {
				t.Errorf("stats does not show %q:\n%s", s, r.stdout)
			}
		}

		r = f.idem(t, "", false, "list").want(t, ExitOK, "list")
		if lines := strings.Count(r.stdout, "\n"); lines != 8 {
			t.Errorf("list printed %d lines, want a header and 7 records:\n%s", lines, r.stdout)
		}
		// SQL stores keep the key's text made valid (NUL and \xff become
		// U+FFFD); Redis keeps its bytes.
		if strings.ContainsAny(r.stdout, "\x1b\x00\u202e") || !strings.Contains(r.stdout, `\x1b[2J`) || !strings.Contains(r.stdout, `\u202e`) ||
			(f.redis && !strings.Contains(r.stdout, `\x1b[2J\x00\xff`)) {
			t.Errorf("list does not print the key %q escaped:\n%q", keyWeird, r.stdout)
		}
		r = f.idem(t, "", false, "list", "--state", "uncertain,failed", "--consumer", sms, "--json").want(t, ExitOK, "list --state --json")
		var keys []string
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			var rec recordJSON
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("list --json line %q: %v", line, err)
			}
			b, _ := hex.DecodeString(rec.KeyHex)
			keys = append(keys, rec.State+" "+string(b))
		}
		slices.Sort(keys)
		if w := []string{"failed " + keyFailed, "uncertain " + keySecond, "uncertain " + keyUncertain}; !slices.Equal(keys, w) {
			t.Errorf("list --state uncertain,failed = %q, want %q", keys, w)
		}
		r = f.idem(t, "", false, "list", "--limit", "2").want(t, ExitOK, "list --limit 2")
		if strings.Count(r.stdout, "\n") != 3 || !strings.Contains(r.stderr, "more than 2") {
			t.Errorf("list --limit 2 printed:\n%s\n%s", r.stdout, r.stderr)
		}
		f.idem(t, "", false, "list", "--consumer", "deduct_inventory").want(t, ExitNoMatch, "list of a consumer without records")
		f.idem(t, "", false, "list", "--older-than", "1h").want(t, ExitNoMatch, "list --older-than 1h")
		f.idem(t, "", false, "list", "--newer-than", "1h", "--state", "pending").want(t, ExitOK, "list --newer-than 1h")
		f.idem(t, "", false, "list", "--state", "stuck").want(t, ExitUsage, "list --state stuck")
	})
}

func TestShow(t *testing.T) {
	forBackends(t, func(t *testing.T, open func(...guard.Option) *fixture) {
		f := open(guard.WithDelivery(guard.AtMostOnce))
		f.seed(t)
		h := guard.KeyHash(keyWeird)
		for _, how := range [][]string{
			{"--key-quoted", quote(keyWeird)},
			{"--key-hex", hex.EncodeToString([]byte(keyWeird))},
			{"--hash", hex.EncodeToString(h[:])},
		} {
			r := f.idem(t, "", false, append([]string{"show", "--consumer", sms}, how...)...).want(t, ExitOK, "show "+how[0])
			if strings.ContainsAny(r.stdout, "\x1b\x00\u202e") || !strings.Contains(r.stdout, hex.EncodeToString(h[:])) ||
				!strings.Contains(r.stdout, "done") || !strings.Contains(r.stdout, `"sent"`) {
				t.Errorf("show %s printed:\n%q", how[0], r.stdout)
			}
		}
		r := f.idem(t, "", false, "show", "--consumer", sms, "--json", "--", keyUncertain).want(t, ExitOK, "show --json KEY")
		var rec recordJSON
		if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || rec.State != "uncertain" || rec.Key != keyUncertain || rec.LeaseLive {
			t.Errorf("show --json = %+v, %v; want the uncertain record", rec, err)
		}
		r = f.idem(t, "", false, "show", keyLive, "--consumer", sms).want(t, ExitOK, "show KEY --consumer")
		if !strings.Contains(r.stdout, "live until") {
			t.Errorf("show of a live lease does not say so:\n%s", r.stdout)
		}
		f.idem(t, "", false, "show", "--consumer", sms, "v1 6:absent").want(t, ExitNoMatch, "show of an absent key")
		f.idem(t, "", false, "show", keyDone).want(t, ExitUsage, "show without --consumer")
		f.idem(t, "", false, "show", "--consumer", sms, "--hash", "abc").want(t, ExitUsage, "show --hash abc")
		f.idem(t, "", false, "show", "--consumer", sms, "--key-hex", "00", keyDone).want(t, ExitUsage, "show naming the key twice")
		f.idem(t, "", false, "show", "--consumer", sms, keyDone, keyLive).want(t, ExitUsage, "show of two keys")
	})
}

func TestResolve(t *testing.T) {
	forBackends(t, func(t *testing.T, open func(...guard.Option) *fixture) {
		f := open(guard.WithDelivery(guard.AtMostOnce), guard.WithLease(30*time.Second))
		live := f.seed(t)
		ctx := t.Context()
		audit := filepath.Join(t.TempDir(), "audit.jsonl")
		resolve := func(stdin string, terminal bool, args ...string) result {
			return f.idem(t, stdin, terminal, append([]string{"resolve", "--consumer", sms, "--audit-log", audit}, args...)...)
		}

		r := resolve("", false, "--done", "--reason", "provider dashboard shows it sent", keyUncertain).want(t, ExitUsage, "resolve without --yes, not on a terminal")
		if !strings.Contains(r.stderr, "--yes") {
			t.Errorf("resolve refusing without a terminal does not name --yes: %s", r.stderr)
		}
		resolve("no\n", true, "--done", "--reason", "checked", keyUncertain).want(t, ExitRefused, "resolve answered no")
		resolve("", true, "--done", "--reason", "checked", keyUncertain).want(t, ExitRefused, "resolve answered nothing")
		if _, err := f.store.Claim(ctx, sms, keyUncertain, nil); !errors.Is(err, guard.ErrUncertain) {
			t.Fatalf("after a refused resolve: %v, want the key still uncertain", err)
		}
		r = resolve("yes\n", true, "--done", "--result", "msg-42", "--reason", "provider dashboard shows it sent", keyUncertain).want(t, ExitOK, "resolve --done, confirmed")
		if !strings.Contains(r.stderr, "Type yes") || !strings.Contains(r.stderr, "uncertain → done") {
			t.Errorf("resolve --done printed:\n%s", r.stderr)
		}
		l, err := f.store.Claim(ctx, sms, keyUncertain, nil)
		if err != nil || l.Outcome() != guard.Duplicate || string(l.Result()) != "msg-42" {
			t.Fatalf("Claim of a key resolved done = %v, %v; want a duplicate with result msg-42", l, err)
		}

		resolve("", false, "--failed", "--yes", "--reason", "never sent", "--", keySecond).want(t, ExitOK, "resolve --failed --yes")
		if _, err := f.store.Claim(ctx, sms, keySecond, nil); !errors.Is(err, guard.ErrFailed) || !strings.Contains(err.Error(), "operator: never sent") {
			t.Fatalf("Claim of a key resolved failed: %v, want ErrFailed with the reason", err)
		}
		resolve("", false, "--release", "--yes", "--reason", "retry after the fix", keySecond).want(t, ExitOK, "resolve --release of a failed key")
		h := guard.KeyHash(keyFailed)
		resolve("", false, "--release", "--yes", "--reason", "number fixed", "--hash", hex.EncodeToString(h[:])).want(t, ExitOK, "resolve --release --hash")
		for _, k := range []string{keySecond, keyFailed} {
			l, err := f.store.Claim(ctx, sms, k, nil)
			if err != nil || l.Outcome() != guard.Applied {
				t.Fatalf("Claim of a released key = %v, %v; want a fresh lease", l, err)
			}
		}

		r = resolve("", false, "--done", "--yes", "--reason", "sure", keyLive).want(t, ExitRefused, "resolve of a live lease")
		if !strings.Contains(r.stderr, "live lease") {
			t.Errorf("resolve of a live lease says: %s", r.stderr)
		}
		if err := live.Complete(ctx, nil); err != nil {
			t.Fatalf("Complete of the lease resolve refused to touch: %v", err)
		}
		resolve("", false, "--release", "--yes", "--reason", "again", keyDone).want(t, ExitRefused, "resolve of a done key")
		resolve("", false, "--release", "--yes", "--reason", "x", "v1 6:absent").want(t, ExitNoMatch, "resolve of an absent key")
		resolve("", false, "--release", "--yes", keyDone).want(t, ExitUsage, "resolve without --reason")
		resolve("", false, "--release", "--done", "--yes", "--reason", "x", keyDone).want(t, ExitUsage, "resolve --release --done")
		resolve("", false, "--failed", "--result", "r", "--yes", "--reason", "x", keyDone).want(t, ExitUsage, "resolve --failed --result")

		data, err := os.ReadFile(audit)
		if err != nil {
			t.Fatal(err)
		}
		var entries []auditEntry
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var e auditEntry
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("audit log line %q: %v", line, err)
			}
			entries = append(entries, e)
		}
		if len(entries) != 4 || entries[0].From != "uncertain" || entries[0].To != toDone || entries[0].Reason != "provider dashboard shows it sent" ||
			entries[3].Key != keyFailed || entries[3].To != toRelease {
			t.Errorf("audit log = %+v, want the four changes made", entries)
		}
	})
}

func TestPurge(t *testing.T) {
	forBackends(t, func(t *testing.T, open func(...guard.Option) *fixture) {
		f := open(guard.WithDelivery(guard.AtMostOnce))
		f.seed(t)
		for _, k := range []string{keyDone, keyFailed} {
			if err := f.tamper.ExpireRetention(t.Context(), sms, k); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.tamper.ExpireLease(t.Context(), sms, keyLive); err != nil {
			t.Fatal(err)
		}
		want := "2"
		if f.redis {
			want = "0" // Redis deleted them
		}
		r := f.idem(t, "", false, "purge", "--dry-run").want(t, ExitOK, "purge --dry-run")
		if !strings.Contains(r.stdout, "would delete "+want+" expired records") {
			t.Errorf("purge --dry-run printed %q, want %s records", r.stdout, want)
		}
		r = f.idem(t, "", false, "purge", "--json").want(t, ExitOK, "purge")
		if r.stdout != `{"dry_run":false,"expired":`+want+`}`+"\n" {
			t.Errorf("purge --json printed %q, want %s deleted", r.stdout, want)
		}
		f.idem(t, "", false, "show", "--consumer", sms, keyDone).want(t, ExitNoMatch, "show of a purged key")
		f.idem(t, "", false, "show", "--consumer", sms, keyLive).want(t, ExitOK, "show of a pending key whose retention has not ended")
		r = f.idem(t, "", false, "purge", "--dry-run", "--json").want(t, ExitOK, "purge --dry-run after purge")
		if !strings.Contains(r.stdout, `"expired":0`) {
			t.Errorf("purge --dry-run after purge = %s", r.stdout)
		}
	})
}

// TestResolveRacesClaims runs resolve on a key whose lease has ended while
// claims take it over: whichever wins, no claim that acquired the key loses
// its lease, and resolve either changes the record or refuses.
func TestResolveRacesClaims(t *testing.T) {
	forBackends(t, func(t *testing.T, open func(...guard.Option) *fixture) {
		f := open(guard.WithLease(30 * time.Second))
		ctx := t.Context()
		const rounds = 8
		for i := range rounds {
			k := fmt.Sprintf("v1 4:r%03d", i)
			if _, err := f.store.Claim(ctx, sms, k, nil); err != nil {
				t.Fatal(err)
			}
			if err := f.tamper.ExpireLease(ctx, sms, k); err != nil {
				t.Fatal(err)
			}
			action := []string{"--release", "--done", "--failed"}[i%3]
			var (
				wg     sync.WaitGroup
				res    result
				leases [3]*guard.Lease
				errs   [3]error
			)
			wg.Go(func() {
				res = f.idem(t, "", false, "resolve", "--consumer", sms, action, "--yes", "--reason", "race", "--", k)
			})
			for j := range leases {
				wg.Go(func() { leases[j], errs[j] = f.store.Claim(ctx, sms, k, nil) })
			}
			wg.Wait()
			if res.code != ExitOK && res.code != ExitRefused {
				t.Fatalf("round %d: resolve %s: exit %d: %s", i, action, res.code, res.stderr)
			}
			held := 0
			for j, l := range leases {
				var ip *guard.InProgressError
				switch {
				case errs[j] != nil && !errors.As(errs[j], &ip) && !errors.Is(errs[j], guard.ErrFailed):
					t.Fatalf("round %d: Claim: %v", i, errs[j])
				case l != nil && l.Outcome() == guard.Applied:
					held++
					if err := l.Complete(ctx, nil); err != nil {
						t.Fatalf("round %d: Complete of a lease acquired while resolve %s ran (exit %d, %s): %v", i, action, res.code, res.stderr, err)
					}
				}
			}
			if held > 1 {
				t.Fatalf("round %d: %d claims held the key at once", i, held)
			}
		}
	})
}

func TestBadStore(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		want  string
		never string
	}{
		{"no store", nil, ExitUsage, "--store", ""},
		{"unknown scheme", []string{"--store", "mongodb://u:secret@h/db"}, ExitUsage, "unknown scheme", "secret"},
		{"bad postgres URL", []string{"--store", "postgres://u:secret@h:notaport/db"}, ExitUsage, "postgres", "secret"},
		{"unreachable postgres", []string{"--store", "postgres://u:secret@127.0.0.1:1/db?connect_timeout=5"}, ExitError, "cannot reach postgres 127.0.0.1:1/db", "secret"},
		{"unreachable mysql", []string{"--store", "mysql://u:secret@127.0.0.1:1/db?timeout=5s"}, ExitError, "cannot reach mysql 127.0.0.1:1/db", "secret"},
		{"mysql URL without a database", []string{"--store", "mysql://u:secret@127.0.0.1:1"}, ExitUsage, "mysql://", "secret"},
		{"bad mysql DSN", []string{"--dialect", "mysql", "--store", "u:secret@tcp(127.0.0.1:1"}, ExitUsage, "mysql", "secret"},
		{"unreachable redis", []string{"--store", "redis://:secret@127.0.0.1:1/0"}, ExitError, "cannot reach redis 127.0.0.1:1/0", "secret"},
		{"unreachable redis cluster", []string{"--store", "redis+cluster://127.0.0.1:1,127.0.0.1:2"}, ExitError, "cannot reach redis cluster", ""},
		{"missing sqlite file", []string{"--store", "sqlite:" + filepath.Join(dir, "missing.db")}, ExitError, "missing.db", ""},
		{"sqlite directory", []string{"--store", dir}, ExitError, "not a regular file", ""},
		{"bad table", []string{"--store", "sqlite:x.db", "--table", "idem keys"}, ExitUsage, "--table", ""},
		{"hash tag on SQL", []string{"--store", "sqlite:" + filepath.Join(dir, "x.db"), "--hash-tag", "t"}, ExitUsage, "--hash-tag", ""},
		{"bad dialect", []string{"--dialect", "oracle", "--store", "x"}, ExitUsage, "--dialect", ""},
		{"dialect against scheme", []string{"--dialect", "mysql", "--store", "postgres://h/db"}, ExitUsage, "--dialect", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "hash tag on SQL" {
				os.WriteFile(filepath.Join(dir, "x.db"), nil, 0o600)
			}
			r := runIdem(t, "", false, append([]string{"stats", "--timeout", "20s"}, c.args...)...).want(t, c.code, c.name)
			if !strings.Contains(r.stderr, c.want) || (c.never != "" && strings.Contains(r.stderr, c.never)) {
				t.Errorf("stderr = %q, want %q in it and not %q", r.stderr, c.want, c.never)
			}
		})
	}
}

func TestMissingTable(t *testing.T) {
	forBackends(t, func(t *testing.T, open func(...guard.Option) *fixture) {
		f := open()
		args := slices.Clone(f.args)
		args[len(args)-1] = "idem_ops_missing"
		if f.redis {
			// A Redis prefix without records is no error: there is nothing.
			r := runIdem(t, "", false, append([]string{"stats"}, args...)...).want(t, ExitOK, "stats of an empty prefix")
			if !strings.Contains(r.stdout, "no records") {
				t.Errorf("stats of an empty prefix: %s", r.stdout)
			}
			runIdem(t, "", false, append([]string{"list"}, args...)...).want(t, ExitNoMatch, "list of an empty prefix")
			return
		}
		for _, cmd := range [][]string{{"stats"}, {"list"}, {"show", "--consumer", sms, keyDone}, {"purge"}, {"purge", "--dry-run"},
			{"resolve", "--consumer", sms, "--release", "--yes", "--reason", "x", keyDone}} {
			r := runIdem(t, "", false, append(append([]string{cmd[0]}, args...), cmd[1:]...)...).want(t, ExitError, cmd[0]+" of a missing table")
			if !strings.Contains(r.stderr, "idem_ops_missing") {
				t.Errorf("%s of a missing table: stderr %q does not name it", cmd[0], r.stderr)
			}
		}
	})
}

func TestParseStore(t *testing.T) {
	for _, c := range []struct {
		store, dialect string
		kind, dsn      string
		where          string
	}{
		{"postgres://u:pw@db.example:5433/idem?sslmode=disable", "", kindPostgres, "postgres://u:pw@db.example:5433/idem?sslmode=disable", "postgres db.example:5433/idem"},
		{"postgresql://u@db.example/idem", "postgres", kindPostgres, "postgresql://u@db.example/idem", "postgres db.example:5432/idem"},
		{"host=db.example dbname=idem user=u", "postgres", kindPostgres, "host=db.example dbname=idem user=u", "postgres db.example:5432/idem"},
		{"mysql://u:p%40ss@db.example:3307/idem?parseTime=true", "", kindMySQL, "u:p@ss@tcp(db.example:3307)/idem?parseTime=true", "mysql db.example:3307/idem"},
		{"mysql://u@db.example/idem", "", kindMySQL, "u@tcp(db.example:3306)/idem", "mysql db.example:3306/idem"},
		{"u:p@tcp(db.example:3307)/idem", "mysql", kindMySQL, "u:p@tcp(db.example:3307)/idem", "mysql db.example:3307/idem"},
		{"sqlite:data/idem.db", "", kindSQLite, "data/idem.db", "sqlite data/idem.db"},
		{"sqlite:///var/lib/idem.db", "", kindSQLite, "/var/lib/idem.db", "sqlite /var/lib/idem.db"},
		{"/var/lib/idem.db", "", kindSQLite, "/var/lib/idem.db", "sqlite /var/lib/idem.db"},
		{"idem.db", "sqlite", kindSQLite, "idem.db", "sqlite idem.db"},
		{"redis://:pw@cache.example:6380/2", "", kindRedis, "redis://:pw@cache.example:6380/2", "redis cache.example:6380/2"},
		{"rediss://cache.example:6380", "", kindRedis, "rediss://cache.example:6380", "redis cache.example:6380/0"},
		{"cache.example:6380", "redis", kindRedis, "redis://cache.example:6380", "redis cache.example:6380/0"},
		{"redis://u:pw@a.example:7000,b.example:7001", "", kindRedisCluster, "redis://u:pw@a.example:7000?addr=b.example%3A7001&", "redis cluster a.example:7000,b.example:7001"},
		{"redis+cluster://a.example:7000,b.example:7001/?read_timeout=2s", "", kindRedisCluster, "redis://a.example:7000?addr=b.example%3A7001&read_timeout=2s", "redis cluster a.example:7000,b.example:7001"},
		{"rediss+cluster://a.example:7000", "", kindRedisCluster, "rediss://a.example:7000?", "redis cluster a.example:7000"},
		{"a.example:7000,b.example:7001", "redis", kindRedisCluster, "", "redis cluster a.example:7000,b.example:7001"},
	} {
		got, err := parseStore(c.store, c.dialect)
		if err != nil {
			t.Errorf("parseStore(%q, %q): %v", c.store, c.dialect, err)
			continue
		}
		if got.kind != c.kind || got.dsn != c.dsn || got.where != c.where {
			t.Errorf("parseStore(%q, %q) = %s %q %q, want %s %q %q", c.store, c.dialect, got.kind, got.dsn, got.where, c.kind, c.dsn, c.where)
		}
		if strings.Contains(got.where, "pw") {
			t.Errorf("parseStore(%q): %q shows the password", c.store, got.where)
		}
	}
	for _, c := range []struct{ store, dialect string }{
		{"", ""}, {"ftp://x", ""}, {"sqlite:", ""}, {"sqlite::memory:", ""}, {"redis+cluster://a:1,,b:2", ""},
		{"redis+cluster://a:1/3", ""}, {"localhost", "redis"}, {"redis://h:1", "postgres"}, {"x", "db2"},
	} {
		if _, err := parseStore(c.store, c.dialect); !errors.As(err, new(usageError)) {
			t.Errorf("parseStore(%q, %q): %v, want a usage error", c.store, c.dialect, err)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, quoted, plain string }{
		{"v1 3:abc", `"v1 3:abc"`, `"v1 3:abc"`},
		{"send_sms", `"send_sms"`, "send_sms"},
		{"caf\u00e9", `"café"`, "café"},
		{"\x1b[31m", `"\x1b[31m"`, `"\x1b[31m"`},
		{"a\u202eb", `"a\u202eb"`, `"a\u202eb"`},
		{"\xff\x00", `"\xff\x00"`, `"\xff\x00"`},
		{"", `""`, `""`},
	} {
		if got := quote(c.in); got != c.quoted {
			t.Errorf("quote(%q) = %s, want %s", c.in, got, c.quoted)
		}
		if got := plain(c.in); got != c.plain {
			t.Errorf("plain(%q) = %s, want %s", c.in, got, c.plain)
		}
	}
}
