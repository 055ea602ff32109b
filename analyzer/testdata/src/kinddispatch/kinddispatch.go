// Package kinddispatch (whole-program mode): consumers that hand each
// message to the function for its kind, by a switch on the command's type
// or by a handler looked up in a map. An unguarded effect is reported in
// the function of its kind, at its step towards the effect; a dedup check
// in front of the dispatch guards every kind.
package kinddispatch

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"

	"github.com/IBM/sarama"
)

// Command is a payment command.
type Command struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	User   string `json:"user"`
	Amount int    `json:"amount"`
}

// Ledger books amounts.
type Ledger interface {
	Credit(ctx context.Context, user string, amount int) error
}

type sqlLedger struct{ db *sql.DB }

func (l *sqlLedger) Credit(ctx context.Context, user string, amount int) error {
	_, err := l.db.ExecContext(ctx, `UPDATE balances SET amount = amount + $1 WHERE user_id = $2`, amount, user)
	return err
}

// Payments handles payment commands.
type Payments struct {
	ledger Ledger
	db     *sql.DB
}

// NewPayments returns the service over db.
func NewPayments(db *sql.DB) *Payments {
	return &Payments{ledger: &sqlLedger{db: db}, db: db}
}

// HandleCredit books the command's amount: a redelivery books it again.
func (p *Payments) HandleCredit(ctx context.Context, c Command) error {
	return p.ledger.Credit(ctx, c.User, c.Amount) // want `effect kinddispatch.Ledger.Credit \(implemented by kinddispatch.sqlLedger.Credit\) → sql.DB.ExecContext "UPDATE balances .*" in handler Payments.HandleCredit is not guarded by a dedup check \(IDEM001\)`
}

// HandleRefund takes the command's amount back: a redelivery takes it twice.
func (p *Payments) HandleRefund(ctx context.Context, c Command) error {
	return p.ledger.Credit(ctx, c.User, -c.Amount) // want `in handler Payments.HandleRefund is not guarded by a dedup check \(IDEM001\)`
}

// Consumer takes payment commands.
type Consumer struct{ payments *Payments }

func (Consumer) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (Consumer) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim marks each command after it was handled.
func (h Consumer) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		if err := h.handleMessage(sess.Context(), msg); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

func (h Consumer) handleMessage(ctx context.Context, msg *sarama.ConsumerMessage) error {
	var c Command
	if err := json.Unmarshal(msg.Value, &c); err != nil {
		log.Printf("bad command: %v", err)
		return nil
	}
	switch c.Type {
	case "credit":
		return h.payments.HandleCredit(ctx, c)
	case "refund":
		return h.payments.HandleRefund(ctx, c)
	}
	return nil
}

// Guarded claims the command's id before it dispatches it: every kind is
// guarded, though the claim commits on its own (IDEM006).
type Guarded struct {
	payments *Payments
	db       *sql.DB
}

func (Guarded) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (Guarded) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim claims, dispatches and marks.
func (h Guarded) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	for msg := range claim.Messages() {
		var c Command
		if err := json.Unmarshal(msg.Value, &c); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		res, err := h.db.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING`, c.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			sess.MarkMessage(msg, "")
			continue
		}
		switch c.Type {
		case "credit":
			err = h.payments.HandleCredit(ctx, c) // want `different transactions`
		case "refund":
			err = h.payments.HandleRefund(ctx, c) // want `different transactions`
		}
		if err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// Event is an order's change of status.
type Event struct {
	OrderID string `json:"order_id"`
	Status  string `json:"status"`
}

// EventHandler handles events of one status.
type EventHandler interface {
	Handle(ctx context.Context, e Event) error
}

type createdHandler struct{ db *sql.DB }

// Handle assigns a courier: a redelivery inserts a second assignment.
func (h *createdHandler) Handle(ctx context.Context, e Event) error {
	_, err := h.db.ExecContext(ctx, `INSERT INTO assignments (order_id) VALUES ($1)`, e.OrderID) // want `effect sql.DB.ExecContext "INSERT INTO assignments .*" in handler createdHandler.Handle is not guarded by a dedup check \(IDEM001\)`
	return err
}

type cancelledHandler struct{ db *sql.DB }

// Handle releases the order's assignment: deleting it again changes nothing.
func (h *cancelledHandler) Handle(ctx context.Context, e Event) error {
	_, err := h.db.ExecContext(ctx, `DELETE FROM assignments WHERE order_id = $1`, e.OrderID)
	return err
}

// Factory keeps the handler of each status.
type Factory struct{ handlers map[string]EventHandler }

// NewFactory returns the handlers over db.
func NewFactory(db *sql.DB) *Factory {
	return &Factory{handlers: map[string]EventHandler{
		"created":   &createdHandler{db: db},
		"cancelled": &cancelledHandler{db: db},
	}}
}

// Handler returns the handler of a status.
func (f *Factory) Handler(status string) (EventHandler, bool) {
	h, ok := f.handlers[status]
	return h, ok
}

// Processor hands each event to the handler of its status.
type Processor struct{ factory *Factory }

// Handle dispatches e.
func (p *Processor) Handle(ctx context.Context, e Event) error {
	h, ok := p.factory.Handler(e.Status)
	if !ok {
		return nil
	}
	return h.Handle(ctx, e)
}

// Events takes order events.
type Events struct{ processor *Processor }

func (Events) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (Events) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim marks each event after it was handled.
func (h Events) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		var e Event
		if err := json.Unmarshal(msg.Value, &e); err != nil {
			sess.MarkMessage(msg, "")
			continue
		}
		if err := h.processor.Handle(sess.Context(), e); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// Generator writes texts and books their usage.
type Generator struct{ db *sql.DB }

// Summary books a summary's usage and returns the text.
func (g *Generator) Summary(ctx context.Context, user string) (string, error) {
	_, err := g.db.ExecContext(ctx, `UPDATE usage SET summaries = summaries + 1 WHERE user_id = $1`, user)
	return "summary", err
}

// Report books a report's usage and returns the text.
func (g *Generator) Report(ctx context.Context, user string) (string, error) {
	_, err := g.db.ExecContext(ctx, `UPDATE usage SET reports = reports + 1 WHERE user_id = $1`, user)
	return "report", err
}

// Reports takes report jobs.
type Reports struct {
	gen *Generator
	db  *sql.DB
}

func (Reports) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (Reports) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim marks each job after it was processed.
func (h Reports) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		if err := h.process(sess.Context(), msg); err != nil {
			return err
		}
		sess.MarkMessage(msg, "")
	}
	return nil
}

// process builds the job's text and stores it. build switches on the
// job's kind to compute the text, which process goes on with: build is a
// step of process, not a router, so the usage booked twice is reported
// here.
func (h Reports) process(ctx context.Context, msg *sarama.ConsumerMessage) error {
	var c Command
	if err := json.Unmarshal(msg.Value, &c); err != nil {
		return nil
	}
	text, err := h.build(ctx, c) // want `in handler Reports.process is not guarded by a dedup check \(IDEM001\)`
	if err != nil {
		return err
	}
	_, err = h.db.ExecContext(ctx, `UPDATE jobs SET result = $1 WHERE id = $2`, text, c.ID)
	return err
}

func (h Reports) build(ctx context.Context, c Command) (string, error) {
	switch c.Type {
	case "summary":
		return h.gen.Summary(ctx, c.User)
	case "report":
		return h.gen.Report(ctx, c.User)
	}
	return "", nil
}

// Run starts the consumers.
func Run(ctx context.Context, group sarama.ConsumerGroup, db *sql.DB) error {
	p := NewPayments(db)
	if err := group.Consume(ctx, []string{"payments"}, Consumer{payments: p}); err != nil {
		return err
	}
	if err := group.Consume(ctx, []string{"payments-guarded"}, Guarded{payments: p, db: db}); err != nil {
		return err
	}
	if err := group.Consume(ctx, []string{"reports"}, Reports{gen: &Generator{db: db}, db: db}); err != nil {
		return err
	}
	return group.Consume(ctx, []string{"orders"}, Events{processor: &Processor{factory: NewFactory(db)}})
}
