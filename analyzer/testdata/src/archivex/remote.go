package archivex

import (
	"context"
	"log"

	amqp "github.com/rabbitmq/amqp091-go"
)

// sizes is a client of another service (implemented elsewhere).
type sizes interface {
	Size(ctx context.Context, path string) (int64, error)
}

// fileSize asks the service: it tests the failure of its own call, so its
// failure is no poison message but one a redelivery may not meet again.
func fileSize(ctx context.Context, api sizes, path string) (int64, error) {
	n, err := api.Size(ctx, path)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// checkSize acks a delivery also when the size could not be read.
func checkSize(ctx context.Context, api sizes, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		if _, err := fileSize(ctx, api, string(d.Body)); err != nil {
			log.Printf("size: %v", err)
		}
		d.Ack(false) // want `ack amqp091.Delivery.Ack in handler checkSize also runs when archivex.fileSize fails`
	}
}

// fileSizeOf hands the client's answer back untested: still a request to
// another service.
func fileSizeOf(ctx context.Context, api sizes, path string) (int64, error) {
	return api.Size(ctx, path)
}

// checkSizeOf acks a delivery also when the request failed.
func checkSizeOf(ctx context.Context, api sizes, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		if _, err := fileSizeOf(ctx, api, string(d.Body)); err != nil {
			log.Printf("size: %v", err)
		}
		d.Ack(false) // want `ack amqp091.Delivery.Ack in handler checkSizeOf also runs when archivex.fileSizeOf fails`
	}
}
