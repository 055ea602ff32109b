// Package notifyx: SMS and push SDKs called from handlers: Twilio, SNS,
// Firebase Cloud Messaging. A redelivery texts or pushes again.
package notifyx

import (
	"context"
	"database/sql"

	"firebase.google.com/go/v4/messaging"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/nsqio/go-nsq"
	"github.com/twilio/twilio-go"
	openapi "github.com/twilio/twilio-go/rest/api/v2010"

	"shop"
)

type Notifier struct {
	Twilio *twilio.RestClient
	SNS    *sns.Client
	FCM    *messaging.Client
	DB     *sql.DB
}

func (n *Notifier) HandleMessage(m *nsq.Message) error {
	ctx := context.Background()
	o, err := shop.Decode(m.Body)
	if err != nil {
		return nil
	}
	params := &openapi.CreateMessageParams{}
	params.SetTo(o.Phone)
	params.SetBody("shipped")
	if _, err := n.Twilio.Api.CreateMessage(params); err != nil { // want `effect openapi.ApiService.CreateMessage in handler Notifier.HandleMessage is not guarded by a dedup check`
		return err
	}
	if _, err := n.SNS.Publish(ctx, &sns.PublishInput{PhoneNumber: aws.String(o.Phone), Message: aws.String("shipped")}); err != nil { // want `effect sns.Client.Publish in handler Notifier.HandleMessage`
		return err
	}
	if _, err := n.FCM.Send(ctx, &messaging.Message{Token: o.User, Notification: &messaging.Notification{Title: "shipped"}}); err != nil { // want `IDEM001`
		return err
	}
	_, err = n.FCM.SendEachForMulticast(ctx, &messaging.MulticastMessage{Tokens: []string{o.User}}) // want `IDEM001`
	return err
}

// Guarded claims the message id before it texts: a redelivery is
// answered as a duplicate.
type Guarded struct {
	FCM *messaging.Client
	DB  *sql.DB
}

func (g *Guarded) HandleMessage(m *nsq.Message) error {
	ctx := context.Background()
	o, err := shop.Decode(m.Body)
	if err != nil {
		return nil
	}
	tx, err := g.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := shop.Claim(ctx, tx, "push", string(m.ID[:]))
	if err != nil || !fresh {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = g.FCM.SendEach(ctx, []*messaging.Message{{Token: o.User}})
	return err
}
