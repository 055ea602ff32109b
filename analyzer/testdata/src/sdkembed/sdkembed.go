// Package sdkembed (whole-program mode): an SQS consumer sends mail
// through the program's own Sender interface, filled by an AWS SDK client:
// embedded in the program's type, or converted to the interface directly.
// The send is the SDK's remote call.
package sdkembed

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/aws-sdk-go/service/ses"
)

// Sender sends mail.
type Sender interface {
	SendEmail(input *ses.SendEmailInput) (*ses.SendEmailOutput, error)
	GetSendQuota(input *ses.GetSendQuotaInput) (*ses.GetSendQuotaOutput, error)
}

type senderImpl struct {
	*ses.SES
}

// NewEmbedded returns a Sender whose methods are the SES client's,
// promoted.
func NewEmbedded() Sender { return &senderImpl{ses.New(nil)} }

// MockSender is a Sender for tests, in the package's own files.
type MockSender struct{ Sent int }

func (m *MockSender) SendEmail(input *ses.SendEmailInput) (*ses.SendEmailOutput, error) {
	m.Sent++
	return &ses.SendEmailOutput{}, nil
}

func (m *MockSender) GetSendQuota(input *ses.GetSendQuotaInput) (*ses.GetSendQuotaOutput, error) {
	return &ses.GetSendQuotaOutput{}, nil
}

// NewMock returns a MockSender as a Sender.
func NewMock() Sender { return &MockSender{} }

// NewDirect returns the SES client as a Sender.
func NewDirect() Sender { return ses.New(nil) }

// Worker mails each message's recipient.
type Worker struct {
	sqs    *sqs.Client
	queue  string
	sender Sender
}

// Handle mails the recipient: a redelivery mails again.
func (w *Worker) Handle(ctx context.Context, m types.Message) error {
	_, err := w.sender.SendEmail(&ses.SendEmailInput{Destination: &ses.Destination{ToAddresses: []*string{m.Body}}}) // want `effect ses.SES.SendEmail \(remote call\) in handler Worker.Handle is not guarded by a dedup check \(IDEM001\)`
	return err
}

// Quota reads the sending quota: a read, no effect.
func (w *Worker) Quota(ctx context.Context, m types.Message) error {
	_, err := w.sender.GetSendQuota(&ses.GetSendQuotaInput{})
	return err
}

// Run receives and handles messages, deleting each one handled.
func (w *Worker) Run(ctx context.Context) error {
	for {
		out, err := w.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &w.queue})
		if err != nil {
			return err
		}
		for _, m := range out.Messages {
			if err := w.Handle(ctx, m); err != nil {
				continue
			}
			if err := w.Quota(ctx, m); err != nil {
				continue
			}
			if _, err := w.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &w.queue, ReceiptHandle: m.ReceiptHandle}); err != nil {
				return err
			}
		}
	}
}

// Main wires both senders.
func Main(ctx context.Context, c *sqs.Client) error {
	if err := (&Worker{sqs: c, queue: "q", sender: NewEmbedded()}).Run(ctx); err != nil {
		return err
	}
	if err := (&Worker{sqs: c, queue: "q3", sender: NewMock()}).Run(ctx); err != nil {
		return err
	}
	return (&Worker{sqs: c, queue: "q2", sender: NewDirect()}).Run(ctx)
}
