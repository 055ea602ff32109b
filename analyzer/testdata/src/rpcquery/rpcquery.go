// Package rpcquery: asynq tasks that read a chain over JSON-RPC (an HTTP
// POST behind functions named as reads) and store what they read by key.
package rpcquery

import (
	"context"
	"database/sql"

	"github.com/hibiken/asynq"

	"rpcquery/chain"
	"rpcquery/embed"
	"rpcquery/oauth"
)

type indexer struct {
	db    *sql.DB
	chain *chain.Client
}

// indexBlock reads a block and upserts it by hash: a repeat rewrites the row.
func (x *indexer) indexBlock(ctx context.Context, t *asynq.Task) error {
	hash := string(t.Payload())
	b, err := x.chain.GetBlock(hash)
	if err != nil {
		return err
	}
	_, err = x.db.ExecContext(ctx, `INSERT INTO blocks (hash, body) VALUES ($1, $2) ON CONFLICT (hash) DO UPDATE SET body = EXCLUDED.body`, hash, []byte(b))
	return err
}

// indexBalance reads a balance (two queries deep) and overwrites it.
func (x *indexer) indexBalance(ctx context.Context, t *asynq.Task) error {
	purse := string(t.Payload())
	bal, err := x.chain.GetBalance(purse)
	if err != nil {
		return err
	}
	_, err = x.db.ExecContext(ctx, `UPDATE purses SET balance = $2 WHERE purse = $1`, purse, []byte(bal))
	return err
}

// payout sends a transfer for every task, a repeat too.
func (x *indexer) payout(ctx context.Context, t *asynq.Task) error {
	return x.chain.Transfer("treasury", string(t.Payload()), 10) // want `effect chain.Client.Transfer → chain.Client.call → http.Post in handler indexer.payout is not guarded by a dedup check \(IDEM001\)`
}

// openAccount reads or creates an account: not only a read.
func (x *indexer) openAccount(ctx context.Context, t *asynq.Task) error {
	_, err := x.chain.GetOrCreateAccount(string(t.Payload())) // want `effect chain.Client.GetOrCreateAccount → chain.Client.call → http.Post in handler indexer.openAccount is not guarded by a dedup check \(IDEM001\)`
	return err
}

// embedder is what the embedding tasks are given; embed.Client implements it.
type embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	EmbedAndStore(ctx context.Context, texts []string) error
}

type vectors struct {
	db *sql.DB
	e  embedder
}

// embedChunk embeds a chunk and overwrites its vector: the provider's POST
// only computes.
func (v *vectors) embedChunk(ctx context.Context, t *asynq.Task) error {
	vecs, err := v.e.Embed(ctx, []string{string(t.Payload())})
	if err != nil {
		return err
	}
	_, err = v.db.ExecContext(ctx, `UPDATE chunks SET embedding = $2 WHERE text = $1`, string(t.Payload()), len(vecs))
	return err
}

// storeChunk has the provider store a copy on every delivery.
func (v *vectors) storeChunk(ctx context.Context, t *asynq.Task) error {
	return v.e.EmbedAndStore(ctx, []string{string(t.Payload())}) // want `IDEM001`
}

var _ embedder = (*embed.Client)(nil)

// refreshProfile refreshes the user's token and logs in to the partner
// API, then overwrites the profile: asking for credentials changes
// nothing.
func refreshProfile(ctx context.Context, db *sql.DB, c *oauth.Client, t *asynq.Task) error {
	if err := c.RefreshAccessToken(string(t.Payload())); err != nil {
		return err
	}
	if err := c.Login("svc", "secret"); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, `UPDATE profiles SET synced_at = now() WHERE user_id = $1`, string(t.Payload()))
	return err
}

// sendCode sends a one-time code for every task, a repeat too.
func sendCode(ctx context.Context, c *oauth.Client, t *asynq.Task) error {
	return c.SendToken(string(t.Payload())) // want `effect oauth.Client.SendToken → http.PostForm in handler sendCode is not guarded by a dedup check \(IDEM001\)`
}
