// Package openai is a stub of github.com/sashabaranov/go-openai@v1.43.0 for analyzer tests: signatures mirror the real API.
package openai

import (
	"bytes"
	"context"
	"net/http"
)

// Client is OpenAI's API client.
type Client struct{ base string }

// NewClient returns a client with the default configuration.
func NewClient(authToken string) *Client { return &Client{} }

// EmbeddingModel names an embedding model.
type EmbeddingModel string

// EmbeddingRequest asks for the embeddings of Input.
type EmbeddingRequest struct {
	Input any            `json:"input"`
	Model EmbeddingModel `json:"model"`
	User  string         `json:"user,omitempty"`
}

// Convert returns r.
func (r EmbeddingRequest) Convert() EmbeddingRequest { return r }

// EmbeddingRequestConverter is a request for embeddings.
type EmbeddingRequestConverter interface {
	Convert() EmbeddingRequest
}

// Embedding is one vector.
type Embedding struct {
	Object    string    `json:"object"`
	Embedding []float32 `json:"embedding"`
	Index     int       `json:"index"`
}

// EmbeddingResponse holds the embeddings.
type EmbeddingResponse struct {
	Object string         `json:"object"`
	Data   []Embedding    `json:"data"`
	Model  EmbeddingModel `json:"model"`
}

// CreateEmbeddings computes embeddings: the real client POSTs to
// /embeddings, as this stub does, so a package read from source would show
// an HTTP POST.
func (c *Client) CreateEmbeddings(ctx context.Context, conv EmbeddingRequestConverter) (res EmbeddingResponse, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/embeddings", bytes.NewReader(nil))
	if err != nil {
		return res, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return res, err
	}
	resp.Body.Close()
	return res, nil
}
