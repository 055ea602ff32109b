// Package sqs is a stub of github.com/aws/aws-sdk-go@v1.55.8 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package sqs

import (
	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/client"
	"github.com/aws/aws-sdk-go/aws/request"
)

type SQS struct {
	*client.Client
}

type Message struct {
	Attributes    map[string]*string `type:"map" flattened:"true"`
	Body          *string            `type:"string"`
	MessageId     *string            `type:"string"`
	ReceiptHandle *string            `type:"string"`
}

type ReceiveMessageInput struct {
	MaxNumberOfMessages *int64  `type:"integer"`
	QueueUrl            *string `type:"string" required:"true"`
	VisibilityTimeout   *int64  `type:"integer"`
	WaitTimeSeconds     *int64  `type:"integer"`
}

type ReceiveMessageOutput struct {
	Messages []*Message `type:"list" flattened:"true"`
}

type DeleteMessageInput struct {
	QueueUrl      *string `type:"string" required:"true"`
	ReceiptHandle *string `type:"string" required:"true"`
}

type DeleteMessageOutput struct {
}

type ChangeMessageVisibilityInput struct {
	QueueUrl          *string `type:"string" required:"true"`
	ReceiptHandle     *string `type:"string" required:"true"`
	VisibilityTimeout *int64  `type:"integer" required:"true"`
}

type ChangeMessageVisibilityOutput struct {
}

type SendMessageInput struct {
	MessageBody *string `type:"string" required:"true"`
	QueueUrl    *string `type:"string" required:"true"`
}

type SendMessageOutput struct {
	MessageId *string `type:"string"`
}

func (c *SQS) ReceiveMessage(input *ReceiveMessageInput) (*ReceiveMessageOutput, error) {
	return nil, nil
}

func (c *SQS) ReceiveMessageWithContext(ctx aws.Context, input *ReceiveMessageInput, opts ...request.Option) (*ReceiveMessageOutput, error) {
	return nil, nil
}

func (c *SQS) DeleteMessage(input *DeleteMessageInput) (*DeleteMessageOutput, error) {
	return nil, nil
}

func (c *SQS) DeleteMessageWithContext(ctx aws.Context, input *DeleteMessageInput, opts ...request.Option) (*DeleteMessageOutput, error) {
	return nil, nil
}

func (c *SQS) ChangeMessageVisibility(input *ChangeMessageVisibilityInput) (*ChangeMessageVisibilityOutput, error) {
	return nil, nil
}

func (c *SQS) ChangeMessageVisibilityWithContext(ctx aws.Context, input *ChangeMessageVisibilityInput, opts ...request.Option) (*ChangeMessageVisibilityOutput, error) {
	return nil, nil
}

func (c *SQS) SendMessage(input *SendMessageInput) (*SendMessageOutput, error) {
	return nil, nil
}

func (c *SQS) SendMessageWithContext(ctx aws.Context, input *SendMessageInput, opts ...request.Option) (*SendMessageOutput, error) {
	return nil, nil
}
