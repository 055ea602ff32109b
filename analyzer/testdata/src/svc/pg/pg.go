package pg // want package:"idemfacts"

// Package pg implements the service's repository on database/sql.

import (
	"context"
	"database/sql"
)

type Repo struct{ DB *sql.DB }

func (r *Repo) AddPoints(ctx context.Context, user string, n int) error { // want AddPoints:`effects\(sql.DB.ExecContext "UPDATE users SET points = points \+ \$1 WHERE id = \$2"\)`
	_, err := r.DB.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, n, user)
	return err
}

func (r *Repo) SetEmail(ctx context.Context, user, email string) error {
	_, err := r.DB.ExecContext(ctx, `UPDATE users SET email = $1 WHERE id = $2`, email, user)
	return err
}
