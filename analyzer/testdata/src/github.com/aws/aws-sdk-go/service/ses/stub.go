// Package ses is a stub of github.com/aws/aws-sdk-go@v1.55.8 for analyzer tests: signatures mirror the real API.
package ses

import (
	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/request"
)

// SES is the service client.
type SES struct{}

// New returns a client.
func New(p interface{}) *SES { return &SES{} }

type Destination struct{ ToAddresses []*string }

type SendEmailInput struct {
	Destination *Destination
	Source      *string
}

type SendEmailOutput struct{ MessageId *string }

func (c *SES) SendEmail(input *SendEmailInput) (*SendEmailOutput, error) { return nil, nil }

func (c *SES) SendEmailWithContext(ctx aws.Context, input *SendEmailInput, opts ...request.Option) (*SendEmailOutput, error) {
	return nil, nil
}

type GetSendQuotaInput struct{}

type GetSendQuotaOutput struct{ Max24HourSend *float64 }

func (c *SES) GetSendQuota(input *GetSendQuotaInput) (*GetSendQuotaOutput, error) { return nil, nil }

func (c *SES) GetSendQuotaWithContext(ctx aws.Context, input *GetSendQuotaInput, opts ...request.Option) (*GetSendQuotaOutput, error) {
	return nil, nil
}
