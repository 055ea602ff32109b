// Package franz: twmb/franz-go poll loops.
package franz

import (
	"context"
	"database/sql"

	"github.com/twmb/franz-go/pkg/kgo"

	"shop"
)

func naive(ctx context.Context, cl *kgo.Client, db *sql.DB) {
	for {
		fetches := cl.PollFetches(ctx)
		fetches.EachRecord(func(r *kgo.Record) {
			o, _ := shop.Decode(r.Value)
			shop.DeductStock(ctx, db, o.SKU, o.Qty) // want `IDEM001`
			shop.AddPoints(ctx, db, o.User, o.Qty)  // want `IDEM001`
			shop.SendSMS(ctx, o.Phone, "hi")        // want `IDEM001`
			shop.BumpStats(ctx, db, o.Day, o.GMV)   // want `IDEM001`
		})
	}
}

func correct(ctx context.Context, cl *kgo.Client, db *sql.DB) error {
	for {
		fetches := cl.PollFetches(ctx)
		var done []*kgo.Record
		var failed error
		fetches.EachRecord(func(r *kgo.Record) {
			if failed != nil {
				return
			}
			if err := apply(ctx, db, r); err != nil {
				failed = err
				return
			}
			done = append(done, r)
		})
		if err := cl.CommitRecords(ctx, done...); err != nil {
			return err
		}
		if failed != nil {
			return failed
		}
	}
}

func apply(ctx context.Context, db *sql.DB, r *kgo.Record) error {
	o, err := shop.Decode(r.Value)
	if err != nil {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "orders", string(r.Key))
	if err != nil || !fresh {
		return err
	}
	if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
		return err
	}
	if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
		return err
	}
	if err := shop.BumpStats(ctx, tx, o.Day, o.GMV); err != nil {
		return err
	}
	return tx.Commit()
}

// A client made without DisableAutoCommit commits what it polled.
func autoCommit(ctx context.Context, db *sql.DB) error {
	cl, err := kgo.NewClient(kgo.ConsumerGroup("points"), kgo.ConsumeTopics("orders"))
	if err != nil {
		return err
	}
	for {
		fetches := cl.PollFetches(ctx) // want `auto-ack consumer kgo.Client.PollFetches \(commits by itself\) acks each message before handler autoCommit performs .*IDEM007`
		for _, r := range fetches.Records() {
			o, _ := shop.Decode(r.Value)
			shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
		}
	}
}

func manualCommit(ctx context.Context, db *sql.DB) error {
	cl, err := kgo.NewClient(kgo.ConsumerGroup("points"), kgo.DisableAutoCommit())
	if err != nil {
		return err
	}
	for {
		fetches := cl.PollFetches(ctx)
		for _, r := range fetches.Records() {
			if err := apply(ctx, db, r); err != nil {
				return err
			}
		}
		if err := cl.CommitUncommittedOffsets(ctx); err != nil {
			return err
		}
	}
}

// A consumer keeps its client in a field, made by its constructor: traced
// there, the client commits by itself.
type consumer struct {
	cl *kgo.Client
}

func newConsumer() (*consumer, error) {
	cl, err := kgo.NewClient(kgo.ConsumerGroup("points"), kgo.ConsumeTopics("orders"))
	if err != nil {
		return nil, err
	}
	return &consumer{cl: cl}, nil
}

func (c *consumer) run(ctx context.Context, db *sql.DB) {
	for {
		fetches := c.cl.PollFetches(ctx) // want `auto-ack consumer kgo.Client.PollFetches \(commits by itself\) acks each message before handler consumer.run performs .*IDEM007`
		for _, r := range fetches.Records() {
			o, _ := shop.Decode(r.Value)
			shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
		}
	}
}

// The same with DisableAutoCommit: the client commits only when told.
type manualConsumer struct {
	cl *kgo.Client
}

func newManualConsumer() (*manualConsumer, error) {
	cl, err := kgo.NewClient(kgo.ConsumerGroup("points"), kgo.DisableAutoCommit())
	if err != nil {
		return nil, err
	}
	return &manualConsumer{cl: cl}, nil
}

func (c *manualConsumer) run(ctx context.Context, db *sql.DB) error {
	for {
		fetches := c.cl.PollFetches(ctx)
		for _, r := range fetches.Records() {
			if err := apply(ctx, db, r); err != nil {
				return err
			}
		}
		if err := c.cl.CommitUncommittedOffsets(ctx); err != nil {
			return err
		}
	}
}

// The client behind a helper that polls for its caller, the records handed
// to a callback: the helper's poll commits them before the callback's
// effect.
type poller struct {
	cl *kgo.Client
}

func newPoller() (*poller, error) {
	cl, err := kgo.NewClient(kgo.ConsumerGroup("points"), kgo.ConsumeTopics("orders"))
	if err != nil {
		return nil, err
	}
	return &poller{cl: cl}, nil
}

func (p *poller) fetch(ctx context.Context) kgo.Fetches { return p.cl.PollFetches(ctx) }

type pointsHandler struct {
	p  *poller
	db *sql.DB
}

func (h *pointsHandler) run(ctx context.Context) {
	for ctx.Err() == nil {
		fetches := h.p.fetch(ctx) // want `auto-ack consumer franz.poller.fetch \(commits by itself\) acks each message before handler func literal in pointsHandler.run performs .*IDEM007`
		fetches.EachRecord(func(r *kgo.Record) {
			o, _ := shop.Decode(r.Value)
			shop.AddPoints(ctx, h.db, o.User, o.Qty) // want `IDEM001`
		})
	}
}

// An idempotent write is lost with the message as surely as any other: the
// auto-committing poll acks before it.
func autoCommitIdempotent(ctx context.Context, db *sql.DB) error {
	cl, err := kgo.NewClient(kgo.ConsumerGroup("phones"), kgo.ConsumeTopics("users"))
	if err != nil {
		return err
	}
	for {
		fetches := cl.PollFetches(ctx) // want `auto-ack consumer kgo.Client.PollFetches \(commits by itself\) acks each message before handler autoCommitIdempotent performs sql.DB.ExecContext \(a write\).*IDEM007`
		for _, r := range fetches.Records() {
			o, _ := shop.Decode(r.Value)
			if _, err := db.ExecContext(ctx, `UPDATE users SET phone = $1 WHERE id = $2`, o.Phone, o.User); err != nil {
				return err
			}
		}
	}
}

// The client made in one place (main) and handed to the consumer's
// constructor: traced through the parameter to the call that made it.
type runner struct {
	kc *kgo.Client
	db *sql.DB
}

func newRunner(kc *kgo.Client, db *sql.DB) *runner { return &runner{kc: kc, db: db} }

func startRunner(ctx context.Context, db *sql.DB) error {
	kc, err := kgo.NewClient(kgo.ConsumerGroup("points"), kgo.ConsumeTopics("orders"))
	if err != nil {
		return err
	}
	newRunner(kc, db).run(ctx)
	return nil
}

func (r *runner) run(ctx context.Context) {
	for ctx.Err() == nil {
		fetches := r.kc.PollFetches(ctx) // want `auto-ack consumer kgo.Client.PollFetches \(commits by itself\) acks each message before handler runner.run performs .*IDEM007`
		iter := fetches.RecordIter()
		for !iter.Done() {
			rec := iter.Next()
			o, _ := shop.Decode(rec.Value)
			shop.AddPoints(ctx, r.db, o.User, o.Qty) // want `IDEM001`
		}
	}
}

// forwarder republishes each record to its topic and commits the poll; a
// republish whose error is only printed is committed all the same.
type forwarder struct{ cl *kgo.Client }

func newForwarder() (*forwarder, error) {
	cl, err := kgo.NewClient(kgo.ConsumerGroup("retry"), kgo.DisableAutoCommit())
	if err != nil {
		return nil, err
	}
	return &forwarder{cl: cl}, nil
}

func (f *forwarder) run(ctx context.Context) {
	for {
		fetches := f.cl.PollFetches(ctx)
		for _, r := range fetches.Records() {
			out := &kgo.Record{Topic: "orders", Key: r.Key, Value: r.Value}
			if err := f.cl.ProduceSync(ctx, out).FirstErr(); err != nil {
				println(err.Error())
			}
		}
		f.cl.CommitRecords(ctx, fetches.Records()...) // want `ack kgo.Client.CommitRecords in handler forwarder.run also runs when kgo.ProduceResults.FirstErr fails: the error is swallowed and the message lost \(IDEM003\)`
	}
}

// runStopping stops on a failed republish: nothing is committed.
func (f *forwarder) runStopping(ctx context.Context) error {
	for {
		fetches := f.cl.PollFetches(ctx)
		for _, r := range fetches.Records() {
			out := &kgo.Record{Topic: "orders", Key: r.Key, Value: r.Value}
			if err := f.cl.ProduceSync(ctx, out).FirstErr(); err != nil {
				return err
			}
		}
		f.cl.CommitRecords(ctx, fetches.Records()...)
	}
}

// retryLoop retries each record's work until it and its commit succeed,
// testing the context before every try: a failed commit goes round to the
// work again (the record was not acked, so that work comes after no ack),
// and the return taken when the consumer stops leaves the record to the
// next consumer (no IDEM002, no IDEM003).
func retryLoop(ctx context.Context, cl *kgo.Client, db *sql.DB) {
	for {
		fetches := cl.PollFetches(ctx)
		fetches.EachRecord(func(r *kgo.Record) {
			for {
				if ctx.Err() != nil {
					return
				}
				o, _ := shop.Decode(r.Value)
				if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `IDEM001`
					continue
				}
				if err := cl.CommitRecords(ctx, r); err != nil {
					continue
				}
				return
			}
		})
	}
}
