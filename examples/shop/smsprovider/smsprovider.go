// Package smsprovider is the SMS provider of the shop example: an HTTP
// server on a loopback port that "delivers" texts by counting them, and
// honours an Idempotency-Key header the way Stripe and most payment and
// messaging APIs do: a request repeating a key it has already answered is
// not sent again — the first answer is replayed, with the header
// Idempotent-Replayed: true — and counted as deduplicated.
//
// The API:
//
//	POST /accounts/{account}/messages
//	Content-Type: application/json
//	Idempotency-Key: <optional, at most 255 bytes>
//
//	{"to": "+15550100001", "template": "order_paid", "params": {"order_id": "o-0001"}}
//
//	200 {"id": "sms-42"}                 sent (or replayed, for a known key)
//	400                                  a malformed request: never retry
//	422                                  the key was used with another request body
//
// Each account counts apart, so that one provider serves the naive and the
// guarded consumers side by side.
package smsprovider

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
)

// Request is the body of a send request.
type Request struct {
	To       string            `json:"to"`
	Template string            `json:"template"`
	Params   map[string]string `json:"params,omitempty"`
}

// Response is the body of a successful answer.
type Response struct {
	ID string `json:"id"`
}

// Text identifies what a phone received: the same Text twice is a
// duplicate in the recipient's eyes.
type Text struct {
	To       string
	Template string
	Params   string // the params, sorted, as k=v joined by &
}

// Counts is what an account's traffic did.
type Counts struct {
	Sent    int          // texts delivered to phones
	Deduped int          // requests that repeated a known Idempotency-Key: not sent again
	Texts   map[Text]int // how often each distinct text was delivered
}

// Provider is a running provider. Its methods are safe for concurrent use.
type Provider struct {
	srv *httptest.Server

	mu       sync.Mutex
	next     int
	accounts map[string]*account
}

type account struct {
	counts Counts
	keys   map[string]*keyed
}

// keyed is an idempotency key already answered: the hash of the body it
// came with, and the answer replayed to every repeat.
type keyed struct {
	body   [32]byte
	answer []byte
}

// Start starts a provider on a loopback port. Close stops it.
func Start() *Provider {
	p := &Provider{accounts: map[string]*account{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /accounts/{account}/messages", p.send)
	p.srv = httptest.NewServer(mux)
	return p
}

// URL returns the endpoint of account: POST a Request to it.
func (p *Provider) URL(account string) string {
	return p.srv.URL + "/accounts/" + account + "/messages"
}

// Close stops the provider.
func (p *Provider) Close() { p.srv.Close() }

// Counts returns a copy of the counts of account.
func (p *Provider) Counts(name string) Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := Counts{Texts: map[Text]int{}}
	if a := p.accounts[name]; a != nil {
		c.Sent, c.Deduped = a.counts.Sent, a.counts.Deduped
		for t, n := range a.counts.Texts {
			c.Texts[t] = n
		}
	}
	return c
}

func (p *Provider) account(name string) *account {
	a := p.accounts[name]
	if a == nil {
		a = &account{counts: Counts{Texts: map[Text]int{}}, keys: map[string]*keyed{}}
		p.accounts[name] = a
	}
	return a
}

func (p *Provider) send(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err != nil {
		http.Error(w, "cannot read the body", http.StatusBadRequest)
		return
	}
	var req Request
	if err := json.Unmarshal(raw, &req); err != nil || req.To == "" || req.Template == "" {
		http.Error(w, "want a JSON body with to and template", http.StatusBadRequest)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if len(key) > 255 {
		http.Error(w, "Idempotency-Key longer than 255 bytes", http.StatusBadRequest)
		return
	}
	sum := sha256.Sum256(raw)

	p.mu.Lock()
	defer p.mu.Unlock()
	a := p.account(r.PathValue("account"))
	if key != "" {
		if k := a.keys[key]; k != nil {
			if k.body != sum {
				http.Error(w, "Idempotency-Key reused with another request", http.StatusUnprocessableEntity)
				return
			}
			a.counts.Deduped++
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Idempotent-Replayed", "true")
			w.Write(k.answer)
			return
		}
	}
	// Delivery is instantaneous here, under the lock, so a key is never seen
	// in flight; a real provider answers 409 to a repeat while it is.
	p.next++
	answer, _ := json.Marshal(Response{ID: fmt.Sprintf("sms-%d", p.next)})
	a.counts.Sent++
	a.counts.Texts[Text{To: req.To, Template: req.Template, Params: joinParams(req.Params)}]++
	if key != "" {
		a.keys[key] = &keyed{body: sum, answer: answer}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(answer)
}

func joinParams(params map[string]string) string {
	kv := make([]string, 0, len(params))
	for k, v := range params {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return strings.Join(kv, "&")
}
