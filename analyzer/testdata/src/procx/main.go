// Package main wires one shared consumer per processor.
package main

import (
	"context"
	"database/sql"

	"github.com/segmentio/kafka-go"

	"procx/fraud"
	"procx/points"
	"procx/positions"
	"procx/welcome"
	"procx/worker"
)

func main() {
	ctx := context.Background()
	db, _ := sql.Open("postgres", "")
	for _, p := range []worker.Processor{fraud.New(db), fraud.NewRechecker(db), points.New(db), positions.New(db), welcome.New(db)} {
		worker.New(kafka.NewReader(kafka.ReaderConfig{GroupID: p.Name()}), p).Start(ctx, 4)
	}
}
