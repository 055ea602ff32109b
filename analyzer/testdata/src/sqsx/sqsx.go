// Package sqsx: AWS SQS receive loops (aws-sdk-go-v2); DeleteMessage acks.
package sqsx

import (
	"context"
	"database/sql"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"shop"
)

func body(m types.Message) []byte {
	if m.Body == nil {
		return nil
	}
	return []byte(*m.Body)
}

func naive(ctx context.Context, c *sqs.Client, db *sql.DB, url *string) error {
	for {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10})
		if err != nil {
			return err
		}
		for _, m := range out.Messages {
			o, _ := shop.Decode(body(m))
			if err := shop.DeductStock(ctx, db, o.SKU, o.Qty); err != nil { // want `IDEM001`
				continue
			}
			shop.AddPoints(ctx, db, o.User, o.Qty)                                                       // want `IDEM001`
			shop.SendSMS(ctx, o.Phone, "hi")                                                             // want `IDEM001`
			shop.BumpStats(ctx, db, o.Day, o.GMV)                                                        // want `IDEM001`
			c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: m.ReceiptHandle}) // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
		}
	}
}

func correct(ctx context.Context, c *sqs.Client, db *sql.DB, url *string) error {
	for {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10})
		if err != nil {
			return err
		}
		for _, m := range out.Messages {
			if err := handle(ctx, db, m); err != nil {
				continue // visible again after the timeout
			}
			c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: m.ReceiptHandle})
		}
	}
}

func handle(ctx context.Context, db *sql.DB, m types.Message) error {
	o, err := shop.Decode(body(m))
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "orders", *m.MessageId)
	if err != nil || !fresh {
		return err
	}
	if err := shop.DeductStock(ctx, tx, o.SKU, o.Qty); err != nil {
		return err
	}
	if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
		return err
	}
	if err := shop.BumpStats(ctx, tx, o.Day, o.GMV); err != nil {
		return err
	}
	return tx.Commit()
}

func deleteFirst(ctx context.Context, c *sqs.Client, db *sql.DB, url *string) error {
	out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url})
	if err != nil {
		return err
	}
	for _, m := range out.Messages {
		c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: m.ReceiptHandle}) // want `IDEM002`
		o, _ := shop.Decode(body(m))
		shop.AddPoints(ctx, db, o.User, o.Qty) // want `IDEM001`
	}
	return nil
}
