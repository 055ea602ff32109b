// Package namedqx: asynq tasks whose statements are named queries kept in
// the module's queries.sql (goyesql's "-- name:" blocks), loaded into a
// struct whose fields carry the names (query:"grant-points"). The text
// the file gives a field's name is the statement run: an accumulating
// update or a plain insert is an effect, an assignment is not.
package namedqx

import (
	"context"
	"database/sql"

	"github.com/hibiken/asynq"
)

// Queries holds the named statements, filled from queries.sql at start.
type Queries struct {
	GrantPoints string    `query:"grant-points"`
	RenameUser  string    `query:"rename-user"`
	GetUser     string    `query:"get-user"`
	AddVisit    *sql.Stmt `query:"add-visit"`
}

type store struct {
	db *sql.DB
	q  *Queries
}

// grant adds points: a repeat adds them again.
func (s *store) grant(ctx context.Context, t *asynq.Task) error {
	_, err := s.db.ExecContext(ctx, s.q.GrantPoints, 10, string(t.Payload())) // want `effect sql.DB.ExecContext "UPDATE users SET points = points \+ \$1 WHERE id = \$2;" in handler store.grant is not guarded`
	return err
}

// rename sets the name after reading the user: a repeat sets the same.
func (s *store) rename(ctx context.Context, t *asynq.Task) error {
	var name string
	if err := s.db.QueryRowContext(ctx, s.q.GetUser, "u1").Scan(&name); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, s.q.RenameUser, string(t.Payload()), "u1")
	return err
}

// visit inserts a row through the statement prepared from add-visit.
func (s *store) visit(ctx context.Context, t *asynq.Task) error {
	_, err := s.q.AddVisit.ExecContext(ctx, string(t.Payload())) // want `effect sql.Stmt.ExecContext "INSERT INTO visits \(user_id\) VALUES \(\$1\);" in handler store.visit is not guarded`
	return err
}

// Register hands the tasks to asynq.
func Register(mux *asynq.ServeMux, db *sql.DB, q *Queries) {
	s := &store{db: db, q: q}
	mux.HandleFunc("grant", s.grant)
	mux.HandleFunc("rename", s.rename)
	mux.HandleFunc("visit", s.visit)
}
