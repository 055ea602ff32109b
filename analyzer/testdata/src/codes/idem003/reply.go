package idem003

import (
	"context"
	"encoding/json"
	"log"
	"net/http"
	"strings"

	amqp "github.com/rabbitmq/amqp091-go"
)

type cancelReply struct{ Status string }

// cancelLink asks the payment provider to cancel a link; the reply tells
// how a refusal failed.
func cancelLink(ctx context.Context, id string) (*cancelReply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, "https://pay.example/links/"+id+"/status", strings.NewReader(""))
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r cancelReply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	if r.Status != "OK" {
		return &r, errCancel
	}
	return &r, nil
}

type cancelError struct{}

func (cancelError) Error() string { return "cancel refused" }

var errCancel error = cancelError{}

// cancelled goes on to the ack when the provider says the link is
// already cancelled: the refusal is the repeat of a cancel that worked.
func cancelled(ctx context.Context, d amqp.Delivery) {
	reply, err := cancelLink(ctx, d.MessageId)
	if err != nil {
		if reply != nil && reply.Status == "CANCELLED" {
			log.Printf("link %s already cancelled", d.MessageId)
		} else {
			d.Nack(false, true)
			return
		}
	}
	d.Ack(false)
}

// cancelledAnyway acks whatever the refusal was.
func cancelledAnyway(ctx context.Context, d amqp.Delivery) {
	if _, err := cancelLink(ctx, d.MessageId); err != nil {
		log.Printf("cancel %s: %v", d.MessageId, err)
	}
	d.Ack(false) // want `IDEM003`
}
