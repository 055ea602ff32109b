// Package ses is a stub of github.com/aws/aws-sdk-go-v2/service/ses@v1.43.0 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package ses

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ses/types"
)

type Client struct {
}

func NewFromConfig(cfg aws.Config, optFns ...func(*Options)) *Client { return nil }

type Options struct {
	Region string
}

type SendEmailInput struct {
	Destination *types.Destination
	Message     *types.Message
	Source      *string
}

type SendEmailOutput struct {
	MessageId *string
}

func (c *Client) SendEmail(ctx context.Context, params *SendEmailInput, optFns ...func(*Options)) (*SendEmailOutput, error) {
	return nil, nil
}

type SendRawEmailInput struct {
	Source *string
}

type SendRawEmailOutput struct {
	MessageId *string
}

func (c *Client) SendRawEmail(ctx context.Context, params *SendRawEmailInput, optFns ...func(*Options)) (*SendRawEmailOutput, error) {
	return nil, nil
}

type SendTemplatedEmailInput struct {
	Destination *types.Destination
	Source      *string
	Template    *string
}

type SendTemplatedEmailOutput struct {
	MessageId *string
}

func (c *Client) SendTemplatedEmail(ctx context.Context, params *SendTemplatedEmailInput, optFns ...func(*Options)) (*SendTemplatedEmailOutput, error) {
	return nil, nil
}
