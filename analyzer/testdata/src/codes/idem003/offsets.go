package idem003

import (
	"context"
	"errors"
	"log"

	"github.com/IBM/sarama"
	"github.com/segmentio/kafka-go"
)

type offsetConsumer struct {
	apply func(ctx context.Context, m *sarama.ConsumerMessage) error
}

// process marks the message once apply succeeded.
func (c *offsetConsumer) process(sess sarama.ConsumerGroupSession, m *sarama.ConsumerMessage) error {
	if err := c.apply(sess.Context(), m); err != nil {
		return err
	}
	sess.MarkMessage(m, "")
	return nil
}

// ConsumeClaim logs a failure and takes the next message: its mark
// commits the failed message's offset too.
func (c *offsetConsumer) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for {
		select {
		case <-sess.Context().Done():
			return nil
		case m, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			if err := c.process(sess, m); err != nil { // want `handler offsetConsumer.ConsumeClaim goes on to the next message when .*offsetConsumer.process fails: acking a later offset commits this one too, and the message is lost \(IDEM003\)`
				log.Printf("offset %d: %v", m.Offset, err)
			}
		}
	}
}

type stoppingConsumer struct{ offsetConsumer }

// ConsumeClaim ends the session on a failure: the message is consumed
// again from its offset, nothing later is marked.
func (c *stoppingConsumer) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		if err := c.process(sess, m); err != nil {
			return errors.Join(errors.New("stopping"), err)
		}
	}
	return nil
}

type poisonConsumer struct{ offsetConsumer }

// check marks a message it cannot use before returning its error: the
// error is only logged by the caller, the message settled on purpose.
func (c *poisonConsumer) check(sess sarama.ConsumerGroupSession, m *sarama.ConsumerMessage) error {
	if len(m.Value) == 0 {
		sess.MarkMessage(m, "")
		return errors.New("empty message")
	}
	return nil
}

// ConsumeClaim goes on after a poison message: it was marked on purpose.
func (c *poisonConsumer) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		if err := c.check(sess, m); err != nil {
			log.Print(err)
		}
	}
	return nil
}

// kafkaProcessor handles one message in a function that returns nothing;
// its caller's loop takes the next message whatever happened.
type kafkaProcessor struct {
	apply func(ctx context.Context, m kafka.Message) error
	dlq   *kafka.Writer
}

// process commits after a success; a failure is only logged: the next
// message's commit moves the offset past this one.
func (p *kafkaProcessor) process(ctx context.Context, r *kafka.Reader, m kafka.Message) {
	if err := p.apply(ctx, m); err != nil { // want `handler kafkaProcessor.process returns without committing when .* fails, and returns nothing its caller could stop on: committing a later offset commits this one too, and the message is lost \(IDEM003\)`
		log.Print(err)
		return
	}
	r.CommitMessages(ctx, m)
}

// processDLQ writes a failure to a dead-letter topic before it goes on.
func (p *kafkaProcessor) processDLQ(ctx context.Context, r *kafka.Reader, m kafka.Message) {
	if err := p.apply(ctx, m); err != nil {
		p.dlq.WriteMessages(ctx, m)
		return
	}
	r.CommitMessages(ctx, m)
}

// processErr returns the failure: its caller decides.
func (p *kafkaProcessor) processErr(ctx context.Context, r *kafka.Reader, m kafka.Message) error {
	if err := p.apply(ctx, m); err != nil {
		return err
	}
	return r.CommitMessages(ctx, m)
}

// processRetrying retries a failure with a pause until it succeeds or the
// consumer stops: returning on shutdown leaves the message to the next
// consumer, which is not a loss.
func (p *kafkaProcessor) processRetrying(ctx context.Context, r *kafka.Reader, m kafka.Message, pause <-chan struct{}) {
	for {
		err := p.apply(ctx, m)
		if err == nil {
			r.CommitMessages(ctx, m)
			return
		}
		if errors.Is(err, context.Canceled) {
			return
		}
		log.Print(err)
		select {
		case <-pause:
		case <-ctx.Done():
			return
		}
	}
}

// processGivingUp gives up when the pause channel closes: a failure
// returned on that case, not the shutdown one, is lost.
func (p *kafkaProcessor) processGivingUp(ctx context.Context, r *kafka.Reader, m kafka.Message, stop <-chan struct{}) {
	for {
		err := p.apply(ctx, m)
		if err == nil { // want `handler kafkaProcessor.processGivingUp returns without committing when .* fails, and returns nothing its caller could stop on`
			r.CommitMessages(ctx, m)
			return
		}
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		}
	}
}
