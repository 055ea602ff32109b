package embedx // want package:"idemfacts"

// Package embedx: a store reaches the database through the program's own
// accessor, whose implementation embeds *sqlx.DB (the promoted methods of
// database/sql do the work) behind an unexported interface; handlers call
// the store.

import (
	"context"
	"database/sql"
	"sync"

	"github.com/jmoiron/sqlx"
	amqp "github.com/rabbitmq/amqp091-go"
)

// Accessor is what stores run their statements on.
type Accessor interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

type transactor interface {
	Accessor
	startTx(ctx context.Context, opts *sql.TxOptions) (*sqlx.Tx, error)
}

type sqlDB struct {
	*sqlx.DB
}

func (db sqlDB) startTx(ctx context.Context, opts *sql.TxOptions) (*sqlx.Tx, error) {
	return db.DB.BeginTxx(ctx, opts)
}

type runnerDB struct {
	db transactor
	mx *sync.Mutex
}

func (r runnerDB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) { // want ExecContext:`effects\(embedx.transactor.ExecContext \(query text not constant\)\)`
	r.mx.Lock()
	defer r.mx.Unlock()
	return r.db.ExecContext(ctx, query, args...)
}

func (r runnerDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row { // want QueryRowContext:`effects\(embedx.transactor.QueryRowContext \(query text not constant\)\)`
	return r.db.QueryRowContext(ctx, query, args...)
}

// New wraps db.
func New(db *sqlx.DB) Accessor {
	return runnerDB{db: sqlDB{db}, mx: new(sync.Mutex)}
}

type ctxKey struct{}

// GetAccessor returns the transaction in ctx or a new accessor over db.
func GetAccessor(ctx context.Context, db *sqlx.DB) Accessor {
	if a, ok := ctx.Value(ctxKey{}).(Accessor); ok {
		return a
	}
	return New(db)
}

// Counters is a store.
type Counters struct{ db *sqlx.DB }

// Increment adds one to a counter.
func (s *Counters) Increment(ctx context.Context, repo string) error { // want Increment:`effects\(embedx.Accessor.ExecContext "UPDATE counters .*"\)`
	_, err := GetAccessor(ctx, s.db).ExecContext(ctx, "UPDATE counters SET n = n + 1 WHERE repo = $1", repo)
	return err
}

// Create inserts a row and returns its id.
func (s *Counters) Create(ctx context.Context, repo string) (int64, error) { // want Create:`effects\(embedx.Accessor.QueryRowContext "INSERT INTO spaces .*"\)`
	var id int64
	err := GetAccessor(ctx, s.db).QueryRowContext(ctx, "INSERT INTO spaces (repo) VALUES ($1) RETURNING id", repo).Scan(&id)
	return id, err
}

// Consume handles deliveries.
func Consume(ctx context.Context, ch *amqp.Channel, s *Counters) {
	msgs, _ := ch.Consume("counters", "", false, false, false, false, nil)
	for d := range msgs {
		if err := s.Increment(ctx, string(d.Body)); err != nil { // want `IDEM001`
			d.Nack(false, true)
			continue
		}
		d.Ack(false)
	}
}

// ConsumeCreate handles deliveries that create rows.
func ConsumeCreate(ctx context.Context, ch *amqp.Channel, s *Counters) {
	msgs, _ := ch.Consume("spaces", "", false, false, false, false, nil)
	for d := range msgs {
		if _, err := s.Create(ctx, string(d.Body)); err != nil { // want `IDEM001`
			d.Nack(false, true)
			continue
		}
		d.Ack(false)
	}
}
