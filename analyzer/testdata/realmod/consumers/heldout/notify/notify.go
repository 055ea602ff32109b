// Package notify holds the notification service's consumers on NATS
// (legacy JetStream subscriptions and the jetstream package): SMS, e-mail
// and push sends through HTTP providers.
package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/idemkit/idem/guard"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"

	"example.com/realmod/consumers/heldout/platform"
	"example.com/realmod/sms"
)

// Shipped is the payload of orders.shipped.
type Shipped struct {
	OrderID  string `json:"order_id"`
	Phone    string `json:"phone"`
	Email    string `json:"email"`
	DeviceID string `json:"device_id"`
	Tracking string `json:"tracking"`
}

// SubscribeShippedSMS texts the customer, retrying the provider up to three
// times; a timeout that did reach the provider sends the text again.
//
// truth: bug IDEM001
func SubscribeShippedSMS(js nats.JetStreamContext, c *sms.Client) (*nats.Subscription, error) {
	return js.Subscribe("orders.shipped", func(m *nats.Msg) {
		var s Shipped
		if err := json.Unmarshal(m.Data, &s); err != nil {
			_ = m.Term()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var err error
		for attempt := 0; attempt < 3; attempt++ {
			if err = c.Send(ctx, s.Phone, "Your parcel is on its way: "+s.Tracking); err == nil {
				break
			}
			time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
		}
		if err != nil {
			_ = m.Nak()
			return
		}
		_ = m.Ack()
	}, nats.Durable("sms-shipped"), nats.ManualAck(), nats.AckWait(30*time.Second))
}

// ConsumeOrderSMS claims a lease per order, hands the lease key to the
// provider and completes or releases the claim.
//
// truth: ok
func ConsumeOrderSMS(ctx context.Context, cons jetstream.Consumer, st guard.Store, c *sms.Client) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		var s Shipped
		if err := json.Unmarshal(msg.Data(), &s); err != nil {
			_ = msg.Term()
			return
		}
		lease, err := st.Claim(ctx, "send_sms", s.OrderID, msg.Data())
		var busy *guard.InProgressError
		if errors.As(err, &busy) {
			_ = msg.NakWithDelay(busy.RetryAfter)
			return
		}
		if err != nil {
			if guard.Permanent(err) {
				_ = msg.Term()
				return
			}
			_ = msg.Nak()
			return
		}
		if lease.Outcome() == guard.Duplicate {
			_ = msg.Ack()
			return
		}
		if err := c.SendWithKey(ctx, s.Phone, "Shipped: "+s.Tracking, lease.Key()); err != nil {
			_ = lease.Release(ctx)
			_ = msg.Nak()
			return
		}
		if err := lease.Complete(ctx, nil); err != nil {
			log.Printf("sms %s: complete: %v", s.OrderID, err)
		}
		_ = msg.Ack()
	})
}

// ConsumeReceiptSMS acknowledges up front so a slow provider cannot exceed
// AckWait, then sends under a lease: a crash after the ack loses the text.
//
// truth: bug IDEM002
func ConsumeReceiptSMS(ctx context.Context, cons jetstream.Consumer, st guard.Store, c *sms.Client) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		if err := msg.DoubleAck(ctx); err != nil {
			return
		}
		var s Shipped
		if err := json.Unmarshal(msg.Data(), &s); err != nil {
			return
		}
		if _, err := st.Run(ctx, "receipt_sms", s.OrderID, msg.Data(), func(ctx context.Context, l *guard.Lease) error {
			return c.SendWithKey(ctx, s.Phone, "Thanks! Receipt for "+s.OrderID, l.Key())
		}); err != nil {
			log.Printf("receipt sms %s: %v", s.OrderID, err)
		}
	})
}

// OTPRequest asks for a one-time password text.
type OTPRequest struct {
	RequestID string `json:"request_id"`
	Phone     string `json:"phone"`
	Code      string `json:"code"`
}

// ConsumeOTP texts each requested code once: the request id is marked first
// and forgotten again when the send fails, so the redelivery retries.
//
// truth: ok
func ConsumeOTP(ctx context.Context, cons jetstream.Consumer, rdb *redis.Client, c *sms.Client) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		var req OTPRequest
		if err := json.Unmarshal(msg.Data(), &req); err != nil || req.RequestID == "" {
			_ = msg.Term()
			return
		}
		key := "otp:" + req.RequestID
		fresh, err := platform.FirstSeen(ctx, rdb, key, 10*time.Minute)
		if err != nil {
			_ = msg.Nak()
			return
		}
		if !fresh {
			_ = msg.Ack()
			return
		}
		if err := c.Send(ctx, req.Phone, "Your code is "+req.Code); err != nil {
			_ = platform.Forget(ctx, rdb, key)
			_ = msg.Nak()
			return
		}
		_ = msg.Ack()
	})
}

// Mailer posts to the e-mail and push providers directly.
type Mailer struct {
	HTTP     *http.Client
	MailURL  string
	PushURL  string
	APIToken string
}

func (m *Mailer) post(ctx context.Context, url string, payload any, idemKey string) error {
	body, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+m.APIToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", idemKey)
	resp, err := m.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("provider: %s", resp.Status)
	}
	return nil
}

// ConsumeShippedEmail posts the e-mail with an Idempotency-Key derived from
// the order, so the provider drops a redelivered send.
//
// truth: ok
func (m *Mailer) ConsumeShippedEmail(ctx context.Context, cons jetstream.Consumer) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		var s Shipped
		if err := json.Unmarshal(msg.Data(), &s); err != nil {
			_ = msg.Term()
			return
		}
		body, _ := json.Marshal(map[string]string{"to": s.Email, "template": "shipped", "tracking": s.Tracking})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.MailURL+"/v3/mail/send", bytes.NewReader(body))
		if err != nil {
			_ = msg.Term()
			return
		}
		req.Header.Set("Authorization", "Bearer "+m.APIToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "shipped-mail-"+s.OrderID)
		resp, err := m.HTTP.Do(req)
		if err != nil {
			_ = msg.Nak()
			return
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			_ = msg.Nak()
			return
		}
		if resp.StatusCode >= 300 {
			log.Printf("shipped mail %s: %s", s.OrderID, resp.Status)
			_ = msg.Term()
			return
		}
		_ = msg.Ack()
	})
}

// ConsumeShippedPush sends a push notification with an Idempotency-Key that
// is minted per attempt, so the provider sees every redelivery as new.
//
// truth: bug IDEM001
func (m *Mailer) ConsumeShippedPush(ctx context.Context, cons jetstream.Consumer) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(msg jetstream.Msg) {
		var s Shipped
		if err := json.Unmarshal(msg.Data(), &s); err != nil {
			_ = msg.Term()
			return
		}
		payload := map[string]string{"device": s.DeviceID, "title": "Shipped", "body": "Tracking " + s.Tracking}
		if err := m.post(ctx, m.PushURL+"/v1/push", payload, platform.NewRequestID()); err != nil {
			_ = msg.Nak()
			return
		}
		_ = msg.Ack()
	})
}

// SubscribeDeliveredSMS runs the send under a lease but acknowledges the
// message when the guard fails, so a transient error drops the text.
//
// truth: bug IDEM003
func SubscribeDeliveredSMS(js nats.JetStreamContext, st guard.Store, c *sms.Client) (*nats.Subscription, error) {
	return js.QueueSubscribe("orders.delivered", "sms", func(m *nats.Msg) {
		var s Shipped
		if err := json.Unmarshal(m.Data, &s); err != nil {
			_ = m.Term()
			return
		}
		ctx := context.Background()
		_, err := st.Run(ctx, "delivered_sms", s.OrderID, m.Data, func(ctx context.Context, l *guard.Lease) error {
			return c.SendWithKey(ctx, s.Phone, "Delivered. Enjoy!", l.Key())
		})
		if err != nil {
			log.Printf("delivered sms %s: %v (not retrying)", s.OrderID, err)
			_ = m.Ack()
			return
		}
		_ = m.Ack()
	}, nats.Durable("sms-delivered"), nats.ManualAck())
}
