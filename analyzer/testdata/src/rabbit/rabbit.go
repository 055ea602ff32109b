package rabbit // want package:"idemfacts"

// Package rabbit: handlers on amqp091-go.

import (
	"context"
	"database/sql"
	"encoding/json"
	"log"
	"net/http"
	"strings"
	"sync"

	amqp "github.com/rabbitmq/amqp091-go"
)

type Order struct {
	ID    string `json:"id"`
	SKU   string `json:"sku"`
	Qty   int    `json:"qty"`
	User  string `json:"user"`
	Phone string `json:"phone"`
	Day   string `json:"day"`
}

// --- the four consumers, naive ---------------------------------------------

func deductInventoryNaive(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	var o Order
	if err := json.Unmarshal(d.Body, &o); err != nil {
		d.Nack(false, false)
		return
	}
	if _, err := db.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, o.Qty, o.SKU); err != nil { // want `effect sql.DB.ExecContext "UPDATE stock SET qty = qty - \$1 WHERE sku = \$2" in handler deductInventoryNaive is not guarded by a dedup check \(IDEM001\)`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}

func addPointsNaive(ctx context.Context, db *sql.DB, d amqp.Delivery) error {
	var o Order
	_ = json.Unmarshal(d.Body, &o)
	_, err := db.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, o.Qty, o.User) // want `IDEM001`
	if err != nil {
		return err
	}
	return d.Ack(false)
}

func sendSMSNaive(ctx context.Context, d amqp.Delivery) error {
	resp, err := http.Post("https://sms.example/send", "text/plain", strings.NewReader(string(d.Body))) // want `effect http.Post in handler sendSMSNaive`
	if err != nil {
		return err
	}
	resp.Body.Close()
	return d.Ack(false)
}

func updateStatsNaive(ctx context.Context, db *sql.DB, d amqp.Delivery) error {
	var o Order
	_ = json.Unmarshal(d.Body, &o)
	_, err := db.ExecContext(ctx, `INSERT INTO daily_stats (day, n) VALUES ($1, 1) ON CONFLICT (day) DO UPDATE SET n = daily_stats.n + 1`, o.Day) // want `IDEM001`
	if err != nil {
		return err
	}
	return d.Ack(false)
}

// --- the four consumers, correct ----------------------------------------------

func claim(ctx context.Context, tx *sql.Tx, consumer, key string) (bool, error) { // want claim:`dedup\(result 0: true=fresh, false=\?\)`
	res, err := tx.ExecContext(ctx, `INSERT INTO idem_keys (consumer, key) VALUES ($1, $2) ON CONFLICT DO NOTHING`, consumer, key)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

func deductInventory(ctx context.Context, db *sql.DB, d amqp.Delivery) error {
	var o Order
	if err := json.Unmarshal(d.Body, &o); err != nil {
		return d.Nack(false, false)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return d.Nack(false, true)
	}
	defer tx.Rollback()
	fresh, err := claim(ctx, tx, "deduct_inventory", o.ID+"/"+o.SKU)
	if err != nil {
		return d.Nack(false, true)
	}
	if fresh {
		if _, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, o.Qty, o.SKU); err != nil {
			return d.Nack(false, true)
		}
		if err := tx.Commit(); err != nil {
			return d.Nack(false, true)
		}
	}
	return d.Ack(false)
}

func addPoints(ctx context.Context, db *sql.DB, d amqp.Delivery) error {
	var o Order
	if err := json.Unmarshal(d.Body, &o); err != nil {
		return d.Reject(false)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := claim(ctx, tx, "add_points", o.ID)
	if err != nil {
		return err
	}
	if !fresh {
		return d.Ack(false)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, o.Qty, o.User); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return d.Ack(false)
}

func updateStats(ctx context.Context, db *sql.DB, d amqp.Delivery) error {
	var o Order
	if err := json.Unmarshal(d.Body, &o); err != nil {
		return d.Reject(false)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	fresh, err := claim(ctx, tx, "update_stats", d.MessageId+"/"+o.Day)
	if err != nil || !fresh {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO daily_stats (day, n) VALUES ($1, 1) ON CONFLICT (day) DO UPDATE SET n = daily_stats.n + 1`, o.Day); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return d.Ack(false)
}

// --- IDEM002: ack before the effect ---------------------------------------------

func ackFirst(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	d.Ack(false)                                                                           // want `ack amqp091.Delivery.Ack in handler ackFirst comes before effect sql.DB.ExecContext .* a crash in between loses the message \(IDEM002\)`
	db.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, d.MessageId) // want `IDEM001`
}

// An ack in one iteration does not precede the next iteration's effect.
func loopAckAfter(ctx context.Context, db *sql.DB, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		if _, err := db.ExecContext(ctx, `INSERT INTO ledger (id) VALUES ($1)`, d.MessageId); err != nil { // want `IDEM001`
			d.Nack(false, true)
			continue
		}
		d.Ack(false)
	}
}

func loopAckFirst(ctx context.Context, db *sql.DB, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		d.Ack(false)                                                            // want `IDEM002`
		db.ExecContext(ctx, `INSERT INTO ledger (id) VALUES ($1)`, d.MessageId) // want `IDEM001`
	}
}

func goNotWaited(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	go func() { // want `goroutine with effect .* in handler goNotWaited is not waited for before the ack: .*\(IDEM002\)` `IDEM001`
		db.ExecContext(ctx, `INSERT INTO ledger (id) VALUES ($1)`, d.MessageId)
	}()
	d.Ack(false)
}

func goWaited(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // want `IDEM001`
		defer wg.Done()
		db.ExecContext(ctx, `INSERT INTO ledger (id) VALUES ($1)`, d.MessageId)
	}()
	wg.Wait()
	d.Ack(false)
}

// --- IDEM003: ack on a failure path -----------------------------------------------

func ackOnFailure(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	tx, _ := db.BeginTx(ctx, nil)
	fresh, err := claim(ctx, tx, "c", d.MessageId)
	if err != nil || !fresh {
		d.Ack(false) // want `ack amqp091.Delivery.Ack in handler ackOnFailure also runs when rabbit.claim fails`
		return
	}
	if _, err := tx.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, d.MessageId); err != nil {
		log.Print(err)
		d.Ack(false) // want `ack amqp091.Delivery.Ack in handler ackOnFailure also runs when sql.Tx.ExecContext fails: the error is swallowed and the message lost \(IDEM003\)`
		return
	}
	tx.Commit()
	d.Ack(false)
}

func ackAfterLoggedError(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	tx, _ := db.BeginTx(ctx, nil)
	fresh, err := claim(ctx, tx, "c", d.MessageId)
	if err != nil {
		d.Nack(false, true)
		return
	}
	if fresh {
		if _, err := tx.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, d.MessageId); err != nil {
			log.Print(err)
		}
		tx.Commit()
	}
	d.Ack(false) // want `IDEM003`
}

func deferredAck(ctx context.Context, db *sql.DB, d amqp.Delivery) error {
	defer d.Ack(false) // want `deferred ack amqp091.Delivery.Ack in handler deferredAck also runs when handling fails: .*\(IDEM003\)`
	tx, _ := db.BeginTx(ctx, nil)
	fresh, err := claim(ctx, tx, "c", d.MessageId)
	if err != nil || !fresh {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, d.MessageId)
	return err
}

// Dropping an undecodable message is no failure of the effect.
func poisonDropped(ctx context.Context, d amqp.Delivery) {
	var o Order
	if err := json.Unmarshal(d.Body, &o); err != nil {
		log.Print(err)
		d.Ack(false)
		return
	}
	log.Print(o.ID)
	d.Ack(false)
}

// --- IDEM007: auto-ack --------------------------------------------------------------

func autoAckConsumer(ctx context.Context, ch *amqp.Channel, db *sql.DB) error {
	msgs, err := ch.Consume("orders", "", true, false, false, false, nil) // want `auto-ack consumer amqp091.Channel.Consume \(autoAck true\) acks each message before handler autoAckConsumer performs .*\(IDEM007\)`
	if err != nil {
		return err
	}
	for d := range msgs {
		db.ExecContext(ctx, `INSERT INTO ledger (id) VALUES ($1)`, d.MessageId) // want `IDEM001`
	}
	return nil
}

func autoAckWorker(ctx context.Context, ch *amqp.Channel, db *sql.DB) error {
	msgs, err := ch.Consume("orders", "", true, false, false, false, nil) // want `auto-ack consumer .* before handler worker performs`
	if err != nil {
		return err
	}
	go worker(ctx, db, msgs)
	return nil
}

func worker(ctx context.Context, db *sql.DB, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		db.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, d.UserId) // want `IDEM001`
	}
}

func manualAckConsumer(ctx context.Context, ch *amqp.Channel, db *sql.DB) error {
	msgs, err := ch.Consume("orders", "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range msgs {
		if err := deductInventory(ctx, db, d); err != nil {
			log.Print(err)
		}
	}
	return nil
}

// A handler that only logs.
func logOnly(d amqp.Delivery) {
	log.Printf("got %s", d.Body)
	d.Ack(false)
}

// An HTTP endpoint is not a message handler.
func endpoint(db *sql.DB) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		db.ExecContext(r.Context(), `UPDATE users SET points = points + 1 WHERE id = $1`, r.URL.Query().Get("id"))
	}
}

// A goroutine per delivery that acks its own delivery: the function started
// reports its effect, not the loop that starts it.
func consumeEach(ctx context.Context, db *sql.DB, msgs <-chan amqp.Delivery) {
	for d := range msgs {
		go handleEach(ctx, db, d)
	}
}

func handleEach(ctx context.Context, db *sql.DB, d amqp.Delivery) {
	if _, err := db.ExecContext(ctx, `UPDATE users SET points = points + 1 WHERE id = $1`, string(d.Body)); err != nil { // want `effect sql.DB.ExecContext "UPDATE users .*" in handler handleEach is not guarded by a dedup check \(IDEM001\)`
		d.Nack(false, true)
		return
	}
	d.Ack(false)
}
