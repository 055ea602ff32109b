// Package sqsv1x: AWS SQS receive loops with aws-sdk-go v1 (and its
// sqsiface interface); DeleteMessage acks.
package sqsv1x

import (
	"context"
	"database/sql"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/sqs"
	"github.com/aws/aws-sdk-go/service/sqs/sqsiface"
	"github.com/redis/go-redis/v9"

	"shop"
)

func naive(c *sqs.SQS, db *sql.DB, url string) error {
	ctx := context.Background()
	for {
		out, err := c.ReceiveMessage(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: aws.Int64(10)})
		if err != nil {
			return err
		}
		for _, m := range out.Messages {
			o, _ := shop.Decode([]byte(aws.StringValue(m.Body)))
			if err := shop.AddPoints(ctx, db, o.User, o.Qty); err != nil { // want `effect shop.AddPoints .* in handler naive is not guarded by a dedup check`
				continue
			}
			shop.SendSMS(ctx, o.Phone, "hi")                                                                    // want `IDEM001`
			c.DeleteMessage(&sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}) // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
		}
	}
}

func correct(ctx context.Context, c sqsiface.SQSAPI, db *sql.DB, url string) error {
	for {
		out, err := c.ReceiveMessageWithContext(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: aws.Int64(20)})
		if err != nil {
			return err
		}
		for _, m := range out.Messages {
			if err := handle(ctx, db, m); err != nil {
				continue // visible again after the timeout
			}
			c.DeleteMessageWithContext(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
		}
	}
}

func handle(ctx context.Context, db *sql.DB, m *sqs.Message) error {
	o, err := shop.Decode([]byte(aws.StringValue(m.Body)))
	if err != nil {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "points", aws.StringValue(m.MessageId))
	if err != nil || !fresh {
		return err
	}
	if err := shop.AddPoints(ctx, tx, o.User, o.Qty); err != nil {
		return err
	}
	return tx.Commit()
}

// receiptKey dedups on the receipt handle, new on every receive.
func receiptKey(ctx context.Context, c sqsiface.SQSAPI, rdb *redis.Client, url string) error {
	out, err := c.ReceiveMessageWithContext(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url)})
	if err != nil {
		return err
	}
	for _, m := range out.Messages {
		ok, err := rdb.SetNX(ctx, "seen:"+*m.ReceiptHandle, 1, time.Hour).Result()
		if err != nil {
			continue
		}
		if ok {
			o, _ := shop.Decode([]byte(aws.StringValue(m.Body)))
			shop.SendSMS(ctx, o.Phone, "hi") // want `its key is built from sqs.Message.ReceiptHandle, which differs on every delivery`
		}
		c.DeleteMessageWithContext(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}) // want `also runs when .* fails: its error is discarded and the message lost \(IDEM003\)`
	}
	return nil
}

func deleteFirst(c *sqs.SQS, db *sql.DB, url string) error {
	out, err := c.ReceiveMessage(&sqs.ReceiveMessageInput{QueueUrl: aws.String(url)})
	if err != nil {
		return err
	}
	for _, m := range out.Messages {
		c.DeleteMessage(&sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}) // want `IDEM002`
		o, _ := shop.Decode([]byte(aws.StringValue(m.Body)))
		shop.AddPoints(context.Background(), db, o.User, o.Qty) // want `IDEM001`
	}
	return nil
}
