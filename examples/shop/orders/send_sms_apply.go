package orders

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/idemkit/idem/examples/shop/smsprovider"
	"github.com/idemkit/idem/guard"
)

// SendSms sends the text through the SMS provider while holding lease,
// which blocks duplicates of the key for the spec's 5s. The call cannot
// share a transaction with the dedup record, so the lease's key goes to the
// provider as its Idempotency-Key: when the call is repeated — the response
// was lost and the key released, or a crashed worker's lease was taken over
// — the provider recognises the key and does not send again.
//
// A transport error or a 5xx answer releases the key (on_error: release), so
// the redelivery calls again, with the same key. A 4xx answer is mostly the
// provider refusing this text for good: guard.Reject keeps the key failed.
func (s *Service) SendSms(ctx context.Context, lease *guard.Lease, m *SendSms) error {
	body, err := json.Marshal(smsprovider.Request{
		To:       m.Phone,
		Template: m.Template,
		Params:   map[string]string{"order_id": m.OrderID},
	})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.SMSURL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", lease.Key())
	resp, err := s.http.Do(req)
	if err != nil {
		return fmt.Errorf("sms provider: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		err := fmt.Errorf("sms provider: %s: %s", resp.Status, bytes.TrimSpace(msg))
		if permanentStatus(resp.StatusCode) {
			return guard.Reject(err)
		}
		return err
	}
	var sent smsprovider.Response
	if err := json.NewDecoder(resp.Body).Decode(&sent); err != nil {
		return fmt.Errorf("sms provider: %w", err)
	}
	lease.SetResult([]byte(sent.ID)) // later duplicates can read which text it was
	return s.afterEffect(ctx)
}

// permanentStatus reports whether the provider refused the text for good: a
// 4xx answer other than 409 (the key is in flight in another request) and
// 429 (rate limited), which a later try may pass.
func permanentStatus(code int) bool {
	return code >= 400 && code < 500 && code != http.StatusConflict && code != http.StatusTooManyRequests
}
