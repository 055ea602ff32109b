// Package autoackhelper: a provider consumes a queue with autoAck and hands
// each body to the callback a worker registered through an interface,
// retrying it in process and logging the last failure: the broker has
// acked every delivery when it sent it, so a mail not yet sent when the
// process stops is lost.
package autoackhelper

import (
	"context"
	"log"
	"net/smtp"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	amqp "github.com/rabbitmq/amqp091-go"
)

// Provider consumes queues.
type Provider interface {
	ConsumeMessage(queue string, handler func([]byte) error) error
}

type provider struct{ conn *amqp.Connection }

// ConsumeMessage starts five workers on the queue.
func (p *provider) ConsumeMessage(queue string, handler func([]byte) error) error {
	ch, err := p.conn.Channel()
	if err != nil {
		return err
	}
	msgs, err := ch.Consume(queue, "", true, false, false, false, nil)
	if err != nil {
		return err
	}
	for range 5 {
		go func() {
			for msg := range msgs {
				p.processWithRetry(msg.Body, handler)
			}
		}()
	}
	return nil
}

// processWithRetry runs the handler up to five times.
func (p *provider) processWithRetry(body []byte, handler func([]byte) error) {
	for attempt := 1; attempt <= 5; attempt++ {
		if err := handler(body); err == nil {
			return
		}
		time.Sleep(time.Second)
	}
	log.Print("giving up")
}

// Worker registers the mail and the profile consumers.
type Worker struct {
	mq Provider
	db *dynamodb.Client
}

// Start consumes the mail queue.
func (w *Worker) Start() {
	if err := w.mq.ConsumeMessage("mail", func(body []byte) error {
		return smtp.SendMail("localhost:25", nil, "shop@example.com", []string{string(body)}, []byte("welcome")) // want `effect smtp.SendMail in handler func literal in Worker.Start is not guarded by a dedup check \(IDEM001\)` `handler func literal in Worker.Start performs smtp.SendMail after auto-ack consumer amqp091.Channel.Consume \(autoAck true\) acked the message: a crash loses it \(IDEM007\)`
	}); err != nil {
		log.Print(err)
	}
	// An overwrite: a repeat would be harmless, but a lost message loses it.
	if err := w.mq.ConsumeMessage("profiles", func(body []byte) error {
		_, err := w.db.PutItem(context.Background(), &dynamodb.PutItemInput{}) // want `handler func literal in Worker.Start performs dynamodb.Client.PutItem \(a write\) after auto-ack consumer amqp091.Channel.Consume \(autoAck true\) acked the message: a crash loses it \(IDEM007\)`
		return err
	}); err != nil {
		log.Print(err)
	}
}

// Main wires the provider to the worker.
func Main(conn *amqp.Connection) {
	(&Worker{mq: &provider{conn: conn}}).Start()
}
