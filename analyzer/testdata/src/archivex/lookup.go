package archivex

import (
	"context"
	"database/sql"
	"encoding/json"

	amqp "github.com/rabbitmq/amqp091-go"
)

type file struct {
	ID, Path string
}

// fileByPath reads a file's row; its results go through a slot, for the
// deferred span.
func fileByPath(ctx context.Context, tx *sql.Tx, path string) (*file, error) {
	defer span()()
	f := file{}
	if err := tx.QueryRowContext(ctx, `SELECT id, path FROM files WHERE path = $1`, path).Scan(&f.ID, &f.Path); err != nil {
		return nil, err
	}
	return &f, nil
}

func span() func() { return func() {} }

// register inserts a file only when the lookup finds none: a check-then-act
// (accepted; -strict reports it).
func register(ctx context.Context, db *sql.DB, d amqp.Delivery) error {
	var m struct{ ID, Path string }
	if err := json.Unmarshal(d.Body, &m); err != nil {
		return d.Nack(false, false)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return d.Nack(false, true)
	}
	defer tx.Rollback()
	_, err = fileByPath(ctx, tx, m.Path)
	if err == sql.ErrNoRows {
		if _, err := tx.ExecContext(ctx, `INSERT INTO files (id, path) VALUES ($1, $2)`, m.ID, m.Path); err != nil {
			return d.Nack(false, true)
		}
	} else if err != nil {
		return d.Nack(false, true)
	}
	if err := tx.Commit(); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}
