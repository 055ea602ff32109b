// Package retrydispatch: a consumer helper calls the handler it is given
// and acks on its nil error; on an error it publishes the body again with
// a retry count and acks the original (or naks when that publish fails).
// The ack after the republish hands the message on: the helper still acks
// by the handler's result, so a handler that logs a failure and returns nil
// loses the message.
package retrydispatch

import (
	"context"
	"database/sql"
	"log"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Consume hands each delivery's body to handler.
func Consume(ch *amqp.Channel, queue string, handler func([]byte) error) error {
	msgs, err := ch.Consume(queue, "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	go func() {
		for d := range msgs {
			if err := handler(d.Body); err != nil {
				if err := ch.PublishWithContext(context.Background(), "", queue, false, false, amqp.Publishing{Body: d.Body, Headers: amqp.Table{"x-retry-count": 1}}); err != nil {
					d.Nack(false, true)
				} else {
					d.Ack(false)
				}
			} else {
				d.Ack(false)
			}
		}
	}()
	return nil
}

// Syncer stores posts.
type Syncer struct{ db *sql.DB }

// HandleSync upserts the post and logs a failure: the message is acked.
func (s *Syncer) HandleSync(body []byte) error {
	if _, err := s.db.ExecContext(context.Background(), `INSERT INTO posts (id, body) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body`, "p1", body); err != nil {
		log.Printf("save: %v", err)
	}
	return nil // want `handler Syncer.HandleSync returns nil when sql.DB.ExecContext fails, and its dispatcher acks on that`
}

// Run registers the handler.
func Run(ch *amqp.Channel, db *sql.DB) error {
	s := &Syncer{db: db}
	return Consume(ch, "sync", s.HandleSync)
}
