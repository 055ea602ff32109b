package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemkit/idem/examples/shop/orders"
	"github.com/idemkit/idem/examples/shop/shopdb"
	"github.com/idemkit/idem/examples/shop/smsprovider"
	"github.com/idemkit/idem/generator"
	"github.com/idemkit/idem/guard/guardtest"
	"github.com/idemkit/idem/spec"
)

// testConfig is a small run: 60 orders (240 events), 30% of them resent,
// 10% of deliveries crashing, with a seed whose traffic has both.
func testConfig(t *testing.T) *config {
	return &config{
		messages:  60,
		dupRate:   0.3,
		crashRate: 0.1,
		workers:   3,
		seed:      7,
		timeout:   5 * time.Minute,
		ackWait:   time.Second,
		logger:    slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelError})),
	}
}

// TestShop runs the whole example in-process, on the embedded SQLite and,
// when their variables are set (see guardtest.Env), on PostgreSQL, MySQL
// and Redis: the guarded consumers reach the expected state exactly, and
// the naive ones do not.
func TestShop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		set  func(t *testing.T, cfg *config)
	}{
		{"sqlite", func(*testing.T, *config) {}},
		{"postgres", func(t *testing.T, cfg *config) { cfg.postgres = guardtest.Env(t, "IDEM_TEST_POSTGRES") }},
		{"mysql", func(t *testing.T, cfg *config) { cfg.mysql = guardtest.Env(t, "IDEM_TEST_MYSQL") }},
		{"sqlite+redis", func(t *testing.T, cfg *config) { cfg.redis = guardtest.Env(t, "IDEM_TEST_REDIS") }},
		{"sqlite+nats", func(t *testing.T, cfg *config) { cfg.nats = startNATS(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t)
			tc.set(t, cfg)
			var out bytes.Buffer
			res, err := run(context.Background(), cfg, &out)
			if res != nil {
				res.report(&out)
			}
			t.Log("\n" + out.String())
			if err != nil {
				t.Fatal(err)
			}
			checkRun(t, res, cfg.redis != "")
		})
	}
}

// checkRun checks what a run found.
func checkRun(t *testing.T, res *result, withRedis bool) {
	t.Helper()
	tr := res.traffic
	if tr.resends == 0 {
		t.Fatal("the traffic has no resend: pick another seed")
	}
	for name, n := range map[string]*counters{pathNaive: res.naiveN, pathGuarded: res.guardedN} {
		if n.crashed.Load() == 0 {
			t.Errorf("%s: no worker crashed: pick another seed", name)
		}
		if n.delivered.Load() < int64(len(tr.pubs)) {
			t.Errorf("%s: %d deliveries, fewer than the %d publications", name, n.delivered.Load(), len(tr.pubs))
		}
	}
	if n := res.guardedN.duplicates.Load(); n == 0 {
		t.Error("guarded: no duplicate skipped")
	}
	if n := res.guardedN.permanent.Load(); n != 0 {
		t.Errorf("guarded: %d messages terminated", n)
	}

	exp := tr.expected
	if got := compare(exp, res.guarded); got.total() != 0 {
		t.Errorf("guarded: rows off expected: %v", got)
	}
	if res.guarded.sms.Sent != len(tr.orders) {
		t.Errorf("guarded: %d texts sent, want one per order: %d", res.guarded.sms.Sent, len(tr.orders))
	}
	if !res.exact() {
		t.Error("result.exact() is false")
	}
	naiveOff := compare(exp, res.naive)
	for _, c := range []string{orders.DeductInventoryConsumer, orders.AddPointsConsumer, orders.SendSmsConsumer, orders.UpdateStatsConsumer} {
		if naiveOff[c] == 0 {
			t.Errorf("naive %s: exactly as expected despite resends and crashes", c)
		}
	}
	if sum(res.naive.db.Stock) >= sum(exp.db.Stock) {
		t.Errorf("naive: stock left %d, want less than the expected %d (deducted more than once)", sum(res.naive.db.Stock), sum(exp.db.Stock))
	}
	if res.naive.sms.Sent <= res.guarded.sms.Sent {
		t.Errorf("naive: %d texts sent, want more than the guarded %d", res.naive.sms.Sent, res.guarded.sms.Sent)
	}
	if withRedis {
		if naiveOff[orders.AddPointsRedisConsumer] == 0 {
			t.Error("naive add_points_redis: exactly as expected despite resends and crashes")
		}
		if len(res.guarded.redisPoints) != len(tr.users) {
			t.Errorf("guarded: %d users on Redis, want %d", len(res.guarded.redisPoints), len(tr.users))
		}
	} else if res.guarded.redisPoints != nil || exp.redisPoints != nil {
		t.Error("Redis points without -redis")
	}
}

// TestMainCode runs the command's entry point: flags, progress, the table,
// exit 0; bad flags exit 2; a server that cannot be reached exits 1 with an
// error naming the flag and the server, and so does the timeout.
func TestMainCode(t *testing.T) {
	t.Parallel()
	t.Run("run", func(t *testing.T) {
		t.Parallel()
		var stdout, stderr bytes.Buffer
		code := mainCode([]string{"-messages", "20", "-dup-rate", "0.5", "-crash-rate", "0", "-seed", "3"}, &stdout, &stderr)
		t.Log("\n" + stdout.String() + stderr.String())
		if code != 0 {
			t.Fatalf("exit %d, want 0", code)
		}
		for _, want := range []string{"20 orders → 80 events", "consumer ", "expected", "naive", "guarded", "deduct_inventory", "add_points", "send_sms", "update_stats", "guarded: ", "exact", "done in"} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("output lacks %q", want)
			}
		}
	})
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-messages", "0"}, 2, "-messages must be at least 1"},
		{[]string{"-crash-rate", "1"}, 2, "-crash-rate must be"},
		{[]string{"-postgres", "postgres://u@127.0.0.1:1/db", "-mysql", "u@tcp(127.0.0.1:1)/db"}, 2, "choose one"},
		{[]string{"-postgres", "postgres://u:secret@127.0.0.1:1/db"}, 1, "-postgres: cannot reach postgres://u:xxxxx@127.0.0.1:1/db: "},
		{[]string{"-mysql", "u:secret@tcp(127.0.0.1:1)/db"}, 1, "-mysql: cannot reach u:xxxxx@tcp(127.0.0.1:1)/db: "},
		{[]string{"-redis", "127.0.0.1:1"}, 1, "-redis: cannot reach 127.0.0.1:1: "},
		{[]string{"-nats", "nats://127.0.0.1:1"}, 1, "-nats: cannot reach nats://127.0.0.1:1: "},
		{[]string{"-timeout", "500ms", "-messages", "2000"}, 1, "timed out after 500ms (-timeout)"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := mainCode(tc.args, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr.String(), tc.code, tc.want)
			}
			if strings.Contains(stderr.String(), "secret") {
				t.Errorf("the password is shown:\n%s", stderr.String())
			}
		})
	}
}

// TestGenerated fails when the committed generated code or migrations
// differ from what idemgen makes of idem.yaml now, as `idemgen check`
// does: regenerate with `go generate ./examples/shop/...`.
func TestGenerated(t *testing.T) {
	t.Parallel()
	s, err := spec.Load("idem.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files, err := generator.Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := generator.Plan(s.Dir, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) > 0 {
		t.Errorf("the generated code is stale; run go generate ./examples/shop/...\n%s", generator.Diff(changes))
	}
}

// TestCompare checks that the comparison sees every kind of difference.
func TestCompare(t *testing.T) {
	t.Parallel()
	tr := newTraffic(10, 0, 1)
	exp := tr.expected
	if got := compare(exp, exp); got.total() != 0 {
		t.Fatalf("expected vs itself: %v", got)
	}
	clone := func() snapshot {
		s := snapshot{
			db:          &shopdb.State{Stock: map[string]int64{}, Points: map[string]int64{}, Stats: map[shopdb.StatKey]shopdb.Stat{}},
			sms:         smsprovider.Counts{Sent: exp.sms.Sent, Texts: map[smsprovider.Text]int{}},
			redisPoints: map[string]int64{},
		}
		for k, v := range exp.db.Stock {
			s.db.Stock[k] = v
		}
		for k, v := range exp.db.Points {
			s.db.Points[k] = v
		}
		for k, v := range exp.db.Stats {
			s.db.Stats[k] = v
		}
		for k, v := range exp.sms.Texts {
			s.sms.Texts[k] = v
		}
		for k, v := range exp.redisPoints {
			s.redisPoints[k] = v
		}
		return s
	}
	o := tr.orders[0]
	for name, change := range map[string]func(s *snapshot){
		orders.DeductInventoryConsumer: func(s *snapshot) { s.db.Stock[o.Sku]-- },
		orders.AddPointsConsumer:       func(s *snapshot) { delete(s.db.Points, o.User) },
		orders.SendSmsConsumer: func(s *snapshot) {
			s.sms.Texts[smsprovider.Text{To: o.Phone, Template: smsTemplate, Params: "order_id=" + o.ID}]++
		},
		orders.UpdateStatsConsumer: func(s *snapshot) {
			s.db.Stats[shopdb.StatKey{Day: "2031-01-01", Metric: metricGMV}] = shopdb.Stat{Count: 1, Total: 5}
		},
		orders.AddPointsRedisConsumer: func(s *snapshot) { s.redisPoints[o.User] += 7 },
	} {
		s := clone()
		change(&s)
		got := compare(exp, s)
		if got[name] != 1 || got.total() != 1 {
			t.Errorf("%s changed: %v, want one row off in %s", name, got, name)
		}
	}
}

// TestCrashDraw checks that the fault injector is deterministic, near its
// rate, and uses both kinds of crash.
func TestCrashDraw(t *testing.T) {
	t.Parallel()
	c := crashes{seed: 1, rate: 0.1}
	kinds := map[crash]int{}
	for seq := uint64(1); seq <= 10000; seq++ {
		k := c.draw("deduct_inventory", seq, 1)
		if k != c.draw("deduct_inventory", seq, 1) {
			t.Fatal("draw is not deterministic")
		}
		kinds[k]++
	}
	if n := kinds[crashBeforeAck] + kinds[crashMidEffect]; n < 800 || n > 1200 {
		t.Errorf("%d crashes in 10000 draws at rate 0.1", n)
	}
	if kinds[crashBeforeAck] == 0 || kinds[crashMidEffect] == 0 {
		t.Errorf("crash kinds: %v", kinds)
	}
	if (crashes{seed: 1}).draw("x", 1, 1) != noCrash {
		t.Error("rate 0 crashes")
	}
}

// startNATS starts a nats-server with JetStream for a test, to run the
// example against a server of its own (-nats), and returns its URL. When
// the test ends, the run must have deleted its streams.
func startNATS(t *testing.T) string {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	})
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		nc, err := nats.Connect(srv.ClientURL())
		if err != nil {
			t.Error(err)
			return
		}
		defer nc.Close()
		js, _ := jetstream.New(nc)
		for name := range js.StreamNames(context.Background()).Name() {
			t.Errorf("stream %s left on the server", name)
		}
	})
	return srv.ClientURL()
}

// testWriter writes to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
