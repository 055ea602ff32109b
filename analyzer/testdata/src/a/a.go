package a // want package:"idemfacts"

// Package a: the core on database/sql, net/http and net/smtp, with handlers
// marked //idem:handler.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/smtp"
	"strconv"
	"strings"
	"time"
)

type Event struct {
	ID    string
	SKU   string
	Qty   int
	User  string
	Phone string
}

//idem:handler
func naiveDeduct(ctx context.Context, db *sql.DB, ev Event) error {
	_, err := db.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, ev.Qty, ev.SKU) // want `effect sql.DB.ExecContext "UPDATE stock SET qty = qty - \$1 WHERE sku = \$2" in handler naiveDeduct is not guarded by a dedup check \(IDEM001\)`
	return err
}

//idem:handler
func guardedDeduct(ctx context.Context, db *sql.DB, ev Event) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING`, ev.ID)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return nil // duplicate
	}
	if _, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, ev.Qty, ev.SKU); err != nil {
		return err
	}
	return tx.Commit()
}

//idem:handler
func twoTransactions(ctx context.Context, db *sql.DB, ev Event) error {
	res, err := db.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING`, ev.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return nil
	}
	_, err = db.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Qty, ev.User) // want `dedup record .* and effect .* in handler twoTransactions are in different transactions`
	return err
}

//idem:handler
func idempotentWrites(ctx context.Context, db *sql.DB, ev Event) error {
	if _, err := db.ExecContext(ctx, `UPDATE users SET phone = $1 WHERE id = $2`, ev.Phone, ev.User); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM carts WHERE user_id = $1`, ev.User); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, `INSERT INTO profiles (id, phone) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET phone = EXCLUDED.phone`, ev.User, ev.Phone)
	return err
}

//idem:handler
func readsOnly(ctx context.Context, db *sql.DB, ev Event) (int, error) {
	var qty int
	err := db.QueryRowContext(ctx, `SELECT qty FROM stock WHERE sku = $1`, ev.SKU).Scan(&qty)
	return qty, err
}

//idem:handler
func accumulatingUpsert(ctx context.Context, db *sql.DB, ev Event) error {
	_, err := db.ExecContext(ctx, `INSERT INTO daily (day, n) VALUES ($1, 1) ON CONFLICT (day) DO UPDATE SET n = daily.n + 1`, ev.ID) // want `IDEM001`
	return err
}

//idem:handler
func conditionalUpdateDedup(ctx context.Context, db *sql.DB, ev Event) error {
	tx, _ := db.BeginTx(ctx, nil)
	res, err := tx.ExecContext(ctx, `UPDATE orders SET status = 'paid' WHERE id = $1 AND status = 'pending'`, ev.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	_, err = tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Qty, ev.User)
	return err
}

// A stock check is a business rule, not a dedup: its rows-affected decides,
// but the update itself accumulates.
//
//idem:handler
func stockRuleDecoy(ctx context.Context, db *sql.DB, ev Event) error {
	res, err := db.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2 AND qty >= $1`, ev.Qty, ev.SKU) // want `IDEM001`
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errors.New("out of stock")
	}
	return nil
}

var errDuplicate = errors.New("duplicate")

func isUniqueViolation(err error) bool { return strings.Contains(err.Error(), "23505") }

//idem:handler
func uniqueInsertDedup(ctx context.Context, db *sql.DB, ev Event) error {
	tx, _ := db.BeginTx(ctx, nil)
	_, err := tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1)`, ev.ID)
	if err != nil {
		if isUniqueViolation(err) {
			return nil
		}
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Qty, ev.User)
	if err != nil {
		return err
	}
	return tx.Commit()
}

//idem:handler
func plainInsert(ctx context.Context, db *sql.DB, ev Event) error {
	_, err := db.ExecContext(ctx, `INSERT INTO ledger (user_id, points) VALUES ($1, $2)`, ev.User, ev.Qty) // want `IDEM001`
	return err
}

// A lookup that is no dedup (nothing records the key): the effect is
// unguarded.
//
//idem:handler
func noRowsDecoy(ctx context.Context, db *sql.DB, ev Event) error {
	var price int
	err := db.QueryRowContext(ctx, `SELECT price FROM products WHERE sku = $1`, ev.SKU).Scan(&price)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, `UPDATE users SET spent = spent + $1 WHERE id = $2`, price, ev.User) // want `IDEM001`
	return err
}

// Check-then-act: accepted, reported only with -strict.
//
//idem:handler
func checkThenAct(ctx context.Context, db *sql.DB, ev Event) error {
	tx, _ := db.BeginTx(ctx, nil)
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM processed WHERE id = $1`, ev.ID).Scan(&one)
	if err == nil {
		return nil // seen
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1)`, ev.ID); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Qty, ev.User)
	return err
}

//idem:handler
func sendSMSNaive(ctx context.Context, ev Event) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://sms.example/send", strings.NewReader(ev.Phone))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req) // want `effect http.Client.Do POST in handler sendSMSNaive is not guarded`
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

//idem:handler
func sendSMSWithKey(ctx context.Context, ev Event) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://sms.example/send", strings.NewReader(ev.Phone))
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", ev.ID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// notifyWithEventID delivers a webhook with the event's id in a header of
// the service's own: the receiver drops a delivery it has seen.
//
//idem:handler
func notifyWithEventID(ctx context.Context, ev Event) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://hooks.example/orders", strings.NewReader(ev.Phone))
	if err != nil {
		return err
	}
	req.Header.Set("X-Shop-Event-Id", ev.ID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// notifyWithDelivery names the delivery as GitHub's X-GitHub-Delivery
// does, with an id that repeats with the event.
//
//idem:handler
func notifyWithDelivery(ctx context.Context, ev Event) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://hooks.example/orders", strings.NewReader(ev.Phone))
	if err != nil {
		return err
	}
	req.Header.Set("X-Shop-Delivery", "delivery-"+ev.ID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// notifyWithFreshID sends a new id with every attempt: the receiver sees
// each repeat as a new event.
//
//idem:handler
func notifyWithFreshID(ctx context.Context, ev Event) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://hooks.example/orders", strings.NewReader(ev.Phone))
	if err != nil {
		return err
	}
	req.Header.Set("Webhook-Id", strconv.FormatInt(time.Now().UnixNano(), 10))
	resp, err := http.DefaultClient.Do(req) // want `effect http.Client.Do POST in handler notifyWithFreshID is not guarded`
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

//idem:handler
func getIsFine(ctx context.Context, ev Event) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", "https://api.example/users/"+ev.User, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// patchIsFine sets the user's fields to the message's values: a PATCH that
// replaces state, which a second delivery repeats to the same end.
//
//idem:handler
func patchIsFine(ctx context.Context, ev Event) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPatch, "https://api.example/users/"+ev.User, strings.NewReader(ev.Phone))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// embedIsFine asks a model for an embedding of the message: a POST to an
// inference endpoint computes and changes nothing.
//
//idem:handler
func embedIsFine(ctx context.Context, ev Event) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "https://api.openai.com/v1/embeddings", strings.NewReader(ev.Phone))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

//idem:handler
func postForm(ev Event) error {
	_, err := http.PostForm("https://hooks.example", nil) // want `effect http.PostForm in handler postForm`
	return err
}

//idem:handler
func email(ev Event) error {
	return smtp.SendMail("localhost:25", nil, "a@example", []string{ev.Phone}, nil) // want `effect smtp.SendMail`
}

// Not a handler: effects here are only facts.
func notAHandler(ctx context.Context, db *sql.DB) error { // want notAHandler:`effects\(sql.DB.ExecContext "INSERT INTO visits \(at\) VALUES \(now\(\)\)"\)`
	_, err := db.ExecContext(ctx, `INSERT INTO visits (at) VALUES (now())`)
	return err
}

//idem:handler
func viaHelper(ctx context.Context, db *sql.DB, ev Event) error {
	return notAHandler(ctx, db) // want `effect a.notAHandler → sql.DB.ExecContext .* in handler viaHelper`
}

//idem:handler
func suppressed(ctx context.Context, db *sql.DB, ev Event) error {
	//idem:ignore IDEM001 the ledger has a unique index on the event id
	_, err := db.ExecContext(ctx, `INSERT INTO ledger (event_id) VALUES ($1)`, ev.ID)
	return err
}

//idem:handler
func suppressedNoReason(ctx context.Context, db *sql.DB, ev Event) error {
	//idem:ignore IDEM001 // want `//idem:ignore IDEM001 needs a reason \(IDEM000\)`
	_, err := db.ExecContext(ctx, `INSERT INTO ledger (event_id) VALUES ($1)`, ev.ID) // want `IDEM001`
	return err
}

//idem:handler
func pure(ev Event) string {
	return strings.ToUpper(ev.ID)
}

const insertLedger = `INSERT INTO ledger (event_id, points) ` + `VALUES ($1, $2)`

//idem:handler
func constantsFollowed(ctx context.Context, db *sql.DB, ev Event) error {
	_, err := db.ExecContext(ctx, insertLedger, ev.ID, ev.Qty) // want `"INSERT INTO ledger \(event_id, points\) VALUES \(\$1, \$2\)"`
	return err
}

//idem:handler
func unknownText(ctx context.Context, db *sql.DB, q string) error {
	_, err := db.ExecContext(ctx, q) // want `query text not constant`
	return err
}

// The dedup record through db (autocommit), the effect through a
// transaction: two transactions.
//
//idem:handler
func checkViaDBEffectViaTx(ctx context.Context, db *sql.DB, ev Event) error {
	res, err := db.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING`, ev.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, ev.Qty, ev.SKU); err != nil { // want `IDEM006`
		return err
	}
	return tx.Commit()
}

// INSERT … ON CONFLICT DO NOTHING RETURNING: the returned row decides.
//
//idem:handler
func returningDedup(ctx context.Context, db *sql.DB, ev Event) error {
	tx, _ := db.BeginTx(ctx, nil)
	var id string
	err := tx.QueryRowContext(ctx, `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING id`, ev.ID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // duplicate
	}
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Qty, ev.User); err != nil {
		return err
	}
	return tx.Commit()
}

// The dedup insert's result is ignored.
//
//idem:handler
func insertIgnored(ctx context.Context, db *sql.DB, ev Event) error {
	tx, _ := db.BeginTx(ctx, nil)
	tx.ExecContext(ctx, `INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING`, ev.ID) // want `result of dedup check sql.Tx.ExecContext .* never decides a branch; .* runs for duplicates too \(IDEM004\)`
	tx.ExecContext(ctx, `UPDATE users SET points = points + $1 WHERE id = $2`, ev.Qty, ev.User)
	return tx.Commit()
}

// Suppressing another code, and a malformed directive.
//
//idem:handler
func suppressOther(ctx context.Context, db *sql.DB, ev Event) error {
	//idem:ignore IDEM004 the insert is only a log of deliveries
	db.ExecContext(ctx, `INSERT INTO deliveries (id) VALUES ($1) ON CONFLICT DO NOTHING`, ev.ID)
	_, err := http.Post("https://hooks.example", "text/plain", nil) // want `IDEM001`
	return err
}

//idem:ignore IDEM999 no such code // want `//idem:ignore needs a code \(IDEM001 … IDEM007\) and a reason \(IDEM000\)`

//idem:handle // want `unknown directive //idem:handle \(IDEM000\)`
func misspelled() {}

// A MySQL spelling of the dedup insert.
//
//idem:handler
func insertIgnoreMySQL(ctx context.Context, db *sql.DB, ev Event) error {
	tx, _ := db.BeginTx(ctx, nil)
	res, err := tx.ExecContext(ctx, "INSERT IGNORE INTO processed (id) VALUES (?)", ev.ID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE users SET points = points + ? WHERE id = ?", ev.Qty, ev.User); err != nil {
		return err
	}
	return tx.Commit()
}

// A versioned update: an optimistic dedup.
//
//idem:handler
func versioned(ctx context.Context, db *sql.DB, ev Event) error {
	res, err := db.ExecContext(ctx, `UPDATE accounts SET balance = balance - $1, version = version + 1 WHERE id = $2 AND version = $3`, ev.Qty, ev.User, ev.ID)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return nil
	}
	return nil
}

// Statements kept in fields, built in a constructor, through a Rebind.
type consumers struct {
	db        *sql.DB
	deductSQL string
	phoneSQL  string
}

func rebind(dialect int, q string) string { return strings.ReplaceAll(q, "?", "$") }

func newConsumers(db *sql.DB, dialect int, table string) *consumers {
	return &consumers{
		db:        db,
		deductSQL: rebind(dialect, fmt.Sprintf(`UPDATE %s SET qty = qty - ? WHERE sku = ?`, table)),
		phoneSQL:  rebind(dialect, `UPDATE users SET phone = ? WHERE id = ?`),
	}
}

//idem:handler
func (c *consumers) deduct(ctx context.Context, ev Event) error {
	_, err := c.db.ExecContext(ctx, c.deductSQL, ev.Qty, ev.SKU) // want `effect sql.DB.ExecContext "UPDATE %s SET qty = qty - \? WHERE sku = \?" in handler consumers.deduct`
	return err
}

//idem:handler
func (c *consumers) phone(ctx context.Context, ev Event) error {
	_, err := c.db.ExecContext(ctx, c.phoneSQL, ev.Phone, ev.User)
	return err
}
