package reporterx

import (
	"context"

	kafka "github.com/ONSdigital/dp-kafka/v4"
)

// consumer is the service's own interface over dp-kafka's consumer group
// (for its mocks); main hands it the real one.
type consumer interface {
	RegisterHandler(ctx context.Context, h kafka.Handler) error
	Start() error
}

type service struct {
	consumer consumer
}

func newService(cg *kafka.ConsumerGroup) *service { return &service{consumer: cg} }

// Own is registered through the service's interface: committed whatever it
// returns, as through dp-kafka's own.
func (h *Handler) Own(ctx context.Context, workerID int, msg kafka.Message) error {
	if err := h.importRows(ctx, msg); err != nil {
		return err // want `handler Handler.Own returns when reporterx.Handler.importRows fails, and its consumer commits the message whatever the handler returns`
	}
	return nil
}

func (s *service) run(ctx context.Context, h *Handler) error {
	if err := s.consumer.RegisterHandler(ctx, h.Own); err != nil {
		return err
	}
	return s.consumer.Start()
}
