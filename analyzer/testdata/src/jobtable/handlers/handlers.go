// Package handlers are the service's jobs and tasks.
package handlers

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"

	"gorm.io/gorm"

	"jobtable/jobs"
	"jobtable/tasks"
)

// NotifyJob stores a notification for a user.
type NotifyJob struct {
	db     *gorm.DB
	UserID int64
	Text   string
}

// Process inserts the notification: a job run again after its insert (a
// crash before the DELETE, a release after a timeout) shows it twice.
func (j *NotifyJob) Process(ctx context.Context) error {
	return j.db.WithContext(ctx).Exec(`INSERT INTO notifications (user_id, text) VALUES (?, ?)`, j.UserID, j.Text).Error // want `effect gorm.DB.Exec "INSERT INTO notifications .*" in handler NotifyJob.Process is not guarded by a dedup check \(IDEM001\)`
}

// SyncJob refreshes an account's balance from its ledger.
type SyncJob struct {
	db        *gorm.DB
	AccountID int64
}

// Process logs a failed refresh and reports success: the job is deleted
// and the refresh never retried.
func (j *SyncJob) Process(ctx context.Context) error {
	if err := j.db.WithContext(ctx).Exec(`UPDATE accounts SET balance = (SELECT sum(amount) FROM ledger WHERE account_id = ?) WHERE id = ?`, j.AccountID, j.AccountID).Error; err != nil {
		log.Print(err)
	}
	return nil // want `handler SyncJob.Process returns nil when gorm.DB.Exec fails, and its dispatcher acks on that: the message is lost \(IDEM003\)`
}

// ReportJob asks for a report and enqueues its delivery as a job of its
// own: enqueueing publishes.
type ReportJob struct {
	db     *gorm.DB
	UserID int64
}

// Process enqueues the delivery; the job table is the queue.
func (j *ReportJob) Process(ctx context.Context) error {
	return jobs.Enqueue(ctx, j.db, "deliver-report", map[string]int64{"user": j.UserID})
}

// Factories returns the job types.
func Factories(db *gorm.DB) map[string]jobs.Factory {
	return map[string]jobs.Factory{
		"notify": func(p []byte) (jobs.Job, error) {
			j := &NotifyJob{db: db}
			return j, json.Unmarshal(p, j)
		},
		"sync": func(p []byte) (jobs.Job, error) {
			j := &SyncJob{db: db}
			return j, json.Unmarshal(p, j)
		},
		"report": func(p []byte) (jobs.Job, error) {
			j := &ReportJob{db: db}
			return j, json.Unmarshal(p, j)
		},
	}
}

// TaskHandlers returns the task types.
func TaskHandlers(db *sql.DB) map[string]tasks.Handler {
	return map[string]tasks.Handler{
		// Counting a download twice when the task runs again.
		"download": tasks.HandlerFunc(func(ctx context.Context, t tasks.Task) error {
			_, err := db.ExecContext(ctx, `UPDATE media SET downloads = downloads + 1 WHERE id = ?`, t.MediaID) // want `effect sql.DB.ExecContext "UPDATE media SET downloads = downloads \+ 1 .*" in handler func literal in TaskHandlers is not guarded by a dedup check \(IDEM001\)`
			return err
		}),
		// Setting an absolute state: harmless when run again.
		"hide": tasks.HandlerFunc(func(ctx context.Context, t tasks.Task) error {
			_, err := db.ExecContext(ctx, `UPDATE media SET hidden = true WHERE id = ?`, t.MediaID)
			return err
		}),
	}
}
