package amqpguard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemkit/idem/guard"
)

// fakeAck records how deliveries were settled.
type fakeAck struct {
	mu      sync.Mutex
	settles []string
	err     error
}

func (f *fakeAck) record(s string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settles = append(f.settles, s)
	return f.err
}

func (f *fakeAck) Ack(tag uint64, multiple bool) error {
	return f.record(fmt.Sprintf("ack %d multiple=%v", tag, multiple))
}
func (f *fakeAck) Nack(tag uint64, multiple, requeue bool) error {
	return f.record(fmt.Sprintf("nack %d multiple=%v requeue=%v", tag, multiple, requeue))
}
func (f *fakeAck) Reject(tag uint64, requeue bool) error {
	return f.record(fmt.Sprintf("reject %d requeue=%v", tag, requeue))
}

func answer(out guard.Outcome, err error) guard.HandlerFunc {
	return func(context.Context, []byte) (guard.Outcome, error) { return out, err }
}

func TestHandleMapping(t *testing.T) {
	const (
		ack     = "ack 42 multiple=false"
		requeue = "nack 42 multiple=false requeue=true"
		reject  = "reject 42 requeue=false"
	)
	type tc struct {
		name               string
		h                  guard.Handler
		opts               []Option
		want               Action
		settle             string
		minWait, maxWait   time.Duration
		cancelBeforeSettle bool
	}
	cases := []tc{
		{name: "applied", h: answer(guard.Applied, nil), want: Ack, settle: ack},
		{name: "duplicate", h: answer(guard.Duplicate, nil), want: Ack, settle: ack},
		{name: "in progress waits RetryAfter", h: answer(0, &guard.InProgressError{RetryAfter: 150 * time.Millisecond}),
			want: Requeue, settle: requeue, minWait: 140 * time.Millisecond, maxWait: 2 * time.Second},
		{name: "in progress wrapped", h: answer(0, fmt.Errorf("x: %w", &guard.InProgressError{RetryAfter: 50 * time.Millisecond})),
			want: Requeue, settle: requeue, minWait: 45 * time.Millisecond, maxWait: 2 * time.Second},
		{name: "in progress bounded", h: answer(0, &guard.InProgressError{RetryAfter: time.Hour}), opts: []Option{WithMaxRequeueDelay(100 * time.Millisecond)},
			want: Requeue, settle: requeue, minWait: 90 * time.Millisecond, maxWait: 2 * time.Second},
		{name: "in progress cancelled", h: answer(0, &guard.InProgressError{RetryAfter: time.Hour}), cancelBeforeSettle: true,
			want: Requeue, settle: requeue, maxWait: 2 * time.Second},
		{name: "transient waits retry delay", h: answer(0, errors.New("connection refused")), opts: []Option{WithRetryDelay(120 * time.Millisecond)},
			want: Requeue, settle: requeue, minWait: 110 * time.Millisecond, maxWait: 2 * time.Second},
		{name: "transient no delay", h: answer(0, errors.New("connection refused")), opts: []Option{WithRetryDelay(0)},
			want: Requeue, settle: requeue, maxWait: time.Second},
		{name: "transient cancelled", h: answer(0, errors.New("connection refused")), opts: []Option{WithRetryDelay(time.Hour)}, cancelBeforeSettle: true,
			want: Requeue, settle: requeue, maxWait: 2 * time.Second},
		{name: "timeout", h: guard.HandlerFunc(func(ctx context.Context, _ []byte) (guard.Outcome, error) {
			<-ctx.Done()
			return 0, ctx.Err()
		}), opts: []Option{WithTimeout(20 * time.Millisecond), WithRetryDelay(0)}, want: Requeue, settle: requeue, maxWait: 2 * time.Second},
		{name: "panic", h: guard.HandlerFunc(func(context.Context, []byte) (guard.Outcome, error) { panic("boom") }),
			opts: []Option{WithRetryDelay(0)}, want: Requeue, settle: requeue, maxWait: time.Second},
	}
	for _, perm := range []error{guard.ErrKeyConflict, guard.ErrFailed, guard.ErrUncertain, guard.ErrLeaseLost,
		guard.ErrPartialEffect, guard.ErrInvalidMessage, guard.ErrEmptyKey} {
		cases = append(cases, tc{name: "permanent " + perm.Error(), h: answer(0, fmt.Errorf("c: %w", perm)), want: Reject, settle: reject, maxWait: time.Second})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ack := &fakeAck{}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.cancelBeforeSettle {
				time.AfterFunc(30*time.Millisecond, cancel)
			}
			start := time.Now()
			got := Handle(ctx, amqp.Delivery{Acknowledger: ack, DeliveryTag: 42, Body: []byte(`{}`)}, c.h, append([]Option{WithLogger(nil)}, c.opts...)...)
			took := time.Since(start)
			if got != c.want {
				t.Errorf("Handle = %v, want %v", got, c.want)
			}
			if len(ack.settles) != 1 || ack.settles[0] != c.settle {
				t.Errorf("settled with %q, want exactly [%q]", ack.settles, c.settle)
			}
			if took < c.minWait || (c.maxWait > 0 && took > c.maxWait) {
				t.Errorf("took %v, want between %v and %v", took, c.minWait, c.maxWait)
			}
		})
	}
}

func TestLogging(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	d := amqp.Delivery{Acknowledger: &fakeAck{err: errors.New("channel/connection is not open")}, DeliveryTag: 1, MessageId: "m-1", RoutingKey: "orders.created"}
	Handle(context.Background(), d, answer(guard.Applied, nil), WithLogger(logger))
	if out := buf.String(); !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "ack failed") || !strings.Contains(out, "message_id=m-1") {
		t.Errorf("a failed ack was not logged as an error:\n%s", out)
	}
	buf.Reset()
	d.Acknowledger = &fakeAck{}
	Handle(context.Background(), d, answer(0, fmt.Errorf("%w: no sku", guard.ErrInvalidMessage)), WithLogger(logger))
	if out := buf.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, "rejected") || !strings.Contains(out, "no sku") {
		t.Errorf("a rejection was not logged with its reason:\n%s", out)
	}
	buf.Reset()
	Handle(context.Background(), d, guard.HandlerFunc(func(context.Context, []byte) (guard.Outcome, error) { panic("boom") }), WithLogger(logger), WithRetryDelay(0))
	if out := buf.String(); !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "boom") || !strings.Contains(out, "stack=") {
		t.Errorf("a panic was not logged with its stack:\n%s", out)
	}
}

func TestOptions(t *testing.T) {
	c := newConfig([]Option{WithConcurrency(0), WithRetryDelay(-time.Second), WithMaxRequeueDelay(-1)})
	if c.concurrency != 1 || c.retryDelay != 0 || c.maxRequeueDelay != 0 {
		t.Errorf("config %+v", c)
	}
	c = newConfig(nil)
	if c.concurrency != 1 || c.retryDelay != DefaultRetryDelay || c.maxRequeueDelay != DefaultMaxRequeueDelay || c.logger == nil {
		t.Errorf("defaults %+v", c)
	}
	for a, want := range map[Action]string{Ack: "ack", Requeue: "requeue", Reject: "reject", 0: "action(0)"} {
		if a.String() != want {
			t.Errorf("%d.String() = %q", int(a), a.String())
		}
	}
}
