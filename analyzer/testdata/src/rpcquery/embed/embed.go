// Package embed is a program's own client of an embedding provider: a
// POST that computes vectors and changes nothing.
package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
)

// Client posts texts to the provider.
type Client struct {
	endpoint string
	hc       *http.Client
}

// Embed returns one vector per text.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(map[string]any{"input": texts})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct{ Data [][]float32 }
	return out.Data, json.NewDecoder(resp.Body).Decode(&out)
}

// EmbedAndStore embeds the texts and has the provider store them: its name
// joins a write to the computation.
func (c *Client) EmbedAndStore(ctx context.Context, texts []string) error {
	body, err := json.Marshal(map[string]any{"input": texts, "store": true})
	if err != nil {
		return err
	}
	resp, err := c.hc.Post(c.endpoint, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
