// Package batchtest is a guarded batch handler for the broker adapters'
// tests of batch consumption: a real guard store (SQLite in a temporary
// directory) behind a guard.BatchHandler whose messages say what their
// effect does, so a test can put a poison message, a failing one and
// duplicates in one batch and check what the broker did with each.
package batchtest

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "modernc.org/sqlite" // the store's driver

	"github.com/idemkit/idem/guard"
)

// Consumer is the consumer name of the handler's claims.
const Consumer = "deduct_inventory"

// The prefixes of a body that make its effect fail. A body is its
// message's key, possibly after one of them.
const (
	// Poison: the effect rejects the message (guard.Reject): permanent.
	Poison = "poison:"
	// Flaky: the effect fails with a transient error the first time it
	// runs, and succeeds afterwards.
	Flaky = "flaky:"
)

// ErrFlaky is the transient error of a Flaky message's first effect.
var ErrFlaky = errors.New("batchtest: the stock service timed out")

// Call is one call of the handler: the bodies it got and what it answered.
type Call struct {
	Bodies  []string
	Results []guard.Result
}

// Handler is a guard.BatchHandler over a SQLite guard store. Its effect
// adds one to the row of the message's key in an effects table, so an
// effect that ran twice shows.
type Handler struct {
	db    *sql.DB
	store *guard.SQLStore

	mu    sync.Mutex
	tries map[string]int // effects run per body, rolled back or not
	calls []Call
}

var _ guard.BatchHandler = (*Handler)(nil)

// New returns a handler on a fresh SQLite store, closed when t ends.
func New(t testing.TB) *Handler {
	t.Helper()
	db, err := sql.Open("sqlite", guard.SQLiteDSN(filepath.Join(t.TempDir(), "idem.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store, err := guard.NewSQLStore(db, guard.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE effects (k TEXT PRIMARY KEY, n INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return &Handler{db: db, store: store, tries: map[string]int{}}
}

func key(body string) string {
	var k guard.KeyBuilder
	k.String(strings.TrimPrefix(strings.TrimPrefix(body, Poison), Flaky))
	return k.Key()
}

// apply is the effect of body in tx.
func (h *Handler) apply(body string) func(ctx context.Context, tx *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		h.mu.Lock()
		h.tries[body]++
		try := h.tries[body]
		h.mu.Unlock()
		switch {
		case strings.HasPrefix(body, Poison):
			return guard.Reject(errors.New("batchtest: unknown sku"))
		case strings.HasPrefix(body, Flaky) && try == 1:
			return ErrFlaky
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO effects (k, n) VALUES (?, 1) ON CONFLICT (k) DO UPDATE SET n = n + 1`, body)
		return err
	}
}

// Handle handles one message with Do.
func (h *Handler) Handle(ctx context.Context, body []byte) (guard.Outcome, error) {
	b := string(body)
	out, err := h.store.Do(ctx, Consumer, key(b), nil, h.apply(b))
	h.record([]string{b}, []guard.Result{{Outcome: out, Err: err}})
	return out, err
}

// HandleBatch handles a batch with one DoBatch.
func (h *Handler) HandleBatch(ctx context.Context, bodies [][]byte) []guard.Result {
	msgs := make([]guard.TxMessage[*sql.Tx], len(bodies))
	bs := make([]string, len(bodies))
	for i, body := range bodies {
		bs[i] = string(body)
		msgs[i] = guard.TxMessage[*sql.Tx]{Consumer: Consumer, Key: key(bs[i]), Apply: h.apply(bs[i])}
	}
	res := h.store.DoBatch(ctx, msgs)
	h.record(bs, res)
	return res
}

func (h *Handler) record(bodies []string, res []guard.Result) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, Call{Bodies: bodies, Results: append([]guard.Result(nil), res...)})
}

// Calls returns the calls so far, Handle's and HandleBatch's, in order.
func (h *Handler) Calls() []Call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Call(nil), h.calls...)
}

// Effects returns how many times each body's effect committed.
func (h *Handler) Effects(t testing.TB) map[string]int {
	t.Helper()
	rows, err := h.db.Query(`SELECT k, n FROM effects`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	m := map[string]int{}
	for rows.Next() {
		var (
			k string
			n int
		)
		if err := rows.Scan(&k, &n); err != nil {
			t.Fatal(err)
		}
		m[k] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// Outcome returns the answer to body in the first call that got it.
func (h *Handler) Outcome(body string) (guard.Result, bool) {
	for _, c := range h.Calls() {
		for i, b := range c.Bodies {
			if b == body {
				return c.Results[i], true
			}
		}
	}
	return guard.Result{}, false
}
