package adapters

import (
	"context"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/segmentio/kafka-go"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/amqpguard"
	"github.com/idemkit/idem/guard/jetstreamguard"
	"github.com/idemkit/idem/guard/kafkaguard"
)

// App holds the guarded handler and the broker clients.
type App struct {
	H   guard.Handler
	Log *slog.Logger
}

// RabbitLoop reads deliveries itself (manual ack, prefetch 8) and lets
// amqpguard.Handle run the guarded handler and settle each delivery.
//
// truth: ok
func (a *App) RabbitLoop(ctx context.Context, ch *amqp.Channel) error {
	if err := ch.Qos(8, 0, false); err != nil {
		return err
	}
	deliveries, err := ch.ConsumeWithContext(ctx, "orders", "inventory", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range deliveries {
		act := amqpguard.Handle(ctx, d, a.H, amqpguard.WithRetryDelay(500*time.Millisecond))
		a.Log.Debug("settled", "tag", d.DeliveryTag, "action", act.String())
	}
	return nil
}

// RabbitSwallow calls the guarded handler itself and acks whatever it
// answered: a transient error (database down) acks the delivery and the
// stock is never deducted.
//
// truth: bug IDEM003
func (a *App) RabbitSwallow(ctx context.Context, deliveries <-chan amqp.Delivery) {
	for d := range deliveries {
		out, err := a.H.Handle(ctx, d.Body)
		if err != nil {
			a.Log.Error("deduct", "err", err)
		} else {
			a.Log.Debug("deduct", "outcome", out.String())
		}
		_ = d.Ack(false)
	}
}

// JetStream runs the guarded handler on a durable pull consumer through
// jetstreamguard.Consume, which acks, naks or terms by the handler's answer.
//
// truth: ok
func (a *App) JetStream(ctx context.Context, js jetstream.JetStream) error {
	cons, err := js.CreateOrUpdateConsumer(ctx, "ORDERS", jetstream.ConsumerConfig{
		Durable: "deduct_inventory", AckPolicy: jetstream.AckExplicitPolicy, MaxDeliver: 20,
	})
	if err != nil {
		return err
	}
	return jetstreamguard.Consume(ctx, cons, a.H, jetstreamguard.WithNakDelay(time.Second))
}

// JetStreamFetch pulls batches itself and settles each message with
// jetstreamguard.Handle.
//
// truth: ok
func (a *App) JetStreamFetch(ctx context.Context, cons jetstream.Consumer) error {
	for ctx.Err() == nil {
		batch, err := cons.Fetch(10, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return err
		}
		for msg := range batch.Messages() {
			jetstreamguard.Handle(ctx, msg, a.H)
		}
	}
	return nil
}

// Kafka runs the guarded handler with kafkaguard.Consume, dead-lettering
// permanent failures before committing.
//
// truth: ok
func (a *App) Kafka(ctx context.Context, brokers []string) error {
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, GroupID: "deduct_inventory", Topic: "orders.created"})
	defer r.Close()
	dlq := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: "orders.created.dead", RequiredAcks: kafka.RequireAll}
	defer dlq.Close()
	return kafkaguard.Consume(ctx, r, a.H, kafkaguard.WithDeadLetter(dlq))
}

// Wire builds the app's guarded handler from the generated-style type.
func Wire(h *DeductInventoryHandler, log *slog.Logger) *App {
	return &App{H: h, Log: log}
}
