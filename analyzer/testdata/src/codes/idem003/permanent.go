package idem003

import (
	"context"
	"errors"

	amqp "github.com/rabbitmq/amqp091-go"
)

type permanentError struct{ error }

// IsPermanent returns the permanent error err wraps, and whether it does.
func IsPermanent(err error) (error, bool) {
	var p permanentError
	if errors.As(err, &p) {
		return p.error, true
	}
	return nil, false
}

// permanentAck acks a message whose failure is permanent: redelivering it
// would fail again.
func permanentAck(ctx context.Context, p *points, d amqp.Delivery) {
	if err := p.AddPoints(ctx, d.UserId, 1); err != nil {
		if _, ok := IsPermanent(err); ok {
			d.Ack(false)
			return
		}
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}
