// Package ackfieldx (whole-program mode): a handler that answers its
// consumer with a struct whose bool field says whether to ack
// (HandlerOutput{Ack: true}); the consumer deletes the message when the
// field is true.
package ackfieldx

import (
	"context"
	"database/sql"
	"log"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// handlerOutput is what a handler tells its consumer: Ack deletes the
// message, anything else leaves it to be received again.
type handlerOutput struct {
	Ack bool
}

// consumeByOutput deletes a message when its handler's output says Ack.
func consumeByOutput(ctx context.Context, c *sqs.Client, url *string, handle func(types.Message) handlerOutput) error {
	for {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url})
		if err != nil {
			return err
		}
		for _, m := range out.Messages {
			if output := handle(m); output.Ack {
				c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: m.ReceiptHandle})
			}
		}
	}
}

// completeDisbursements logs a failed completion and still says Ack: the
// message is deleted and the disbursement stays pending.
func completeDisbursements(ctx context.Context, c *sqs.Client, db *sql.DB, url *string) error {
	return consumeByOutput(ctx, c, url, func(m types.Message) handlerOutput {
		if m.Body == nil {
			return handlerOutput{}
		}
		if _, err := db.ExecContext(ctx, "UPDATE disbursements SET status = 'completed' WHERE id = $1", *m.Body); err != nil {
			log.Printf("complete %s: %v", *m.Body, err)
		}
		return handlerOutput{Ack: true} // want `handler func literal in completeDisbursements returns Ack: true when sql.DB.ExecContext fails, and its dispatcher acks on that: the message is lost \(IDEM003\)`
	})
}

// retryDisbursements leaves a failed completion on the queue: the
// message is received again after its visibility timeout.
func retryDisbursements(ctx context.Context, c *sqs.Client, db *sql.DB, url *string) error {
	return consumeByOutput(ctx, c, url, func(m types.Message) handlerOutput {
		if m.Body == nil {
			return handlerOutput{}
		}
		if _, err := db.ExecContext(ctx, "UPDATE disbursements SET status = 'completed' WHERE id = $1", *m.Body); err != nil {
			log.Printf("complete %s: %v", *m.Body, err)
			return handlerOutput{Ack: false}
		}
		return handlerOutput{Ack: true}
	})
}
