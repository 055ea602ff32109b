// Package orm: effects through gorm, sqlx, pgx and the MongoDB driver.
package orm

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jmoiron/sqlx"
	amqp "github.com/rabbitmq/amqp091-go"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

type Ledger struct {
	EventID string
	User    string
	Points  int
}

type Processed struct{ ID string }

// --- gorm -------------------------------------------------------------------------

func gormCreate(ctx context.Context, db *gorm.DB, d amqp.Delivery) error {
	return db.WithContext(ctx).Create(&Ledger{EventID: d.MessageId, User: d.UserId, Points: 10}).Error // want `effect gorm.DB.Create in handler gormCreate`
}

func gormIncrement(ctx context.Context, db *gorm.DB, d amqp.Delivery) error {
	return db.Model(&Ledger{}).Where("user = ?", d.UserId).Update("points", gorm.Expr("points + ?", 10)).Error // want `effect gorm.DB.Update in handler gormIncrement`
}

func gormSet(ctx context.Context, db *gorm.DB, d amqp.Delivery) error {
	return db.Model(&Ledger{}).Where("user = ?", d.UserId).Update("points", 10).Error
}

func gormDedup(ctx context.Context, db *gorm.DB, d amqp.Delivery) error {
	return db.Transaction(func(tx *gorm.DB) error {
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&Processed{ID: d.MessageId})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return nil
		}
		return tx.Model(&Ledger{}).Where("user = ?", d.UserId).Update("points", gorm.Expr("points + ?", 10)).Error
	})
}

func gormUnique(ctx context.Context, db *gorm.DB, d amqp.Delivery) error {
	tx := db.Begin()
	if err := tx.Create(&Processed{ID: d.MessageId}).Error; err != nil {
		tx.Rollback()
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return nil
		}
		return err
	}
	if err := tx.Model(&Ledger{}).Where("user = ?", d.UserId).Update("points", gorm.Expr("points + ?", 10)).Error; err != nil {
		return err
	}
	return tx.Commit().Error
}

func gormStateTransition(ctx context.Context, db *gorm.DB, d amqp.Delivery) error {
	res := db.Model(&Processed{}).Where("id = ? AND status = ?", d.MessageId, "pending").Update("status", "done")
	if res.Error != nil || res.RowsAffected == 0 {
		return res.Error
	}
	return db.Model(&Ledger{}).Where("user = ?", d.UserId).Update("points", gorm.Expr("points + ?", 10)).Error // want `IDEM006`
}

// --- sqlx ---------------------------------------------------------------------------

func sqlxNamed(ctx context.Context, db *sqlx.DB, d amqp.Delivery) error {
	_, err := db.NamedExecContext(ctx, `INSERT INTO ledger (event_id, user_id, points) VALUES (:event_id, :user, :points)`, map[string]any{"event_id": d.MessageId}) // want `effect sqlx.DB.NamedExecContext "INSERT INTO ledger`
	return err
}

func sqlxPromoted(ctx context.Context, db *sqlx.DB, d amqp.Delivery) error {
	_, err := db.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, d.UserId) // want `effect sqlx.DB.ExecContext`
	return err
}

// An INSERT … RETURNING run as a named query writes like any insert; a
// SELECT through Queryx reads.
func sqlxNamedQuery(ctx context.Context, db *sqlx.DB, d amqp.Delivery) error {
	rows, err := db.NamedQueryContext(ctx, `INSERT INTO ledger (event_id, user_id, points) VALUES (:event_id, :user, :points) RETURNING id`, map[string]any{"event_id": d.MessageId}) // want `effect sqlx.DB.NamedQueryContext "INSERT INTO ledger`
	if err != nil {
		return err
	}
	defer rows.Close()
	sel, err := db.QueryxContext(ctx, `SELECT points FROM users WHERE id = $1`, d.UserId)
	if err != nil {
		return err
	}
	return sel.Close()
}

func sqlxGuarded(ctx context.Context, db *sqlx.DB, d amqp.Delivery) error {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING`, d.MessageId)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if _, err := tx.NamedExecContext(ctx, `UPDATE users SET points = points + :n WHERE id = :id`, map[string]any{"n": 1, "id": d.UserId}); err != nil {
		return err
	}
	return tx.Commit()
}

// --- pgx ------------------------------------------------------------------------------

func pgxNaive(ctx context.Context, pool *pgxpool.Pool, d amqp.Delivery) error {
	_, err := pool.Exec(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, 1, d.MessageId) // want `effect pgxpool.Pool.Exec "UPDATE stock`
	return err
}

func pgxGuarded(ctx context.Context, pool *pgxpool.Pool, d amqp.Delivery) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING`, d.MessageId)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, 1, d.MessageId)
		return err
	})
}

func pgxUnique(ctx context.Context, conn *pgx.Conn, d amqp.Delivery) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `INSERT INTO processed (id) VALUES ($1)`, d.MessageId); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" {
			return nil
		}
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, d.UserId); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// --- MongoDB ---------------------------------------------------------------------------

func mongoInc(ctx context.Context, c *mongo.Collection, d amqp.Delivery) error {
	_, err := c.UpdateOne(ctx, bson.M{"_id": d.UserId}, bson.M{"$inc": bson.M{"points": 10}}) // want `effect mongo.Collection.UpdateOne`
	return err
}

func mongoSet(ctx context.Context, c *mongo.Collection, d amqp.Delivery) error {
	_, err := c.UpdateOne(ctx, bson.M{"_id": d.UserId}, bson.M{"$set": bson.M{"email": string(d.Body)}})
	return err
}

func mongoInsert(ctx context.Context, c *mongo.Collection, d amqp.Delivery) error {
	_, err := c.InsertOne(ctx, bson.M{"event": d.MessageId}) // want `effect mongo.Collection.InsertOne`
	return err
}

func mongoUnique(ctx context.Context, seen, users *mongo.Collection, d amqp.Delivery) error {
	_, err := seen.InsertOne(ctx, bson.M{"_id": d.MessageId})
	if mongo.IsDuplicateKeyError(err) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = users.UpdateOne(ctx, bson.M{"_id": d.UserId}, bson.M{"$inc": bson.M{"points": 10}})
	return err
}
