// Package sesv2 is a stub of github.com/aws/aws-sdk-go-v2/service/sesv2@v1.79.9 for analyzer tests: signatures mirror the real API.
//
// Checked against the real package's type information; bodies return zero values.
package sesv2

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"
)

type Client struct {
}

func NewFromConfig(cfg aws.Config, optFns ...func(*Options)) *Client { return nil }

type Options struct {
	Region string
}

type SendEmailInput struct {
	Content          *types.EmailContent
	Destination      *types.Destination
	FromEmailAddress *string
}

type SendEmailOutput struct {
	MessageId *string
}

func (c *Client) SendEmail(ctx context.Context, params *SendEmailInput, optFns ...func(*Options)) (*SendEmailOutput, error) {
	return nil, nil
}

type SendBulkEmailInput struct {
	FromEmailAddress *string
}

type SendBulkEmailOutput struct {
}

func (c *Client) SendBulkEmail(ctx context.Context, params *SendBulkEmailInput, optFns ...func(*Options)) (*SendBulkEmailOutput, error) {
	return nil, nil
}
