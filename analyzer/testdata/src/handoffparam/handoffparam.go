// Package handoffparam (whole-program mode): a kafka-go reader loop that
// hands each message to a worker pool over a channel, then commits. main
// makes the channel and passes it to the reader as a parameter and to the
// pool's constructor, which keeps it in a field: the reader's parameter
// and the workers' field are one channel, so the commit comes before the
// workers' insert, and the workers handle messages (their insert is not
// guarded).
package handoffparam

import (
	"context"
	"database/sql"
	"log"

	"github.com/segmentio/kafka-go"
)

// Message is the service's copy of a record.
type Message struct {
	Key, Value []byte
}

// consume fetches, hands off and commits: a crash after the commit loses
// every message still in the channel.
func consume(ctx context.Context, r *kafka.Reader, out chan<- *Message) {
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return
		}
		select { // want `message handed over a channel to a goroutine with effect sql.DB.ExecContext "INSERT INTO documents \(key, body\) VALUES \(\$1, \$2\)" in handler consume is not waited for before the ack: a crash loses the message \(IDEM002\)`
		case out <- &Message{Key: m.Key, Value: m.Value}:
		case <-ctx.Done():
			return
		}
		if err := r.CommitMessages(ctx, m); err != nil {
			log.Print(err)
		}
	}
}

// Pool indexes what it receives.
type Pool struct {
	db *sql.DB
	in <-chan *Message
}

// NewPool returns a pool receiving from in.
func NewPool(db *sql.DB, in <-chan *Message) *Pool {
	return &Pool{db: db, in: in}
}

// Run receives until ctx ends.
func (p *Pool) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-p.in:
			if _, err := p.db.ExecContext(ctx, `INSERT INTO documents (key, body) VALUES ($1, $2)`, m.Key, m.Value); err != nil { // want `effect sql.DB.ExecContext "INSERT INTO documents \(key, body\) VALUES \(\$1, \$2\)" in handler Pool.Run is not guarded by a dedup check \(IDEM001\)`
				log.Print(err)
			}
		}
	}
}

// Start wires the reader and the pool.
func Start(ctx context.Context, db *sql.DB) {
	ch := make(chan *Message, 1000)
	r := kafka.NewReader(kafka.ReaderConfig{Topic: "events", GroupID: "indexer"})
	go consume(ctx, r, ch)
	go NewPool(db, ch).Run(ctx)
}
