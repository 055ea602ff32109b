package kafkaguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/adapt"
)

// Reader is the part of *kafka.Reader that Consume uses. The reader must
// belong to a consumer group (ReaderConfig.GroupID): only then can it commit.
type Reader interface {
	FetchMessage(ctx context.Context) (kafka.Message, error)
	CommitMessages(ctx context.Context, msgs ...kafka.Message) error
}

// Writer is the part of *kafka.Writer that dead-lettering uses. Give it a
// synchronous writer (Async false) that waits for the replicas
// (RequiredAcks: kafka.RequireAll), so a message is stored in the
// dead-letter topic before its offset is committed.
type Writer interface {
	WriteMessages(ctx context.Context, msgs ...kafka.Message) error
}

var (
	_ Reader = (*kafka.Reader)(nil)
	_ Writer = (*kafka.Writer)(nil)
)

// Headers added to a dead-lettered message, after the original's headers.
const (
	HeaderError     = adapt.HeaderError     // "idem-error": the handler's error text
	HeaderTopic     = adapt.HeaderTopic     // "idem-topic": the original topic
	HeaderPartition = adapt.HeaderPartition // "idem-partition": the original partition, decimal
	HeaderOffset    = adapt.HeaderOffset    // "idem-offset": the original offset, decimal
)

// Defaults of WithBackoff.
const (
	DefaultMinBackoff = adapt.DefaultMinBackoff
	DefaultMaxBackoff = adapt.DefaultMaxBackoff
)

// Option configures Consume.
type Option func(*config)

type config struct {
	adapt.InPlace
	deadLetter Writer
	dlTopic    string
	adapt.Batching
}

// DefaultBatchFlush is how long Consume waits, after a batch's first
// message, for the batch to fill when WithBatch gives no flush.
const DefaultBatchFlush = adapt.DefaultBatchFlush

// WithBatch turns batch consumption on: Consume fetches up to n messages
// (or what arrived within flush of the first, DefaultBatchFlush when ≤ 0),
// hands them to the handler in one call (HandleBatch of a
// guard.BatchHandler, else Handle once per message) and then settles them
// in order, each by its own answer: a message whose answer does not settle
// it is retried in place, alone, and no offset past it is committed until
// it is settled (those before it are committed before each wait). A
// message after it whose effect committed in the batch is committed once
// the retried one is settled. n ≤ 1 turns batching off.
func WithBatch(n int, flush time.Duration) Option {
	return func(c *config) { c.SetBatch(n, flush) }
}

func newConfig(opts []Option) config {
	c := config{InPlace: adapt.NewInPlace("kafkaguard")}
	adapt.Configure(&c, opts)
	c.Resolve()
	return c
}

// WithLogger sets the logger (default slog.Default()). Handled messages and
// in-progress waits log at Debug, transient retries and dead-letters at Warn,
// recovered panics and failing dead-letter writes at Error. A nil logger
// discards.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.Logger = l } }

// WithDeadLetter sets the writer that receives messages whose error is
// permanent (guard.Permanent). Without one, a permanent error stops Consume
// with an error, leaving the message uncommitted: nothing is ever skipped
// silently.
func WithDeadLetter(w Writer) Option { return func(c *config) { c.deadLetter = w } }

// WithDeadLetterTopic sets the Topic of dead-lettered messages, for a writer
// that has no Topic of its own. Leave it unset when the writer has one
// (kafka-go refuses a topic on both).
func WithDeadLetterTopic(topic string) Option { return func(c *config) { c.dlTopic = topic } }

// WithBackoff sets the delays between retries of a message in place: the
// first retry of a transient error waits min, each next one twice as long, up
// to max. max also bounds the wait of a key in progress elsewhere (its
// RetryAfter) and the retries of a failing dead-letter write. Defaults
// DefaultMinBackoff and DefaultMaxBackoff; values ≤ 0 keep them.
func WithBackoff(min, max time.Duration) Option {
	return func(c *config) { c.SetBackoff(min, max) }
}

// WithTimeout bounds each call of the handler: its context is cancelled
// after d and its error is then transient. Default: no bound.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.Timeout = d } }

// Consume fetches messages from r one at a time and runs h on each, until ctx
// is done. kafka-go commits are cumulative — committing an offset commits
// every earlier one of the partition — so a message cannot be negatively
// acknowledged and skipped: it is retried in place until it is settled, and
// only then committed (see the package doc for the mapping).
//
// A message is never committed before its handler answered Applied or
// Duplicate, or before it was written to the dead-letter writer. When ctx is
// done Consume returns nil without committing the message in flight, whose
// handler saw the cancellation (a message settled just then is still
// committed). A redelivery after a restart is answered Duplicate if the
// effect happened.
// Consume returns an error when fetching or committing fails (kafka-go
// retries commits itself; a reader without a GroupID cannot commit), and on a
// permanent error without a dead-letter writer.
func Consume(ctx context.Context, r Reader, h guard.Handler, opts ...Option) error {
	c := newConfig(opts)
	if c.Batch > 1 {
		return c.consumeBatches(ctx, r, h)
	}
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("kafkaguard: fetch: %w", err)
		}
		am := adapt.Message{Topic: m.Topic, Partition: int32(m.Partition), Offset: m.Offset, Body: m.Value}
		var deadLetter adapt.DeadLetterFunc
		if c.deadLetter != nil {
			deadLetter = func(ctx context.Context, cause error) error { return c.writeDeadLetter(ctx, m, am, cause) }
		}
		settled, err := c.Settle(ctx, h, am, deadLetter)
		if err != nil {
			return err
		}
		if !settled {
			return nil // ctx done: the message stays uncommitted
		}
		cctx, cancel := adapt.CommitContext(ctx)
		err = r.CommitMessages(cctx, m)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("kafkaguard: commit %s: %w", am.Where(), err)
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// consumeBatches is Consume with batching on.
func (c *config) consumeBatches(ctx context.Context, r Reader, h guard.Handler) error {
	var (
		pending   []kafka.Message // settled, not yet committed
		commitErr error
	)
	commit := func(ctx context.Context) error {
		if commitErr != nil || len(pending) == 0 {
			return commitErr
		}
		cctx, cancel := adapt.CommitContext(ctx)
		defer cancel()
		if err := r.CommitMessages(cctx, pending...); err != nil {
			last := pending[len(pending)-1]
			commitErr = fmt.Errorf("kafkaguard: commit %s/%d@%d: %w", last.Topic, last.Partition, last.Offset, err)
			return commitErr
		}
		pending = pending[:0]
		return nil
	}
	p := c.InPlace
	p.Sleep = func(ctx context.Context, d time.Duration) bool {
		// Commit what is settled before waiting; a failed commit ends the
		// wait, and the batch with it.
		return commit(ctx) == nil && c.Sleep(ctx, d)
	}
	for {
		ms, err := adapt.Gather(ctx, c.Batch, c.Flush, r.FetchMessage)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("kafkaguard: fetch: %w", err)
		}
		ams := make([]adapt.Message, len(ms))
		for i, m := range ms {
			ams[i] = adapt.Message{Topic: m.Topic, Partition: int32(m.Partition), Offset: m.Offset, Body: m.Value}
		}
		deadLetter := func(i int) adapt.DeadLetterFunc {
			if c.deadLetter == nil {
				return nil
			}
			return func(ctx context.Context, cause error) error { return c.writeDeadLetter(ctx, ms[i], ams[i], cause) }
		}
		n, err := p.SettleBatch(ctx, h, ams, deadLetter, func(i int) { pending = append(pending, ms[i]) })
		cerr := commit(ctx)
		switch {
		case err != nil:
			return errors.Join(err, cerr)
		case cerr != nil:
			if ctx.Err() != nil {
				return nil
			}
			return cerr
		case n < len(ms) || ctx.Err() != nil:
			return nil // ctx done: the message in flight and those after it stay uncommitted
		}
	}
}

// writeDeadLetter writes m, with the error in its headers, to the
// dead-letter writer.
func (c *config) writeDeadLetter(ctx context.Context, m kafka.Message, am adapt.Message, cause error) error {
	headers := append([]kafka.Header(nil), m.Headers...)
	for _, h := range am.DeadLetterHeaders(cause) {
		headers = append(headers, kafka.Header{Key: h.Key, Value: h.Value})
	}
	return c.deadLetter.WriteMessages(ctx, kafka.Message{Topic: c.dlTopic, Key: m.Key, Value: m.Value, Headers: headers})
}
