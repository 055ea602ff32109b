package heldout4

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"

	"example.com/realmod/db"
	"example.com/realmod/repo"
)

type changeEvent struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	UserID int64  `json:"user_id"`
	Points int    `json:"points"`
	Body   []byte `json:"body"`
}

// CacheInvalidator drops cached entries when products change.
type CacheInvalidator struct {
	NC    *nats.Conn
	Redis *redis.Client
}

// Start subscribes on core NATS (no acks) and deletes the cached keys: DEL is
// idempotent, and a lost message only costs a cache miss until the TTL.
//
// truth: ok
func (c *CacheInvalidator) Start(ctx context.Context) (*nats.Subscription, error) {
	return c.NC.Subscribe("catalog.changed", func(m *nats.Msg) {
		var ev changeEvent
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			return
		}
		if err := c.Redis.Del(ctx, "product:"+ev.ID, "product:"+ev.ID+":price").Err(); err != nil {
			slog.Warn("cache invalidation", "id", ev.ID, "err", err)
		}
	})
}

// SearchIndexer feeds the search index.
type SearchIndexer struct{ Index repo.Indexer }

// Handle writes the document with AddDocument, which overwrites by id, and
// acks after it; a failure naks. Replays rewrite the same document.
//
// truth: ok
func (s *SearchIndexer) Handle(msg jetstream.Msg) {
	var ev changeEvent
	if err := json.Unmarshal(msg.Data(), &ev); err != nil || ev.ID == "" {
		_ = msg.Term()
		return
	}
	if err := s.Index.AddDocument(context.Background(), ev.ID, ev.Body); err != nil {
		_ = msg.Nak()
		return
	}
	_ = msg.Ack()
}

// ReferralBonus credits referral points.
type ReferralBonus struct{ DB *sql.DB }

// Handle credits the points in a goroutine "to keep the consumer fast" and
// acks at once: a crash loses the bonus, and nothing stops a redelivery from
// crediting it twice.
//
// truth: bug IDEM002 IDEM001
func (r *ReferralBonus) Handle(msg jetstream.Msg) {
	var ev changeEvent
	if err := json.Unmarshal(msg.Data(), &ev); err != nil {
		_ = msg.Term()
		return
	}
	go func() {
		if _, err := r.DB.ExecContext(context.Background(),
			`UPDATE users SET points = points + $1 WHERE id = $2`, ev.Points, ev.UserID); err != nil {
			slog.Error("referral bonus", "err", err)
		}
	}()
	_ = msg.Ack()
}

// AuditTrail appends audit rows.
type AuditTrail struct{ Q *db.Queries }

// Handle acks in a defer, so a failed insert is acked too and the audit row is
// lost; and the plain INSERT has no dedup, so a redelivery after a crash
// writes the row twice.
//
// truth: bug IDEM003 IDEM001
func (a *AuditTrail) Handle(msg jetstream.Msg) {
	defer func() { _ = msg.Ack() }()
	var ev changeEvent
	if err := json.Unmarshal(msg.Data(), &ev); err != nil {
		return
	}
	if err := a.Q.InsertAudit(context.Background(), ev.Kind, msg.Data()); err != nil {
		slog.Error("audit", "err", err)
	}
}
