// Package mailer is a service's own JetStream consumer behind a channel it
// makes: Start makes the channel, starts a goroutine that fetches messages
// and queues each decoded email on it, and returns it; the service ranges
// over the channel (through an interface) and sends each email. The
// messages are never acked: each is redelivered after its ack wait and
// sent again.
package mailer

import (
	"encoding/json"
	"log"

	"github.com/nats-io/nats.go"
	"gopkg.in/gomail.v2"
)

// Email is one email to send.
type Email struct {
	To, Subject, Body string
}

// Worker fetches the emails of a durable pull consumer.
type Worker struct {
	js nats.JetStreamContext
}

// Start makes the channel the fetched emails are queued on and starts the
// goroutine feeding it.
func (w *Worker) Start() (chan Email, error) {
	ch := make(chan Email, 10)
	sub, err := w.js.PullSubscribe("email.send", "worker")
	if err != nil {
		return nil, err
	}
	go w.feed(sub, ch)
	return ch, nil
}

func (w *Worker) feed(sub *nats.Subscription, ch chan Email) {
	for {
		msgs, err := sub.Fetch(10)
		if err != nil {
			continue
		}
		for _, msg := range msgs {
			var e Email
			if err := json.Unmarshal(msg.Data, &e); err != nil {
				log.Print(err)
			}
			ch <- e
		}
	}
}

// Source is where the service takes its emails from.
type Source interface {
	Start() (chan Email, error)
}

// Service sends the emails of its source.
type Service struct {
	source Source
	dialer *gomail.Dialer
}

// Process sends every email the source queues.
func (s *Service) Process() error {
	ch, err := s.source.Start()
	if err != nil {
		return err
	}
	for {
		e := <-ch
		m := gomail.NewMessage()
		m.SetHeader("To", e.To)
		if err := s.dialer.DialAndSend(m); err != nil { // want `effect gomail.Dialer.DialAndSend in handler Service.Process is not guarded by a dedup check \(IDEM001\)`
			log.Print(err)
		}
	}
}

// Run wires the worker to the service.
func Run(js nats.JetStreamContext) error {
	s := &Service{source: &Worker{js: js}, dialer: gomail.NewDialer("smtp", 25, "", "")}
	return s.Process()
}
