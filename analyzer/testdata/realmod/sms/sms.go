// Package sms is a small SMS provider SDK that POSTs over net/http.
package sms

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

type Client struct {
	HTTP    *http.Client
	BaseURL string
	Token   string
}

type message struct {
	To   string `json:"to"`
	Text string `json:"text"`
}

// Send sends one text.
func (c *Client) Send(ctx context.Context, to, text string) error {
	return c.post(ctx, to, text, "")
}

// SendWithKey sends one text; the provider drops repeats of the same key.
func (c *Client) SendWithKey(ctx context.Context, to, text, key string) error {
	return c.post(ctx, to, text, key)
}

func (c *Client) post(ctx context.Context, to, text, key string) error {
	body, _ := json.Marshal(message{To: to, Text: text})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("sms: status %d", resp.StatusCode)
	}
	return nil
}
