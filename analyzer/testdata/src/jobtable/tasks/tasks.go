// Package tasks is a service's own task table in SQLite, behind a
// repository: the pool claims a task through the Queue interface and runs
// the handler registered for its type; Complete or Fail records the
// outcome.
package tasks

import (
	"context"
	"database/sql"
	"errors"
	"log"
)

// Task is a claimed task.
type Task struct {
	ID      int64
	Type    string
	MediaID int64
}

// Handler runs one type of task.
type Handler interface {
	Handle(ctx context.Context, t Task) error
}

// HandlerFunc is a function as a Handler.
type HandlerFunc func(ctx context.Context, t Task) error

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, t Task) error { return f(ctx, t) }

// Queue is where tasks are kept.
type Queue interface {
	Claim(ctx context.Context) (*Task, error)
	Complete(ctx context.Context, id int64) error
	Fail(ctx context.Context, t Task, cause string) error
}

// Pool runs the tasks of a queue.
type Pool struct {
	queue    Queue
	handlers map[string]Handler
}

// NewPool returns a pool running the handlers by task type.
func NewPool(q Queue, handlers map[string]Handler) *Pool {
	return &Pool{queue: q, handlers: handlers}
}

// ProcessOnce claims and runs at most one task.
func (p *Pool) ProcessOnce(ctx context.Context) (bool, error) {
	task, err := p.queue.Claim(ctx)
	if err != nil {
		return false, err
	}
	if task == nil {
		return false, nil
	}
	p.dispatch(ctx, *task)
	return true, nil
}

func (p *Pool) dispatch(ctx context.Context, task Task) {
	h, ok := p.handlers[task.Type]
	if !ok {
		_ = p.queue.Fail(ctx, task, "no handler")
		return
	}
	if err := h.Handle(ctx, task); err != nil {
		if ferr := p.queue.Fail(ctx, task, err.Error()); ferr != nil {
			log.Print(ferr)
		}
		return
	}
	if err := p.queue.Complete(ctx, task.ID); err != nil {
		log.Print(err)
	}
}

// Repo keeps tasks in a table.
type Repo struct{ db *sql.DB }

// NewRepo returns the table's repository.
func NewRepo(db *sql.DB) *Repo { return &Repo{db: db} }

// Claim takes the next pending task (the pick is a CTE the UPDATE reads).
func (r *Repo) Claim(ctx context.Context) (*Task, error) {
	row := r.db.QueryRowContext(ctx, `WITH next AS (SELECT id FROM tasks WHERE status = ? ORDER BY id LIMIT 1)
		UPDATE tasks AS t SET status = ? FROM next WHERE t.id = next.id RETURNING t.id, t.type, t.media_id`, "pending", "running")
	var t Task
	err := row.Scan(&t.ID, &t.Type, &t.MediaID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// Complete marks a task done.
func (r *Repo) Complete(ctx context.Context, id int64) error {
	_, err := r.db.ExecContext(ctx, `UPDATE tasks SET status = 'done' WHERE id = ?`, id)
	return err
}

// Fail puts a task back for a retry.
func (r *Repo) Fail(ctx context.Context, t Task, cause string) error {
	_, err := r.db.ExecContext(ctx, `UPDATE tasks SET status = 'pending', last_error = ? WHERE id = ?`, cause, t.ID)
	return err
}
