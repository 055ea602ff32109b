// Package bookkeepingiface: a status row written through an interface
// whose every implementation in the program only writes bookkeeping (or
// only logs, a mock) loses nothing when it fails; a business write through
// an interface does.
package bookkeepingiface

import (
	"context"
	"database/sql"
	"log"

	"github.com/hibiken/asynq"
	"github.com/supabase-community/supabase-go"
)

// StatusRecorder records how a scrape went.
type StatusRecorder interface {
	RecordStatus(resort string, ok bool) error
}

// supabaseStatus inserts a scraping_status row.
type supabaseStatus struct{ client *supabase.Client }

func (s *supabaseStatus) RecordStatus(resort string, ok bool) error {
	_, _, err := s.client.From("scraping_status").Insert(map[string]interface{}{"resort": resort, "success": ok}, false, "", "", "").Execute()
	if err != nil {
		log.Printf("status: %v", err)
	}
	return err
}

// mockStatus only logs.
type mockStatus struct{}

func (mockStatus) RecordStatus(resort string, ok bool) error {
	log.Printf("mock status %s %v", resort, ok)
	return nil
}

// Ledger books a payment.
type Ledger interface {
	Book(ctx context.Context, id string) error
}

type sqlLedger struct{ db *sql.DB }

func (l *sqlLedger) Book(ctx context.Context, id string) error {
	_, err := l.db.ExecContext(ctx, `INSERT INTO payments (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`, id)
	return err
}

// Worker scrapes and books.
type Worker struct {
	status StatusRecorder
	ledger Ledger
	db     *sql.DB
}

// HandleScrape upserts the snapshot and logs a failed status row: no
// diagnostic.
func (w *Worker) HandleScrape(ctx context.Context, t *asynq.Task) error {
	if _, err := w.db.ExecContext(ctx, `INSERT INTO snapshots (resort, body) VALUES ($1, $2) ON CONFLICT (resort) DO UPDATE SET body = EXCLUDED.body`, "r1", t.Payload()); err != nil {
		return err
	}
	if err := w.status.RecordStatus("r1", true); err != nil {
		log.Printf("record: %v", err)
	}
	return nil
}

// HandlePayment logs a failed booking and succeeds: the payment is lost.
func (w *Worker) HandlePayment(ctx context.Context, t *asynq.Task) error {
	if err := w.ledger.Book(ctx, string(t.Payload())); err != nil {
		log.Printf("book: %v", err)
	}
	return nil // want `handler Worker.HandlePayment returns nil when bookkeepingiface.Ledger.Book fails`
}

// Processor handles a payment's body; ProcessorFunc adapts a function.
type Processor interface {
	Process(ctx context.Context, body []byte) error
}

// ProcessorFunc lets a function be a Processor.
type ProcessorFunc func(ctx context.Context, body []byte) error

// Process calls f: an adapter whose own body does nothing but the call.
func (f ProcessorFunc) Process(ctx context.Context, body []byte) error { return f(ctx, body) }

// HandleVia logs a failure of the processor behind the adapter and
// succeeds: the adapter's work is the function's, and it is lost.
func (w *Worker) HandleVia(ctx context.Context, t *asynq.Task) error {
	var p Processor = ProcessorFunc(func(ctx context.Context, body []byte) error {
		_, err := w.db.ExecContext(ctx, `INSERT INTO payments (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`, string(body))
		return err
	})
	if err := p.Process(ctx, t.Payload()); err != nil {
		log.Printf("process: %v", err)
	}
	return nil // want `handler Worker.HandleVia returns nil when bookkeepingiface.Processor.Process fails`
}

// Register wires both implementations and the handlers.
func Register(mux *asynq.ServeMux, db *sql.DB, client *supabase.Client, mock bool) {
	var st StatusRecorder = &supabaseStatus{client: client}
	if mock {
		st = mockStatus{}
	}
	w := &Worker{status: st, ledger: &sqlLedger{db: db}, db: db}
	mux.HandleFunc("scrape", w.HandleScrape)
	mux.HandleFunc("pay", w.HandlePayment)
	mux.HandleFunc("via", w.HandleVia)
}
