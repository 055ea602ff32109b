package builderx // want package:"idemfacts"

// Package builderx: statements rendered by a SQL builder
// (huandu/go-sqlbuilder) are read by the builder's kind: an update that
// assigns is idempotent, one that increments is not, an insert is a plain
// insert.

import (
	"context"
	"database/sql"

	"github.com/hibiken/asynq"
	"github.com/huandu/go-sqlbuilder"
)

type Worker struct{ db *sql.DB }

func (w *Worker) exec(ctx context.Context, query string, args ...interface{}) error { // want exec:`effects\(sql.DB.ExecContext \(query text not constant\)\)`
	_, err := w.db.ExecContext(ctx, query, args...)
	return err
}

// setState assigns: a repeat leaves the same row.
func (w *Worker) setState(ctx context.Context, id, state string) error {
	ub := sqlbuilder.NewUpdateBuilder().Update("jobs")
	ub.Set(ub.Assign("state", state))
	ub.Where(ub.Equal("id", id))
	query, args := ub.Build()
	return w.exec(ctx, query, args...)
}

// bumpAttempts increments: a repeat counts twice.
func (w *Worker) bumpAttempts(ctx context.Context, id string) error { // want bumpAttempts:`effects\(.*"UPDATE jobs SET _builder_ = _builder_ \+ 1"\)`
	ub := sqlbuilder.NewUpdateBuilder().Update("jobs")
	ub.Set(ub.Incr("attempts"))
	ub.Where(ub.Equal("id", id))
	query, args := ub.Build()
	return w.exec(ctx, query, args...)
}

func (w *Worker) addFile(ctx context.Context, id, path string) error { // want addFile:`effects\(.*"INSERT INTO files \(_builder_\) VALUES \(\$1\)"\)`
	query, args := sqlbuilder.NewInsertBuilder().InsertInto("files").Cols("job", "path").Values(id, path).Build()
	return w.exec(ctx, query, args...)
}

func (w *Worker) ProcessTask(ctx context.Context, t *asynq.Task) error {
	id := string(t.Payload())
	if err := w.setState(ctx, id, "running"); err != nil {
		return err
	}
	if err := w.bumpAttempts(ctx, id); err != nil { // want `effect builderx.Worker.bumpAttempts → .*"UPDATE jobs SET _builder_ = _builder_ \+ 1" in handler Worker.ProcessTask is not guarded`
		return err
	}
	return w.addFile(ctx, id, "/tmp/x") // want `effect builderx.Worker.addFile → .*"INSERT INTO files \(_builder_\) VALUES.* in handler Worker.ProcessTask is not guarded`
}
