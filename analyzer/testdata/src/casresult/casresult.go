package casresult // want package:"idemfacts"

// A store whose compare-and-set UPDATE … RETURNING
// tells a fresh delivery by its error, mapped to a bool by a helper
// (ErrNoRows: someone else has it) or carried out of a transaction's
// closure. The handler's send runs only for the delivery it claimed.

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Store keeps the deliveries.
type Store struct{ db *sql.DB }

// casResult maps a compare-and-set's error to whether it applied.
func casResult(seq int64, err error) (int64, bool, error) { // want casResult:`verdict\(result 1 of error parameter 1: true=fresh, false=duplicate\)`
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return seq, true, nil
}

// Delivery is a row of deliveries.
type Delivery struct{ Seq int64 }

// claimDelivery is what sqlc generates for a `:one` UPDATE … RETURNING:
// it hands the Scan's error back as it is.
func (s *Store) claimDelivery(ctx context.Context, id string) (Delivery, error) { // want claimDelivery:`dedup\(result 1: nil=fresh\)`
	row := s.db.QueryRowContext(ctx, `UPDATE deliveries SET status = 'sending' WHERE id = $1 AND status = 'pending' RETURNING seq`, id)
	var d Delivery
	err := row.Scan(&d.Seq)
	return d, err
}

// ClaimGenerated maps the generated method's error.
func (s *Store) ClaimGenerated(ctx context.Context, id string) (int64, bool, error) { // want ClaimGenerated:`dedup\(result 1: true=fresh, false=duplicate\)`
	d, err := s.claimDelivery(ctx, id)
	return casResult(d.Seq, err)
}

// Claim moves the delivery from pending to sending, once.
func (s *Store) Claim(ctx context.Context, id string) (int64, bool, error) { // want Claim:`dedup\(result 1: true=fresh, false=duplicate\)`
	var seq int64
	err := s.db.QueryRowContext(ctx, `UPDATE deliveries SET status = 'sending' WHERE id = $1 AND status = 'pending' RETURNING seq`, id).Scan(&seq)
	return casResult(seq, err)
}

func claimTx(ctx context.Context, tx *sql.Tx, id string) (int64, bool, error) { // want claimTx:`dedup\(result 1: true=fresh, false=duplicate\)`
	var seq int64
	err := tx.QueryRowContext(ctx, `UPDATE deliveries SET status = 'sending' WHERE id = $1 AND status = 'pending' RETURNING seq`, id).Scan(&seq)
	return casResult(seq, err)
}

func (s *Store) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// ClaimInTx is Claim in a transaction of its own: the bool comes out of
// the closure.
func (s *Store) ClaimInTx(ctx context.Context, id string) (bool, error) { // want ClaimInTx:`dedup\(result 0: true=fresh, false=duplicate\)`
	var ok bool
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		_, ok, err = claimTx(ctx, tx, id)
		return err
	})
	if err != nil {
		return false, err
	}
	return ok, nil
}

func notify(ctx context.Context, body string) error { // want notify:`effects\(http.Client.Do POST\)`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://hooks.example.com/notify", strings.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Send notifies once: the claim decides.
func (s *Store) Send(ctx context.Context, d amqp.Delivery) {
	_, claimed, err := s.Claim(ctx, d.MessageId)
	if err != nil {
		d.Nack(false, true)
		return
	}
	if !claimed {
		d.Ack(false)
		return
	}
	if err := notify(ctx, string(d.Body)); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// SendInTx notifies once: the claim in its own transaction decides.
func (s *Store) SendInTx(ctx context.Context, d amqp.Delivery) {
	claimed, err := s.ClaimInTx(ctx, d.MessageId)
	if err != nil {
		d.Nack(false, true)
		return
	}
	if !claimed {
		d.Ack(false)
		return
	}
	if err := notify(ctx, string(d.Body)); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// SendGenerated notifies once: the generated claim decides.
func (s *Store) SendGenerated(ctx context.Context, d amqp.Delivery) {
	if _, claimed, err := s.ClaimGenerated(ctx, d.MessageId); err != nil || !claimed {
		d.Nack(false, err != nil)
		return
	}
	if err := notify(ctx, string(d.Body)); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// SendWhenTaken has the polarity the wrong way round: it notifies when
// someone else holds the delivery.
func (s *Store) SendWhenTaken(ctx context.Context, d amqp.Delivery) {
	_, err := s.claimDelivery(ctx, d.MessageId)
	if errors.Is(err, sql.ErrNoRows) {
		if err := notify(ctx, string(d.Body)); err != nil { // want `effect casresult.notify → http.Client.Do POST in handler Store.SendWhenTaken is not guarded by a dedup check`
			d.Nack(false, true)
			return
		}
	}
	d.Ack(false)
}

// SendAnyway claims, then sends whatever the claim said.
func (s *Store) SendAnyway(ctx context.Context, d amqp.Delivery) {
	if _, _, err := s.Claim(ctx, d.MessageId); err != nil { // want `result of dedup check casresult.Store.Claim in handler Store.SendAnyway never decides a branch; casresult.notify → http.Client.Do POST runs for duplicates too \(IDEM004\)`
		d.Nack(false, true)
		return
	}
	if err := notify(ctx, string(d.Body)); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}
