// Package repo holds repositories behind interfaces, as services inject them.
package repo

import (
	"context"
	"database/sql"
)

// PointsRepo credits loyalty points.
type PointsRepo interface {
	AddPoints(ctx context.Context, userID int64, n int) error
}

// ProfileRepo stores user profiles; SaveProfile overwrites by id.
type ProfileRepo interface {
	SaveProfile(ctx context.Context, id, name string) error
}

// Notifier sends e-mails through a provider.
type Notifier interface {
	SendWelcomeEmail(ctx context.Context, userID int64) error
}

// Indexer writes documents to a search index; AddDocument overwrites by id.
type Indexer interface {
	AddDocument(ctx context.Context, id string, body []byte) error
}

// OrderRepo reads and updates orders.
type OrderRepo interface {
	MarkShipped(ctx context.Context, id string) error
	CreateShipment(ctx context.Context, orderID, carrier string) error
}

type PGPoints struct{ DB *sql.DB }

func (r *PGPoints) AddPoints(ctx context.Context, userID int64, n int) error {
	_, err := r.DB.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, n, userID)
	return err
}

type PGOrders struct{ DB *sql.DB }

func (r *PGOrders) MarkShipped(ctx context.Context, id string) error {
	_, err := r.DB.ExecContext(ctx, `UPDATE orders SET state = 'shipped' WHERE id = $1`, id)
	return err
}

func (r *PGOrders) CreateShipment(ctx context.Context, orderID, carrier string) error {
	_, err := r.DB.ExecContext(ctx, `INSERT INTO shipments (order_id, carrier) VALUES ($1, $2)`, orderID, carrier)
	return err
}
