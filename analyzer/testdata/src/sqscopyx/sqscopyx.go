// Package sqscopyx (whole-program mode): an SQS queue wrapped by the
// service, whose Receive copies each message's fields into its own struct
// (ReceivedMessage{Body: aws.ToString(m.Body)}) for a worker that
// handles them and deletes each handled one through the wrapper. The copy is a
// message, its worker a handler.
package sqscopyx

import (
	"context"
	"database/sql"
	"log"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// ReceivedMessage is the service's copy of an SQS message.
type ReceivedMessage struct {
	MessageID     string
	Body          string
	ReceiptHandle string
}

// Queue is the service's SQS queue.
type Queue struct {
	client *sqs.Client
	url    string
}

// Receive takes a batch of messages.
func (q *Queue) Receive(ctx context.Context) ([]ReceivedMessage, error) {
	out, err := q.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.url)})
	if err != nil {
		return nil, err
	}
	messages := make([]ReceivedMessage, 0, len(out.Messages))
	for _, m := range out.Messages {
		messages = append(messages, ReceivedMessage{
			MessageID:     aws.ToString(m.MessageId),
			Body:          aws.ToString(m.Body),
			ReceiptHandle: aws.ToString(m.ReceiptHandle),
		})
	}
	return messages, nil
}

// Delete deletes a handled message.
func (q *Queue) Delete(ctx context.Context, receipt string) error {
	_, err := q.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(q.url), ReceiptHandle: aws.String(receipt)})
	return err
}

// Worker credits points for each message.
type Worker struct {
	queue *Queue
	db    *sql.DB
}

// Run receives batches and handles each message.
func (w *Worker) Run(ctx context.Context) error {
	for {
		messages, err := w.queue.Receive(ctx)
		if err != nil {
			return err
		}
		for _, m := range messages {
			if err := w.handle(ctx, m); err != nil {
				log.Print(err)
				continue // received again after its visibility timeout
			}
			if err := w.queue.Delete(ctx, m.ReceiptHandle); err != nil {
				log.Print(err)
			}
		}
	}
}

// handle credits the points: a redelivery credits them again.
func (w *Worker) handle(ctx context.Context, m ReceivedMessage) error {
	_, err := w.db.ExecContext(ctx, `UPDATE users SET points = points + 10 WHERE id = $1`, m.Body) // want `effect sql.DB.ExecContext "UPDATE users SET points = points \+ 10 WHERE id = \$1" in handler Worker.handle is not guarded by a dedup check \(IDEM001\)`
	return err
}
