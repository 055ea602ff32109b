// Package stanx: NATS Streaming subscribers (stan.go). A message is sent
// again after AckWait unless acked; the client acks when the callback
// returns, or the callback acks itself in manual mode.
package stanx

import (
	"context"
	"database/sql"

	stan "github.com/nats-io/stan.go"
	mail "github.com/xhit/go-simple-mail/v2"

	"shop"
)

// Wire subscribes onOrder with manual acks.
func Wire(sc stan.Conn, db *sql.DB) error {
	h := &orders{db: db}
	_, err := sc.QueueSubscribe("orders", "points", h.onOrder, stan.SetManualAckMode(), stan.DurableName("points"))
	return err
}

type orders struct{ db *sql.DB }

// onOrder adds points and acks: a redelivery adds them again.
func (h *orders) onOrder(m *stan.Msg) {
	o, err := shop.Decode(m.Data)
	if err != nil {
		m.Ack()
		return
	}
	if err := shop.AddPoints(context.Background(), h.db, o.User, o.Qty); err != nil { // want `IDEM001`
		return
	}
	m.Ack()
}

// claimed claims the order in the transaction of its effect.
func (h *orders) claimed(m *stan.Msg) {
	ctx := context.Background()
	o, err := shop.Decode(m.Data)
	if err != nil {
		m.Ack()
		return
	}
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "points", o.ID)
	if err != nil {
		return
	}
	if fresh {
		if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
			return
		}
	}
	if tx.Commit() == nil {
		m.Ack()
	}
}

// mailer sends the order's e-mail through go-simple-mail: a redelivery
// sends it again.
type mailer struct{ server *mail.SMTPServer }

func (h *mailer) onOrder(m *stan.Msg) {
	conn, err := h.server.Connect()
	if err != nil {
		return
	}
	defer conn.Close()
	msg := mail.NewMSG().SetFrom("shop@example.com").AddTo("buyer@example.com").SetSubject("order")
	msg.SetBody(mail.TextPlain, string(m.Data))
	if err := msg.Send(conn); err != nil { // want `IDEM001`
		return
	}
	m.Ack()
}
