package franzguard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/adapt"
)

// Producer is the part of *kgo.Client that dead-lettering uses: the
// consuming client itself, or a client of its own. Its ProduceSync must wait
// for the replicas (kgo's default acks, kgo.AllISRAcks), so that a message is
// stored in the dead-letter topic before its offset is committed.
type Producer interface {
	ProduceSync(ctx context.Context, rs ...*kgo.Record) kgo.ProduceResults
}

var _ Producer = (*kgo.Client)(nil)

// Headers added to a dead-lettered record, after the original's headers.
const (
	HeaderError     = adapt.HeaderError     // "idem-error": the handler's error text
	HeaderTopic     = adapt.HeaderTopic     // "idem-topic": the original topic
	HeaderPartition = adapt.HeaderPartition // "idem-partition": the original partition, decimal
	HeaderOffset    = adapt.HeaderOffset    // "idem-offset": the original offset, decimal
)

// DefaultMaxPollRecords is how many records a poll returns at most
// (WithMaxPollRecords).
const DefaultMaxPollRecords = 500

// Option configures Consume.
type Option func(*config)

type config struct {
	adapt.InPlace
	deadLetter Producer
	dlTopic    string
	maxPoll    int
	batch      int // > 1: the records of a poll are handled in batches of this many
}

// WithBatch turns batch consumption on: the records of a poll are handed to
// the handler n at a time, in one call each (HandleBatch of a
// guard.BatchHandler, else Handle once per record), and then settled in
// order, each by its own answer: a record whose answer does not settle it
// is retried in place, alone, and nothing past it is committed until it is
// settled (those before it are committed before each wait). A poll brings
// at most WithMaxPollRecords records, so a batch is never longer. n ≤ 1
// turns batching off.
func WithBatch(n int) Option { return func(c *config) { c.batch = n } }

func newConfig(opts []Option) config {
	c := config{InPlace: adapt.NewInPlace("franzguard"), maxPoll: DefaultMaxPollRecords}
	adapt.Configure(&c, opts)
	c.Resolve()
	return c
}

// WithLogger sets the logger (default slog.Default()). Handled records and
// in-progress waits log at Debug, transient retries, dead-letters and
// informational fetch errors at Warn, recovered panics and failing
// dead-letter writes at Error. A nil logger discards.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.Logger = l } }

// WithDeadLetter sets where records whose error is permanent
// (guard.Permanent) go: produced with p to topic (the producer's
// kgo.DefaultProduceTopic when topic is empty). Without it, a permanent error
// stops Consume with an error, leaving the record uncommitted: nothing is
// ever skipped silently.
func WithDeadLetter(p Producer, topic string) Option {
	return func(c *config) { c.deadLetter, c.dlTopic = p, topic }
}

// WithBackoff sets the delays between retries of a record in place: the
// first retry of a transient error waits min, each next one twice as long, up
// to max. max also bounds the wait of a key in progress elsewhere (its
// RetryAfter) and the retries of a failing dead-letter write. Defaults
// 100ms and 30s; values ≤ 0 keep them.
func WithBackoff(min, max time.Duration) Option {
	return func(c *config) { c.SetBackoff(min, max) }
}

// WithTimeout bounds each call of the handler: its context is cancelled
// after d and its error is then transient. Default: no bound.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.Timeout = d } }

// WithMaxPollRecords bounds how many records one poll returns
// (kgo.Client.PollRecords; default DefaultMaxPollRecords). They are
// committed together once handled, and with kgo.BlockRebalanceOnPoll they
// hold back rebalances until then. Values ≤ 0 keep the default.
func WithMaxPollRecords(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxPoll = n
		}
	}
}

// Consume polls records with cl and runs h on each, until ctx is done. cl
// must be a group consumer (kgo.ConsumerGroup, kgo.ConsumeTopics) with
// kgo.DisableAutoCommit: Consume commits itself, and only what is settled.
// Commits are cumulative — committing an offset commits every earlier one
// of the partition — so a record cannot be negatively acknowledged and
// skipped: it is retried in place until it is handled or dead-lettered (see
// the package doc for the mapping).
//
// The records of a poll are handled one at a time, in order, and committed
// together (CommitRecords) after the last; before a retry waits, those
// settled so far are committed, so a record retried at length does not hold
// back the commits of the records before it. After each poll Consume calls
// cl.AllowRebalance (a no-op without kgo.BlockRebalanceOnPoll).
//
// When ctx is done Consume commits what is settled and returns nil; the
// record in flight, whose handler saw the cancellation, is not committed.
// Consume returns an error when cl is not a group consumer without
// autocommit, when cl is closed, on a fetch error the client cannot recover
// from, when a commit fails, and on a permanent error without a dead-letter
// producer.
func Consume(ctx context.Context, cl *kgo.Client, h guard.Handler, opts ...Option) error {
	if group, _ := cl.OptValue(kgo.ConsumerGroup).(string); group == "" {
		return errors.New("franzguard: the client is not a group consumer (kgo.ConsumerGroup)")
	}
	if manual, _ := cl.OptValue(kgo.DisableAutoCommit).(bool); !manual {
		return errors.New("franzguard: the client commits by itself; create it with kgo.DisableAutoCommit()")
	}
	c := newConfig(opts)
	for {
		fs := cl.PollRecords(ctx, c.maxPoll)
		err := c.poll(ctx, cl, fs, h)
		cl.AllowRebalance()
		switch {
		case errors.Is(err, errStop):
			return nil
		case err != nil:
			return err
		case ctx.Err() != nil:
			return nil
		}
	}
}

// errStop: ctx ended; Consume returns nil.
var errStop = errors.New("franzguard: stopped")

// poll handles the records of one poll and commits them.
func (c *config) poll(ctx context.Context, cl *kgo.Client, fs kgo.Fetches, h guard.Handler) error {
	if ctx.Err() != nil {
		return errStop
	}
	if fs.IsClientClosed() {
		return fmt.Errorf("franzguard: poll: %w", kgo.ErrClientClosed)
	}
	for _, fe := range fs.Errors() {
		var (
			loss    *kgo.ErrDataLoss
			session *kgo.ErrGroupSession
		)
		switch {
		case errors.As(fe.Err, &loss), errors.As(fe.Err, &session):
			// Informational: the client has recovered by itself.
			c.Logger.Warn("franzguard: fetch", slog.String("topic", fe.Topic), slog.Int("partition", int(fe.Partition)), slog.Any("error", fe.Err))
		case ctx.Err() != nil:
			return errStop
		default:
			return fmt.Errorf("franzguard: fetch %s/%d: %w", fe.Topic, fe.Partition, fe.Err)
		}
	}
	b := batch{cl: cl}
	p := c.InPlace
	p.Sleep = func(ctx context.Context, d time.Duration) bool {
		// Commit what is settled before waiting; a failed commit ends the
		// wait, and Settle with it, and is returned below.
		return b.commit(ctx) == nil && c.Sleep(ctx, d)
	}
	if c.batch > 1 {
		return c.pollBatches(ctx, &b, p, fs.Records(), h)
	}
	for _, r := range fs.Records() {
		m := adapt.Message{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Body: r.Value}
		var deadLetter adapt.DeadLetterFunc
		if c.deadLetter != nil {
			deadLetter = func(ctx context.Context, cause error) error { return c.writeDeadLetter(ctx, r, m, cause) }
		}
		settled, err := p.Settle(ctx, h, m, deadLetter)
		if b.err != nil {
			return b.err
		}
		if err != nil || !settled {
			if cerr := b.commit(ctx); cerr != nil {
				return errors.Join(err, cerr)
			}
			if err == nil {
				return errStop // ctx done: the record in flight stays uncommitted
			}
			return err
		}
		b.pending = append(b.pending, r)
	}
	return b.commit(ctx)
}

// pollBatches handles the records of a poll c.batch at a time, settling
// each batch in order, and commits them.
func (c *config) pollBatches(ctx context.Context, b *batch, p adapt.InPlace, records []*kgo.Record, h guard.Handler) error {
	for chunk := range slices.Chunk(records, c.batch) {
		ms := make([]adapt.Message, len(chunk))
		for i, r := range chunk {
			ms[i] = adapt.Message{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Body: r.Value}
		}
		deadLetter := func(i int) adapt.DeadLetterFunc {
			if c.deadLetter == nil {
				return nil
			}
			return func(ctx context.Context, cause error) error { return c.writeDeadLetter(ctx, chunk[i], ms[i], cause) }
		}
		n, err := p.SettleBatch(ctx, h, ms, deadLetter, func(i int) { b.pending = append(b.pending, chunk[i]) })
		if b.err != nil {
			return b.err
		}
		if err != nil || n < len(chunk) {
			if cerr := b.commit(ctx); cerr != nil {
				return errors.Join(err, cerr)
			}
			if err == nil {
				return errStop // ctx done: the record in flight stays uncommitted
			}
			return err
		}
	}
	return b.commit(ctx)
}

// batch holds the settled records of a poll until they are committed.
type batch struct {
	cl      *kgo.Client
	pending []*kgo.Record
	err     error // the first failed commit
}

// commit commits the pending records, even as ctx ends (adapt.CommitContext).
func (b *batch) commit(ctx context.Context) error {
	if b.err != nil || len(b.pending) == 0 {
		return b.err
	}
	cctx, cancel := adapt.CommitContext(ctx)
	defer cancel()
	if err := b.cl.CommitRecords(cctx, b.pending...); err != nil {
		last := b.pending[len(b.pending)-1]
		b.err = fmt.Errorf("franzguard: commit through %s/%d@%d: %w", last.Topic, last.Partition, last.Offset, err)
		return b.err
	}
	b.pending = b.pending[:0]
	return nil
}

// writeDeadLetter produces r, with the error in its headers, to the
// dead-letter topic.
func (c *config) writeDeadLetter(ctx context.Context, r *kgo.Record, m adapt.Message, cause error) error {
	headers := append([]kgo.RecordHeader(nil), r.Headers...)
	for _, h := range m.DeadLetterHeaders(cause) {
		headers = append(headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
	}
	return c.deadLetter.ProduceSync(ctx, &kgo.Record{Topic: c.dlTopic, Key: r.Key, Value: r.Value, Headers: headers}).FirstErr()
}
