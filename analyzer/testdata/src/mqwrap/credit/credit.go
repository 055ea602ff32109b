// Package credit is webook's credit consumer: the credit log's unique key
// makes AddCredits a dedup (a duplicate is swallowed), but the wrapper
// committed the message before the handler ran, so a failed AddCredits,
// only logged by Start, loses the credit. The log row is inserted after
// the balance change, in the same transaction: a duplicate fails the
// callback and rolls the change back. lenientDAO returns nil on a
// duplicate instead: the transaction commits the change again.
package credit

import (
	"context"
	"encoding/json"
	"errors"
	"log"

	"github.com/go-sql-driver/mysql"
	"gorm.io/gorm"

	"mqwrap/mq"
	"mqwrap/mq/kafka"
)

var ErrDuplicated = errors.New("duplicated credit log")

type Service interface {
	AddCredits(ctx context.Context, uid int64, key string, amount int64) error
}

type Consumer struct {
	svc      Service
	consumer mq.Consumer
}

func (c *Consumer) Start(ctx context.Context) {
	go func() {
		for {
			if err := c.Consume(ctx); err != nil {
				log.Printf("credit: %v", err)
			}
		}
	}()
}

func (c *Consumer) Consume(ctx context.Context) error {
	msg, err := c.consumer.Consume(ctx) // want `auto-ack consumer mq.Consumer.Consume \(commits by itself\) acks each message before handler Consumer.Consume performs .*AddCredits`
	if err != nil {
		return err
	}
	var evt struct {
		Uid    int64
		Key    string
		Amount int64
	}
	if err := json.Unmarshal(msg.Value, &evt); err != nil {
		return err
	}
	err = c.svc.AddCredits(ctx, evt.Uid, evt.Key, evt.Amount) // want `effect credit.Service.AddCredits \(implemented by credit.lenientDAO.AddCredits\) → func literal → gorm.DB.Updates in handler Consumer.Consume is not guarded by a dedup check \(IDEM001\)`
	if errors.Is(err, ErrDuplicated) {
		return nil
	}
	return err
}

type CreditLog struct {
	Key    string
	Uid    int64
	Change int64
}

type Credit struct {
	Uid   int64
	Total int64
}

type dao struct{ db *gorm.DB }

func (d *dao) AddCredits(ctx context.Context, uid int64, key string, amount int64) error {
	return d.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&Credit{}).Where("uid = ?", uid).Updates(map[string]any{"total": gorm.Expr("total + ?", amount)}).Error; err != nil {
			return err
		}
		if err := tx.Create(&CreditLog{Key: key, Uid: uid, Change: amount}).Error; err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) && me.Number == 1062 {
				return ErrDuplicated
			}
			return err
		}
		return nil
	})
}

type lenientDAO struct{ db *gorm.DB }

func (d *lenientDAO) AddCredits(ctx context.Context, uid int64, key string, amount int64) error {
	return d.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&Credit{}).Where("uid = ?", uid).Updates(map[string]any{"total": gorm.Expr("total + ?", amount)}).Error; err != nil {
			return err
		}
		if err := tx.Create(&CreditLog{Key: key, Uid: uid, Change: amount}).Error; err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) && me.Number == 1062 {
				return nil // a duplicate: but the balance changed again, and commits
			}
			return err
		}
		return nil
	})
}

func WireLenient(ctx context.Context, db *gorm.DB) error {
	cs, err := kafka.NewMQ(nil).Consumer("credit", "credit")
	if err != nil {
		return err
	}
	(&Consumer{svc: &lenientDAO{db: db}, consumer: cs}).Start(ctx)
	return nil
}

func Wire(ctx context.Context, db *gorm.DB) error {
	cs, err := kafka.NewMQ(nil).Consumer("credit", "credit")
	if err != nil {
		return err
	}
	(&Consumer{svc: &dao{db: db}, consumer: cs}).Start(ctx)
	return nil
}
