package smsdk // want package:"idemfacts"

// Package smsdk is a dependency-level SMS SDK: its Send POSTs.

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

type Client struct {
	HTTP *http.Client
	Base string
}

func (c *Client) Send(ctx context.Context, to, text string) error { // want Send:`effects\(http.Client.Do POST\)`
	form := url.Values{"to": {to}, "text": {text}}
	req, err := http.NewRequestWithContext(ctx, "POST", c.Base+"/messages", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// SendIdempotent passes a key the provider dedups on: the caller's key
// decides, so its fact names the effect for callers that pass "" or a
// random id.
func (c *Client) SendIdempotent(ctx context.Context, key, to, text string) error { // want SendIdempotent:`effects\(http.Client.Do POST\)`
	req, err := http.NewRequestWithContext(ctx, "POST", c.Base+"/messages", strings.NewReader(to+text))
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", key)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Status is a read.
func (c *Client) Status(ctx context.Context, id string) (*http.Response, error) {
	return c.HTTP.Get(c.Base + "/messages/" + id)
}
