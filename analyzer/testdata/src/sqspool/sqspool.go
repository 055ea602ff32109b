// Package sqspool (whole-program mode): an SQS poller that hands each
// message, copied into the service's own Job, to a worker pool through the
// pool's Submit; each worker calls the processor, which does the work and
// deletes the message. The poller's send sits in Submit, not in the
// poller: the pool's channel is still fed by a fetch, so the workers
// receive messages: a worker is the handler, and the processor's work is
// its work.
package sqspool

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Job is the service's copy of a message.
type Job struct {
	ReceiptHandle string
	OrderID       string
}

// Pool runs the workers.
type Pool struct {
	jobs      chan Job
	processor *Processor
}

// Submit queues a job for a worker, unless ctx ends first.
func (p *Pool) Submit(ctx context.Context, job Job) {
	select {
	case p.jobs <- job:
	case <-ctx.Done():
	}
}

// Start starts n workers.
func (p *Pool) Start(ctx context.Context, n int) {
	for i := 0; i < n; i++ {
		go func() {
			for {
				select {
				case job, ok := <-p.jobs:
					if !ok {
						return
					}
					p.processor.Process(ctx, job) // want `effect sqspool.Processor.Process → sql.DB.ExecContext "INSERT INTO shipments \(order_id\) VALUES \(\$1\)" in handler func literal in Pool.Start is not guarded by a dedup check \(IDEM001\)`
				case <-ctx.Done():
					return
				}
			}
		}()
	}
}

// Poller receives messages and submits them to the pool.
type Poller struct {
	client *sqs.Client
	url    string
	pool   *Pool
}

// Run polls until ctx ends.
func (s *Poller) Run(ctx context.Context) {
	for ctx.Err() == nil {
		out, err := s.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(s.url)})
		if err != nil {
			continue
		}
		for _, m := range out.Messages {
			var body struct{ OrderID string }
			if err := json.Unmarshal([]byte(*m.Body), &body); err != nil {
				continue
			}
			s.pool.Submit(ctx, Job{ReceiptHandle: *m.ReceiptHandle, OrderID: body.OrderID})
		}
	}
}

// Processor ships orders.
type Processor struct {
	client *sqs.Client
	url    string
	db     *sql.DB
}

// Process records the shipment, then deletes the message: a redelivery
// records it again.
func (p *Processor) Process(ctx context.Context, job Job) {
	if _, err := p.db.ExecContext(ctx, `INSERT INTO shipments (order_id) VALUES ($1)`, job.OrderID); err != nil {
		log.Print(err)
		return
	}
	p.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(p.url), ReceiptHandle: aws.String(job.ReceiptHandle)})
}
