// Package saramax: consumer-group handlers on IBM/sarama, effects through
// the shop helpers (cross-package facts).
package saramax

import (
	"context"
	"database/sql"
	"errors"
	"log"

	"github.com/IBM/sarama"

	"shop"
)

type Naive struct{ DB *sql.DB }

func (h Naive) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h Naive) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h Naive) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		o, err := shop.Decode(msg.Value)
		if err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		if err := shop.DeductStock(ctx, h.DB, o.SKU, o.Qty); err != nil { // want `effect shop.DeductStock → shop.DBTX.ExecContext "UPDATE stock .*" in handler Naive.ConsumeClaim is not guarded by a dedup check \(IDEM001\)`
			return err
		}
		if err := shop.AddPoints(ctx, h.DB, o.User, o.Qty); err != nil { // want `IDEM001`
			return err
		}
		if err := shop.SendSMS(ctx, o.Phone, "thanks"); err != nil { // want `effect shop.SendSMS → smsdk.Client.Send → http.Client.Do POST in handler Naive.ConsumeClaim`
			return err
		}
		if err := shop.BumpStats(ctx, h.DB, o.Day, o.GMV); err != nil { // want `IDEM001`
			return err
		}
		if err := shop.SetPhone(ctx, h.DB, o.User, o.Phone); err != nil { // idempotent
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

type Correct struct{ DB *sql.DB }

func (h Correct) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h Correct) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h Correct) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		o, err := shop.Decode(msg.Value)
		if err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		if err := h.apply(ctx, o); err != nil {
			return err // not marked: redelivered
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

func (h Correct) apply(ctx context.Context, o shop.Order) error {
	tx, err := h.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "orders", o.ID)
	if err != nil {
		return err
	}
	if !fresh {
		return nil
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

// MarkBefore marks the offset before the effect.
type MarkBefore struct{ DB *sql.DB }

func (h MarkBefore) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h MarkBefore) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h MarkBefore) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		sess.MarkMessage(msg, "") // want `ack sarama.ConsumerGroupSession.MarkMessage in handler MarkBefore.ConsumeClaim comes before effect .*IDEM002`
		o, _ := shop.Decode(msg.Value)
		shop.AddPoints(sess.Context(), h.DB, o.User, o.Qty) // want `IDEM001`
	}
	return nil
}

// LogAndMark swallows the error of the effect.
type LogAndMark struct{ DB *sql.DB }

func (h LogAndMark) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h LogAndMark) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h LogAndMark) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		o, _ := shop.Decode(msg.Value)
		tx, _ := h.DB.BeginTx(sess.Context(), nil)
		fresh, err := shop.Claim(sess.Context(), tx, "points", o.ID)
		if err != nil {
			return err
		}
		if fresh {
			if err := shop.AddPoints(sess.Context(), tx, o.User, o.Qty); err != nil {
				log.Print(err)
			}
			tx.Commit()
		}
		sess.MarkMessage(msg, "") // want `IDEM003`
	}
	return nil
}

// UniqueHelper: a helper returns a plain insert's error; the handler tests
// it for a unique violation.
type UniqueHelper struct{ DB *sql.DB }

var errUnique = errors.New("unique")

func isDuplicate(err error) bool { return errors.Is(err, errUnique) }

func (h UniqueHelper) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h UniqueHelper) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h UniqueHelper) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		o, _ := shop.Decode(msg.Value)
		tx, _ := h.DB.BeginTx(ctx, nil)
		if err := shop.InsertProcessed(ctx, tx, o.ID); err != nil {
			tx.Rollback()
			if isDuplicate(err) {
				sess.MarkMessage(msg, "")
				continue
			}
			return err
		}
		if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// ExecHelper: a helper taking the SQL text.
func execHelper(ctx context.Context, db *sql.DB, msg *sarama.ConsumerMessage) error {
	if err := shop.Exec(ctx, db, `DELETE FROM carts WHERE user_id = $1`, string(msg.Key)); err != nil {
		return err
	}
	return shop.Exec(ctx, db, `UPDATE users SET points = points + 1 WHERE id = $1`, string(msg.Key)) // want `effect shop.Exec → sql.DB.ExecContext \(query text not constant\) "UPDATE users SET points = points \+ 1 WHERE id = \$1" in handler execHelper`
}
