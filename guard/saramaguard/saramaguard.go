package saramaguard

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/IBM/sarama"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/internal/adapt"
)

// Headers added to a dead-lettered message, after the original's headers.
const (
	HeaderError     = adapt.HeaderError     // "idem-error": the handler's error text
	HeaderTopic     = adapt.HeaderTopic     // "idem-topic": the original topic
	HeaderPartition = adapt.HeaderPartition // "idem-partition": the original partition, decimal
	HeaderOffset    = adapt.HeaderOffset    // "idem-offset": the original offset, decimal
)

// Option configures Consume and NewHandler.
type Option func(*config)

type config struct {
	adapt.InPlace
	deadLetter sarama.SyncProducer
	dlTopic    string
	commitEach bool
	adapt.Batching
}

// DefaultBatchFlush is how long ConsumeClaim waits, after a batch's first
// message, for the batch to fill when WithBatch gives no flush.
const DefaultBatchFlush = adapt.DefaultBatchFlush

// WithBatch turns batch consumption on: ConsumeClaim collects up to n
// messages of its claim (or what arrived within flush of the first,
// DefaultBatchFlush when ≤ 0), hands them to the handler in one call
// (HandleBatch of a guard.BatchHandler, else Handle once per message) and
// marks them in order, each once its own answer settles it: a message
// whose answer does not is retried in place, alone, and nothing past it is
// marked until it is settled (those before it are marked, and committed
// with WithCommitEach, before each wait). n ≤ 1 turns batching off.
func WithBatch(n int, flush time.Duration) Option {
	return func(c *config) { c.SetBatch(n, flush) }
}

func newConfig(opts []Option) config {
	c := config{InPlace: adapt.NewInPlace("saramaguard")}
	adapt.Configure(&c, opts)
	c.Resolve()
	return c
}

// WithLogger sets the logger (default slog.Default()). Handled messages and
// in-progress waits log at Debug, transient retries and dead-letters at Warn,
// recovered panics and failing dead-letter writes at Error. A nil logger
// discards.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.Logger = l } }

// WithDeadLetter sets where messages whose error is permanent
// (guard.Permanent) go: sent with p to topic. p must wait for the replicas
// (Producer.RequiredAcks = sarama.WaitForAll; a SyncProducer needs
// Producer.Return.Successes), so that a message is stored in the dead-letter
// topic before its offset is marked. Without it, a permanent error stops
// the claim, and Consume, with an error, leaving the message unmarked:
// nothing is ever skipped silently.
func WithDeadLetter(p sarama.SyncProducer, topic string) Option {
	return func(c *config) { c.deadLetter, c.dlTopic = p, topic }
}

// WithBackoff sets the delays between retries of a message in place: the
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

// WithCommitEach commits synchronously (ConsumerGroupSession.Commit) after
// every marked message, instead of leaving marked offsets to sarama's
// autocommit. It narrows the window in which a crash redelivers handled
// messages, at a round trip per message — more when the group's coordinator
// also leads the partition: sarama sends the commit on the connection that
// holds the pending fetch, so once the consumer has caught up each commit
// waits up to Consumer.MaxWaitTime (500ms by default) behind it.
func WithCommitEach() Option { return func(c *config) { c.commitEach = true } }

// Handler is a sarama.ConsumerGroupHandler that runs a guarded handler on
// each message of its claims and marks a message (MarkMessage) only once it
// is settled: handled, or written to the dead-letter topic. Partitions are
// handled concurrently, each in order. Use it with Consume, or give it to
// sarama.ConsumerGroup.Consume yourself and check Err after each session.
type Handler struct {
	h   guard.Handler
	cfg config

	mu  sync.Mutex
	err error
}

var _ sarama.ConsumerGroupHandler = (*Handler)(nil)

// NewHandler returns a Handler running h.
func NewHandler(h guard.Handler, opts ...Option) *Handler {
	return &Handler{h: h, cfg: newConfig(opts)}
}

// Err returns the first permanent error that stopped a claim for want of a
// dead-letter producer, or nil. Such an error also ends the session; a new
// session would meet the same message again.
func (g *Handler) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

func (g *Handler) fail(err error) {
	g.mu.Lock()
	if g.err == nil {
		g.err = err
	}
	g.mu.Unlock()
}

// Setup implements sarama.ConsumerGroupHandler; it does nothing.
func (g *Handler) Setup(sarama.ConsumerGroupSession) error { return nil }

// Cleanup implements sarama.ConsumerGroupHandler; it does nothing.
func (g *Handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim handles the messages of claim one at a time, retrying each in
// place until it is settled, and marks it then. It returns when the claim's
// messages end (a rebalance revoked it), when the session's context is done
// — the message in flight, whose handler saw the cancellation, stays
// unmarked — and with the error of a permanent answer when there is no
// dead-letter producer. A claim revoked while a message is retried stops
// retrying at the next wait. On its way out it commits what it marked
// (Commit), so that manual commits (Consumer.Offsets.AutoCommit.Enable
// false) lose nothing that was settled.
func (g *Handler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	defer sess.Commit()
	ctx := sess.Context()
	p := g.cfg.InPlace
	p.Sleep = func(ctx context.Context, d time.Duration) bool {
		return slices.Contains(sess.Claims()[claim.Topic()], claim.Partition()) && g.cfg.Sleep(ctx, d)
	}
	if g.cfg.Batch > 1 {
		return g.consumeBatches(sess, claim, p)
	}
	for {
		var msg *sarama.ConsumerMessage
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			msg = m
		}
		m := adapt.Message{Topic: msg.Topic, Partition: msg.Partition, Offset: msg.Offset, Body: msg.Value}
		var deadLetter adapt.DeadLetterFunc
		if g.cfg.deadLetter != nil {
			deadLetter = func(ctx context.Context, cause error) error { return g.cfg.writeDeadLetter(msg, m, cause) }
		}
		settled, err := p.Settle(ctx, g.h, m, deadLetter)
		if err != nil {
			g.fail(err)
			return err
		}
		if !settled {
			return nil
		}
		sess.MarkMessage(msg, "")
		if g.cfg.commitEach {
			sess.Commit()
		}
	}
}

// consumeBatches is ConsumeClaim with batching on.
func (g *Handler) consumeBatches(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim, p adapt.InPlace) error {
	ctx := sess.Context()
	var pending []*sarama.ConsumerMessage // settled, not yet marked
	mark := func() {
		for _, msg := range pending {
			sess.MarkMessage(msg, "")
		}
		if len(pending) > 0 && g.cfg.commitEach {
			sess.Commit()
		}
		pending = pending[:0]
	}
	inClaim := p.Sleep
	p.Sleep = func(ctx context.Context, d time.Duration) bool {
		mark() // what is settled before waiting
		return inClaim(ctx, d)
	}
	for {
		msgs, err := adapt.Gather(ctx, g.cfg.Batch, g.cfg.Flush, adapt.Receive(claim.Messages()))
		if err != nil {
			return nil // ctx done or the claim's messages ended
		}
		ms := make([]adapt.Message, len(msgs))
		for i, msg := range msgs {
			ms[i] = adapt.Message{Topic: msg.Topic, Partition: msg.Partition, Offset: msg.Offset, Body: msg.Value}
		}
		deadLetter := func(i int) adapt.DeadLetterFunc {
			if g.cfg.deadLetter == nil {
				return nil
			}
			return func(ctx context.Context, cause error) error { return g.cfg.writeDeadLetter(msgs[i], ms[i], cause) }
		}
		n, err := p.SettleBatch(ctx, g.h, ms, deadLetter, func(i int) { pending = append(pending, msgs[i]) })
		mark()
		if err != nil {
			g.fail(err)
			return err
		}
		if n < len(msgs) {
			return nil // ctx done or the claim revoked: the rest stays unmarked
		}
	}
}

// writeDeadLetter sends msg, with the error in its headers, to the
// dead-letter topic.
func (c *config) writeDeadLetter(msg *sarama.ConsumerMessage, m adapt.Message, cause error) error {
	dl := &sarama.ProducerMessage{Topic: c.dlTopic, Value: sarama.ByteEncoder(msg.Value)}
	if msg.Key != nil {
		dl.Key = sarama.ByteEncoder(msg.Key)
	}
	for _, h := range msg.Headers {
		dl.Headers = append(dl.Headers, *h)
	}
	for _, h := range m.DeadLetterHeaders(cause) {
		dl.Headers = append(dl.Headers, sarama.RecordHeader{Key: []byte(h.Key), Value: h.Value})
	}
	_, _, err := c.deadLetter.SendMessage(dl)
	return err
}

// Consume runs h on the messages of topics as a member of group until ctx
// is done, one session after another (sarama ends a session at every
// rebalance), with a Handler (see it for when messages are marked). It
// returns nil when ctx is done, the permanent error that stopped a claim
// when there is no dead-letter producer, and any error of
// group.Consume (a closed group among them). group must start from the
// committed offsets; set Consumer.Offsets.Initial for a group without any.
func Consume(ctx context.Context, group sarama.ConsumerGroup, topics []string, h guard.Handler, opts ...Option) error {
	gh := NewHandler(h, opts...)
	for {
		err := group.Consume(ctx, topics, gh)
		if ferr := gh.Err(); ferr != nil {
			return ferr
		}
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			return fmt.Errorf("saramaguard: consume: %w", err)
		}
	}
}
