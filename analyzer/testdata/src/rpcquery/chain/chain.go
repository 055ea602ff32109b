// Package chain is a JSON-RPC client: every call, a read or a transfer, is
// an HTTP POST.
package chain

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// Client calls a node's JSON-RPC endpoint.
type Client struct{ endpoint string }

// call posts one JSON-RPC request.
func (c *Client) call(method string, params any) (json.RawMessage, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	resp, err := http.Post(c.endpoint, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out json.RawMessage
	return out, json.NewDecoder(resp.Body).Decode(&out)
}

// GetBlock reads a block: a query sent as a POST.
func (c *Client) GetBlock(hash string) (json.RawMessage, error) {
	return c.call("chain_get_block", []string{hash})
}

// GetStateRootHash reads the latest state root.
func (c *Client) GetStateRootHash() (string, error) {
	r, err := c.call("chain_get_state_root_hash", nil)
	return string(r), err
}

// GetBalance reads a purse's balance, at the latest state root.
func (c *Client) GetBalance(purse string) (json.RawMessage, error) {
	root, err := c.GetStateRootHash()
	if err != nil {
		return nil, err
	}
	return c.call("state_get_balance", []string{root, purse})
}

// Transfer sends a transfer: a write.
func (c *Client) Transfer(from, to string, amount int) error {
	_, err := c.call("account_put_transfer", []any{from, to, amount})
	return err
}

// GetOrCreateAccount reads an account and creates it when there is none:
// its name joins a write to the read.
func (c *Client) GetOrCreateAccount(key string) (json.RawMessage, error) {
	return c.call("account_get_or_create", []string{key})
}
