package kafkaguard

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/segmentio/kafka-go"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/adapt"
)

// events is the log every fake writes to, in order.
type events struct {
	mu  sync.Mutex
	log []string
}

func (e *events) add(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = append(e.log, fmt.Sprintf(format, args...))
}

func (e *events) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.log...)
}

// fakeReader serves msgs, then blocks until ctx is done (or returns
// fetchErr), and records the committed offsets.
type fakeReader struct {
	ev        *events
	msgs      []kafka.Message
	next      int
	fetchErr  error
	commitErr error
	committed []int64
}

func (r *fakeReader) FetchMessage(ctx context.Context) (kafka.Message, error) {
	if r.next < len(r.msgs) {
		r.next++
		return r.msgs[r.next-1], nil
	}
	if r.fetchErr != nil {
		return kafka.Message{}, r.fetchErr
	}
	<-ctx.Done()
	return kafka.Message{}, ctx.Err()
}

func (r *fakeReader) CommitMessages(ctx context.Context, msgs ...kafka.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.commitErr != nil {
		r.ev.add("commit-failed")
		return r.commitErr
	}
	for _, m := range msgs {
		r.committed = append(r.committed, m.Offset)
		r.ev.add("commit %d", m.Offset)
	}
	return nil
}

// fakeWriter fails the first writes of the offsets in failures, then
// records messages; with cancelOnFail a failure also cancels the test's
// context.
type fakeWriter struct {
	ev           *events
	failures     map[string]int // by original offset
	cancelOnFail bool
	cancel       context.CancelFunc
	written      []kafka.Message
}

func (w *fakeWriter) WriteMessages(ctx context.Context, msgs ...kafka.Message) error {
	for _, m := range msgs {
		if off := header(m, HeaderOffset); w.failures[off] > 0 {
			w.failures[off]--
			w.ev.add("dead-letter-failed")
			if w.cancelOnFail {
				w.cancel()
			}
			return errors.New("kafka: leader not available")
		}
	}
	for _, m := range msgs {
		w.written = append(w.written, m)
		w.ev.add("dead-letter %s", header(m, HeaderOffset))
	}
	return nil
}

func header(m kafka.Message, key string) string {
	for _, h := range m.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return "<none>"
}

type step struct {
	out    guard.Outcome
	err    error
	panic  bool
	block  bool // wait for ctx, return its error
	cancel bool // cancel the test's context, then answer
}

// handler plays, per offset (the body is "m<offset>"), its steps one call at
// a time; past the last step it answers Applied.
type handler struct {
	ev     *events
	steps  map[int64][]step
	calls  map[int64]int
	cancel context.CancelFunc
}

func (h *handler) Handle(ctx context.Context, body []byte) (guard.Outcome, error) {
	off, err := strconv.ParseInt(strings.TrimPrefix(string(body), "m"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", guard.ErrInvalidMessage, err)
	}
	if h.calls == nil {
		h.calls = map[int64]int{}
	}
	n := h.calls[off]
	h.calls[off]++
	h.ev.add("handle %d", off)
	st := step{out: guard.Applied}
	if n < len(h.steps[off]) {
		st = h.steps[off][n]
	}
	switch {
	case st.panic:
		panic("handler bug")
	case st.block:
		<-ctx.Done()
		return 0, ctx.Err()
	case st.cancel:
		h.cancel()
	}
	return st.out, st.err
}

func msgs(from, to int64) []kafka.Message {
	var ms []kafka.Message
	for off := from; off <= to; off++ {
		ms = append(ms, kafka.Message{
			Topic: "orders.created", Partition: 2, Offset: off,
			Key: []byte(fmt.Sprintf("k%d", off)), Value: []byte(fmt.Sprintf("m%d", off)),
			Headers: []kafka.Header{{Key: "trace", Value: []byte("t1")}},
		})
	}
	return ms
}

// consume drives Consume over the fakes with a recording sleep.
func consume(t *testing.T, r *fakeReader, h *handler, w *fakeWriter, opts ...Option) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h.cancel = cancel
	if w != nil {
		w.ev, w.cancel = r.ev, cancel
		opts = append(opts, WithDeadLetter(w))
	}
	record := func(c *config) {
		c.Sleep = func(ctx context.Context, d time.Duration) bool {
			r.ev.add("sleep %v", d)
			return ctx.Err() == nil
		}
	}
	opts = append([]Option{WithLogger(nil)}, opts...)
	opts = append(opts, record)
	err := Consume(ctx, r, h, opts...)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal("Consume did not finish")
	}
	return err
}

func TestConsumeScript(t *testing.T) {
	ev := &events{}
	transient := errors.New("database is down")
	steps := map[int64][]step{
		10: {{out: guard.Applied}},
		11: {{err: transient}, {err: transient}, {err: transient}, {err: transient}, {err: transient}, {err: transient}},
		12: {{out: guard.Duplicate}},
		13: {{err: fmt.Errorf("deduct_inventory: %w", guard.ErrKeyConflict)}},
		14: {{err: &guard.InProgressError{Consumer: "send_sms", RetryAfter: 700 * time.Millisecond}}},
		15: {{err: fmt.Errorf("send_sms: %w", &guard.InProgressError{Consumer: "send_sms", RetryAfter: time.Hour})}},
		16: {{err: fmt.Errorf("%w: missing sku", guard.ErrInvalidMessage)}},
		17: {{panic: true}},
		18: {{block: true}}, // the test ends here: cancelled below
	}
	r := &fakeReader{ev: ev, msgs: msgs(10, 19)}
	w := &fakeWriter{failures: map[string]int{"16": 2}}
	h := &handler{ev: ev, steps: steps}
	// Cancel while 18 is in flight.
	steps[18] = []step{{cancel: true, err: context.Canceled}}
	if err := consume(t, r, h, w, WithDeadLetterTopic("orders.dead"), WithBackoff(100*time.Millisecond, time.Second)); err != nil {
		t.Fatalf("Consume: %v", err)
	}
	want := []string{
		"handle 10", "commit 10",
		"handle 11", "sleep 100ms", "handle 11", "sleep 200ms", "handle 11", "sleep 400ms",
		"handle 11", "sleep 800ms", "handle 11", "sleep 1s", "handle 11", "sleep 1s", "handle 11", "commit 11",
		"handle 12", "commit 12",
		"handle 13", "dead-letter 13", "commit 13",
		"handle 14", "sleep 700ms", "handle 14", "commit 14",
		"handle 15", "sleep 1s", "handle 15", "commit 15",
		"handle 16", "dead-letter-failed", "sleep 100ms", "dead-letter-failed", "sleep 200ms", "dead-letter 16", "commit 16",
		"handle 17", "sleep 100ms", "handle 17", "commit 17",
		"handle 18",
	}
	if diff := cmp.Diff(want, ev.get()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{10, 11, 12, 13, 14, 15, 16, 17}, r.committed); diff != "" {
		t.Errorf("committed offsets (-want +got):\n%s", diff)
	}
	if len(w.written) != 2 {
		t.Fatalf("dead-lettered %d messages, want 2", len(w.written))
	}
	for i, off := range []int64{13, 16} {
		m := w.written[i]
		if m.Topic != "orders.dead" || string(m.Key) != fmt.Sprintf("k%d", off) || string(m.Value) != fmt.Sprintf("m%d", off) || m.Partition != 0 || m.Offset != 0 {
			t.Errorf("dead letter %d: topic %q key %q value %q partition %d offset %d", i, m.Topic, m.Key, m.Value, m.Partition, m.Offset)
		}
		if header(m, "trace") != "t1" || header(m, HeaderTopic) != "orders.created" || header(m, HeaderPartition) != "2" || header(m, HeaderOffset) != strconv.FormatInt(off, 10) {
			t.Errorf("dead letter %d headers: %v", i, m.Headers)
		}
	}
	if got := header(w.written[0], HeaderError); got != "deduct_inventory: guard: key seen before with a different fingerprint" {
		t.Errorf("error header %q", got)
	}
	if got := header(w.written[1], HeaderError); got != "guard: invalid message: missing sku" {
		t.Errorf("error header %q", got)
	}
}

func TestConsumeStops(t *testing.T) {
	cases := []struct {
		name      string
		msgs      []kafka.Message
		steps     map[int64][]step
		reader    func(*fakeReader)
		opts      []Option
		writer    *fakeWriter
		wantErr   []error // errors.Is targets; nil: Consume returns nil
		errText   string
		events    []string
		committed []int64
	}{
		{name: "permanent without dead-letter writer stops uncommitted",
			msgs:    msgs(1, 3),
			steps:   map[int64][]step{2: {{err: guard.StateError(guard.ErrFailed, "deduct_inventory", "out of stock", nil)}}},
			wantErr: []error{guard.ErrFailed}, errText: "orders.created/2@2 and no dead-letter writer",
			events: []string{"handle 1", "commit 1", "handle 2"}, committed: []int64{1}},
		{name: "fetch error",
			msgs: msgs(1, 1), reader: func(r *fakeReader) { r.fetchErr = errors.New("EOF-ish") },
			errText: "kafkaguard: fetch: EOF-ish",
			events:  []string{"handle 1", "commit 1"}, committed: []int64{1}},
		{name: "commit error",
			msgs: msgs(1, 2), reader: func(r *fakeReader) { r.commitErr = errors.New("not coordinator") },
			errText: "kafkaguard: commit orders.created/2@1: not coordinator",
			events:  []string{"handle 1", "commit-failed"}},
		{name: "cancel during backoff",
			msgs:   msgs(1, 2),
			steps:  map[int64][]step{2: {{cancel: true, err: errors.New("database is down")}}},
			events: []string{"handle 1", "commit 1", "handle 2"}, committed: []int64{1}},
		{name: "cancel during a failing dead-letter write",
			msgs:   msgs(1, 2),
			steps:  map[int64][]step{1: {{err: guard.ErrKeyConflict}}},
			writer: &fakeWriter{failures: map[string]int{"1": 5}, cancelOnFail: true},
			events: []string{"handle 1", "dead-letter-failed"}},
		{name: "cancel during in-progress wait",
			msgs:   msgs(5, 6),
			steps:  map[int64][]step{5: {{cancel: true, err: &guard.InProgressError{RetryAfter: time.Second}}}},
			events: []string{"handle 5"}},
		{name: "handled as the context ends is still committed",
			msgs:   msgs(1, 2),
			steps:  map[int64][]step{1: {{cancel: true, out: guard.Applied}}},
			events: []string{"handle 1", "commit 1"}, committed: []int64{1}},
		{name: "handler timeout is transient",
			msgs:   msgs(1, 1),
			steps:  map[int64][]step{1: {{block: true}}},
			opts:   []Option{WithTimeout(20 * time.Millisecond)},
			reader: func(r *fakeReader) { r.fetchErr = errors.New("closed") }, errText: "kafkaguard: fetch: closed",
			events: []string{"handle 1", "sleep 100ms", "handle 1", "commit 1"}, committed: []int64{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := &events{}
			r := &fakeReader{ev: ev, msgs: c.msgs}
			if c.reader != nil {
				c.reader(r)
			}
			err := consume(t, r, &handler{ev: ev, steps: c.steps}, c.writer, c.opts...)
			switch {
			case c.errText == "" && err != nil:
				t.Errorf("Consume: %v, want nil", err)
			case c.errText != "" && (err == nil || !strings.Contains(err.Error(), c.errText)):
				t.Errorf("Consume: %v, want an error containing %q", err, c.errText)
			}
			for _, target := range c.wantErr {
				if !errors.Is(err, target) {
					t.Errorf("Consume: %v, want errors.Is %v", err, target)
				}
			}
			if diff := cmp.Diff(c.events, ev.get()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.committed, r.committed); diff != "" {
				t.Errorf("committed offsets (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBackoffOptions(t *testing.T) {
	c := newConfig([]Option{WithBackoff(0, -1)})
	if c.MinBackoff != DefaultMinBackoff || c.MaxBackoff != DefaultMaxBackoff {
		t.Errorf("non-positive backoff changed the defaults: %v, %v", c.MinBackoff, c.MaxBackoff)
	}
	c = newConfig([]Option{WithBackoff(time.Millisecond, time.Minute)})
	if c.MinBackoff != time.Millisecond || c.MaxBackoff != time.Minute {
		t.Errorf("backoff %v, %v", c.MinBackoff, c.MaxBackoff)
	}
}

// TestSleep checks the real sleep: it waits, and a cancelled context ends it.
func TestSleep(t *testing.T) {
	start := time.Now()
	if !adapt.Sleep(context.Background(), 30*time.Millisecond) || time.Since(start) < 30*time.Millisecond {
		t.Error("sleep did not wait")
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start = time.Now()
	if adapt.Sleep(ctx, time.Hour) || time.Since(start) > 5*time.Second {
		t.Error("sleep ignored its context")
	}
	if adapt.Sleep(ctx, 0) {
		t.Error("sleep(0) on a done context reported a full wait")
	}
}
