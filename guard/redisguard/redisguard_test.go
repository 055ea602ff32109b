package redisguard_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
	"github.com/idemkit/idem/guard/redisguard"
)

// The environment variables naming the test servers (see guardtest.Env).
const (
	envRedis   = "IDEM_TEST_REDIS"         // host:port of a single server
	envCluster = "IDEM_TEST_REDIS_CLUSTER" // comma-separated host:port of a cluster's nodes
)

// serverAddrs returns the addresses in environment variable name; when it is
// unset the test is skipped, or fails under CI=true (guardtest.Env).
func serverAddrs(t testing.TB, name string) []string {
	t.Helper()
	return strings.Split(guardtest.Env(t, name), ",")
}

// kind is a way of running the store: a server and whether Do uses a hash tag.
type kind struct {
	name    string
	env     string
	cluster bool
	tagged  bool // Do with HashTag, operators through WithHashTag
}

var kinds = []kind{
	{name: "redis", env: envRedis},
	{name: "redis-tagged", env: envRedis, tagged: true},
	{name: "redis-cluster", env: envCluster, cluster: true, tagged: true},
}

// newClient connects to the servers of k. dial, when not nil, replaces the
// dialer (the cuttable proxy).
func newClient(t testing.TB, k kind, dial func(ctx context.Context, network, addr string) (net.Conn, error)) redis.UniversalClient {
	t.Helper()
	addrs := serverAddrs(t, k.env)
	var c redis.UniversalClient
	if k.cluster {
		c = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, Dialer: dial})
	} else {
		c = redis.NewClient(&redis.Options{Addr: addrs[0], Dialer: dial})
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// fixture is one store over a fresh key prefix, with the counter effect of
// guardtest.Backend.
type fixture struct {
	kind   kind
	client redis.UniversalClient
	store  *redisguard.Store // the view used: tagged when kind.tagged
	prefix string
	opts   []guard.Option // the store's
	t      testing.TB
}

func randomPrefix() string {
	var b [8]byte
	rand.Read(b[:])
	return "t" + hex.EncodeToString(b[:])
}

func newFixture(t testing.TB, k kind, client redis.UniversalClient, opts ...guard.Option) *fixture {
	t.Helper()
	f := fixtureOn(t, k, client, randomPrefix(), opts)
	t.Cleanup(f.cleanup)
	return f
}

// fixtureOn builds a store with opts over the keys of prefix.
func fixtureOn(t testing.TB, k kind, client redis.UniversalClient, prefix string, opts []guard.Option) *fixture {
	t.Helper()
	s, err := redisguard.New(client, append([]guard.Option{guard.WithTable(prefix)}, opts...)...)
	if err != nil {
		t.Fatalf("redisguard.New: %v", err)
	}
	f := &fixture{kind: k, client: client, store: s, prefix: prefix, opts: opts, t: t}
	if k.tagged {
		f.store = s.WithHashTag(prefix)
	}
	return f
}

// recordKey is the Redis key of the record of consumer and key in f: under
// the fixture's hash tag when it has one, except for the key identity
// record, which never is.
func (f *fixture) recordKey(consumer, key string) string {
	tag := ""
	if f.kind.tagged && key != guard.IdentityRecordKey {
		tag = f.prefix
	}
	return f.store.RecordKey(consumer, key, tag)
}

func (f *fixture) tamper() guardtest.Tamper {
	return guardtest.RedisTamper(f.client, f.recordKey, func(consumer string) string {
		return "*" + f.prefix + ":" + consumer + ":*"
	})
}

// key names a key of the test's effects, tagged when the store is.
func (f *fixture) key(name string) string {
	if f.kind.tagged {
		return redisguard.Tagged(f.prefix, name)
	}
	return f.prefix + ":" + name
}

func (f *fixture) counterKey(name string) string { return f.key("counter:" + name) }

// cleanup deletes every key of the test (all contain the prefix).
func (f *fixture) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	scan := func(ctx context.Context, c redis.Cmdable) error {
		iter := c.Scan(ctx, 0, "*"+f.prefix+"*", 1000).Iterator()
		var batch []string
		flush := func() {
			c.Pipelined(ctx, func(p redis.Pipeliner) error {
				for _, k := range batch {
					p.Unlink(ctx, k)
				}
				return nil
			})
			batch = batch[:0]
		}
		for iter.Next(ctx) {
			if batch = append(batch, iter.Val()); len(batch) == 1000 {
				flush()
			}
		}
		flush()
		return iter.Err()
	}
	if cc, ok := f.client.(*redis.ClusterClient); ok {
		cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return scan(ctx, c) })
		return
	}
	scan(ctx, f.client)
}

func (f *fixture) do(ctx context.Context, consumer, key string, fp []byte, e guardtest.Effect) (guard.Outcome, error) {
	return f.store.Do(ctx, consumer, key, fp, func(ctx context.Context, pipe redis.Pipeliner) error {
		pipe.IncrBy(ctx, f.counterKey(e.Counter), e.Delta)
		if e.Hook != nil {
			return e.Hook(ctx)
		}
		return nil
	})
}

func (f *fixture) doBatch(ctx context.Context, msgs []guardtest.BatchEffect) []guard.Result {
	batch := make([]redisguard.Message, len(msgs))
	for i, m := range msgs {
		batch[i] = redisguard.Message{Consumer: m.Consumer, Key: m.Key, Fingerprint: m.Fingerprint,
			Apply: func(ctx context.Context, pipe redis.Pipeliner) error {
				pipe.IncrBy(ctx, f.counterKey(m.Effect.Counter), m.Effect.Delta)
				if m.Effect.Hook != nil {
					return m.Effect.Hook(ctx)
				}
				return nil
			}}
	}
	return f.store.DoBatch(ctx, batch)
}

func (f *fixture) counter(ctx context.Context, name string) (int64, error) {
	n, err := f.client.Get(ctx, f.counterKey(name)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, err
}

func (f *fixture) backend() guardtest.Backend {
	return guardtest.Backend{Store: f.store, Do: f.do, DoBatch: f.doBatch, Counter: f.counter, Tamper: f.tamper(),
		Clone: func(opts ...guard.Option) guardtest.Backend {
			return fixtureOn(f.t, f.kind, f.client, f.prefix, append(slices.Clip(f.opts), opts...)).backend()
		}}
}

// harness builds the guardtest harness of k. Cuttable stores reach their
// servers through guardtest proxies (one per cluster node: the client's
// dialer maps each node's address to its proxy).
func harness(k kind) guardtest.Harness {
	return guardtest.Harness{
		Name:     k.name,
		TTLPurge: true,
		New: func(t testing.TB, opts ...guard.Option) guardtest.Backend {
			return newFixture(t, k, newClient(t, k, nil), opts...).backend()
		},
		NewCuttable: func(t testing.TB, opts ...guard.Option) (guardtest.Backend, func()) {
			proxies := map[string]string{}
			var cuts []func()
			for _, a := range serverAddrs(t, k.env) {
				p, cut := guardtest.NewProxy(t, a)
				proxies[a], cuts = p, append(cuts, cut)
			}
			var mu sync.Mutex
			dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
				mu.Lock()
				p, ok := proxies[addr]
				if !ok { // a node announced under another address: proxy it too
					p, _ = guardtest.NewProxy(t, addr)
					proxies[addr] = p
				}
				mu.Unlock()
				var d net.Dialer
				return d.DialContext(ctx, network, p)
			}
			f := newFixture(t, k, newClient(t, k, dial), opts...)
			return f.backend(), func() {
				for _, cut := range cuts {
					cut()
				}
			}
		},
	}
}

// forKinds runs fn as a subtest per kind whose server is configured.
func forKinds(t *testing.T, fn func(t *testing.T, k kind)) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) { fn(t, k) })
	}
}

// forTaggedKinds runs fn as a subtest per kind that uses hash tags (rather
// than skipping the others: a skipped subtest would pass).
func forTaggedKinds(t *testing.T, fn func(t *testing.T, k kind)) {
	for _, k := range kinds {
		if k.tagged {
			t.Run(k.name, func(t *testing.T) { fn(t, k) })
		}
	}
}

func TestConformance(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) { guardtest.Run(t, harness(k)) })
}

func TestFaults(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) { guardtest.RunFaults(t, harness(k)) })
}

func TestBatchFaults(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) { guardtest.RunBatchFaults(t, harness(k)) })
}

func TestBatchConformance(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) { guardtest.RunBatch(t, harness(k)) })
}

// setup returns a fixture for k with an observer recording its decisions.
func setup(t *testing.T, k kind, opts ...guard.Option) (*fixture, *guardtest.Recorder, context.Context) {
	t.Helper()
	rec := guardtest.NewRecorder()
	f := newFixture(t, k, newClient(t, k, nil), append([]guard.Option{guard.WithObserver(rec)}, opts...)...)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return f, rec, ctx
}

func mustCount(t *testing.T, f *fixture, ctx context.Context, name string, want int64) {
	t.Helper()
	got, err := f.counter(ctx, name)
	if err != nil {
		t.Fatalf("counter %s: %v", name, err)
	}
	if got != want {
		t.Fatalf("counter %s = %d, want %d", name, got, want)
	}
}

func mustState(t *testing.T, f *fixture, ctx context.Context, consumer, key string, want guard.State) *guard.Record {
	t.Helper()
	r, err := f.store.Inspect(ctx, consumer, key)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	switch {
	case r == nil && want != "":
		t.Fatalf("Inspect = nil, want state %s", want)
	case r != nil && r.State != want:
		t.Fatalf("Inspect state = %s, want %q", r.State, want)
	}
	return r
}

func TestDoApplyDuplicateConflict(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		f, rec, ctx := setup(t, k)
		fp, other := []byte("v1:aaa"), []byte("v1:bbb")
		e := guardtest.Effect{Counter: "c", Delta: 3}
		if out, err := f.do(ctx, "billing", "v12:k1", fp, e); err != nil || out != guard.Applied {
			t.Fatalf("first Do = %v, %v; want applied", out, err)
		}
		if out, err := f.do(ctx, "billing", "v12:k1", fp, e); err != nil || out != guard.Duplicate {
			t.Fatalf("second Do = %v, %v; want duplicate", out, err)
		}
		if _, err := f.do(ctx, "billing", "v12:k1", other, e); !errors.Is(err, guard.ErrKeyConflict) {
			t.Fatalf("Do with another fingerprint: %v, want ErrKeyConflict", err)
		}
		mustCount(t, f, ctx, "c", 3)
		r := mustState(t, f, ctx, "billing", "v12:k1", guard.StateDone)
		if string(r.Fingerprint) != string(guard.StoredFingerprint(fp)) || r.Key != "v12:k1" || r.Consumer != "billing" {
			t.Fatalf("record = %+v", r)
		}
		if rec.Count(guard.DecisionApplied) != 1 || rec.Count(guard.DecisionDuplicate) != 1 || rec.Count(guard.DecisionConflict) != 1 {
			t.Fatalf("observer saw %v", rec.Events())
		}
	})
}

// TestRecordLayout checks the Redis side of a record: its key, its fields
// and its TTL.
func TestRecordLayout(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		retention := 90 * time.Minute
		f, _, ctx := setup(t, k, guard.WithRetention(retention))
		if _, err := f.do(ctx, "billing", "v12:k1", []byte("v1:fp"), guardtest.Effect{Counter: "c", Delta: 1}); err != nil {
			t.Fatal(err)
		}
		h := guard.KeyHash("v12:k1")
		want := f.prefix + ":billing:" + hex.EncodeToString(h[:])
		if k.tagged {
			want = "{" + f.prefix + "}" + want
		}
		if got := f.store.RecordKey("billing", "v12:k1", map[bool]string{true: f.prefix}[k.tagged]); got != want {
			t.Fatalf("RecordKey = %q, want %q", got, want)
		}
		fields, err := f.client.HGetAll(ctx, want).Result()
		if err != nil {
			t.Fatal(err)
		}
		if fields["state"] != "done" || fields["fp"] != string(guard.StoredFingerprint([]byte("v1:fp"))) || fields["key"] != "v12:k1" || fields["created"] == "" {
			t.Fatalf("record fields = %v", fields)
		}
		ttl, err := f.client.PTTL(ctx, want).Result()
		if err != nil {
			t.Fatal(err)
		}
		if ttl <= retention-time.Minute || ttl > retention {
			t.Fatalf("record TTL = %s, want about %s", ttl, retention)
		}
	})
}

func TestDoPartialEffect(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		f, rec, ctx := setup(t, k)
		text := f.key("not-a-number")
		if err := f.client.Set(ctx, text, "abc", 0).Err(); err != nil {
			t.Fatal(err)
		}
		apply := func(ctx context.Context, pipe redis.Pipeliner) error {
			pipe.IncrBy(ctx, f.counterKey("c"), 5)
			pipe.Incr(ctx, text) // fails at EXEC: the value is not an integer
			pipe.Get(ctx, f.key("absent"))
			return nil
		}
		_, err := f.store.Do(ctx, "billing", "v12:p", nil, apply)
		if !errors.Is(err, guard.ErrPartialEffect) || !guard.Permanent(err) {
			t.Fatalf("Do with a failing command: %v, want a permanent ErrPartialEffect", err)
		}
		if !strings.Contains(err.Error(), "incr") || !strings.Contains(err.Error(), "not an integer") {
			t.Fatalf("partial effect error %q does not name the command and its error", err)
		}
		mustCount(t, f, ctx, "c", 5) // Redis does not roll back
		if rec.Count(guard.DecisionPartial) != 1 {
			t.Fatalf("observer saw %v, want one partial", rec.Events())
		}
		r := mustState(t, f, ctx, "billing", "v12:p", guard.StateFailed)
		if !strings.Contains(string(r.Result), "not an integer") {
			t.Fatalf("failed record reason = %q", r.Result)
		}
		_, err = f.store.Do(ctx, "billing", "v12:p", nil, apply)
		if !errors.Is(err, guard.ErrFailed) {
			t.Fatalf("redelivery after a partial effect: %v, want ErrFailed", err)
		}
		mustCount(t, f, ctx, "c", 5)
	})
}

func TestDoExecAbortAppliesNothing(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		f, _, ctx := setup(t, k)
		_, err := f.store.Do(ctx, "billing", "v12:abort", nil, func(ctx context.Context, pipe redis.Pipeliner) error {
			pipe.IncrBy(ctx, f.counterKey("c"), 1)
			pipe.Do(ctx, "set", f.key("x")) // wrong arity: refused while queued
			return nil
		})
		if err == nil || errors.Is(err, guard.ErrPartialEffect) || guard.Permanent(err) {
			t.Fatalf("Do with a command refused while queued: %v, want a transient error", err)
		}
		if !strings.Contains(err.Error(), "nothing applied") {
			t.Fatalf("error %q does not say nothing was applied", err)
		}
		mustCount(t, f, ctx, "c", 0)
		mustState(t, f, ctx, "billing", "v12:abort", "")
	})
}

func TestDoConcurrentDuplicates(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		f, rec, ctx := setup(t, k)
		var applied, duplicate atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 16 {
			wg.Go(func() {
				<-start
				out, err := f.do(ctx, "billing", "v12:same", nil, guardtest.Effect{Counter: "c", Delta: 1})
				switch {
				case err != nil:
					t.Errorf("Do: %v", err)
				case out == guard.Applied:
					applied.Add(1)
				default:
					duplicate.Add(1)
				}
			})
		}
		close(start)
		wg.Wait()
		if applied.Load() != 1 || duplicate.Load() != 15 {
			t.Fatalf("%d applied, %d duplicate; want 1 and 15", applied.Load(), duplicate.Load())
		}
		mustCount(t, f, ctx, "c", 1)
		t.Logf("%d WATCH retries", rec.Count(guard.DecisionRetried))
	})
}

// TestDoWatchRetry makes the record appear between Do's read and its EXEC:
// the EXEC is refused, nothing of the loser runs, and Do ends as Duplicate.
func TestDoWatchRetry(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		f, rec, ctx := setup(t, k)
		calls := 0
		out, err := f.do(ctx, "billing", "v12:race", nil, guardtest.Effect{Counter: "c", Delta: 10, Hook: func(ctx context.Context) error {
			calls++
			if calls == 1 { // a concurrent delivery wins meanwhile
				if out, err := f.do(ctx, "billing", "v12:race", nil, guardtest.Effect{Counter: "c", Delta: 1}); err != nil || out != guard.Applied {
					t.Errorf("inner Do = %v, %v; want applied", out, err)
				}
			}
			return nil
		}})
		if err != nil || out != guard.Duplicate {
			t.Fatalf("Do that lost the race = %v, %v; want duplicate", out, err)
		}
		mustCount(t, f, ctx, "c", 1)
		if calls != 1 {
			t.Fatalf("apply ran %d times, want 1 (the retry finds the record)", calls)
		}
		ev := rec.Find(guard.DecisionRetried, "v12:race")
		if len(ev) != 1 || !errors.Is(ev[0].Err, redis.TxFailedErr) {
			t.Fatalf("retried events = %+v, want one with redis.TxFailedErr", ev)
		}
	})
}

func TestDoRetriesUsedUp(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		f, _, ctx := setup(t, k, guard.WithMaxRetries(0))
		_, err := f.do(ctx, "billing", "v12:race", nil, guardtest.Effect{Counter: "c", Delta: 10, Hook: func(ctx context.Context) error {
			f.do(ctx, "billing", "v12:race", nil, guardtest.Effect{Counter: "c", Delta: 1})
			return nil
		}})
		if !errors.Is(err, redis.TxFailedErr) || guard.Permanent(err) {
			t.Fatalf("Do without retries that lost the race: %v, want a transient redis.TxFailedErr", err)
		}
		mustCount(t, f, ctx, "c", 1)
	})
}

func TestDoApplyMustNotExecute(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		f, _, ctx := setup(t, k)
		for name, misuse := range map[string]func(ctx context.Context, pipe redis.Pipeliner) error{
			"Exec": func(ctx context.Context, pipe redis.Pipeliner) error {
				_, err := pipe.Exec(ctx)
				return err
			},
			"Exec-ignored": func(ctx context.Context, pipe redis.Pipeliner) error {
				pipe.Exec(ctx)
				return nil
			},
			"Pipelined": func(ctx context.Context, pipe redis.Pipeliner) error {
				pipe.Pipeline().Pipelined(ctx, func(p redis.Pipeliner) error { return nil })
				return nil
			},
			"TxPipeline-Exec": func(ctx context.Context, pipe redis.Pipeliner) error {
				pipe.TxPipeline().Exec(ctx)
				return nil
			},
			"SELECT": func(ctx context.Context, pipe redis.Pipeliner) error {
				pipe.Select(ctx, 1)
				return nil
			},
		} {
			key := "v12:misuse-" + name
			_, err := f.store.Do(ctx, "billing", key, nil, func(ctx context.Context, pipe redis.Pipeliner) error {
				pipe.IncrBy(ctx, f.counterKey("c"), 1)
				return misuse(ctx, pipe)
			})
			if err == nil {
				t.Fatalf("%s: Do = nil error, want a refusal", name)
			}
			mustCount(t, f, ctx, "c", 0)
			mustState(t, f, ctx, "billing", key, "")
		}
	})
}

func TestDoReject(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		f, rec, ctx := setup(t, k)
		reason := errors.New("out of stock")
		_, err := f.store.Do(ctx, "billing", "v12:r", nil, func(ctx context.Context, pipe redis.Pipeliner) error {
			pipe.IncrBy(ctx, f.counterKey("c"), 1)
			return guard.Reject(reason)
		})
		if !errors.Is(err, guard.ErrFailed) || !errors.Is(err, reason) {
			t.Fatalf("Do that rejects: %v, want ErrFailed wrapping the reason", err)
		}
		if want := "guard: key failed permanently (consumer billing): rejected: out of stock"; err.Error() != want {
			t.Fatalf("error = %q, want %q (the SQL stores' wording)", err, want)
		}
		mustCount(t, f, ctx, "c", 0)
		r := mustState(t, f, ctx, "billing", "v12:r", guard.StateFailed)
		if string(r.Result) != "rejected: out of stock" {
			t.Fatalf("reason = %q", r.Result)
		}
		if rec.Count(guard.DecisionFailed) != 1 {
			t.Fatalf("observer saw %v", rec.Events())
		}
	})
}

// TestHashTagSlots checks the slot rule: every key queued with HashTag (and
// every key on a cluster) must share the record's slot, checked before
// anything is sent.
func TestHashTagSlots(t *testing.T) {
	forTaggedKinds(t, func(t *testing.T, k kind) {
		f, _, ctx := setup(t, k)
		tag := f.prefix
		cases := []struct {
			name    string
			queue   func(ctx context.Context, pipe redis.Pipeliner)
			refused string // a part of the refusal; "" for none
		}{
			{"tagged-incr", func(ctx context.Context, pipe redis.Pipeliner) {
				pipe.IncrBy(ctx, f.key("a"), 1)
			}, ""},
			{"untagged-incr", func(ctx context.Context, pipe redis.Pipeliner) {
				pipe.IncrBy(ctx, f.key("a"), 1)
				pipe.IncrBy(ctx, "elsewhere:"+tag, 1)
			}, `incrby queues key "elsewhere:` + tag},
			{"mset-last-key-untagged", func(ctx context.Context, pipe redis.Pipeliner) {
				pipe.MSet(ctx, f.key("m1"), 1, f.key("m2"), 2, "m3"+tag, 3)
			}, `mset queues key "m3` + tag},
			{"eval-tagged", func(ctx context.Context, pipe redis.Pipeliner) {
				pipe.Eval(ctx, "return redis.call('INCR', KEYS[1])", []string{f.key("e")})
			}, ""},
			{"eval-untagged", func(ctx context.Context, pipe redis.Pipeliner) {
				pipe.Eval(ctx, "return redis.call('INCR', KEYS[1])", []string{f.key("e"), "e2" + tag})
			}, `eval queues key "e2` + tag},
			{"zunionstore-tagged", func(ctx context.Context, pipe redis.Pipeliner) { // movable keys: COMMAND GETKEYS
				pipe.ZUnionStore(ctx, f.key("zd"), &redis.ZStore{Keys: []string{f.key("z1"), f.key("z2")}})
			}, ""},
			{"zunionstore-untagged", func(ctx context.Context, pipe redis.Pipeliner) {
				pipe.ZUnionStore(ctx, f.key("zd"), &redis.ZStore{Keys: []string{f.key("z1"), "z2" + tag}})
			}, `zunionstore queues key "z2` + tag},
			{"object-encoding-untagged", func(ctx context.Context, pipe redis.Pipeliner) { // container command
				pipe.ObjectEncoding(ctx, "o"+tag)
			}, `queues key "o` + tag},
			{"keyless", func(ctx context.Context, pipe redis.Pipeliner) {
				pipe.Ping(ctx)
				pipe.Time(ctx)
			}, ""},
		}
		for _, c := range cases {
			key := "v12:" + c.name
			_, err := f.store.Do(ctx, "billing", key, nil, func(ctx context.Context, pipe redis.Pipeliner) error {
				pipe.IncrBy(ctx, f.counterKey(c.name), 1)
				c.queue(ctx, pipe)
				return nil
			}, redisguard.HashTag(tag))
			if c.refused == "" {
				if err != nil {
					t.Fatalf("%s: Do: %v", c.name, err)
				}
				mustCount(t, f, ctx, c.name, 1)
				continue
			}
			if err == nil || !strings.Contains(err.Error(), c.refused) || !strings.Contains(err.Error(), "{"+tag+"}") {
				t.Fatalf("%s: Do = %v, want a refusal containing %q and the tag", c.name, err, c.refused)
			}
			mustCount(t, f, ctx, c.name, 0)
			mustState(t, f, ctx, "billing", key, "")
		}
	})
}

// TestPinHashTag: a hash tag that is not part of the key (the user of an
// order) puts the record in the tag's slot; without PinHashTag the same key
// sent with another tag finds no record there and applies again, with it
// the second tag is guard.ErrKeyConflict.
func TestPinHashTag(t *testing.T) {
	forTaggedKinds(t, func(t *testing.T, k kind) {
		f, rec, ctx := setup(t, k)
		tagA, tagB := f.prefix+"a", f.prefix+"b"
		count := func(tag string) int64 {
			n, err := f.client.Get(ctx, redisguard.Tagged(tag, "points")).Int64()
			if err != nil && !errors.Is(err, redis.Nil) {
				t.Fatal(err)
			}
			return n
		}
		do := func(key, tag string, opts ...redisguard.DoOption) (guard.Outcome, error) {
			t.Cleanup(func() { f.client.Del(context.Background(), redisguard.Tagged(tag, "points")) })
			return f.store.Do(ctx, "points", key, []byte("fp"), func(ctx context.Context, pipe redis.Pipeliner) error {
				pipe.IncrBy(ctx, redisguard.Tagged(tag, "points"), 10)
				return nil
			}, append([]redisguard.DoOption{redisguard.HashTag(tag)}, opts...)...)
		}
		pin := redisguard.PinHashTag()
		steps := []struct {
			key, tag string
			opts     []redisguard.DoOption
			want     guard.Outcome
			wantErr  error
		}{
			{"o1", tagA, []redisguard.DoOption{pin}, guard.Applied, nil},
			{"o1", tagA, []redisguard.DoOption{pin}, guard.Duplicate, nil},
			{"o1", tagB, []redisguard.DoOption{pin}, 0, guard.ErrKeyConflict},
			// Without the pin, the second tag is a second record: the hazard.
			{"o2", tagA, nil, guard.Applied, nil},
			{"o2", tagB, nil, guard.Applied, nil},
		}
		for i, st := range steps {
			out, err := do(st.key, st.tag, st.opts...)
			if !errors.Is(err, st.wantErr) || (st.wantErr == nil && err != nil) || (err == nil && out != st.want) {
				t.Fatalf("step %d (%s, %s): %v, %v; want %v, %v", i, st.key, st.tag, out, err, st.want, st.wantErr)
			}
		}
		if a, b := count(tagA), count(tagB); a != 20 || b != 10 {
			t.Errorf("points: tag a %d, tag b %d; want 20 (o1, o2) and 10 (o2 only)", a, b)
		}
		if rec.Count(guard.DecisionConflict) != 1 {
			t.Errorf("conflict decisions: %d, want 1", rec.Count(guard.DecisionConflict))
		}
	})
}

// TestClusterWithoutHashTag: on a cluster, a Do without a hash tag can only
// queue keys of the record's own (arbitrary) slot, and says to use HashTag.
func TestClusterWithoutHashTag(t *testing.T) {
	k := kind{name: "redis-cluster", env: envCluster, cluster: true}
	f, _, ctx := setup(t, k)
	_, err := f.store.Do(ctx, "billing", "v12:untagged", nil, func(ctx context.Context, pipe redis.Pipeliner) error {
		pipe.IncrBy(ctx, f.counterKey("c"), 1)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "use HashTag") {
		t.Fatalf("untagged Do on a cluster = %v, want an error telling to use HashTag", err)
	}
	mustCount(t, f, ctx, "c", 0)
	mustState(t, f, ctx, "billing", "v12:untagged", "")
	// A keyless effect needs no tag.
	if out, err := f.store.Do(ctx, "billing", "v12:keyless", nil, func(ctx context.Context, pipe redis.Pipeliner) error {
		pipe.Ping(ctx)
		return nil
	}); err != nil || out != guard.Applied {
		t.Fatalf("keyless untagged Do on a cluster = %v, %v", out, err)
	}
	// Leases need no tag either.
	l, err := f.store.Claim(ctx, "sms", "v12:lease", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Complete(ctx, []byte("ok")); err != nil {
		t.Fatal(err)
	}
}

func TestKeySlot(t *testing.T) {
	for key, want := range map[string]int{
		"":                     0,
		"foo":                  12182,
		"123456789":            12739, // CRC16/XMODEM check value 0x31C3
		"{user1000}.following": 3443,
		"{user1000}.followers": 3443,
		"user1000":             3443,
		"foo{}{bar}":           8363, // an empty tag hashes the whole key
		"foo{{bar}}zap":        4015, // the tag is "{bar"
		"foo{bar}{zap}":        5061, // the first tag counts
		"{}":                   15257,
	} {
		if got := redisguard.KeySlot(key); got != want {
			t.Errorf("KeySlot(%q) = %d, want %d", key, got, want)
		}
	}
	addrs := serverAddrs(t, envCluster)
	c := redis.NewClient(&redis.Options{Addr: addrs[0]})
	defer c.Close()
	ctx := t.Context()
	for i := range 200 {
		key := fmt.Sprintf("k%d{t%d}x%c", i, i%7, rune('a'+i%26))
		if i%3 == 0 {
			key = randomPrefix() + ":\xff\x00" + key
		}
		want, err := c.ClusterKeySlot(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got := redisguard.KeySlot(key); int64(got) != want {
			t.Errorf("KeySlot(%q) = %d, CLUSTER KEYSLOT says %d", key, got, want)
		}
	}
}

// TestHashTagValidation: a bad hash tag is refused before anything is sent.
// The client's dialer fails the test if the store reaches for the server,
// so a refusal cannot come from a connection error instead of the check.
func TestHashTagValidation(t *testing.T) {
	errDialed := errors.New("the store dialled the server")
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1,
		Dialer: func(context.Context, string, string) (net.Conn, error) { return nil, errDialed }})
	t.Cleanup(func() { client.Close() })
	s, err := redisguard.New(client)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, c := range []struct{ tag, why string }{{"", "empty hash tag"}, {"a{b", "contains a brace"}, {"a}b", "contains a brace"}} {
		calls := []struct {
			name string
			call func() error
		}{
			{"Do", func() error {
				_, err := s.Do(ctx, "c", "k", nil, func(context.Context, redis.Pipeliner) error { return nil }, redisguard.HashTag(c.tag))
				return err
			}},
			{"Inspect", func() error { _, err := s.WithHashTag(c.tag).Inspect(ctx, "c", "k"); return err }},
			{"Claim", func() error { _, err := s.WithHashTag(c.tag).Claim(ctx, "c", "k", nil); return err }},
			{"Resolve", func() error { return s.WithHashTag(c.tag).Resolve(ctx, "c", "k", nil) }},
			{"Forget", func() error { return s.WithHashTag(c.tag).Forget(ctx, "c", "k") }},
		}
		for _, call := range calls {
			err := call.call()
			if err == nil || errors.Is(err, errDialed) || !strings.Contains(err.Error(), c.why) {
				t.Errorf("%s with hash tag %q: %v, want a refusal saying %q, before any connection", call.name, c.tag, err, c.why)
			}
		}
	}
	if _, err := redisguard.New(nil); err == nil || !strings.Contains(err.Error(), "nil client") {
		t.Errorf("New(nil) = %v, want an error about the nil client", err)
	}
	if _, err := redisguard.New(client, guard.WithTable("bad prefix")); err == nil || !strings.Contains(err.Error(), "not an identifier") {
		t.Errorf("New with a bad prefix = %v, want an error about the prefix", err)
	}
}

func TestLeaseLifecycle(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		lease := 5 * time.Second
		f, _, ctx := setup(t, k, guard.WithLease(lease))
		l, err := f.store.Claim(ctx, "sms", "v12:a", []byte("v1:x"))
		if err != nil || l.Outcome() != guard.Applied {
			t.Fatalf("Claim = %v, %v", l, err)
		}
		var ip *guard.InProgressError
		if _, err := f.store.Claim(ctx, "sms", "v12:a", []byte("v1:x")); !errors.As(err, &ip) || ip.RetryAfter <= 0 || ip.RetryAfter > lease {
			t.Fatalf("second Claim: %v, want InProgress with RetryAfter within the lease", err)
		}
		if err := l.Complete(ctx, []byte("r1")); err != nil {
			t.Fatal(err)
		}
		d, err := f.store.Claim(ctx, "sms", "v12:a", []byte("v1:x"))
		if err != nil || d.Outcome() != guard.Duplicate || string(d.Result()) != "r1" {
			t.Fatalf("Claim after Complete = %v, %v", d, err)
		}

		// Takeover after expiry (at-least-once); the stale owner is fenced.
		old, err := f.store.Claim(ctx, "sms", "v12:b", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.tamper().ExpireLease(ctx, "sms", "v12:b"); err != nil {
			t.Fatal(err)
		}
		nl, err := f.store.Claim(ctx, "sms", "v12:b", nil)
		if err != nil || !nl.TakenOver() {
			t.Fatalf("Claim of an expired lease = %v, %v; want a takeover", nl, err)
		}
		if err := old.Complete(ctx, nil); !errors.Is(err, guard.ErrLeaseLost) {
			t.Fatalf("stale Complete: %v, want ErrLeaseLost", err)
		}
		if err := nl.Complete(ctx, nil); err != nil {
			t.Fatal(err)
		}
	})
}

func TestLeaseAtMostOnce(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		f, _, ctx := setup(t, k, guard.WithDelivery(guard.AtMostOnce))
		l, err := f.store.Claim(ctx, "sms", "v12:u", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.tamper().ExpireLease(ctx, "sms", "v12:u"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.Claim(ctx, "sms", "v12:u", nil); !errors.Is(err, guard.ErrUncertain) {
			t.Fatalf("Claim of an expired at-most-once lease: %v, want ErrUncertain", err)
		}
		r := mustState(t, f, ctx, "sms", "v12:u", guard.StateUncertain)
		if !r.LeaseUntil.IsZero() {
			t.Fatalf("uncertain record keeps a lease: %s", r.LeaseUntil)
		}
		if err := l.Extend(ctx, time.Second); !errors.Is(err, guard.ErrLeaseLost) {
			t.Fatalf("Extend of an uncertain lease: %v, want ErrLeaseLost", err)
		}
	})
}

// TestExtendRaisesTTL: a lease extended past the retention keeps its
// record for as long as the lease, and Complete brings the TTL back to the
// retention.
func TestExtendRaisesTTL(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		retention := guard.MinRetention
		f, _, ctx := setup(t, k, guard.WithLease(guard.MinLease), guard.WithRetention(retention))
		l, err := f.store.Claim(ctx, "sms", "v12:long", nil)
		if err != nil {
			t.Fatal(err)
		}
		ext := 10 * retention
		if err := l.Extend(ctx, ext); err != nil {
			t.Fatal(err)
		}
		rkey := f.recordKey("sms", "v12:long")
		if ttl, err := f.client.PTTL(ctx, rkey).Result(); err != nil || ttl <= retention || ttl > ext {
			t.Fatalf("TTL after Extend = %s, %v; want the extension's %s", ttl, err, ext)
		}
		// The retention runs out: the record stays for its lease.
		if err := f.tamper().ExpireRetention(ctx, "sms", "v12:long"); err != nil {
			t.Fatal(err)
		}
		mustState(t, f, ctx, "sms", "v12:long", guard.StatePending)
		if err := l.Complete(ctx, nil); err != nil {
			t.Fatalf("Complete after the retention: %v", err)
		}
		ttl, err := f.client.PTTL(ctx, rkey).Result()
		if err != nil || ttl <= 0 || ttl > retention {
			t.Fatalf("TTL after Complete = %s, %v; want the retention again", ttl, err)
		}
	})
}

func TestPurgeIsTTL(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		f, rec, ctx := setup(t, k)
		n, err := f.store.Purge(ctx)
		if err != nil || n != 0 {
			t.Fatalf("Purge = %d, %v; want 0, nil", n, err)
		}
		ev := rec.Find(guard.DecisionPurged, "")
		if len(ev) != 1 || ev[0].Count != 0 {
			t.Fatalf("purged events = %+v", ev)
		}
	})
}

// TestNoWatchLeftOnConnection: on every path that does not reach EXEC (a
// refusal, apply's error, a panic in apply), Do releases its WATCH, so the
// pooled connection's next transaction is not spoiled by a change to the
// record.
func TestNoWatchLeftOnConnection(t *testing.T) {
	k := kinds[0]
	addr := serverAddrs(t, k.env)[0]
	client := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1})
	t.Cleanup(func() { client.Close() })
	other := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { other.Close() })
	f := newFixture(t, k, client)
	ctx := t.Context()
	if _, err := f.do(ctx, "billing", "v12:done", nil, guardtest.Effect{Counter: "c", Delta: 1}); err != nil {
		t.Fatal(err)
	}
	rkey := f.store.RecordKey("billing", "v12:done", "")
	paths := map[string]func(){
		"duplicate": func() {
			if out, err := f.do(ctx, "billing", "v12:done", nil, guardtest.Effect{Counter: "c", Delta: 1}); out != guard.Duplicate {
				t.Fatalf("Do = %v, %v; want duplicate", out, err)
			}
		},
		"apply-error": func() {
			f.store.Do(ctx, "billing", "v12:fresh", nil, func(context.Context, redis.Pipeliner) error { return errors.New("no") })
		},
		"apply-panic": func() {
			defer func() { recover() }()
			f.store.Do(ctx, "billing", "v12:fresh", nil, func(context.Context, redis.Pipeliner) error { panic("boom") })
		},
	}
	for name, path := range paths {
		path()
		// A change to the record by another connection must not spoil the
		// next transaction of the (only) pooled connection.
		if err := other.HSet(ctx, rkey, "touched", name).Err(); err != nil {
			t.Fatal(err)
		}
		if err := other.HSet(ctx, f.store.RecordKey("billing", "v12:fresh", ""), "touched", name).Err(); err != nil {
			t.Fatal(err)
		}
		if err := client.Watch(ctx, func(tx *redis.Tx) error { // the regular pool's only connection
			_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Incr(ctx, f.key("probe"))
				return nil
			})
			return err
		}); err != nil {
			t.Fatalf("%s: the next transaction on the connection: %v (a WATCH was left armed)", name, err)
		}
		other.Del(ctx, f.store.RecordKey("billing", "v12:fresh", ""))
	}
}

// TestRing: on a redis.Ring, Do runs on the record's shard, and queued keys
// must hash like the record (the same hash tag) to be on that shard.
func TestRing(t *testing.T) {
	addr := serverAddrs(t, envRedis)[0]
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": addr}})
	t.Cleanup(func() { ring.Close() })
	k := kind{name: "redis-ring", env: envRedis, tagged: true}
	f := newFixture(t, k, ring)
	ctx := t.Context()
	if out, err := f.do(ctx, "billing", "v12:ring", nil, guardtest.Effect{Counter: "c", Delta: 2}); err != nil || out != guard.Applied {
		t.Fatalf("tagged Do on a Ring = %v, %v", out, err)
	}
	if out, err := f.do(ctx, "billing", "v12:ring", nil, guardtest.Effect{Counter: "c", Delta: 2}); err != nil || out != guard.Duplicate {
		t.Fatalf("second tagged Do on a Ring = %v, %v", out, err)
	}
	mustCount(t, f, ctx, "c", 2)
	_, err := f.store.Do(ctx, "billing", "v12:ring-untagged", nil, func(ctx context.Context, pipe redis.Pipeliner) error {
		pipe.IncrBy(ctx, "untagged-"+f.prefix, 1)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "untagged-"+f.prefix) {
		t.Fatalf("Do on a Ring with a key of another hash = %v, want a refusal naming the key", err)
	}
	l, err := f.store.Claim(ctx, "sms", "v12:ring-lease", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Complete(ctx, []byte("ok")); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptKeys: keys of the store's records holding something else than
// a hash (a hand's SET, another program's key) give clear errors, are never
// overwritten, and never let an effect run.
func TestCorruptKeys(t *testing.T) {
	forKinds(t, func(t *testing.T, k kind) {
		f, _, ctx := setup(t, k, guard.WithKeyIdentity("v1"))
		// The identity record.
		if err := f.client.Set(ctx, f.recordKey("billing", guard.IdentityRecordKey), "v1", 0).Err(); err != nil {
			t.Fatal(err)
		}
		_, err := f.do(ctx, "billing", "v12:k1", nil, guardtest.Effect{Counter: "c", Delta: 1})
		if !errors.Is(err, guard.ErrKeyIdentityChanged) || guard.Permanent(err) || !strings.Contains(err.Error(), "a Redis string") {
			t.Fatalf("Do over an identity key holding a string: %v, want a transient ErrKeyIdentityChanged naming its type", err)
		}
		if _, err := f.store.KeyIdentity(ctx, "billing"); !errors.Is(err, guard.ErrKeyIdentityChanged) {
			t.Fatalf("KeyIdentity of a string: %v", err)
		}
		if v, err := f.client.Get(ctx, f.recordKey("billing", guard.IdentityRecordKey)).Result(); err != nil || v != "v1" {
			t.Fatalf("the corrupt identity key was changed: %q, %v", v, err)
		}
		mustCount(t, f, ctx, "c", 0)
		if err := f.store.ForgetKeyIdentity(ctx, "billing"); err != nil {
			t.Fatal(err)
		}

		// A dedup record.
		rkey := f.recordKey("billing", "v12:k2")
		if err := f.client.Set(ctx, rkey, "not a record", 0).Err(); err != nil {
			t.Fatal(err)
		}
		_, err = f.do(ctx, "billing", "v12:k2", nil, guardtest.Effect{Counter: "c", Delta: 1})
		if err == nil || guard.Permanent(err) || !strings.Contains(err.Error(), "WRONGTYPE") {
			t.Fatalf("Do over a key holding a string: %v, want a transient error saying WRONGTYPE", err)
		}
		if _, err := f.store.Claim(ctx, "billing", "v12:k2", nil); err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
			t.Fatalf("Claim over a key holding a string: %v, want an error saying WRONGTYPE", err)
		}
		mustCount(t, f, ctx, "c", 0)
		// A hash without a state is a record of an unknown state.
		if err := f.client.Del(ctx, rkey).Err(); err != nil {
			t.Fatal(err)
		}
		if err := f.client.HSet(ctx, rkey, "key", "v12:k2").Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.Claim(ctx, "billing", "v12:k2", nil); err == nil || !strings.Contains(err.Error(), `unknown state ""`) {
			t.Fatalf("Claim over a hash without a state: %v, want an error about its state", err)
		}
		if err := f.store.Forget(ctx, "billing", "v12:k2"); err != nil {
			t.Fatal(err)
		}
		if out, err := f.do(ctx, "billing", "v12:k2", nil, guardtest.Effect{Counter: "c", Delta: 1}); err != nil || out != guard.Applied {
			t.Fatalf("Do after Forget = %v, %v", out, err)
		}
	})
}
