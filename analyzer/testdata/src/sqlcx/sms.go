package sqlcx

import (
	"bytes"
	"context"
	"net/http"
)

type SMS struct{ HTTP *http.Client }

// Send sends without a key.
func (c *SMS) Send(ctx context.Context, to, text string) error { // want Send:`effects\(sqlcx.SMS.post → http.Client.Do POST\)`
	return c.post(ctx, to, text, "")
}

// SendWithKey sends with a key the provider drops repeats of; an empty key
// sends none.
func (c *SMS) SendWithKey(ctx context.Context, to, text, key string) error { // want SendWithKey:`effects\(sqlcx.SMS.post → http.Client.Do POST\)`
	return c.post(ctx, to, text, key)
}

// SendLogged sets the header only when logging is on: a condition that is
// not the key, so the request counts as keyless.
func (c *SMS) SendLogged(ctx context.Context, to, key string, verbose bool) error { // want SendLogged:`effects\(http.Client.Do POST\)`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://sms.example/v1", bytes.NewBufferString(to))
	if err != nil {
		return err
	}
	if verbose {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func (c *SMS) post(ctx context.Context, to, text, key string) error { // want post:`effects\(http.Client.Do POST\)`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://sms.example/v1", bytes.NewBufferString(to+text))
	if err != nil {
		return err
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
