// Package sns is a stub of github.com/aws/aws-sdk-go-v2/service/sns@v1.48.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package sns

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
)

type Client struct {
}

func NewFromConfig(cfg aws.Config, optFns ...func(*Options)) *Client { return nil }

type Options struct {
	Region string
}

type PublishInput struct {
	Message                *string
	MessageDeduplicationId *string
	MessageGroupId         *string
	PhoneNumber            *string
	Subject                *string
	TargetArn              *string
	TopicArn               *string
}

type PublishOutput struct {
	MessageId *string
}

func (c *Client) Publish(ctx context.Context, params *PublishInput, optFns ...func(*Options)) (*PublishOutput, error) {
	return nil, nil
}

type PublishBatchInput struct {
	TopicArn *string
}

type PublishBatchOutput struct {
}

func (c *Client) PublishBatch(ctx context.Context, params *PublishBatchInput, optFns ...func(*Options)) (*PublishBatchOutput, error) {
	return nil, nil
}
