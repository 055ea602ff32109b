package guard

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/idemkit/idem/guard/internal/core"
)

// The operators' methods of the SQL engine (Operator): listing, counting,
// reading by key hash and changing a record only if it is as it was read.

// listBatch is how many records one query of Records reads.
const listBatch = 100

// opsSQL are the operators' statements of a dialect and table, built on
// demand (they are not on any claim's path).
type opsSQL struct {
	d     sqlDialect
	table string
	// same is the dialect's NULL-safe equality.
	same string
}

func (e *sqlEngine) opsSQL() opsSQL {
	same := map[Dialect]string{Postgres: "IS NOT DISTINCT FROM", MySQL: "<=>", SQLite: "IS"}[e.dialect]
	return opsSQL{dialects[e.dialect], e.cfg.Table, same}
}

// finish puts the table in and numbers the placeholders.
func (o opsSQL) finish(q string) string {
	q = strings.ReplaceAll(q, "{{T}}", o.table)
	if o.d.dollar {
		q = dollarPlaceholders(q)
	}
	return q
}

func (o opsSQL) us(col string) string { return fmt.Sprintf(o.d.micros, col) }

// columns are the columns scanRecord reads after its head.
func (o opsSQL) columns() string {
	return `state, fingerprint, owner, result, ` + o.us("lease_until") + `, ` + o.us("expires_at") + `, ` +
		o.us("created_at") + `, ` + o.d.nowMicros + `, key_text`
}

// liveLease is true of a pending record whose lease has not ended.
func (o opsSQL) liveLease() string {
	return `(state = 'pending' AND lease_until IS NOT NULL AND lease_until > ` + o.d.now + `)`
}

func (o opsSQL) expired() string {
	return `(expires_at <= ` + o.d.now + ` AND NOT ` + o.liveLease() + `)`
}

func stored(r *readRecord, hash []byte) *StoredRecord {
	s := &StoredRecord{Record: r.Record, Now: r.now}
	copy(s.Hash[:], hash)
	return s
}

// Records implements Operator: the records f selects, by consumer and key
// hash, read listBatch at a time. Consumer and states are filtered by the
// database, ages and expiry by each record's read time.
func (e *sqlEngine) Records(ctx context.Context, f RecordFilter) iter.Seq2[*StoredRecord, error] {
	return func(yield func(*StoredRecord, error) bool) {
		qr := e.b
		o := e.opsSQL()
		where := ` WHERE key_hash <> ?`
		var fixed []any
		fixed = append(fixed, identityHash[:])
		if f.Consumer != "" {
			where += ` AND consumer = ?`
			fixed = append(fixed, f.Consumer)
		}
		if len(f.States) > 0 {
			where += ` AND state IN (?` + strings.Repeat(`, ?`, len(f.States)-1) + `)`
			for _, s := range f.States {
				fixed = append(fixed, string(s))
			}
		}
		head := `SELECT consumer, key_hash, ` + o.columns() + ` FROM {{T}}`
		tail := ` ORDER BY consumer, key_hash LIMIT ?`
		first := o.finish(head + where + tail)
		next := o.finish(head + where + ` AND (consumer > ? OR (consumer = ? AND key_hash > ?))` + tail)
		if f.Consumer != "" {
			next = o.finish(head + where + ` AND key_hash > ?` + tail)
		}
		var lastConsumer string
		var lastHash []byte
		for {
			q, args := first, append(slices.Clone(fixed), listBatch)
			if lastHash != nil {
				q = next
				if f.Consumer != "" {
					args = append(slices.Clone(fixed), lastHash, listBatch)
				} else {
					args = append(slices.Clone(fixed), lastConsumer, lastConsumer, lastHash, listBatch)
				}
			}
			page, err := e.page(ctx, qr, q, args)
			if err != nil {
				yield(nil, fmt.Errorf("guard: list %s: %w", e.cfg.Table, err))
				return
			}
			for _, r := range page {
				if f.Match(r) && !yield(r, nil) {
					return
				}
			}
			if len(page) < listBatch {
				return
			}
			last := page[len(page)-1]
			lastConsumer, lastHash = last.Consumer, slices.Clone(last.Hash[:])
		}
	}
}

// page reads one page of Records.
func (e *sqlEngine) page(ctx context.Context, qr core.Execer, q string, args []any) ([]*StoredRecord, error) {
	rows, err := qr.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var page []*StoredRecord
	for rows.Next() {
		var (
			consumer string
			hash     []byte
		)
		r, err := scanRecord(rows.Scan, &consumer, &hash)
		if err != nil {
			return nil, err
		}
		r.Consumer = consumer
		page = append(page, stored(r, hash))
	}
	return page, rows.Err()
}

// Lookup implements Operator.
func (e *sqlEngine) Lookup(ctx context.Context, consumer string, hash [32]byte) (*StoredRecord, error) {
	if err := validateConsumer(consumer); err != nil {
		return nil, err
	}
	r, err := e.scan(ctx, e.b, e.q.selectPlain, consumer, hash[:])
	if err != nil || r == nil {
		return nil, err
	}
	return stored(r, hash[:]), nil
}

// Amend implements Operator with one conditional statement: it applies only
// while the record has the state, creation time, owner and result seen and
// holds no live lease by the database's clock.
func (e *sqlEngine) Amend(ctx context.Context, seen *StoredRecord, change Change) error {
	if err := CheckAmend(seen, change); err != nil {
		return err
	}
	o := e.opsSQL()
	cond := ` WHERE consumer = ? AND key_hash = ? AND state = ? AND ` + o.us("created_at") + ` = ? AND COALESCE(owner, '') = ? AND result ` + o.same + ` ? AND NOT ` + o.liveLease()
	condArgs := []any{seen.Consumer, seen.Hash[:], string(seen.State), seen.CreatedAt.UnixMicro(), seen.Owner, seen.Result}
	q, args := `DELETE FROM {{T}}`+cond, condArgs
	if change.To != "" {
		q = `UPDATE {{T}} SET state = ?, result = ?, owner = NULL, lease_until = NULL, expires_at = ` + o.d.plus + cond
		args = append([]any{string(change.To), change.Result, us(e.cfg.Retention)}, condArgs...)
	}
	var n int64
	err := e.retry(ctx, seen.Consumer, seen.Key, func() error {
		var err error
		n, err = e.b.Exec(ctx, o.finish(q), args...)
		return err
	})
	switch {
	case err != nil:
		return fmt.Errorf("guard: amend %s record: %w", seen.Consumer, err)
	case n == 0:
		return fmt.Errorf("guard: amend %s record: %w", seen.Consumer, ErrRecordChanged)
	}
	return nil
}

// Stats implements Operator with one grouped query, and the size of the
// table and its indexes as the database estimates it: PostgreSQL's
// pg_total_relation_size, MySQL's information_schema.tables, SQLite's
// dbstat (or the whole database file where dbstat is missing).
func (e *sqlEngine) Stats(ctx context.Context, consumer string) (*Stats, error) {
	qr := e.b
	o := e.opsSQL()
	args := []any{identityHash[:]}
	where := ` WHERE key_hash <> ?`
	if consumer != "" {
		if err := validateConsumer(consumer); err != nil {
			return nil, err
		}
		where += ` AND consumer = ?`
		args = append(args, consumer)
	}
	notExpired := `NOT ` + o.expired()
	q := o.finish(`SELECT consumer, state, COUNT(*), ` +
		`SUM(CASE WHEN ` + o.expired() + ` THEN 1 ELSE 0 END), ` +
		`SUM(CASE WHEN ` + notExpired + ` AND state = 'pending' AND NOT ` + o.liveLease() + ` THEN 1 ELSE 0 END), ` +
		`MIN(CASE WHEN ` + notExpired + ` AND state = 'pending' THEN ` + o.us("created_at") + ` END) ` +
		`FROM {{T}}` + where + ` GROUP BY consumer, state ORDER BY consumer, state`)
	st := &Stats{Size: -1}
	var nowUS int64
	if err := e.b.QueryRow(ctx, o.finish(`SELECT `+o.d.nowMicros)).Scan(&nowUS); err != nil {
		return nil, fmt.Errorf("guard: stats %s: %w", e.cfg.Table, err)
	}
	st.Now = time.UnixMicro(nowUS)
	rows, err := qr.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("guard: stats %s: %w", e.cfg.Table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			name, state            string
			count, expired, leases int64
			oldest                 sql.NullInt64
		)
		if err := rows.Scan(&name, &state, &count, &expired, &leases, &oldest); err != nil {
			return nil, fmt.Errorf("guard: stats %s: %w", e.cfg.Table, err)
		}
		if n := len(st.Consumers); n == 0 || st.Consumers[n-1].Consumer != name {
			st.Consumers = append(st.Consumers, ConsumerStats{Consumer: name, States: map[State]int64{}})
		}
		c := &st.Consumers[len(st.Consumers)-1]
		if live := count - expired; live > 0 {
			c.States[State(state)] = live
		}
		c.Expired += expired
		c.ExpiredLeases += leases
		if oldest.Valid {
			c.OldestPending = time.UnixMicro(oldest.Int64)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("guard: stats %s: %w", e.cfg.Table, err)
	}
	st.Size, err = e.tableSize(ctx)
	if err != nil {
		return nil, fmt.Errorf("guard: size of %s: %w", e.cfg.Table, err)
	}
	return st, nil
}

// tableSize returns the bytes of the table and its indexes, or -1.
func (e *sqlEngine) tableSize(ctx context.Context) (int64, error) {
	table := e.cfg.Table
	schema, bare, qualified := strings.Cut(table, ".")
	if !qualified {
		schema, bare = "", table
	}
	var size sql.NullInt64
	switch e.dialect {
	case Postgres:
		err := e.b.QueryRow(ctx, `SELECT pg_total_relation_size(to_regclass($1::text))`, table).Scan(&size)
		if err != nil {
			return -1, err
		}
	case MySQL:
		var s any = schema
		if !qualified {
			s = nil
		}
		err := e.b.QueryRow(ctx, `SELECT SUM(data_length + index_length) FROM information_schema.tables WHERE table_schema = COALESCE(?, DATABASE()) AND table_name = ?`, s, bare).Scan(&size)
		if err != nil {
			return -1, err
		}
	case SQLite:
		if !qualified {
			schema = "main"
		}
		err := e.b.QueryRow(ctx, `SELECT SUM(pgsize) FROM dbstat WHERE schema = ? AND name IN (?, ?)`, schema, bare, bare+"_expires_at").Scan(&size)
		if err != nil {
			// Built without dbstat: the whole database file.
			err = e.b.QueryRow(ctx, `SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()`).Scan(&size)
		}
		if err != nil {
			return -1, err
		}
	}
	if !size.Valid {
		return -1, nil
	}
	return size.Int64, nil
}
