package amqpguard_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/amqpguard"
)

// ExampleConsume declares a queue with a dead-letter exchange and consumes
// it with a guarded handler, eight deliveries at a time, until interrupted.
// (It needs a RabbitMQ, so it is compiled but not run.)
func ExampleConsume() {
	conn, err := amqp.Dial("amqp://guest:guest@127.0.0.1:5672/")
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		log.Fatal(err)
	}
	defer ch.Close()

	// Permanent errors are rejected; the dead-letter exchange keeps them.
	_ = ch.ExchangeDeclare("orders.dlx", "fanout", true, false, false, false, nil)
	_, _ = ch.QueueDeclare("orders.dead", true, false, false, false, nil)
	_ = ch.QueueBind("orders.dead", "", "orders.dlx", false, nil)
	_, _ = ch.QueueDeclare("orders", true, false, false, false, amqp.Table{"x-dead-letter-exchange": "orders.dlx"})

	// In an application: h := orders.NewDeductInventoryHandler(store, apply)
	var h guard.Handler = guard.HandlerFunc(func(ctx context.Context, body []byte) (guard.Outcome, error) {
		return guard.Applied, nil
	})

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := amqpguard.Consume(ctx, ch, "orders", h, amqpguard.WithConcurrency(8)); err != nil {
		log.Fatal(err)
	}
}

// printAck prints what Handle does with a delivery.
type printAck struct{}

func (printAck) Ack(tag uint64, multiple bool) error {
	fmt.Println("ack", tag)
	return nil
}

func (printAck) Nack(tag uint64, multiple, requeue bool) error {
	fmt.Println("nack", tag, "requeue:", requeue)
	return nil
}

func (printAck) Reject(tag uint64, requeue bool) error {
	fmt.Println("reject", tag, "requeue:", requeue)
	return nil
}

// ExampleHandle shows the mapping on single deliveries.
func ExampleHandle() {
	ctx := context.Background()
	answers := []error{
		nil,                  // applied
		guard.ErrKeyConflict, // permanent: dead-letter
		fmt.Errorf("dial tcp: connection refused"), // transient: requeue
	}
	for i, answer := range answers {
		h := guard.HandlerFunc(func(context.Context, []byte) (guard.Outcome, error) {
			if answer != nil {
				return 0, answer
			}
			return guard.Applied, nil
		})
		d := amqp.Delivery{Acknowledger: printAck{}, DeliveryTag: uint64(i + 1), Body: []byte(`{"order_id":"o1"}`)}
		action := amqpguard.Handle(ctx, d, h, amqpguard.WithRetryDelay(0), amqpguard.WithLogger(nil))
		fmt.Println("→", action)
	}
	// Output:
	// ack 1
	// → ack
	// reject 2 requeue: false
	// → reject
	// nack 3 requeue: true
	// → requeue
}
