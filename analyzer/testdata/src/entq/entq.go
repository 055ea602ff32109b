package entq

// Package entq: lookups through ent's generated query builders. A
// Query().Where(…).Exist, Only or Count of the table a handler then
// inserts into is a check-then-act, no unguarded effect (IDEM005 with
// -strict); of another table it records nothing.

import (
	"context"
	"encoding/json"

	"github.com/hibiken/asynq"

	"entq/ent"
	"entq/ent/points"
	"entq/ent/signin"
)

type payload struct {
	User   int64
	Day    string
	Points int
}

// Tasks handles the sign-in tasks with an ent client.
type Tasks struct{ DB *ent.Client }

// LogSignin inserts the day's sign-in unless one exists (pokeforum's
// shape).
func (w *Tasks) LogSignin(ctx context.Context, t *asynq.Task) error {
	var p payload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return nil
	}
	exists, err := w.DB.Signin.Query().Where(signin.UserID(p.User), signin.Day(p.Day)).Exist(ctx)
	if err != nil {
		return err
	}
	if exists {
		return nil
	}
	return w.DB.Signin.Create().SetUserID(p.User).SetDay(p.Day).Exec(ctx)
}

// FirstSignin creates the user's row when Only finds none.
func (w *Tasks) FirstSignin(ctx context.Context, t *asynq.Task) error {
	var p payload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return nil
	}
	_, err := w.DB.Signin.Query().Where(signin.UserID(p.User)).Only(ctx)
	if err != nil {
		if ent.IsNotFound(err) {
			return w.DB.Signin.Create().SetUserID(p.User).SetDay(p.Day).Exec(ctx)
		}
		return err
	}
	return nil
}

// CountedSignin inserts when Count finds no row.
func (w *Tasks) CountedSignin(ctx context.Context, t *asynq.Task) error {
	var p payload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return nil
	}
	n, err := w.DB.Signin.Query().Where(signin.UserID(p.User), signin.Day(p.Day)).Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	return w.DB.Signin.Create().SetUserID(p.User).SetDay(p.Day).Exec(ctx)
}

// AwardPoints looks up the sign-in but inserts points: the lookup records
// nothing, and a redelivery awards the points again.
func (w *Tasks) AwardPoints(ctx context.Context, t *asynq.Task) error {
	var p payload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return nil
	}
	exists, err := w.DB.Signin.Query().Where(signin.UserID(p.User), signin.Day(p.Day)).Exist(ctx)
	if err != nil || !exists {
		return err
	}
	return w.DB.Points.Create().SetUserID(p.User).SetQty(p.Points).Exec(ctx) // want `IDEM001`
}

// AddPoints inserts with no lookup at all.
func (w *Tasks) AddPoints(ctx context.Context, t *asynq.Task) error {
	var p payload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return nil
	}
	return w.DB.Points.Create().SetUserID(p.User).SetQty(p.Points).Exec(ctx) // want `IDEM001`
}

// OncePoints inserts points unless the user has some (ent before v0.12:
// a create spec literal).
func (w *Tasks) OncePoints(ctx context.Context, t *asynq.Task) error {
	var p payload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return nil
	}
	if ok, err := w.DB.Points.Query().Where(points.UserID(p.User)).Exist(ctx); err != nil || ok {
		return err
	}
	return w.DB.Points.Create().SetUserID(p.User).SetQty(p.Points).Exec(ctx)
}

// Register registers the handlers.
func Register(mux *asynq.ServeMux, w *Tasks) {
	mux.HandleFunc("signin:log", w.LogSignin)
	mux.HandleFunc("signin:first", w.FirstSignin)
	mux.HandleFunc("signin:count", w.CountedSignin)
	mux.HandleFunc("points:award", w.AwardPoints)
	mux.HandleFunc("points:add", w.AddPoints)
	mux.HandleFunc("points:once", w.OncePoints)
}
