// Package supabase is a stub of github.com/supabase-community/supabase-go@v0.0.4 for analyzer tests: signatures mirror the real API.
//
// A subset: the client and its From, which hands out PostgREST's query
// builder.
package supabase

import "github.com/supabase-community/postgrest-go"

// Client is a Supabase client.
type Client struct {
	rest *postgrest.Client
}

// ClientOptions are the options of NewClient.
type ClientOptions struct {
	Headers map[string]string
	Schema  string
}

// NewClient creates a new Supabase client.
func NewClient(url, key string, options *ClientOptions) (*Client, error) { return &Client{}, nil }

// From wraps postgrest's From method.
func (c *Client) From(table string) *postgrest.QueryBuilder { return c.rest.From(table) }
