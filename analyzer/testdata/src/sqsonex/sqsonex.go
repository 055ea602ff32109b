// Package sqsonex (whole-program mode): an SQS queue wrapped by the
// service, whose Receive returns one message copied into its own struct
// (or nil), and whose Delete is given that struct. A worker deletes the
// message whether the processing failed or not.
package sqsonex

import (
	"context"
	"database/sql"
	"log"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Message is the service's copy of an SQS message.
type Message struct {
	ID            string
	Body          []byte
	ReceiptHandle *string
}

// Queue is the service's SQS queue.
type Queue struct {
	client *sqs.Client
	url    string
}

// Receive takes one message; nil when there is none.
func (q *Queue) Receive(ctx context.Context) (*Message, error) {
	out, err := q.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &q.url, MaxNumberOfMessages: 1})
	if err != nil {
		return nil, err
	}
	if len(out.Messages) == 0 {
		return nil, nil
	}
	m := out.Messages[0]
	return &Message{ID: *m.MessageId, Body: []byte(*m.Body), ReceiptHandle: m.ReceiptHandle}, nil
}

// Delete deletes a message.
func (q *Queue) Delete(ctx context.Context, msg *Message) error {
	_, err := q.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &q.url, ReceiptHandle: msg.ReceiptHandle})
	return err
}

// Queuer is what the worker needs of a queue (faked in tests).
type Queuer interface {
	Receive(ctx context.Context) (*Message, error)
	Delete(ctx context.Context, msg *Message) error
}

// Worker records plays.
type Worker struct {
	q  Queuer
	db *sql.DB
}

// NewWorker returns a worker of q.
func NewWorker(q *Queue, db *sql.DB) *Worker {
	return &Worker{q: q, db: db}
}

func (w *Worker) processNext(ctx context.Context) {
	msg, err := w.q.Receive(ctx)
	if err != nil || msg == nil {
		return
	}
	if err := w.process(ctx, msg.Body); err != nil {
		log.Print(err)
	}
	w.q.Delete(ctx, msg) // want `ack sqsonex.Queuer.Delete in handler Worker.processNext also runs when sqsonex.Worker.process fails: the error is swallowed and the message lost \(IDEM003\)`
}

func (w *Worker) process(ctx context.Context, body []byte) error {
	_, err := w.db.ExecContext(ctx, `UPDATE tracks SET state = 'ready' WHERE id = $1`, string(body))
	return err
}
