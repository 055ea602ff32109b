// Package gormv1x: gocraft/work jobs writing with gorm v1
// (github.com/jinzhu/gorm), whose chains carry their error in a field.
package gormv1x

import (
	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"
	"github.com/jinzhu/gorm"
)

type Order struct {
	ID      uint
	OrderNo string
	Status  string
	Items   []Item
}

type Item struct {
	ID       uint
	Name     string
	Quantity int
}

type Ticket struct {
	ID       uint
	OrderNo  string
	ItemName string
}

type Balance struct {
	UserID string
	Amount int
}

var db *gorm.DB

// createTickets inserts a ticket per item: a new row on every run, and
// the inserts' errors go unread.
func createTickets(job *work.Job) error {
	var order Order
	db.Where("order_no = ?", job.ArgString("order_no")).First(&order)
	for _, item := range order.Items {
		t := Ticket{OrderNo: order.OrderNo, ItemName: item.Name}
		db.Create(&t) // want `IDEM001`
	}
	return nil // want `IDEM003`
}

// checkedTickets reads the chain's Error: a failure is returned.
func checkedTickets(job *work.Job) error {
	t := Ticket{OrderNo: job.ArgString("order_no")}
	if err := db.Create(&t).Error; err != nil { // want `IDEM001`
		return err
	}
	return nil
}

// saveBalance saves absolute values, but nothing reads the save's error.
func saveBalance(job *work.Job) error {
	b := Balance{UserID: job.ArgString("user_id"), Amount: int(job.ArgInt64("amount"))}
	db.Save(&b)
	return nil // want `IDEM003`
}

// addPoints increments with an expression: an effect.
func addPoints(job *work.Job) error {
	return db.Model(&Balance{}).Where("user_id = ?", job.ArgString("user_id")).Update("amount", gorm.Expr("amount + ?", job.ArgInt64("n"))).Error // want `IDEM001`
}

// markShipped skips a shipped order; the status is set with the effect.
func markShipped(job *work.Job) error {
	var order Order
	if err := db.Where("order_no = ?", job.ArgString("order_no")).First(&order).Error; err != nil {
		return err
	}
	if order.Status == "shipped" {
		return nil
	}
	if err := db.Create(&Ticket{OrderNo: order.OrderNo}).Error; err != nil {
		return err
	}
	return db.Model(&Order{}).Where("id = ?", order.ID).Update("status", "shipped").Error
}

func run(pool *redis.Pool) {
	wp := work.NewWorkerPool(struct{}{}, 4, "shop", pool)
	wp.Job("create_tickets", createTickets)
	wp.Job("checked_tickets", checkedTickets)
	wp.Job("save_balance", saveBalance)
	wp.Job("add_points", addPoints)
	wp.Job("mark_shipped", markShipped)
}
