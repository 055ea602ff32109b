// Package dpkafkax: consumers on dp-kafka. A handler registered with
// RegisterHandler has its message committed whatever it returns; a v2
// consumer reads the Upstream channel and commits by hand.
package dpkafkax

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	kafka "github.com/ONSdigital/dp-kafka/v4"
)

type imported struct {
	InstanceID string `json:"instance_id"`
	Rows       int    `json:"rows"`
}

type Handler struct {
	db       *sql.DB
	producer kafka.IProducer
}

// Handle counts the rows of an import: an accumulating write, and a failure
// returned to a consumer that commits the message anyway.
func (h *Handler) Handle(ctx context.Context, workerID int, msg kafka.Message) error {
	var ev imported
	if err := json.Unmarshal(msg.GetData(), &ev); err != nil {
		return err // a poison message: committed on purpose
	}
	if _, err := h.db.ExecContext(ctx, `UPDATE instances SET rows = rows + $1 WHERE id = $2`, ev.Rows, ev.InstanceID); err != nil { // want `effect sql.DB.ExecContext "UPDATE instances SET rows = rows \+ \$1 WHERE id = \$2" in handler Handler.Handle is not guarded by a dedup check`
		return err // want `handler Handler.Handle returns when sql.DB.ExecContext fails, and its consumer commits the message whatever the handler returns: the message is lost`
	}
	return nil
}

// Forward sends an event on; a failed send is returned, and lost.
func (h *Handler) Forward(ctx context.Context, workerID int, msg kafka.Message) error {
	if err := h.producer.SendBytes(ctx, msg.GetData()); err != nil {
		return errors.Join(errors.New("forward"), err) // want `handler Handler.Forward returns when kafka.IProducer.SendBytes fails, and its consumer commits`
	}
	return nil
}

// Replace overwrites the instance's state: idempotent, so no IDEM001; but
// the write's error is dropped, and a failed overwrite is committed and
// lost like any other step's.
func (h *Handler) Replace(ctx context.Context, batch []kafka.Message) error {
	for _, m := range batch {
		var ev imported
		if json.Unmarshal(m.GetData(), &ev) != nil {
			continue
		}
		h.db.ExecContext(ctx, `UPDATE instances SET rows = $1 WHERE id = $2`, ev.Rows, ev.InstanceID)
	}
	return nil // want `handler Handler.Replace returns nil when sql.DB.ExecContext fails: its error is discarded`
}

func start(ctx context.Context, cg kafka.IConsumerGroup, h *Handler) error {
	if err := cg.RegisterHandler(ctx, h.Handle); err != nil {
		return err
	}
	return cg.RegisterBatchHandler(ctx, h.Replace)
}

func startForward(ctx context.Context, cg *kafka.ConsumerGroup, h *Handler) error {
	return cg.RegisterHandler(ctx, h.Forward)
}
