// Package adapt is the part that guard's broker adapters share: calling a
// guard.Handler with panic recovery and an optional timeout, classifying its
// answer by guard's error table, waiting with exponential backoff, resolving
// the logger option, and — for log-based brokers whose commits are
// cumulative (Kafka) — settling a message in place (InPlace).
//
// Each adapter keeps its own public options and maps the classes of Classify
// to its broker's acknowledgements; only the logic lives here.
package adapt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/idemkit/idem/guard"
)

// PanicError is a panic of a handler, recovered and treated as transient: a
// bug that a deploy can fix, so the message is kept.
type PanicError struct {
	Adapter string // the adapter's package name, for the message
	Value   any    // what the handler panicked with
	Stack   []byte // the stack of the panicking goroutine
}

// Error returns "<adapter>: handler panicked: <value>".
func (p *PanicError) Error() string {
	return fmt.Sprintf("%s: handler panicked: %v", p.Adapter, p.Value)
}

// Call runs h on body, bounded by timeout when it is positive, and turns a
// panic of h into a *PanicError naming adapter.
func Call(ctx context.Context, adapter string, timeout time.Duration, h guard.Handler, body []byte) (out guard.Outcome, err error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	defer func() {
		if v := recover(); v != nil {
			out, err = 0, &PanicError{Adapter: adapter, Value: v, Stack: debug.Stack()}
		}
	}()
	return h.Handle(ctx, body)
}

// Class is what the error table of package guard says to do with a
// handler's answer.
type Class int

// The classes of Classify.
const (
	// Settle: (Applied or Duplicate, nil) — acknowledge or commit.
	Settle Class = iota + 1
	// InProgress: *guard.InProgressError — another worker holds the key's
	// lease; retry after Verdict.RetryAfter.
	InProgress
	// DeadLetter: guard.Permanent — never retry; dead-letter or terminate.
	DeadLetter
	// Retry: any other error, a recovered panic included — transient.
	Retry
)

// Verdict is the class of a handler's answer with what the class needs.
type Verdict struct {
	Class      Class
	RetryAfter time.Duration // InProgress: the lease's remaining time, never negative
	Panic      *PanicError   // Retry: the recovered panic, if that was the error
}

// Classify maps a handler's error (nil for Applied or Duplicate) to its
// class by the error table.
func Classify(err error) Verdict {
	var inProgress *guard.InProgressError
	switch {
	case err == nil:
		return Verdict{Class: Settle}
	case errors.As(err, &inProgress):
		return Verdict{Class: InProgress, RetryAfter: max(inProgress.RetryAfter, 0)}
	case guard.Permanent(err):
		return Verdict{Class: DeadLetter}
	}
	v := Verdict{Class: Retry}
	errors.As(err, &v.Panic)
	return v
}

// Configure applies an adapter's options to its configuration, in order.
func Configure[C any, O ~func(*C)](c *C, opts []O) {
	for _, o := range opts {
		o(c)
	}
}

// Logger resolves a logger option: nil discards.
func Logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// LogSettled logs the settlement of a message at level with msg, or, when
// err says it could not be sent, "<adapter>: <op> failed" at Error with the
// error as settle_error. Brokers redeliver what was not settled; the guard
// makes the redelivery harmless.
func LogSettled(ctx context.Context, l *slog.Logger, adapter, op string, err error, level slog.Level, msg string, attrs []any) {
	if err != nil {
		l.Log(ctx, slog.LevelError, adapter+": "+op+" failed", append(attrs, slog.Any("settle_error", err))...)
		return
	}
	l.Log(ctx, level, msg, attrs...)
}

// Sleep waits d or until ctx is done, and reports whether it waited the
// whole d. A d ≤ 0 does not wait and reports whether ctx is still live.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Backoff is an exponential backoff: Next returns Min, then twice the last
// delay each time, up to Max.
type Backoff struct {
	Min, Max time.Duration
	next     time.Duration
}

// Next returns the next delay.
func (b *Backoff) Next() time.Duration {
	d := b.next
	if d == 0 {
		d = b.Min
	}
	b.next = min(2*d, b.Max)
	return d
}

// EnumString names value n of an enumeration that starts at 1 by names, or
// "<kind>(n)" when n is out of range.
func EnumString(n int, kind string, names ...string) string {
	if n >= 1 && n <= len(names) {
		return names[n-1]
	}
	return kind + "(" + strconv.Itoa(n) + ")"
}
