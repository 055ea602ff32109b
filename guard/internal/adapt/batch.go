package adapt

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/idemkit/idem/guard"
)

// Batch consumption. An adapter with batching on (its WithBatch option)
// gathers up to a batch's size of messages, hands their bodies to one
// CallBatch, and settles each message by its own answer, exactly as it
// settles the answer of Call: a message's outcome never decides another's.
// Brokers that acknowledge each message (JetStream, AMQP) settle them in
// any order; brokers whose commits are cumulative (Kafka) settle them in
// order with InPlace.SettleBatch, so no offset is committed past a message
// that is not settled.

// CallBatch runs h on bodies, bounded by timeout when it is positive, and
// returns one result per body, in order. A guard.BatchHandler answers the
// whole batch in one HandleBatch; any other handler is called once per
// body (Call). A panic of HandleBatch is a *PanicError for every message,
// and so is an answer of the wrong length an error for every message: both
// are transient, so every message is retried.
func CallBatch(ctx context.Context, adapter string, timeout time.Duration, h guard.Handler, bodies [][]byte) []guard.Result {
	bh, ok := h.(guard.BatchHandler)
	if !ok {
		res := make([]guard.Result, len(bodies))
		for i, b := range bodies {
			res[i].Outcome, res[i].Err = Call(ctx, adapter, timeout, h, b)
		}
		return res
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	res, err := callBatch(ctx, adapter, bh, bodies)
	if err == nil && len(res) != len(bodies) {
		err = fmt.Errorf("%s: HandleBatch answered %d results for %d messages", adapter, len(res), len(bodies))
	}
	if err != nil {
		res = make([]guard.Result, len(bodies))
		for i := range res {
			res[i].Err = err
		}
	}
	return res
}

func callBatch(ctx context.Context, adapter string, h guard.BatchHandler, bodies [][]byte) (res []guard.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, &PanicError{Adapter: adapter, Value: v, Stack: debug.Stack()}
		}
	}()
	return h.HandleBatch(ctx, bodies), nil
}

// Gather collects a batch of at most n items from next: it waits for the
// first as long as ctx lives, then for more until n are in hand or flush
// has passed since the first arrived (next is then called with a context
// that ends at that moment). It returns the items and the error that ended
// the gathering early (of the first call only: an error after the first
// item just ends the batch). A flush ≤ 0 takes only what next answers
// without waiting past a context already done.
func Gather[T any](ctx context.Context, n int, flush time.Duration, next func(ctx context.Context) (T, error)) ([]T, error) {
	first, err := next(ctx)
	if err != nil {
		return nil, err
	}
	items := []T{first}
	if n <= 1 {
		return items, nil
	}
	fctx, cancel := context.WithTimeout(ctx, max(flush, 0))
	defer cancel()
	for len(items) < n {
		it, err := next(fctx)
		if err != nil {
			break
		}
		items = append(items, it)
	}
	return items, nil
}

// Receive is a next function of Gather for a channel: the next item of ch,
// or ctx's error, or errClosed when ch is closed.
func Receive[T any](ch <-chan T) func(ctx context.Context) (T, error) {
	return func(ctx context.Context) (T, error) {
		select {
		case it, ok := <-ch:
			if !ok {
				var zero T
				return zero, ErrClosed
			}
			return it, nil
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}
}

// ErrClosed is Receive's error for a closed channel.
var ErrClosed = fmt.Errorf("channel closed")

// SettleBatch settles msgs, in order, for a broker whose commits are
// cumulative: it runs h on the whole batch once (CallBatch), then goes
// through the answers in order. A message whose answer settles it is
// settled; one whose answer does not is retried in place (Settle, with
// that answer as its first attempt) before any later message counts, so a
// message after it, though its effect may already have committed, is
// committable only once it is settled. settled, when not nil, is called
// with each message's index as it becomes committable. deadLetter returns
// the dead-letter writer of message i (nil for none).
//
// SettleBatch returns how many messages, from the first, are settled, and
// the error of Settle that stopped it; fewer than len(msgs) and a nil error
// means ctx ended.
func (p *InPlace) SettleBatch(ctx context.Context, h guard.Handler, msgs []Message, deadLetter func(i int) DeadLetterFunc, settled func(i int)) (int, error) {
	bodies := make([][]byte, len(msgs))
	for i, m := range msgs {
		bodies[i] = m.Body
	}
	res := CallBatch(ctx, p.Adapter, p.Timeout, h, bodies)
	for i, m := range msgs {
		first := res[i]
		ok, err := p.settle(ctx, h, m, deadLetter(i), &first)
		if err != nil || !ok {
			return i, err
		}
		if settled != nil {
			settled(i)
		}
	}
	return len(msgs), nil
}

// DefaultBatchFlush is how long an adapter waits, after a batch's first
// message, for the batch to fill when its WithBatch option gives no flush.
const DefaultBatchFlush = 100 * time.Millisecond

// Batching is an adapter's batch settings, set by its WithBatch option.
type Batching struct {
	Batch int           // > 1: messages are handled in batches of this many
	Flush time.Duration // how long a batch waits to fill
}

// SetBatch sets the batch size n and how long a batch waits to fill
// (DefaultBatchFlush when flush ≤ 0); n ≤ 1 turns batching off.
func (b *Batching) SetBatch(n int, flush time.Duration) {
	b.Batch, b.Flush = n, flush
	if flush <= 0 {
		b.Flush = DefaultBatchFlush
	}
}
