// Package mail sends the mails queued by the rest of the service.
package mail

import (
	"context"
	"database/sql"
	"log"
	"net/smtp"

	"ownqueue/pool"
	"ownqueue/queue"
)

// Message is a queued mail.
type Message struct {
	ID, To, Body string
}

var mails *queue.Queue[*Message]

// Start creates the mail queue.
func Start(ctx context.Context) {
	mails = queue.Create(ctx, "mail", func(items ...*Message) []*Message {
		for _, m := range items {
			if err := smtp.SendMail("smtp:25", nil, "noreply", []string{m.To}, []byte(m.Body)); err != nil { // want `effect smtp.SendMail in handler func literal in Start is not guarded by a dedup check \(IDEM001\)`
				log.Printf("send mail %s: %v", m.ID, err)
			}
		}
		return nil // want `handler func literal in Start returns nil when smtp.SendMail fails, and its dispatcher acks on that: the message is lost \(IDEM003\)`
	})
}

// Sent records the mails sent once, by id: a second delivery inserts
// nothing and sends nothing; a failure hands the item back.
type Sent struct{ DB *sql.DB }

// Handle is registered with the queue.
func (s *Sent) Handle(items ...*Message) []*Message {
	var failed []*Message
	for _, m := range items {
		res, err := s.DB.ExecContext(context.Background(), "INSERT INTO sent_mail (id) VALUES ($1) ON CONFLICT DO NOTHING", m.ID)
		if err != nil {
			failed = append(failed, m)
			continue
		}
		if n, _ := res.RowsAffected(); n == 0 {
			continue
		}
		if err := smtp.SendMail("smtp:25", nil, "noreply", []string{m.To}, []byte(m.Body)); err != nil {
			failed = append(failed, m)
		}
	}
	return failed
}

// StartSent creates the queue of mails sent once.
func StartSent(ctx context.Context, db *sql.DB) {
	queue.Create(ctx, "mail-once", (&Sent{DB: db}).Handle)
}

// Push queues m.
func Push(m *Message) error { return mails.Push(m) }

// Audit writes an audit row from an in-memory pool: nothing is
// redelivered, this is no handler.
func Audit(db *sql.DB) *pool.Pool[string] {
	return pool.New(4, func(line string) error {
		_, err := db.Exec("INSERT INTO audit (line) VALUES ($1)", line)
		return err
	})
}
