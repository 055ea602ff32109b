package heldout4

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/smtp"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5/pgconn"

	"example.com/realmod/db"
	"github.com/idemkit/idem/guard"
)

type ledgerEvent struct {
	EntryID string `json:"entry_id"`
	Account string `json:"account"`
	Amount  int64  `json:"amount"`
	Email   string `json:"email"`
}

// LedgerConsumer books ledger entries and moves account balances.
type LedgerConsumer struct{ DB *sql.DB }

func (*LedgerConsumer) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (*LedgerConsumer) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim inserts the ledger entry (entry_id is the primary key) and the
// balance change in one transaction; a unique violation means the entry was
// booked before, so the transaction is rolled back and the offset marked.
//
// truth: ok
func (c *LedgerConsumer) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var ev ledgerEvent
		if err := json.Unmarshal(msg.Value, &ev); err != nil {
			sess.MarkMessage(msg, "") // poison
			continue
		}
		tx, err := c.DB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx,
			`INSERT INTO ledger_entries (entry_id, account, amount) VALUES ($1, $2, $3)`,
			ev.EntryID, ev.Account, ev.Amount)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" {
			_ = tx.Rollback()
			sess.MarkMessage(msg, "")
			continue
		}
		if err != nil {
			_ = tx.Rollback()
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`UPDATE accounts SET balance = balance + $1 WHERE id = $2`, ev.Amount, ev.Account); err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// InvoiceMailer e-mails invoices.
type InvoiceMailer struct {
	SMTPAddr string
	Auth     smtp.Auth
}

func (*InvoiceMailer) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (*InvoiceMailer) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func renderInvoice(ev ledgerEvent) []byte {
	return []byte(fmt.Sprintf("Subject: Invoice %s\r\n\r\nAmount due: %d\r\n", ev.EntryID, ev.Amount))
}

// ConsumeClaim marks the offset before sending ("mail is best effort"): a
// crash between the mark and the send loses the invoice, and without a dedup
// a rebalance redelivers and mails it twice.
//
// truth: bug IDEM002 IDEM001
func (c *InvoiceMailer) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		sess.MarkMessage(msg, "")
		var ev ledgerEvent
		if err := json.Unmarshal(msg.Value, &ev); err != nil {
			continue
		}
		if err := smtp.SendMail(c.SMTPAddr, c.Auth, "billing@example.com", []string{ev.Email}, renderInvoice(ev)); err != nil {
			slog.Error("invoice mail", "entry", ev.EntryID, "err", err)
		}
	}
	return nil
}

// RefundConsumer credits refunds to wallets.
type RefundConsumer struct{ DB *sql.DB }

func (*RefundConsumer) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (*RefundConsumer) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim records the message with the sqlc MarkProcessed query (ON
// CONFLICT DO NOTHING, rows affected) on the same transaction as the wallet
// credit; zero rows means already refunded.
//
// truth: ok
func (c *RefundConsumer) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var ev ledgerEvent
		if err := json.Unmarshal(msg.Value, &ev); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		tx, err := c.DB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		q := db.New(c.DB).WithTx(tx)
		n, err := q.MarkProcessed(ctx, "refunds", ev.EntryID)
		if err != nil {
			_ = tx.Rollback()
			return err
		}
		if n == 1 {
			if _, err := tx.ExecContext(ctx,
				`UPDATE wallets SET balance = balance + $1 WHERE account = $2`, ev.Amount, ev.Account); err != nil {
				_ = tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// PayoutConsumer debits balances for payouts.
type PayoutConsumer struct {
	DB *sql.DB
	Q  *db.Queries
}

func (*PayoutConsumer) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (*PayoutConsumer) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim records the message id through the pool (autocommit) and then
// debits in a second statement: a crash between the two loses the payout for
// good, because the redelivery sees the record. The record and the effect are
// in different transactions.
//
// truth: bug IDEM006
func (c *PayoutConsumer) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var ev ledgerEvent
		if err := json.Unmarshal(msg.Value, &ev); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		n, err := c.Q.MarkProcessed(ctx, "payouts", ev.EntryID)
		if err != nil {
			return err
		}
		if n == 0 {
			sess.MarkMessage(msg, "")
			continue
		}
		if _, err := c.DB.ExecContext(ctx,
			`UPDATE accounts SET balance = balance - $1 WHERE id = $2`, ev.Amount, ev.Account); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// SettlementConsumer settles merchant balances through the guard.
type SettlementConsumer struct{ Store *guard.SQLStore }

func (*SettlementConsumer) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (*SettlementConsumer) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim is guarded, but any error from Do — a transient database
// outage included — is logged and the offset marked anyway, so the settlement
// is silently dropped.
//
// truth: bug IDEM003
func (c *SettlementConsumer) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var ev ledgerEvent
		if err := json.Unmarshal(msg.Value, &ev); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		_, err := c.Store.Do(ctx, "settlement", ev.EntryID, nil, func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx,
				`UPDATE merchants SET settled = settled + $1 WHERE id = $2`, ev.Amount, ev.Account)
			return err
		})
		if err != nil {
			slog.Error("settlement failed", "entry", ev.EntryID, "err", err)
			sess.MarkMessage(msg, "")
			continue
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}
