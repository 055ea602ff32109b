// Package shopdb holds the business tables of the shop example — stock,
// points per user, statistics per day — which the naive consumers
// (../naive) and the guarded ones (../orders) both change, each in tables of
// their own: creating, seeding, reading and dropping them, and the little SQL
// that differs between PostgreSQL, MySQL and SQLite.
package shopdb

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/redisguard"
)

// Tables names the business tables of one set of consumers.
type Tables struct {
	Stock  string // sku → qty
	Points string // user_id → points
	Stats  string // (day, metric) → count, total
}

var validPrefix = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)

// NewTables returns the tables named prefix + "stock", "points" and "stats".
// prefix is lowercase letters, digits and _, starting with a letter.
func NewTables(prefix string) (Tables, error) {
	if !validPrefix.MatchString(prefix) {
		return Tables{}, fmt.Errorf("shopdb: invalid table prefix %q", prefix)
	}
	return Tables{Stock: prefix + "stock", Points: prefix + "points", Stats: prefix + "stats"}, nil
}

func (t Tables) all() []string { return []string{t.Stock, t.Points, t.Stats} }

// Rebind turns the ? placeholders of query into $1, $2, … for PostgreSQL;
// MySQL and SQLite take ? as written. query must hold no ? in literals.
func Rebind(d guard.Dialect, query string) string {
	if d != guard.Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// AddStatsSQL returns the statement that counts one event of amount into the
// (day, metric) row of table, creating the row on the day's first event:
// count = count + 1, total = total + amount. Its arguments are day, metric
// and amount. The upsert is the one thing the three dialects spell
// differently.
func AddStatsSQL(d guard.Dialect, table string) string {
	if d == guard.MySQL {
		return fmt.Sprintf(`INSERT INTO %[1]s (day, metric, count, total) VALUES (?, ?, 1, ?)
ON DUPLICATE KEY UPDATE count = count + 1, total = total + VALUES(total)`, table)
	}
	return Rebind(d, fmt.Sprintf(`INSERT INTO %[1]s (day, metric, count, total) VALUES (?, ?, 1, ?)
ON CONFLICT (day, metric) DO UPDATE SET count = %[1]s.count + 1, total = %[1]s.total + excluded.total`, table))
}

// Create creates the tables of t (which must not exist yet).
func Create(ctx context.Context, db *sql.DB, t Tables) error {
	for _, q := range []string{
		`CREATE TABLE ` + t.Stock + ` (sku VARCHAR(64) NOT NULL PRIMARY KEY, qty BIGINT NOT NULL)`,
		`CREATE TABLE ` + t.Points + ` (user_id VARCHAR(64) NOT NULL PRIMARY KEY, points BIGINT NOT NULL)`,
		`CREATE TABLE ` + t.Stats + ` (day VARCHAR(10) NOT NULL, metric VARCHAR(32) NOT NULL,
			count BIGINT NOT NULL, total BIGINT NOT NULL, PRIMARY KEY (day, metric))`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("shopdb: create: %w", err)
		}
	}
	return nil
}

// Drop drops the tables of t that exist.
func Drop(ctx context.Context, db *sql.DB, t Tables) error {
	for _, name := range t.all() {
		if _, err := db.ExecContext(ctx, `DROP TABLE IF EXISTS `+name); err != nil {
			return fmt.Errorf("shopdb: drop %s: %w", name, err)
		}
	}
	return nil
}

// Seed fills the tables of t: stock[sku] units of each SKU, and each user
// with 0 points.
func Seed(ctx context.Context, db *sql.DB, d guard.Dialect, t Tables, stock map[string]int64, users []string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("shopdb: seed: %w", err)
	}
	defer tx.Rollback()
	for sku, qty := range stock {
		if _, err := tx.ExecContext(ctx, Rebind(d, `INSERT INTO `+t.Stock+` (sku, qty) VALUES (?, ?)`), sku, qty); err != nil {
			return fmt.Errorf("shopdb: seed stock: %w", err)
		}
	}
	for _, u := range users {
		if _, err := tx.ExecContext(ctx, Rebind(d, `INSERT INTO `+t.Points+` (user_id, points) VALUES (?, 0)`), u); err != nil {
			return fmt.Errorf("shopdb: seed points: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("shopdb: seed: %w", err)
	}
	return nil
}

// StatKey names a row of the statistics.
type StatKey struct {
	Day    string
	Metric string
}

// Stat is a row of the statistics: how many events were counted, and the
// sum of their amounts.
type Stat struct {
	Count int64
	Total int64
}

// State is the content of the tables of one set of consumers.
type State struct {
	Stock  map[string]int64 // by SKU
	Points map[string]int64 // by user
	Stats  map[StatKey]Stat
}

// Read returns the content of the tables of t.
func Read(ctx context.Context, db *sql.DB, t Tables) (*State, error) {
	s := &State{Stock: map[string]int64{}, Points: map[string]int64{}, Stats: map[StatKey]Stat{}}
	if err := readPairs(ctx, db, `SELECT sku, qty FROM `+t.Stock, s.Stock); err != nil {
		return nil, err
	}
	if err := readPairs(ctx, db, `SELECT user_id, points FROM `+t.Points, s.Points); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT day, metric, count, total FROM `+t.Stats)
	if err != nil {
		return nil, fmt.Errorf("shopdb: read %s: %w", t.Stats, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			k  StatKey
			st Stat
		)
		if err := rows.Scan(&k.Day, &k.Metric, &st.Count, &st.Total); err != nil {
			return nil, fmt.Errorf("shopdb: read %s: %w", t.Stats, err)
		}
		s.Stats[k] = st
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("shopdb: read %s: %w", t.Stats, err)
	}
	return s, nil
}

func readPairs(ctx context.Context, db *sql.DB, query string, into map[string]int64) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return fmt.Errorf("shopdb: %s: %w", query, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			k string
			v int64
		)
		if err := rows.Scan(&k, &v); err != nil {
			return fmt.Errorf("shopdb: %s: %w", query, err)
		}
		into[k] = v
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("shopdb: %s: %w", query, err)
	}
	return nil
}

// PointsKey is the Redis key holding the points of user, for the consumers
// whose keys start with prefix: tagged with the user, so that on Redis
// Cluster it shares the slot of the user's dedup records (add_points_redis's
// hash_tag is user_id).
func PointsKey(prefix, user string) string {
	return redisguard.Tagged(user, prefix+":points")
}
