// Command worker runs both job tables.
package main

import (
	"context"
	"database/sql"

	"gorm.io/gorm"

	"jobtable/handlers"
	"jobtable/jobs"
	"jobtable/tasks"
)

func main() {
	ctx := context.Background()
	var gdb *gorm.DB
	db, _ := sql.Open("sqlite", "tasks.db")
	go jobs.New(gdb, handlers.Factories(gdb)).Run(ctx)
	pool := tasks.NewPool(tasks.NewRepo(db), handlers.TaskHandlers(db))
	for {
		if _, err := pool.ProcessOnce(ctx); err != nil {
			return
		}
	}
}
