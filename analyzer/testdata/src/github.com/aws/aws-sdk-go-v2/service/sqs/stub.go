// Package sqs is a stub of github.com/aws/aws-sdk-go-v2/service/sqs@v1.53.0 for analyzer tests: signatures mirror the real API.
//
// Generated from the real package's type information; bodies return zero values.
package sqs

import (
	"context"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

type Client struct {
}

func (c *Client) ReceiveMessage(ctx context.Context, params *ReceiveMessageInput, optFns ...func(*Options)) (*ReceiveMessageOutput, error) {
	return nil, nil
}

func (c *Client) DeleteMessage(ctx context.Context, params *DeleteMessageInput, optFns ...func(*Options)) (*DeleteMessageOutput, error) {
	return nil, nil
}

func (c *Client) DeleteMessageBatch(ctx context.Context, params *DeleteMessageBatchInput, optFns ...func(*Options)) (*DeleteMessageBatchOutput, error) {
	return nil, nil
}

func (c *Client) SendMessage(ctx context.Context, params *SendMessageInput, optFns ...func(*Options)) (*SendMessageOutput, error) {
	return nil, nil
}

func (c *Client) SendMessageBatch(ctx context.Context, params *SendMessageBatchInput, optFns ...func(*Options)) (*SendMessageBatchOutput, error) {
	return nil, nil
}

func (c *Client) ChangeMessageVisibility(ctx context.Context, params *ChangeMessageVisibilityInput, optFns ...func(*Options)) (*ChangeMessageVisibilityOutput, error) {
	return nil, nil
}

func (c *Client) ChangeMessageVisibilityBatch(ctx context.Context, params *ChangeMessageVisibilityBatchInput, optFns ...func(*Options)) (*ChangeMessageVisibilityBatchOutput, error) {
	return nil, nil
}

func New(options Options, optFns ...func(*Options)) *Client { return nil }

func NewFromConfig(cfg aws.Config, optFns ...func(*Options)) *Client { return nil }

type Options struct {
	Region string
}

type ReceiveMessageInput struct {
	QueueUrl                    *string
	AttributeNames              []types.QueueAttributeName
	MaxNumberOfMessages         int32
	MessageAttributeNames       []string
	MessageSystemAttributeNames []types.MessageSystemAttributeName
	ReceiveRequestAttemptId     *string
	VisibilityTimeout           int32
	WaitTimeSeconds             int32
}

type ReceiveMessageOutput struct {
	Messages []types.Message
}

type DeleteMessageInput struct {
	QueueUrl      *string
	ReceiptHandle *string
}

type DeleteMessageOutput struct {
}

type DeleteMessageBatchInput struct {
	Entries  []types.DeleteMessageBatchRequestEntry
	QueueUrl *string
}

type DeleteMessageBatchOutput struct {
	Failed     []types.BatchResultErrorEntry
	Successful []types.DeleteMessageBatchResultEntry
}

type SendMessageInput struct {
	MessageBody             *string
	QueueUrl                *string
	DelaySeconds            int32
	MessageAttributes       map[string]types.MessageAttributeValue
	MessageDeduplicationId  *string
	MessageGroupId          *string
	MessageSystemAttributes map[string]types.MessageSystemAttributeValue
}

type SendMessageOutput struct {
	MD5OfMessageAttributes       *string
	MD5OfMessageBody             *string
	MD5OfMessageSystemAttributes *string
	MessageId                    *string
	SequenceNumber               *string
}

type SendMessageBatchInput struct {
	Entries  []types.SendMessageBatchRequestEntry
	QueueUrl *string
}

type SendMessageBatchOutput struct {
	Failed     []types.BatchResultErrorEntry
	Successful []types.SendMessageBatchResultEntry
}

type ChangeMessageVisibilityInput struct {
	QueueUrl          *string
	ReceiptHandle     *string
	VisibilityTimeout int32
}

type ChangeMessageVisibilityOutput struct {
}

type ChangeMessageVisibilityBatchInput struct {
	Entries  []types.ChangeMessageVisibilityBatchRequestEntry
	QueueUrl *string
}

type ChangeMessageVisibilityBatchOutput struct {
	Failed     []types.BatchResultErrorEntry
	Successful []types.ChangeMessageVisibilityBatchResultEntry
}
