package kafkatest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite" // the SQLite driver of the ledger's store

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/adapt"
	"github.com/idemkit/idem/guard/internal/batchtest"
	"github.com/idemkit/idem/guard/internal/storekit"
)

// Scenario is a behaviour that every Kafka adapter shows on kfake.
type Scenario struct {
	Name string
	Run  func(t *testing.T, b *Broker, m Member)
}

// Scenarios are run by each adapter's tests, one subtest each, every one on
// a fresh broker.
var Scenarios = []Scenario{
	{Name: "mapping", Run: Mapping},
	{Name: "permanent without dead-letter stops uncommitted", Run: NoDeadLetter},
	{Name: "redelivery after a crash", Run: Crash},
}

// running is a member in its own goroutine.
type running struct {
	cancel context.CancelFunc
	done   chan error
}

func start(m Member, h guard.Handler, deadLetter bool) *running {
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- m(ctx, h, deadLetter) }()
	return r
}

// stop cancels the member and returns what its Consume returned.
func (r *running) stop(t testing.TB) error {
	t.Helper()
	r.cancel()
	select {
	case err := <-r.done:
		return err
	case <-time.After(wait):
		t.Fatal("the member did not stop")
		return nil
	}
}

// step is one answer of the script handler.
type step struct {
	out   guard.Outcome
	err   error
	panic bool
	block bool // wait for the handler's context (WithTimeout), answer its error
}

// script answers, per offset, its steps one call at a time; past the last
// step it answers Applied.
type script struct {
	b     *Broker
	steps map[int64][]step
	mu    sync.Mutex
	calls map[int64]int
}

// Handle plays the next step of the message's offset.
func (s *script) Handle(ctx context.Context, body []byte) (guard.Outcome, error) {
	off, err := s.b.called(body)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	n := s.calls[off]
	s.calls[off]++
	s.mu.Unlock()
	st := step{out: guard.Applied}
	if n < len(s.steps[off]) {
		st = s.steps[off][n]
	}
	switch {
	case st.panic:
		panic("handler bug")
	case st.block:
		<-ctx.Done()
		return 0, ctx.Err()
	}
	s.b.answered(off, st.out, st.err)
	return st.out, st.err
}

func (b *Broker) script(steps map[int64][]step) *script {
	return &script{b: b, steps: steps, calls: map[int64]int{}}
}

var (
	errConflict = fmt.Errorf("deduct_inventory: %w", guard.ErrKeyConflict)
	errInvalid  = fmt.Errorf("%w: missing sku", guard.ErrInvalidMessage)
	errDown     = errors.New("database is down")
)

// Mapping runs ten messages through every row of the error table and checks
// the handler's calls, the commits (never past an unsettled message) and the
// dead letters with their headers.
func Mapping(t *testing.T, b *Broker, m Member) {
	b.Produce(t, 10)
	h := b.script(map[int64][]step{
		1: {{err: errDown}, {err: errDown}, {err: errDown}},                         // transient: retried in place
		2: {{out: guard.Duplicate}},                                                 // committed like Applied
		3: {{err: errConflict}},                                                     // permanent: dead-lettered
		4: {{err: &guard.InProgressError{Consumer: Group, RetryAfter: MaxBackoff}}}, // waits, then again
		5: {{panic: true}},                                                          // recovered, transient
		6: {{err: errInvalid}},                                                      // permanent: dead-lettered
		7: {{block: true}},                                                          // timed out, transient
		9: {{out: guard.Duplicate}},
	})
	r := start(m, h, true)
	b.WaitCommitted(t, 10)
	if err := r.stop(t); err != nil {
		t.Errorf("Consume: %v", err)
	}
	b.Check(t)
	want := []int64{0, 1, 1, 1, 1, 2, 3, 4, 4, 5, 5, 6, 7, 7, 8, 9}
	if diff := cmp.Diff(want, b.Calls()); diff != "" {
		t.Errorf("handler calls by offset (-want +got):\n%s", diff)
	}
	if commits := b.Commits(); !slices.IsSorted(commits) || commits[len(commits)-1] != 10 {
		t.Errorf("commits %v, want them rising to 10", commits)
	}
	dead := b.DeadLetters(t, 2)
	for i, c := range []struct {
		off   int64
		cause error
	}{{3, errConflict}, {6, errInvalid}} {
		r := dead[i]
		got := fmt.Sprintf("key=%s value=%s trace=%s error=%q topic=%s partition=%s offset=%s", r.Key, r.Value, Header(r, "trace"),
			Header(r, adapt.HeaderError), Header(r, adapt.HeaderTopic), Header(r, adapt.HeaderPartition), Header(r, adapt.HeaderOffset))
		want := fmt.Sprintf("key=k%d value=m%d trace=t%d error=%q topic=%s partition=0 offset=%d", c.off, c.off, c.off, c.cause.Error(), Topic, c.off)
		if got != want {
			t.Errorf("dead letter %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// NoDeadLetter checks that a permanent error without a dead-letter sink
// stops the member with the error, the message uncommitted.
func NoDeadLetter(t *testing.T, b *Broker, m Member) {
	b.Produce(t, 4)
	h := b.script(map[int64][]step{1: {{err: storekit.StateError(guard.ErrFailed, Group, "out of stock", nil)}}})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	err := m(ctx, h, false)
	if ctx.Err() != nil {
		t.Fatal("the member did not stop by itself")
	}
	if !errors.Is(err, guard.ErrFailed) || !strings.Contains(err.Error(), Topic+"/0@1 and no dead-letter writer") {
		t.Errorf("Consume: %v, want the permanent error of %s/0@1", err, Topic)
	}
	b.WaitCommitted(t, 1)
	b.Check(t)
	if diff := cmp.Diff([]int64{0, 1}, b.Calls()); diff != "" {
		t.Errorf("handler calls by offset (-want +got):\n%s", diff)
	}
	if commits := b.Commits(); slices.Max(commits) != 1 {
		t.Errorf("commits %v, want none past 1", commits)
	}
}

// Crash runs a member whose handler applies the effect of offset 3 through
// a real guard store and then crashes before answering; the member is
// stopped and its client closed, nothing committed for offset 3. A new
// member of the group receives offsets 3 to 5 again; the store answers
// Duplicate for 3, so every effect happened once.
func Crash(t *testing.T, b *Broker, m Member) {
	l := newLedger(t, b)
	b.Produce(t, 6)
	crashed, release := make(chan struct{}), make(chan struct{})
	first := start(m, l.handler("first", 3, crashed, release), true)
	select {
	case <-crashed:
	case <-time.After(wait):
		t.Fatal("the first member never reached offset 3")
	}
	first.cancel()
	close(release) // the handler returns only once its member is stopping
	if err := first.stop(t); err != nil {
		t.Errorf("first member: %v", err)
	}
	b.WaitCommitted(t, 3)
	if commits := b.Commits(); slices.Max(commits) != 3 {
		t.Fatalf("commits %v before the redelivery, want none past 3", commits)
	}

	second := start(m, l.handler("second", -1, nil, nil), true)
	b.WaitCommitted(t, 6)
	if err := second.stop(t); err != nil {
		t.Errorf("second member: %v", err)
	}
	b.Check(t)
	want := map[string][]string{
		"first":  {"0 applied", "1 applied", "2 applied", "3 applied (crashed before answering)"},
		"second": {"3 duplicate", "4 applied", "5 applied"},
	}
	if diff := cmp.Diff(want, l.answers); diff != "" {
		t.Errorf("store answers by member (-want +got):\n%s", diff)
	}
	for _, err := range l.errs {
		if guard.Permanent(err) {
			t.Errorf("the store answered a permanent error: %v", err)
		}
	}
	effects := l.effects(t)
	wantEffects := map[string]int{"m0": 1, "m1": 1, "m2": 1, "m3": 1, "m4": 1, "m5": 1}
	if diff := cmp.Diff(wantEffects, effects); diff != "" {
		t.Errorf("effects per message (-want +got):\n%s", diff)
	}
}

// ledger is a guard store on SQLite whose effect inserts a row per message.
type ledger struct {
	b       *Broker
	store   *guard.SQLStore
	mu      sync.Mutex
	answers map[string][]string // by member, the store's Applied and Duplicate
	errs    []error             // the store's errors
}

func newLedger(t testing.TB, b *Broker) *ledger {
	t.Helper()
	db, err := sql.Open("sqlite", guard.SQLiteDSN(filepath.Join(t.TempDir(), "ledger.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store, err := guard.NewSQLStore(db, guard.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE effects (k TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return &ledger{b: b, store: store, answers: map[string][]string{}}
}

// handler returns the guarded handler of member: it records the message's
// effect through the store. At offset crashAt, once the store applied the
// effect, it closes crashed and waits for release before failing, as a
// process killed between the effect and the commit.
func (l *ledger) handler(member string, crashAt int64, crashed, release chan struct{}) guard.Handler {
	return guard.HandlerFunc(func(ctx context.Context, body []byte) (guard.Outcome, error) {
		off, err := l.b.called(body)
		if err != nil {
			return 0, err
		}
		key := string(body)
		out, err := l.store.Do(ctx, Group, key, nil, func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO effects (k) VALUES (?)`, key)
			return err
		})
		if err != nil {
			// A slow machine can run into HandlerTimeout: the message is
			// retried in place. Such answers are checked apart.
			l.mu.Lock()
			l.errs = append(l.errs, err)
			l.mu.Unlock()
			return out, err
		}
		answer := fmt.Sprintf("%d %v", off, out)
		if off == crashAt && out == guard.Applied {
			l.note(member, answer+" (crashed before answering)")
			close(crashed)
			<-release
			return 0, errors.New("crashed")
		}
		l.note(member, answer)
		l.b.answered(off, out, nil)
		return out, nil
	})
}

func (l *ledger) note(member, answer string) {
	l.mu.Lock()
	l.answers[member] = append(l.answers[member], answer)
	l.mu.Unlock()
}

func (l *ledger) effects(t testing.TB) map[string]int {
	t.Helper()
	rows, err := l.store.DB().Query(`SELECT k, COUNT(*) FROM effects GROUP BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int{}
	for rows.Next() {
		var (
			k string
			n int
		)
		if err := rows.Scan(&k, &n); err != nil {
			t.Fatal(err)
		}
		got[k] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// Batching: BatchScenarios run on a member whose adapter has batching on,
// batches of BatchSize gathered for at most BatchFlush.
const (
	BatchSize  = 8
	BatchFlush = 5 * time.Second
)

// BatchScenarios are run by each adapter's tests with batching on, one
// subtest each, every one on a fresh broker.
var BatchScenarios = []Scenario{
	{Name: "batch", Run: Batch},
}

// batchBodies are the bodies of batchtest's handler for offsets 0 to 7: a
// duplicate of the first message, a failing one, a poison one, and a
// duplicate after the poison.
var batchBodies = []string{"a", "a", batchtest.Flaky + "b", "c", batchtest.Poison + "d", "c", "e", "f"}

// watchedBatch is batchtest's handler seen through the broker: message m<i>
// is batchBodies[i], and every answer is noted for the commit checks.
type watchedBatch struct {
	b *Broker
	h *batchtest.Handler
}

func (w watchedBatch) body(body []byte) (int64, []byte, error) {
	off, err := w.b.called(body)
	if err != nil || off >= int64(len(batchBodies)) {
		return 0, nil, fmt.Errorf("%w: body %q", guard.ErrInvalidMessage, body)
	}
	return off, []byte(batchBodies[off]), nil
}

// Handle handles one message (a retry in place).
func (w watchedBatch) Handle(ctx context.Context, body []byte) (guard.Outcome, error) {
	off, inner, err := w.body(body)
	if err != nil {
		return 0, err
	}
	out, err := w.h.Handle(ctx, inner)
	w.b.answered(off, out, err)
	return out, err
}

// HandleBatch handles a batch with one DoBatch.
func (w watchedBatch) HandleBatch(ctx context.Context, bodies [][]byte) []guard.Result {
	offs := make([]int64, len(bodies))
	inner := make([][]byte, len(bodies))
	for i, body := range bodies {
		off, in, err := w.body(body)
		if err != nil {
			res := make([]guard.Result, len(bodies))
			for j := range res {
				res[j].Err = err
			}
			return res
		}
		offs[i], inner[i] = off, in
	}
	res := w.h.HandleBatch(ctx, inner)
	for i, r := range res {
		w.b.answered(offs[i], r.Outcome, r.Err)
	}
	return res
}

// Batch consumes eight messages as one batch through a real guard store:
// the duplicates inside the batch are answered Duplicate and committed;
// the failing message (offset 2) is retried in place while nothing past it
// is committed, though the effects after it committed in the batch; the
// poison message (offset 4) is dead-lettered; every effect happens once.
func Batch(t *testing.T, b *Broker, m Member) {
	b.Produce(t, len(batchBodies))
	h := batchtest.New(t)
	r := start(m, watchedBatch{b: b, h: h}, true)
	b.WaitCommitted(t, int64(len(batchBodies)))
	if err := r.stop(t); err != nil {
		t.Errorf("Consume: %v", err)
	}
	b.Check(t)
	if diff := cmp.Diff([]int64{0, 1, 2, 3, 4, 5, 6, 7, 2}, b.Calls()); diff != "" {
		t.Errorf("handler calls by offset (-want +got):\n%s", diff)
	}
	// Nothing past the failing message is committed before it is settled;
	// then everything is (the effects after it committed in the batch).
	for _, c := range b.Commits() {
		if c > 2 && c != int64(len(batchBodies)) {
			t.Errorf("commits %v: %d is past the failing message", b.Commits(), c)
		}
	}
	calls := h.Calls()
	if len(calls) != 2 || len(calls[0].Bodies) != len(batchBodies) {
		t.Fatalf("calls %+v, want one batch of every message, then the failing one again", calls)
	}
	for i, r := range calls[0].Results {
		var ok bool
		switch i {
		case 1, 5:
			ok = r.Err == nil && r.Outcome == guard.Duplicate
		case 2:
			ok = errors.Is(r.Err, batchtest.ErrFlaky)
		case 4:
			ok = guard.Permanent(r.Err)
		default:
			ok = r.Err == nil && r.Outcome == guard.Applied
		}
		if !ok {
			t.Errorf("offset %d (%s): %v, %v", i, batchBodies[i], r.Outcome, r.Err)
		}
	}
	if r := calls[1].Results[0]; r.Err != nil || r.Outcome != guard.Applied {
		t.Errorf("the failing message retried in place: %v, %v; want applied", r.Outcome, r.Err)
	}
	want := map[string]int{"a": 1, batchtest.Flaky + "b": 1, "c": 1, "e": 1, "f": 1}
	if diff := cmp.Diff(want, h.Effects(t)); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
	if dead := b.DeadLetters(t, 1); Header(dead[0], adapt.HeaderOffset) != "4" {
		t.Errorf("dead letter of offset %s, want 4", Header(dead[0], adapt.HeaderOffset))
	}
}
