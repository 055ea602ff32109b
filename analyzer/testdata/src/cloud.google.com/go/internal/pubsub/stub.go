// Package pubsub is a stub of cloud.google.com/go@v0.123.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package pubsub

import (
	"context"
	"time"
)

type AckHandler interface {
	OnAck()
	OnAckWithResult() *AckResult
	OnNack()
	OnNackWithResult() *AckResult
}

type AckResult struct {
}

func (r *AckResult) Ready() <-chan struct{} { return nil }

func (r *AckResult) Get(ctx context.Context) (res AcknowledgeStatus, err error) { return 0, nil }

type AcknowledgeStatus int

const AcknowledgeStatusFailedPrecondition AcknowledgeStatus = 2

const AcknowledgeStatusInvalidAckID AcknowledgeStatus = 3

const AcknowledgeStatusOther AcknowledgeStatus = 4

const AcknowledgeStatusPermissionDenied AcknowledgeStatus = 1

const AcknowledgeStatusSuccess AcknowledgeStatus = 0

type Message struct {
	ID              string
	Data            []byte
	Attributes      map[string]string
	PublishTime     time.Time
	DeliveryAttempt *int
	OrderingKey     string
}

func (m *Message) Ack() {}

func (m *Message) Nack() {}

func (m *Message) AckWithResult() *AckResult { return nil }

func (m *Message) NackWithResult() *AckResult { return nil }

func MessageAckHandler(m *Message) AckHandler { return nil }

func NewAckResult() *AckResult { return nil }

func NewMessage(ackh AckHandler) *Message { return nil }

func NewPublishResult() *PublishResult { return nil }

type PublishResult struct {
}

func (r *PublishResult) Ready() <-chan struct{} { return nil }

func (r *PublishResult) Get(ctx context.Context) (serverID string, err error) { return "", nil }

func SetAckResult(r *AckResult, res AcknowledgeStatus, err error) {}

func SetPublishResult(r *PublishResult, sid string, err error) {}
