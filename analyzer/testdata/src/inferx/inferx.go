// Package inferx: handlers that call a model-inference API. An embedding
// or a completion computes an answer and changes nothing remote: no
// effect, but a failing step.
package inferx

import (
	"context"
	"database/sql"
	"log"

	amqp "github.com/rabbitmq/amqp091-go"
	openai "github.com/sashabaranov/go-openai"
)

// Indexer stores document embeddings.
type Indexer struct {
	ai *openai.Client
	db *sql.DB
}

// Index embeds the document and upserts its vector: a redelivery computes
// and writes the same row again.
func (x *Indexer) Index(ctx context.Context, d amqp.Delivery) {
	res, err := x.ai.CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: []string{string(d.Body)}, Model: "text-embedding-3-small"})
	if err != nil {
		d.Nack(false, true)
		return
	}
	if _, err := x.db.ExecContext(ctx, `INSERT INTO embeddings (doc_id, v) VALUES ($1, $2) ON CONFLICT (doc_id) DO UPDATE SET v = EXCLUDED.v`, d.MessageId, len(res.Data)); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// IndexLossy acks when the embedding fails: the document is never indexed.
func (x *Indexer) IndexLossy(ctx context.Context, d amqp.Delivery) {
	res, err := x.ai.CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: []string{string(d.Body)}})
	if err != nil {
		log.Print(err)
		d.Ack(false) // want `IDEM003`
		return
	}
	if _, err := x.db.ExecContext(ctx, `INSERT INTO embeddings (doc_id, v) VALUES ($1, $2) ON CONFLICT (doc_id) DO UPDATE SET v = EXCLUDED.v`, d.MessageId, len(res.Data)); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}
