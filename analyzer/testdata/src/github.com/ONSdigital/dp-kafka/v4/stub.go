// Package kafka is a stub of github.com/ONSdigital/dp-kafka/v4@v4.3.0 for analyzer tests: signatures mirror the real API.
package kafka

import (
	"context"

	"github.com/ONSdigital/dp-kafka/v4/avro"
	"github.com/ONSdigital/dp-kafka/v4/interfaces"
)

type Message interfaces.Message

type Handler func(ctx context.Context, workerID int, msg Message) error

type BatchHandler func(ctx context.Context, batch []Message) error

type ConsumerGroupConfig struct {
	Topic     string
	GroupName string
}

type IConsumerGroup interface {
	RegisterHandler(ctx context.Context, h Handler) error
	RegisterBatchHandler(ctx context.Context, batchHandler BatchHandler) error
	Start() error
}

type ConsumerGroup struct {
}

func NewConsumerGroup(ctx context.Context, cgConfig *ConsumerGroupConfig) (*ConsumerGroup, error) {
	return nil, nil
}

func (cg *ConsumerGroup) RegisterHandler(ctx context.Context, h Handler) error { return nil }

func (cg *ConsumerGroup) RegisterBatchHandler(ctx context.Context, batchHandler BatchHandler) error {
	return nil
}

func (cg *ConsumerGroup) Start() error { return nil }

type IProducer interface {
	Send(ctx context.Context, schema *avro.Schema, event interface{}) error
	SendJSON(ctx context.Context, event interface{}) error
	SendBytes(ctx context.Context, b []byte) error
}

type Producer struct {
}

func (p *Producer) Send(ctx context.Context, schema *avro.Schema, event interface{}) error {
	return nil
}

func (p *Producer) SendJSON(ctx context.Context, event interface{}) error { return nil }

func (p *Producer) SendBytes(ctx context.Context, b []byte) error { return nil }
