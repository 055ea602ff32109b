package statex

// Get or create: a lookup whose failure (no row) is taken as "not there
// yet" and answered by an insert into the same table. A repeat finds the
// row and inserts nothing; what follows the join is not guarded by it.

import (
	"context"

	amqp "github.com/rabbitmq/amqp091-go"
)

type Session struct {
	ID   string
	User string
}

func (p *Store) latestSession(ctx context.Context, user string) (Session, error) {
	var s Session
	err := p.DB.QueryRowContext(ctx, "SELECT id, user_id FROM sync_sessions WHERE user_id = $1 ORDER BY created_at DESC LIMIT 1", user).Scan(&s.ID, &s.User)
	return s, err
}

func (p *Store) createSession(ctx context.Context, user string) (Session, error) { // want createSession:`effects\(sql.DB.QueryRowContext "INSERT INTO sync_sessions \(user_id\) VALUES \(\$1\) RETURNING id, u…"\)`
	var s Session
	err := p.DB.QueryRowContext(ctx, "INSERT INTO sync_sessions (user_id) VALUES ($1) RETURNING id, user_id", user).Scan(&s.ID, &s.User)
	return s, err
}

func (p *Store) logImport(ctx context.Context, session string) error { // want logImport:`effects\(sql.DB.ExecContext "INSERT INTO imports \(session_id\) VALUES \(\$1\)"\)`
	_, err := p.DB.ExecContext(ctx, "INSERT INTO imports (session_id) VALUES ($1)", session)
	return err
}

// session reuses the user's session, or creates one when the lookup
// fails.
func (h *H) session(ctx context.Context, d amqp.Delivery) {
	user := string(d.Body)
	s, err := h.store.latestSession(ctx, user)
	if err != nil {
		s, err = h.store.createSession(ctx, user)
		if err != nil {
			d.Nack(false, true)
			return
		}
	}
	_ = s
	d.Ack(false)
}

// sessionThenLog creates the session the same way; the log insert after
// the join runs on every delivery.
func (h *H) sessionThenLog(ctx context.Context, d amqp.Delivery) {
	user := string(d.Body)
	s, err := h.store.latestSession(ctx, user)
	if err != nil {
		s, err = h.store.createSession(ctx, user)
		if err != nil {
			d.Nack(false, true)
			return
		}
	}
	if err := h.store.logImport(ctx, s.ID); err != nil { // want `IDEM001`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

// sessionAnyway inserts whatever the lookup says: the insert is reached
// from both sides, so the lookup guards nothing (and its failure is
// swallowed).
func (h *H) sessionAnyway(ctx context.Context, d amqp.Delivery) {
	user := string(d.Body)
	if _, err := h.store.latestSession(ctx, user); err != nil {
		println("no session yet")
	}
	if _, err := h.store.createSession(ctx, user); err != nil { // want `IDEM001`
		d.Nack(false, true)
		return
	}
	d.Ack(false) // want `IDEM003`
}

func (p *Store) markSessionRunning(ctx context.Context, id string) error {
	_, err := p.DB.ExecContext(ctx, "UPDATE sync_sessions SET status = 'running' WHERE id = $1", id)
	return err
}

// sessionRunning creates the session the same way and then, on both
// sides, marks it running: a write of the table after the join.
func (h *H) sessionRunning(ctx context.Context, d amqp.Delivery) {
	user := string(d.Body)
	s, err := h.store.latestSession(ctx, user)
	if err != nil {
		s, err = h.store.createSession(ctx, user)
		if err != nil {
			d.Nack(false, true)
			return
		}
	}
	if err := h.store.markSessionRunning(ctx, s.ID); err != nil {
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}
