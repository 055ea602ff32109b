package idem003

import (
	"context"
	"database/sql"
	"log"

	"github.com/segmentio/kafka-go"
)

// orderSaver reports a failed save by its bool, as the loops below read
// it: true when the message may be committed.
type orderSaver struct{ db *sql.DB }

// Handle returns false when the save fails and true once it succeeded.
func (h *orderSaver) Handle(ctx context.Context, m kafka.Message) bool {
	if len(m.Value) == 0 {
		return true // nothing to save
	}
	if _, err := h.db.ExecContext(ctx, "INSERT INTO orders (id, body) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING", string(m.Key), m.Value); err != nil {
		log.Print(err)
		return false
	}
	return true
}

// Exists reports whether the order is stored; a failed lookup reads as
// "not stored". Its bool is a lookup's, not a failure's.
func (h *orderSaver) Exists(ctx context.Context, m kafka.Message) bool {
	var n int
	if err := h.db.QueryRowContext(ctx, "SELECT count(*) FROM orders WHERE id = $1", string(m.Key)).Scan(&n); err != nil {
		return false
	}
	return n > 0
}

// consumeSkipping commits when Handle succeeded and goes on to the next
// message when it did not: that commit moves the offset past the failed
// order.
func consumeSkipping(ctx context.Context, r *kafka.Reader, h *orderSaver) {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return
		}
		if ok := h.Handle(ctx, m); ok { // want `handler consumeSkipping goes on to the next message when .*orderSaver.Handle fails: acking a later offset commits this one too, and the message is lost \(IDEM003\)`
			r.CommitMessages(ctx, m)
		}
	}
}

// consumeStopping stops on a failed save: the message is fetched again
// from its offset by the next consumer.
func consumeStopping(ctx context.Context, r *kafka.Reader, h *orderSaver) {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return
		}
		if !h.Handle(ctx, m) {
			return
		}
		r.CommitMessages(ctx, m)
	}
}

// consumeNew saves what is not stored yet and commits everything else:
// a lookup's false is no failure.
func consumeNew(ctx context.Context, r *kafka.Reader, h *orderSaver) {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return
		}
		if h.Exists(ctx, m) {
			r.CommitMessages(ctx, m)
			continue
		}
		if !h.Handle(ctx, m) {
			return
		}
		r.CommitMessages(ctx, m)
	}
}

// commitAll commits the offsets of a batch, one message per partition's
// last offset: too large to be taken for a plain ack of its message.
func commitAll(ctx context.Context, r *kafka.Reader, ms ...kafka.Message) error {
	if len(ms) == 0 {
		return nil
	}
	last := map[int]kafka.Message{}
	for _, m := range ms {
		if m.Offset >= last[m.Partition].Offset {
			last[m.Partition] = m
		}
	}
	out := make([]kafka.Message, 0, len(last))
	for _, m := range last {
		out = append(out, m)
	}
	return r.CommitMessages(ctx, out...)
}

// commitLogged commits through commitAll and logs a failed commit.
func commitLogged(ctx context.Context, r *kafka.Reader, m kafka.Message) {
	if err := commitAll(ctx, r, m); err != nil {
		log.Print(err)
	}
}

// consumeCommitHelper commits through two helpers and skips a failed
// save like consumeSkipping.
func consumeCommitHelper(ctx context.Context, r *kafka.Reader, h *orderSaver) {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return
		}
		if h.Handle(ctx, m) { // want `handler consumeCommitHelper goes on to the next message when .*orderSaver.Handle fails`
			commitLogged(ctx, r, m)
		}
	}
}
