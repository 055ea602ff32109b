package adapt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/idemkit/idem/guard"
)

func answer(out guard.Outcome, err error) guard.HandlerFunc {
	return func(context.Context, []byte) (guard.Outcome, error) { return out, err }
}

func TestCallAndClassify(t *testing.T) {
	cases := []struct {
		name       string
		h          guard.Handler
		timeout    time.Duration
		class      Class
		retryAfter time.Duration
		panicked   bool
		errText    string
	}{
		{name: "applied", h: answer(guard.Applied, nil), class: Settle},
		{name: "duplicate", h: answer(guard.Duplicate, nil), class: Settle},
		{name: "in progress", h: answer(0, &guard.InProgressError{RetryAfter: 3 * time.Second}), class: InProgress, retryAfter: 3 * time.Second},
		{name: "in progress wrapped", h: answer(0, fmt.Errorf("send_sms: %w", &guard.InProgressError{RetryAfter: time.Second})), class: InProgress, retryAfter: time.Second},
		{name: "in progress negative", h: answer(0, &guard.InProgressError{RetryAfter: -time.Second}), class: InProgress},
		{name: "conflict", h: answer(0, fmt.Errorf("c: %w", guard.ErrKeyConflict)), class: DeadLetter},
		{name: "invalid", h: answer(0, guard.ErrInvalidMessage), class: DeadLetter},
		{name: "lease lost", h: answer(0, guard.ErrLeaseLost), class: DeadLetter},
		{name: "transient", h: answer(0, errors.New("connection refused")), class: Retry},
		{name: "key identity changed waits", h: answer(0, guard.ErrKeyIdentityChanged), class: Retry},
		{name: "panic", h: guard.HandlerFunc(func(context.Context, []byte) (guard.Outcome, error) { panic("boom") }),
			class: Retry, panicked: true, errText: "kafkaguard: handler panicked: boom"},
		{name: "timeout", timeout: 10 * time.Millisecond, h: guard.HandlerFunc(func(ctx context.Context, _ []byte) (guard.Outcome, error) {
			<-ctx.Done()
			return 0, ctx.Err()
		}), class: Retry, errText: "context deadline exceeded"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Call(context.Background(), "kafkaguard", c.timeout, c.h, nil)
			v := Classify(err)
			if v.Class != c.class || v.RetryAfter != c.retryAfter || (v.Panic != nil) != c.panicked {
				t.Errorf("Classify(%v) = %+v, want class %d, retry after %v, panicked %v", err, v, c.class, c.retryAfter, c.panicked)
			}
			if c.errText != "" && (err == nil || err.Error() != c.errText) {
				t.Errorf("error %v, want %q", err, c.errText)
			}
			if c.panicked && !bytes.Contains(v.Panic.Stack, []byte("adapt_test.go")) {
				t.Errorf("stack does not show the panicking handler:\n%s", v.Panic.Stack)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	cases := []struct {
		min, max time.Duration
		want     []time.Duration
	}{
		{100 * time.Millisecond, time.Second, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second}},
		{time.Second, time.Second, []time.Duration{time.Second, time.Second}},
		// min above max: the first wait is min, as WithBackoff always did.
		{time.Minute, time.Second, []time.Duration{time.Minute, time.Second, time.Second}},
	}
	for _, c := range cases {
		b := Backoff{Min: c.min, Max: c.max}
		var got []time.Duration
		for range c.want {
			got = append(got, b.Next())
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Backoff{%v, %v} (-want +got):\n%s", c.min, c.max, diff)
		}
	}
}

func TestEnumString(t *testing.T) {
	names := []string{"ack", "requeue", "reject"}
	for n, want := range map[int]string{1: "ack", 3: "reject", 0: "action(0)", 4: "action(4)", -1: "action(-1)"} {
		if got := EnumString(n, "action", names...); got != want {
			t.Errorf("EnumString(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestSleep checks the real Sleep: it waits, and a cancelled context ends it.
func TestSleep(t *testing.T) {
	start := time.Now()
	if !Sleep(context.Background(), 30*time.Millisecond) || time.Since(start) < 30*time.Millisecond {
		t.Error("Sleep did not wait")
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan bool)
	go func() { stopped <- Sleep(ctx, time.Hour) }()
	cancel()
	if <-stopped {
		t.Error("Sleep ignored its context")
	}
	if Sleep(ctx, 0) {
		t.Error("Sleep(0) on a done context reported a full wait")
	}
}

func TestLogger(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, nil))
	if Logger(l) != l {
		t.Error("Logger replaced a logger")
	}
	Logger(nil).Error("discarded")
	LogSettled(context.Background(), l, "amqpguard", "ack", errors.New("channel closed"), slog.LevelDebug, "acked", []any{slog.Int("tag", 7)})
	LogSettled(context.Background(), l, "amqpguard", "ack", nil, slog.LevelWarn, "amqpguard: acked", nil)
	got := buf.String()
	for _, want := range []string{`level=ERROR msg="amqpguard: ack failed" tag=7 settle_error="channel closed"`, `level=WARN msg="amqpguard: acked"`} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
}

// script answers, per call, the next of its steps; past the last it
// answers Applied. A step with cancel cancels the test's context first.
type script struct {
	steps  []step
	calls  int
	cancel context.CancelFunc
	log    *[]string
}

type step struct {
	err    error
	panic  bool
	cancel bool
}

func (s *script) Handle(ctx context.Context, _ []byte) (guard.Outcome, error) {
	*s.log = append(*s.log, "handle")
	st := step{}
	if s.calls < len(s.steps) {
		st = s.steps[s.calls]
	}
	s.calls++
	if st.cancel {
		s.cancel()
	}
	if st.panic {
		panic("handler bug")
	}
	if st.err != nil {
		return 0, st.err
	}
	return guard.Applied, nil
}

func TestSettle(t *testing.T) {
	transient := errors.New("database is down")
	conflict := fmt.Errorf("deduct_inventory: %w", guard.ErrKeyConflict)
	cases := []struct {
		name        string
		steps       []step
		deadLetter  []error // the answers of the dead-letter writes, in turn (then nil)
		noWriter    bool
		settled     bool
		errText     string
		log         []string
		deadLetters int
	}{
		{name: "applied", settled: true, log: []string{"handle"}},
		{name: "transient backs off up to the maximum",
			steps:   []step{{err: transient}, {err: transient}, {err: transient}, {err: transient}, {err: transient}, {err: transient}},
			settled: true,
			log: []string{"handle", "sleep 100ms", "handle", "sleep 200ms", "handle", "sleep 400ms", "handle", "sleep 800ms",
				"handle", "sleep 1s", "handle", "sleep 1s", "handle"}},
		{name: "in progress waits RetryAfter",
			steps: []step{{err: &guard.InProgressError{RetryAfter: 700 * time.Millisecond}}}, settled: true,
			log: []string{"handle", "sleep 700ms", "handle"}},
		{name: "in progress wait bounded by the maximum",
			steps: []step{{err: fmt.Errorf("x: %w", &guard.InProgressError{RetryAfter: time.Hour})}}, settled: true,
			log: []string{"handle", "sleep 1s", "handle"}},
		{name: "panic is transient",
			steps: []step{{panic: true}}, settled: true, log: []string{"handle", "sleep 100ms", "handle"}},
		{name: "permanent is dead-lettered, the write retried",
			steps: []step{{err: conflict}}, deadLetter: []error{errors.New("leader not available"), errors.New("leader not available"), nil},
			settled: true, deadLetters: 3,
			log: []string{"handle", "dead-letter", "sleep 100ms", "dead-letter", "sleep 200ms", "dead-letter"}},
		{name: "permanent without a writer stops",
			steps: []step{{err: conflict}}, noWriter: true,
			errText: "kafkaguard: permanent error at orders/2@7 and no dead-letter writer (WithDeadLetter): deduct_inventory: guard: key seen before with a different fingerprint",
			log:     []string{"handle"}},
		{name: "cancelled in the handler",
			steps: []step{{cancel: true, err: context.Canceled}}, log: []string{"handle"}},
		{name: "handled as the context ends is settled",
			steps: []step{{cancel: true}}, settled: true, log: []string{"handle"}},
		{name: "cancelled during backoff",
			steps: []step{{cancel: true, err: transient}}, log: []string{"handle"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var log []string
			h := &script{steps: c.steps, cancel: cancel, log: &log}
			p := NewInPlace("kafkaguard")
			p.Logger = nil
			p.Resolve()
			p.SetBackoff(0, time.Second)
			p.Sleep = func(ctx context.Context, d time.Duration) bool {
				if ctx.Err() != nil {
					return false
				}
				log = append(log, "sleep "+d.String())
				return true
			}
			writes := 0
			var dl DeadLetterFunc
			if !c.noWriter {
				dl = func(ctx context.Context, cause error) error {
					log = append(log, "dead-letter")
					writes++
					if cause != conflict {
						t.Errorf("dead-letter cause %v, want %v", cause, conflict)
					}
					if writes <= len(c.deadLetter) {
						return c.deadLetter[writes-1]
					}
					return nil
				}
			}
			settled, err := p.Settle(ctx, h, Message{Topic: "orders", Partition: 2, Offset: 7}, dl)
			if settled != c.settled {
				t.Errorf("settled = %v, want %v", settled, c.settled)
			}
			if (err == nil) != (c.errText == "") || (err != nil && err.Error() != c.errText) {
				t.Errorf("error %v, want %q", err, c.errText)
			}
			if c.errText != "" && !errors.Is(err, guard.ErrKeyConflict) {
				t.Errorf("error %v does not wrap the handler's", err)
			}
			if diff := cmp.Diff(c.log, log); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
			if c.deadLetters != 0 && writes != c.deadLetters {
				t.Errorf("%d dead-letter writes, want %d", writes, c.deadLetters)
			}
		})
	}
}

func TestMessage(t *testing.T) {
	m := Message{Topic: "orders.created", Partition: 3, Offset: 42}
	if got := m.Where(); got != "orders.created/3@42" {
		t.Errorf("Where = %q", got)
	}
	got := m.DeadLetterHeaders(errors.New("guard: invalid message: missing sku"))
	want := []Header{
		{Key: "idem-error", Value: []byte("guard: invalid message: missing sku")},
		{Key: "idem-topic", Value: []byte("orders.created")},
		{Key: "idem-partition", Value: []byte("3")},
		{Key: "idem-offset", Value: []byte("42")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DeadLetterHeaders (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cctx, ccancel := CommitContext(ctx)
	cancel() // ctx ends while the commit runs
	if cctx.Err() != nil {
		t.Error("CommitContext of a live context ended with it")
	}
	ccancel()
	cctx, ccancel = CommitContext(ctx)
	defer ccancel()
	if cctx.Err() != nil {
		t.Error("CommitContext of a done context is done")
	}
	if d, ok := cctx.Deadline(); !ok || time.Until(d) > CommitTimeout {
		t.Errorf("CommitContext deadline %v, %v", d, ok)
	}
}
