package squirrelx // want package:"idemfacts"

// Package squirrelx: statements rendered by Masterminds/squirrel are read
// by the builder's kind and the options and suffix of its chain: an insert
// is a plain insert (through QueryRowContext too, with RETURNING), ON
// CONFLICT … DO NOTHING or IGNORE makes it a dedup insert, an update is
// taken as one that assigns.

import (
	"context"
	"database/sql"

	sq "github.com/Masterminds/squirrel"
	"github.com/hibiken/asynq"
)

type Worker struct{ db *sql.DB }

var psql = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)

// create inserts and returns the new row's id.
func (w *Worker) create(ctx context.Context, space string) (int64, error) { // want create:`effects\(sql.DB.QueryRowContext "INSERT INTO spaces \(_builder_\) VALUES \(\$1\) RETURNING id"\)`
	query, args, err := psql.Insert("spaces").Columns("name").Values(space).Suffix("RETURNING id").ToSql()
	if err != nil {
		return 0, err
	}
	var id int64
	err = w.db.QueryRowContext(ctx, query, args...).Scan(&id)
	return id, err
}

// record inserts once per event: a repeat does nothing.
func (w *Worker) record(ctx context.Context, event string) error {
	query, args, err := sq.Insert("events").Columns("id").Values(event).Suffix("ON CONFLICT (id) DO NOTHING").ToSql()
	if err != nil {
		return err
	}
	_, err = w.db.ExecContext(ctx, query, args...)
	return err
}

// recordIgnore is the MySQL form.
func (w *Worker) recordIgnore(ctx context.Context, event string) error {
	query, args, err := sq.Insert("events").Options("IGNORE").Columns("id").Values(event).ToSql()
	if err != nil {
		return err
	}
	_, err = w.db.ExecContext(ctx, query, args...)
	return err
}

// rename assigns: a repeat leaves the same row.
func (w *Worker) rename(ctx context.Context, id, name string) error {
	query, args, err := psql.Update("spaces").Set("name", name).Where(sq.Eq{"id": id}).ToSql()
	if err != nil {
		return err
	}
	_, err = w.db.ExecContext(ctx, query, args...)
	return err
}

func (w *Worker) ProcessTask(ctx context.Context, t *asynq.Task) error {
	name := string(t.Payload())
	if err := w.record(ctx, name); err != nil {
		return err
	}
	if err := w.recordIgnore(ctx, name); err != nil {
		return err
	}
	if err := w.rename(ctx, name, name); err != nil {
		return err
	}
	_, err := w.create(ctx, name) // want `effect squirrelx.Worker.create → sql.DB.QueryRowContext "INSERT INTO spaces .*" in handler Worker.ProcessTask is not guarded`
	return err
}
