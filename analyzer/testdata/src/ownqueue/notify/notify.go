// Package notify records one notification per user and issue.
package notify

import (
	"context"
	"database/sql"
	"log"

	"ownqueue/models"
	"ownqueue/queue"
)

// Opts is a queued notification.
type Opts struct {
	UserID, IssueID int64
}

// Service holds the notification queue.
type Service struct {
	db *sql.DB
	q  *queue.Queue[Opts]
}

// New creates the queue.
func New(ctx context.Context, db *sql.DB) *Service {
	s := &Service{db: db}
	s.q = queue.Create(ctx, "notification", s.handle)
	queue.Create(ctx, "activity", s.record)
	queue.Create(ctx, "seen", s.seen)
	return s
}

// handle upserts one row per user and issue (a redelivery changes
// nothing), but a failure is logged and the item reported handled.
func (s *Service) handle(items ...Opts) []Opts {
	for _, o := range items {
		if _, err := s.db.ExecContext(context.Background(), "INSERT INTO notification (user_id, issue_id) VALUES ($1, $2) ON CONFLICT (user_id, issue_id) DO UPDATE SET updated = now()", o.UserID, o.IssueID); err != nil {
			log.Printf("notification: %v", err)
		}
	}
	return nil // want `handler Service.handle returns nil when sql.DB.ExecContext .*fails, and its dispatcher acks on that: the message is lost \(IDEM003\)`
}

// record adds a feed row per item, through the models' own Engine
// interface (xorm behind it): a redelivery adds it again.
func (s *Service) record(items ...Opts) []Opts {
	var failed []Opts
	for _, o := range items {
		if err := models.Insert(&models.Activity{UserID: o.UserID}); err != nil { // want `effect models.Insert → models.Engine.Insert in handler Service.record is not guarded by a dedup check \(IDEM001\)`
			failed = append(failed, o)
		}
	}
	return failed
}

// seen sets a column to a value: a redelivery changes nothing.
func (s *Service) seen(items ...Opts) []Opts {
	var failed []Opts
	for _, o := range items {
		if err := models.SetSeen(o.IssueID); err != nil {
			failed = append(failed, o)
		}
	}
	return failed
}
