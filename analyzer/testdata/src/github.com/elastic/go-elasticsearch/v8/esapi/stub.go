// Package esapi is a stub of github.com/elastic/go-elasticsearch/v8/esapi
// for analyzer tests: the document requests and their Do methods, with
// the fields the tests set.
package esapi

import (
	"context"
	"io"
	"net/http"
)

// Transport performs requests.
type Transport interface {
	Perform(*http.Request) (*http.Response, error)
}

// Response is an API response.
type Response struct {
	StatusCode int
	Body       io.ReadCloser
}

// IsError reports whether the response is an error.
func (r *Response) IsError() bool { return r.StatusCode > 299 }

// IndexRequest indexes a document.
type IndexRequest struct {
	Index      string
	DocumentID string
	Body       io.Reader
}

// Do runs the request.
func (r IndexRequest) Do(providedCtx context.Context, transport Transport) (*Response, error) {
	return nil, nil
}

// CreateRequest creates a document with an id.
type CreateRequest struct {
	Index      string
	DocumentID string
	Body       io.Reader
}

// Do runs the request.
func (r CreateRequest) Do(providedCtx context.Context, transport Transport) (*Response, error) {
	return nil, nil
}

// UpdateRequest updates a document.
type UpdateRequest struct {
	Index      string
	DocumentID string
	Body       io.Reader
}

// Do runs the request.
func (r UpdateRequest) Do(providedCtx context.Context, transport Transport) (*Response, error) {
	return nil, nil
}

// DeleteRequest deletes a document.
type DeleteRequest struct {
	Index      string
	DocumentID string
}

// Do runs the request.
func (r DeleteRequest) Do(providedCtx context.Context, transport Transport) (*Response, error) {
	return nil, nil
}
