// Package reporterx: a failure handed on to a handler of failures (an
// error reporter, a function that marks the job failed) is handled on
// purpose, as a dead-letter publish is; one only logged or wrapped is
// swallowed. Whole-program mode only: the modular mode cannot see what
// another package does with the error.
package reporterx

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	kafka "github.com/ONSdigital/dp-kafka/v4"
	"github.com/ONSdigital/dp-reporter-client/reporter"
	"github.com/dapr/kit/logger"
)

type Handler struct {
	db       *sql.DB
	reporter reporter.ErrorReporter
	producer kafka.IProducer
	logger   logger.Logger
}

func (h *Handler) importRows(ctx context.Context, msg kafka.Message) error {
	_, err := h.db.ExecContext(ctx, `UPDATE instances SET state = 'imported' WHERE id = $1`, string(msg.GetData()))
	return err
}

// Reported hands a failure to the import error reporter before the
// consumer commits.
func (h *Handler) Reported(ctx context.Context, workerID int, msg kafka.Message) error {
	if err := h.importRows(ctx, msg); err != nil {
		h.reporter.Notify(string(msg.GetData()), "import failed", err)
		return err
	}
	return nil
}

type failure struct {
	err error
	id  string
}

// markFailed records the failure: it publishes an import-error event.
func (h *Handler) markFailed(ctx context.Context, f *failure) error {
	return h.producer.SendJSON(ctx, map[string]string{"id": f.id, "error": f.err.Error()})
}

// Marked hands a failure, wrapped in a struct, to markFailed.
func (h *Handler) Marked(ctx context.Context, workerID int, msg kafka.Message) error {
	if err := h.importRows(ctx, msg); err != nil {
		return h.markFailed(ctx, &failure{err: fmt.Errorf("import: %w", err), id: string(msg.GetData())})
	}
	return nil
}

// logFailure only logs.
func logFailure(ctx context.Context, err error) {
	log.Printf("import failed: %v", err)
}

// Logged only logs and wraps its failure: lost when the consumer commits.
func (h *Handler) Logged(ctx context.Context, workerID int, msg kafka.Message) error {
	if err := h.importRows(ctx, msg); err != nil {
		logFailure(ctx, err)
		return fmt.Errorf("import: %w", err) // want `handler Handler.Logged returns when reporterx.Handler.importRows fails, and its consumer commits the message whatever the handler returns`
	}
	return nil
}

// LoggedThroughFramework hands its failure to a framework's logger
// interface, which the catalog does not describe: named like logging, it
// handles nothing.
func (h *Handler) LoggedThroughFramework(ctx context.Context, workerID int, msg kafka.Message) error {
	if err := h.importRows(ctx, msg); err != nil {
		h.logger.Errorf("import failed: %v", err)
		return err // want `handler Handler.LoggedThroughFramework returns when reporterx.Handler.importRows fails, and its consumer commits the message whatever the handler returns`
	}
	return nil
}

func start(ctx context.Context, cg kafka.IConsumerGroup, h *Handler) {
	cg.RegisterHandler(ctx, h.Reported)
	cg.RegisterHandler(ctx, h.Marked)
	cg.RegisterHandler(ctx, h.Logged)
	cg.RegisterHandler(ctx, h.LoggedThroughFramework)
}
