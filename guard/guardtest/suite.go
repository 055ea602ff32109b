package guardtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

// testTimeout bounds every subtest's calls. No subtest waits for a lease or
// a retention to run out: they end it by the store's clock (Tamper).
const testTimeout = 60 * time.Second

// testCase is one subtest of the conformance suite.
type testCase struct {
	name string
	run  func(t *testing.T, h Harness)
}

// Run runs the conformance suite against the store of h: every cell of the
// state table and every error of the error table of package guard, through the
// public API only (Backend.Do, the guard.Store methods and the Lease
// methods). Each subtest gets a fresh store from h.New. Subtests that count
// goroutines (a store's life cycle; the server cut mid-call and while idle,
// when h.NewCuttable is set) run first, one at a time; the others run in
// parallel.
func Run(t *testing.T, h Harness) {
	if h.New == nil {
		t.Fatal("guardtest: Harness.New is nil")
	}
	leakChecked(t, "Lifecycle/no-goroutine-leak", func(t *testing.T) { testLifecycle(t, h) })
	if h.NewCuttable != nil {
		leakChecked(t, "Input/server-cut-during-hook", func(t *testing.T) { testCutDuringHook(t, h) })
		leakChecked(t, "Input/server-cut-while-idle", func(t *testing.T) { testCutIdle(t, h) })
	}
	var cases []testCase
	cases = append(cases, doCases...)
	cases = append(cases, claimCases...)
	cases = append(cases, runCases...)
	cases = append(cases, operatorCases...)
	cases = append(cases, purgeCases...)
	cases = append(cases, observerCases...)
	cases = append(cases, inputCases...)
	cases = append(cases, identityCases...)
	cases = append(cases, contentCases...)
	cases = append(cases, browseCases...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, h)
		})
	}
}

// env is a subtest's store with its helpers.
type env struct {
	t        *testing.T
	b        Backend
	rec      *Recorder
	ctx      context.Context
	consumer string
	counter  string
}

// setup returns a fresh store of h built with opts, reporting to a Recorder.
func setup(t *testing.T, h Harness, opts ...guard.Option) *env {
	t.Helper()
	rec := NewRecorder()
	b := h.New(t, append([]guard.Option{guard.WithObserver(rec)}, opts...)...)
	checkBackend(t, h, b)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return &env{t: t, b: b, rec: rec, ctx: ctx, consumer: "deduct_inventory", counter: "stock"}
}

// checkBackend fails the test when b lacks what the suites use.
func checkBackend(t testing.TB, h Harness, b Backend) {
	t.Helper()
	tm := b.Tamper
	if b.Store == nil || b.Do == nil || b.DoBatch == nil || b.Counter == nil || b.Clone == nil ||
		tm.ExpireLease == nil || tm.ExpireRetention == nil || tm.ExpireAll == nil || tm.Write == nil {
		t.Fatalf("guardtest: %s: Harness.New returned an incomplete Backend", h.Name)
	}
}

// clone returns another store over e's table, as another process would
// open it, with opts on top of e's options.
func (e *env) clone(opts ...guard.Option) *env {
	c := *e
	c.b = e.b.Clone(opts...)
	return &c
}

// expireLease ends the lease of k now, by the store's clock.
func (e *env) expireLease(k string) {
	e.t.Helper()
	if err := e.b.Tamper.ExpireLease(e.ctx, e.consumer, k); err != nil {
		e.t.Fatal(err)
	}
}

// expireRecord ends the retention of k now, by the store's clock.
func (e *env) expireRecord(k string) {
	e.t.Helper()
	if err := e.b.Tamper.ExpireRetention(e.ctx, e.consumer, k); err != nil {
		e.t.Fatal(err)
	}
}

// expireAll ends the retention of every record of the consumer now.
func (e *env) expireAll() {
	e.t.Helper()
	if err := e.b.Tamper.ExpireAll(e.ctx, e.consumer); err != nil {
		e.t.Fatal(err)
	}
}

// key encodes parts as a business key, as generated handlers do.
func key(parts ...string) string {
	var b guard.KeyBuilder
	for _, p := range parts {
		b.String(p)
	}
	return b.Key()
}

// order is a message whose fingerprint covers sku and qty only: SentAt is a
// field the producer sets on every send, which is not part of the fingerprint.
type order struct {
	ID     string
	SKU    string
	Qty    int64
	SentAt time.Time
}

func (o order) key() string { return key(o.ID) }

func (o order) fingerprint() []byte {
	var f guard.FingerprintBuilder
	f.String("sku", o.SKU)
	f.Int("qty", o.Qty)
	return f.Sum()
}

func (e *env) do(k string, fp []byte, delta int64) (guard.Outcome, error) {
	return e.b.Do(e.ctx, e.consumer, k, fp, Effect{Counter: e.counter, Delta: delta})
}

func (e *env) doHook(k string, fp []byte, delta int64, hook func(context.Context) error) (guard.Outcome, error) {
	return e.b.Do(e.ctx, e.consumer, k, fp, Effect{Counter: e.counter, Delta: delta, Hook: hook})
}

func (e *env) mustDo(k string, fp []byte, delta int64, want guard.Outcome) {
	e.t.Helper()
	out, err := e.do(k, fp, delta)
	if err != nil || out != want {
		e.t.Fatalf("Do(%q) = %v, %v; want %v, nil", k, out, err, want)
	}
}

func (e *env) count() int64 { return e.countOf(e.counter) }

func (e *env) countOf(name string) int64 {
	e.t.Helper()
	n, err := e.b.Counter(e.ctx, name)
	if err != nil {
		e.t.Fatalf("Counter(%q): %v", name, err)
	}
	return n
}

func (e *env) wantCount(want int64) {
	e.t.Helper()
	if got := e.count(); got != want {
		e.t.Fatalf("counter %q = %d, want %d", e.counter, got, want)
	}
}

func (e *env) claim(k string, fp []byte) (*guard.Lease, error) {
	return e.b.Store.Claim(e.ctx, e.consumer, k, fp)
}

// mustClaim claims k and wants to hold the lease.
func (e *env) mustClaim(k string, fp []byte) *guard.Lease {
	e.t.Helper()
	l, err := e.claim(k, fp)
	if err != nil {
		e.t.Fatalf("Claim(%q): %v", k, err)
	}
	if l.Outcome() != guard.Applied {
		e.t.Fatalf("Claim(%q) outcome = %v, want applied", k, l.Outcome())
	}
	return l
}

// mustDuplicate claims k and wants a duplicate lease carrying result.
func (e *env) mustDuplicate(k string, fp []byte, result []byte) *guard.Lease {
	e.t.Helper()
	l, err := e.claim(k, fp)
	if err != nil {
		e.t.Fatalf("Claim(%q): %v, want a duplicate", k, err)
	}
	if l.Outcome() != guard.Duplicate {
		e.t.Fatalf("Claim(%q) outcome = %v, want duplicate", k, l.Outcome())
	}
	if !bytes.Equal(l.Result(), result) {
		e.t.Fatalf("Claim(%q) duplicate result = %q, want %q", k, l.Result(), result)
	}
	return l
}

func (e *env) inspect(k string) *guard.Record {
	e.t.Helper()
	r, err := e.b.Store.Inspect(e.ctx, e.consumer, k)
	if err != nil {
		e.t.Fatalf("Inspect(%q): %v", k, err)
	}
	return r
}

func (e *env) wantState(k string, want guard.State) *guard.Record {
	e.t.Helper()
	r := e.inspect(k)
	switch {
	case r == nil && want != "":
		e.t.Fatalf("Inspect(%q) = nil, want state %s", k, want)
	case r != nil && want == "":
		e.t.Fatalf("Inspect(%q) = state %s, want no record", k, r.State)
	case r != nil && r.State != want:
		e.t.Fatalf("Inspect(%q) state = %s, want %s", k, r.State, want)
	}
	return r
}

// permanentSentinels are the errors of the error table that guard.Permanent
// reports; ErrInProgress and transient errors are not permanent.
var permanentSentinels = []error{guard.ErrKeyConflict, guard.ErrFailed, guard.ErrUncertain,
	guard.ErrLeaseLost, guard.ErrPartialEffect, guard.ErrInvalidMessage}

// wantErr checks that err is the error-table error sentinel, with the
// permanence the table gives it.
func wantErr(t testing.TB, what string, err, sentinel error) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("%s: err = %v, want %v", what, err, sentinel)
	}
	wantPerm := false
	for _, p := range permanentSentinels {
		wantPerm = wantPerm || p == sentinel
	}
	if got := guard.Permanent(err); got != wantPerm {
		t.Fatalf("%s: guard.Permanent(%v) = %t, want %t", what, err, got, wantPerm)
	}
}

// wantTransient checks that err wraps cause and is not permanent.
func wantTransient(t testing.TB, what string, err, cause error) {
	t.Helper()
	if err == nil || (cause != nil && !errors.Is(err, cause)) {
		t.Fatalf("%s: err = %v, want an error wrapping %v", what, err, cause)
	}
	if guard.Permanent(err) {
		t.Fatalf("%s: guard.Permanent(%v) = true, want a transient error", what, err)
	}
}

// wantInProgress checks that err is an *InProgressError whose RetryAfter is
// within (0, max].
func wantInProgress(t testing.TB, what string, err error, consumer string, max time.Duration) {
	t.Helper()
	wantErr(t, what, err, guard.ErrInProgress)
	var ip *guard.InProgressError
	if !errors.As(err, &ip) {
		t.Fatalf("%s: err = %v (%T), want a *guard.InProgressError", what, err, err)
	}
	if ip.RetryAfter <= 0 || ip.RetryAfter > max {
		t.Fatalf("%s: RetryAfter = %s, want within (0, %s]", what, ip.RetryAfter, max)
	}
	if ip.Consumer != consumer {
		t.Fatalf("%s: InProgressError.Consumer = %q, want %q", what, ip.Consumer, consumer)
	}
}

// wantMessage checks that err's text contains want.
func wantMessage(t testing.TB, what string, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: err = %v, want a message containing %q", what, err, want)
	}
}

// leakChecked runs fn as a subtest (with its clean-up) and then checks that
// the number of goroutines came back to what it was before, within a grace
// period: a store, its connections and a proxy must leave nothing running.
func leakChecked(t *testing.T, name string, fn func(t *testing.T)) {
	t.Helper()
	before := runtime.NumGoroutine()
	if !t.Run(name, fn) {
		return
	}
	const slack = 1 // the runtime's and the testing package's own comings and goings
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= before+slack {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Errorf("%s: %d goroutines before, %d five seconds after it ended: a goroutine leaked\n%s", name, before, n, buf)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// parallel runs fn(i) for i in [0, n) on n goroutines started together and
// waits for all of them.
func parallel(n int, fn func(i int)) {
	start := make(chan struct{})
	done := make(chan struct{}, n)
	for i := range n {
		go func() {
			defer func() { done <- struct{}{} }()
			<-start
			fn(i)
		}()
	}
	close(start)
	for range n {
		<-done
	}
}

// testLifecycle opens a store, uses every kind of call, and lets its clean-up
// close it: the goroutine count is checked by leakChecked.
func testLifecycle(t *testing.T, h Harness) {
	e := setup(t, h)
	k := key("lifecycle")
	e.mustDo(k, nil, 1, guard.Applied)
	e.mustDo(k, nil, 1, guard.Duplicate)
	l := e.mustClaim(key("lifecycle-lease"), nil)
	if err := l.Complete(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.b.Store.Purge(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.wantCount(1)
}

// errHook is what hooks and apply functions of the suite return for a
// transient failure of the effect.
var errHook = errors.New("effect failed (test)")

// boundedCall runs fn with a context of a few seconds and fails the test
// when fn returns nil or takes far longer than its context allows.
func boundedCall(t *testing.T, what string, fn func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	err := fn(ctx)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("%s took %s after the server was cut, want it bounded by its context (3s)", what, d)
	}
	if err == nil {
		t.Errorf("%s after the server was cut: err = nil, want an error", what)
	} else {
		t.Logf("%s after the server was cut: %v", what, err)
	}
}

// testCutDuringHook cuts the server while a Do's hook holds its transaction,
// then calls every kind of method against the dead server.
func testCutDuringHook(t *testing.T, h Harness) {
	b, cut := h.NewCuttable(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	const consumer = "deduct_inventory"
	if out, err := b.Do(ctx, consumer, key("before-cut"), nil, Effect{Counter: "stock", Delta: 1}); err != nil || out != guard.Applied {
		t.Fatalf("Do before the cut = %v, %v; want applied", out, err)
	}
	held, err := b.Store.Claim(ctx, consumer, key("held-lease"), nil)
	if err != nil {
		t.Fatalf("Claim before the cut: %v", err)
	}
	entered, proceed := make(chan struct{}), make(chan struct{})
	result := make(chan error, 1)
	go func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer dcancel()
		first := true
		_, err := b.Do(dctx, consumer, key("during-cut"), nil, Effect{Counter: "stock", Delta: 1, Hook: func(ctx context.Context) error {
			if first {
				first = false
				close(entered)
				<-proceed
			}
			return nil
		}})
		result <- err
	}()
	select {
	case <-entered:
	case err := <-result:
		t.Fatalf("Do returned before its hook ran: %v", err)
	}
	cut()
	close(proceed)
	select {
	case err := <-result:
		if err == nil {
			t.Errorf("Do whose server was cut in its hook: err = nil, want an error")
		} else {
			t.Logf("Do whose server was cut in its hook: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Do whose server was cut in its hook did not return within 15s")
	}
	boundedCall(t, "Do", func(ctx context.Context) error {
		_, err := b.Do(ctx, consumer, key("after-cut"), nil, Effect{Counter: "stock", Delta: 1})
		return err
	})
	boundedCall(t, "Claim", func(ctx context.Context) error {
		_, err := b.Store.Claim(ctx, consumer, key("after-cut"), nil)
		return err
	})
	boundedCall(t, "Lease.Complete", func(ctx context.Context) error { return held.Complete(ctx, nil) })
	boundedCall(t, "Inspect", func(ctx context.Context) error {
		_, err := b.Store.Inspect(ctx, consumer, key("before-cut"))
		return err
	})
}

// testCutIdle cuts the server while the store's connections are idle.
func testCutIdle(t *testing.T, h Harness) {
	b, cut := h.NewCuttable(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	const consumer = "send_sms"
	if out, err := b.Do(ctx, consumer, key("before-cut"), nil, Effect{Counter: "sent", Delta: 1}); err != nil || out != guard.Applied {
		t.Fatalf("Do before the cut = %v, %v; want applied", out, err)
	}
	if _, err := b.Store.Run(ctx, consumer, key("run-before-cut"), nil, func(context.Context, *guard.Lease) error { return nil }); err != nil {
		t.Fatalf("Run before the cut: %v", err)
	}
	cut()
	boundedCall(t, "Do", func(ctx context.Context) error {
		_, err := b.Do(ctx, consumer, key("after-cut"), nil, Effect{Counter: "sent", Delta: 1})
		return err
	})
	boundedCall(t, "Claim", func(ctx context.Context) error {
		_, err := b.Store.Claim(ctx, consumer, key("after-cut"), nil)
		return err
	})
	boundedCall(t, "Run", func(ctx context.Context) error {
		called := false
		_, err := b.Store.Run(ctx, consumer, key("after-cut"), nil, func(context.Context, *guard.Lease) error { called = true; return nil })
		if called {
			t.Errorf("Run called apply although its claim cannot have reached the server")
		}
		return err
	})
	boundedCall(t, "Purge", func(ctx context.Context) error {
		_, err := b.Store.Purge(ctx)
		return err
	})
	boundedCall(t, "Forget", func(ctx context.Context) error { return b.Store.Forget(ctx, consumer, key("before-cut")) })
}

// describe formats an outcome and error pair for messages.
func describe(out guard.Outcome, err error) string {
	if err != nil {
		return fmt.Sprintf("error %v", err)
	}
	return out.String()
}
