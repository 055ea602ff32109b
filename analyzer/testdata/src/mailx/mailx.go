// Package mailx: mail SDKs called from handlers. Every send is an email
// once more on a redelivery.
package mailx

import (
	"context"
	"database/sql"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ses"
	sestypes "github.com/aws/aws-sdk-go-v2/service/ses/types"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	oldgomail "github.com/go-gomail/gomail"
	"github.com/hibiken/asynq"
	mailgun "github.com/mailgun/mailgun-go/v4"
	"github.com/sendgrid/sendgrid-go"
	sgmail "github.com/sendgrid/sendgrid-go/helpers/mail"
	gomail "github.com/wneessen/go-mail"
	gomailv2 "gopkg.in/gomail.v2"

	"shop"
)

type Mailer struct {
	SMTPAddr string
	Auth     sasl.Client
	Dialer   *gomailv2.Dialer
	Old      *oldgomail.Dialer
	GoMail   *gomail.Client
	SendGrid *sendgrid.Client
	Mailgun  mailgun.Mailgun
	MG       *mailgun.MailgunImpl
	SESv2    *sesv2.Client
	SES      *ses.Client
}

func (m *Mailer) Confirm(ctx context.Context, t *asynq.Task) error {
	o, err := shop.Decode(t.Payload())
	if err != nil {
		return nil
	}
	body := strings.NewReader("Subject: order " + o.ID + "\r\n\r\nthanks")
	if err := smtp.SendMail(m.SMTPAddr, m.Auth, "shop@example.com", []string{o.User}, body); err != nil { // want `effect smtp.SendMail in handler Mailer.Confirm is not guarded by a dedup check`
		return err
	}

	msg := gomailv2.NewMessage()
	msg.SetHeader("To", o.User)
	msg.SetBody("text/plain", "thanks")
	if err := m.Dialer.DialAndSend(msg); err != nil { // want `effect gomail.Dialer.DialAndSend in handler Mailer.Confirm is not guarded`
		return err
	}
	if err := m.Old.DialAndSend(oldgomail.NewMessage()); err != nil { // want `IDEM001`
		return err
	}

	gm := gomail.NewMsg()
	_ = gm.To(o.User)
	gm.Subject("order " + o.ID)
	if err := m.GoMail.DialAndSendWithContext(ctx, gm); err != nil { // want `effect mail.Client.DialAndSendWithContext in handler Mailer.Confirm`
		return err
	}

	sg := sgmail.NewSingleEmail(sgmail.NewEmail("shop", "shop@example.com"), "order", sgmail.NewEmail(o.User, o.User), "thanks", "")
	if _, err := m.SendGrid.Send(sg); err != nil { // want `effect sendgrid.Client.Send in handler Mailer.Confirm`
		return err
	}

	if _, _, err := m.Mailgun.Send(ctx, mailgun.NewMessage("shop@example.com", "order", "thanks", o.User)); err != nil { // want `effect mailgun.Mailgun.Send in handler Mailer.Confirm`
		return err
	}
	if _, _, err := m.MG.Send(ctx, mailgun.NewMessage("shop@example.com", "order", "thanks", o.User)); err != nil { // want `IDEM001`
		return err
	}

	if _, err := m.SESv2.SendEmail(ctx, &sesv2.SendEmailInput{ // want `effect sesv2.Client.SendEmail in handler Mailer.Confirm`
		FromEmailAddress: aws.String("shop@example.com"),
		Destination:      &types.Destination{ToAddresses: []string{o.User}},
		Content:          &types.EmailContent{Simple: &types.Message{Subject: &types.Content{Data: aws.String("order")}}},
	}); err != nil {
		return err
	}
	_, err = m.SES.SendEmail(ctx, &ses.SendEmailInput{Source: aws.String("shop@example.com"), Destination: &sestypes.Destination{ToAddresses: []string{o.User}}}) // want `IDEM001`
	return err
}

// client sends by hand over an SMTP connection.
func client(ctx context.Context, t *asynq.Task, c *smtp.Client) error {
	o, _ := shop.Decode(t.Payload())
	if err := c.Mail("shop@example.com", nil); err != nil {
		return err
	}
	if err := c.Rcpt(o.User, nil); err != nil {
		return err
	}
	w, err := c.Data() // want `effect smtp.Client.Data in handler client`
	if err != nil {
		return err
	}
	if _, err := w.Write([]byte("thanks")); err != nil {
		return err
	}
	return w.Close()
}

// once sends only for an order id seen for the first time, recorded in
// the same transaction as the order's other writes.
func once(db *sql.DB, d *gomailv2.Dialer) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		o, err := shop.Decode(t.Payload())
		if err != nil {
			return nil
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		fresh, err := shop.Claim(ctx, tx, "mail", o.ID)
		if err != nil || !fresh {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		msg := gomailv2.NewMessage()
		msg.SetHeader("To", o.User)
		return gomailv2.Send(nil, msg)
	}
}
