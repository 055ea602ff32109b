package guard

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Dialect selects the SQL of a store and of the dedup table's migrations.
type Dialect int

// The supported SQL dialects.
const (
	Postgres Dialect = iota + 1 // PostgreSQL 12+ (pgx stdlib or pgx native)
	MySQL                       // MySQL 8 and MariaDB 10.5+ (go-sql-driver/mysql)
	SQLite                      // SQLite 3.38+ (modernc.org/sqlite); see SQLiteDSN
)

// String returns "postgres", "mysql" or "sqlite".
func (d Dialect) String() string {
	switch d {
	case Postgres:
		return "postgres"
	case MySQL:
		return "mysql"
	case SQLite:
		return "sqlite"
	}
	return "dialect(" + strconv.Itoa(int(d)) + ")"
}

// ParseDialect parses "postgres", "mysql" or "sqlite".
func ParseDialect(s string) (Dialect, error) {
	for _, d := range []Dialect{Postgres, MySQL, SQLite} {
		if d.String() == s {
			return d, nil
		}
	}
	return 0, fmt.Errorf("guard: unknown dialect %q (want postgres, mysql or sqlite)", s)
}

// SQLiteDSN returns a modernc.org/sqlite data source name for the database
// file at path with the settings the store relies on: WAL journal, a 10 s
// busy timeout, and BEGIN IMMEDIATE transactions, so concurrent claims wait
// instead of failing. The name is a "file:" URI whose path is path itself,
// whatever its bytes: '?', '#', '%', spaces, controls and non-ASCII bytes
// are percent-encoded, so a path such as "a?mode=ro" opens the file named
// so, with these settings, rather than "a" read-only. An absolute path gets
// an empty authority ("file:///data/idem.db"), so one starting with "//" is no
// host name. ":memory:" stays SQLite's in-memory database.
func SQLiteDSN(path string) string {
	p := filepath.ToSlash(path)
	if filepath.VolumeName(path) != "" && !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/data/idem.db → file:///C:/data/idem.db
	}
	var b strings.Builder
	b.WriteString("file:")
	if strings.HasPrefix(p, "/") {
		b.WriteString("//")
	}
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c <= ' ' || c >= 0x7f || c == '%' || c == '?' || c == '#':
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString("?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	return b.String()
}

// The dedup table, per dialect: the single source of truth that stores create
// in tests and idemgen renders as migrations. {{T}} is the table, {{I}} the
// unqualified table name used to name the index.
var createTable = map[Dialect][]string{
	Postgres: {`CREATE TABLE IF NOT EXISTS {{T}} (
    consumer    text        NOT NULL,
    key_hash    bytea       NOT NULL,
    key_text    text        NOT NULL,
    state       text        NOT NULL CHECK (state IN ('pending', 'done', 'failed', 'uncertain')),
    fingerprint bytea,
    owner       text,
    lease_until timestamptz,
    result      bytea,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (consumer, key_hash)
)`, `CREATE INDEX IF NOT EXISTS {{I}}_expires_at ON {{T}} (expires_at)`},
	MySQL: {`CREATE TABLE IF NOT EXISTS {{T}} (
    consumer    VARBINARY(191) NOT NULL,
    key_hash    BINARY(32)     NOT NULL,
    key_text    MEDIUMTEXT CHARACTER SET utf8mb4 NOT NULL,
    state       VARCHAR(16) CHARACTER SET ascii NOT NULL,
    fingerprint VARBINARY(255) NULL,
    owner       VARCHAR(64) CHARACTER SET ascii NULL,
    lease_until DATETIME(6)    NULL,
    result      MEDIUMBLOB     NULL,
    created_at  DATETIME(6)    NOT NULL,
    expires_at  DATETIME(6)    NOT NULL,
    PRIMARY KEY (consumer, key_hash),
    KEY {{I}}_expires_at (expires_at)
) ENGINE=InnoDB`},
	SQLite: {`CREATE TABLE IF NOT EXISTS {{T}} (
    consumer    TEXT    NOT NULL,
    key_hash    BLOB    NOT NULL,
    key_text    TEXT    NOT NULL,
    state       TEXT    NOT NULL CHECK (state IN ('pending', 'done', 'failed', 'uncertain')),
    fingerprint BLOB,
    owner       TEXT,
    lease_until INTEGER,
    result      BLOB,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    PRIMARY KEY (consumer, key_hash)
) WITHOUT ROWID`, `CREATE INDEX IF NOT EXISTS {{I}}_expires_at ON {{T}} (expires_at)`},
}

var dropTable = map[Dialect][]string{
	Postgres: {`DROP TABLE IF EXISTS {{T}}`},
	MySQL:    {`DROP TABLE IF EXISTS {{T}}`},
	SQLite:   {`DROP TABLE IF EXISTS {{T}}`},
}

// CreateTableSQL returns the statements that create the dedup table named
// table in dialect d, one statement per element, without final semicolons.
func CreateTableSQL(d Dialect, table string) ([]string, error) {
	return render(createTable, d, table)
}

// DropTableSQL returns the statements that drop the dedup table.
func DropTableSQL(d Dialect, table string) ([]string, error) {
	return render(dropTable, d, table)
}

func render(stmts map[Dialect][]string, d Dialect, table string) ([]string, error) {
	src, ok := stmts[d]
	if !ok {
		return nil, fmt.Errorf("guard: unknown dialect %d", int(d))
	}
	if !tableName.MatchString(table) {
		return nil, fmt.Errorf("guard: table %q is not an identifier (letters, digits, _; optionally schema.table)", table)
	}
	bare := table[strings.LastIndexByte(table, '.')+1:]
	r := strings.NewReplacer("{{T}}", table, "{{I}}", bare)
	out := make([]string, len(src))
	for i, s := range src {
		out[i] = r.Replace(s)
	}
	return out, nil
}

// queries are the statements of the SQL engine for one dialect and table.
type queries struct {
	insertDone, insertPending   string // claim insert; conflict-free on postgres/sqlite
	selectLocked, selectPlain   string
	reclaimDone, reclaimPending string
	takeover                    string
	setState                    string // state, result by key (uncertain; failed after Reject)
	resolve                     string // done with result, by key
	settle                      string // state, result by key and owner
	release                     string
	extend                      string
	forget                      string
	purge                       string // args: the identity record's key hash, batch
	insertIdentity              string // args: consumer, key hash, identity
	insertIsConflictFree        bool   // false: a unique violation means conflict (MySQL)

	// batches (sqlbatch.go)
	dialect                    Dialect
	table                      string
	batchSelect                string   // the record's columns after consumer and key_hash, FROM the table
	batchInsertPG, batchReadPG string   // PostgreSQL's, from arrays
	mysqlReads                 sync.Map // MySQL's locked reads by key count

	// daily partitions (partition.go)
	dailyPartitions      bool
	lockKey, batchLockPG string // the advisory locks claims take first; empty for a plain table
}

// sqlDialect holds the dialect's expressions for the database clock.
type sqlDialect struct {
	now        string // current time, as the column type
	plus       string // now + ? microseconds
	micros     string // %s → that column as Unix microseconds
	nowMicros  string
	forUpdate  string
	onConflict string
	purge      string
	forever    string // the expiry of records that never expire: the year 9999
	dollar     bool   // $n placeholders
}

var dialects = map[Dialect]sqlDialect{
	Postgres: {
		now:        `clock_timestamp()`,
		plus:       `clock_timestamp() + ?::int8 * interval '1 microsecond'`,
		micros:     `(extract(epoch from %s) * 1000000)::int8`,
		nowMicros:  `(extract(epoch from clock_timestamp()) * 1000000)::int8`,
		forUpdate:  ` FOR UPDATE`,
		onConflict: ` ON CONFLICT (consumer, key_hash) DO NOTHING`,
		purge:      `DELETE FROM {{T}} WHERE (consumer, key_hash) IN (SELECT consumer, key_hash FROM {{T}} WHERE key_hash <> ? AND {{EXPIRED}} LIMIT ?) AND {{EXPIRED}}`,
		forever:    `'9999-12-31 00:00:00+00'::timestamptz`,
		dollar:     true,
	},
	MySQL: {
		now:       `UTC_TIMESTAMP(6)`,
		plus:      `UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND`,
		micros:    `TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', %s)`,
		nowMicros: `TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))`,
		forUpdate: ` FOR UPDATE`,
		purge:     `DELETE FROM {{T}} WHERE key_hash <> ? AND {{EXPIRED}} LIMIT ?`,
		forever:   `'9999-12-31 00:00:00'`,
	},
	SQLite: {
		now:        `CAST(unixepoch('subsec') * 1000000 AS INTEGER)`,
		plus:       `(CAST(unixepoch('subsec') * 1000000 AS INTEGER) + ?)`,
		micros:     `%s`,
		nowMicros:  `CAST(unixepoch('subsec') * 1000000 AS INTEGER)`,
		onConflict: ` ON CONFLICT (consumer, key_hash) DO NOTHING`,
		purge:      `DELETE FROM {{T}} WHERE (consumer, key_hash) IN (SELECT consumer, key_hash FROM {{T}} WHERE key_hash <> ? AND {{EXPIRED}} LIMIT ?) AND {{EXPIRED}}`,
		forever:    `253402214400000000`, // 9999-12-31 in Unix microseconds
	},
}

func newQueries(d Dialect, table string) (*queries, error) {
	sd, ok := dialects[d]
	if !ok {
		return nil, fmt.Errorf("guard: unknown dialect %d", int(d))
	}
	if !tableName.MatchString(table) {
		return nil, fmt.Errorf("guard: table %q is not an identifier", table)
	}
	us := func(col string) string { return fmt.Sprintf(sd.micros, col) }
	expired := fmt.Sprintf("expires_at <= %s AND NOT (state = 'pending' AND lease_until IS NOT NULL AND lease_until > %s)", sd.now, sd.now)
	cols := `state, fingerprint, owner, result, ` + us("lease_until") + `, ` + us("expires_at") + `, ` +
		us("created_at") + `, ` + sd.nowMicros + `, key_text`
	sel := `SELECT ` + cols + ` FROM {{T}} WHERE consumer = ? AND key_hash = ?`
	insert := func(lease string) string {
		return `INSERT INTO {{T}} (consumer, key_hash, key_text, state, fingerprint, owner, lease_until, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ` +
			lease + `, ` + sd.now + `, ` + sd.plus + `)` + sd.onConflict
	}
	reclaim := func(lease string) string {
		return `UPDATE {{T}} SET key_text = ?, state = ?, fingerprint = ?, owner = ?, lease_until = ` + lease +
			`, result = NULL, created_at = ` + sd.now + `, expires_at = ` + sd.plus + ` WHERE consumer = ? AND key_hash = ?`
	}
	q := &queries{
		insertDone:     insert(`NULL`),
		insertPending:  insert(sd.plus),
		selectLocked:   sel + sd.forUpdate,
		selectPlain:    sel,
		reclaimDone:    reclaim(`NULL`),
		reclaimPending: reclaim(sd.plus),
		takeover:       `UPDATE {{T}} SET owner = ?, lease_until = ` + sd.plus + ` WHERE consumer = ? AND key_hash = ?`,
		setState:       `UPDATE {{T}} SET state = ?, result = ?, lease_until = NULL WHERE consumer = ? AND key_hash = ?`,
		resolve:        `UPDATE {{T}} SET state = 'done', result = ?, lease_until = NULL, expires_at = ` + sd.plus + ` WHERE consumer = ? AND key_hash = ?`,
		settle: `UPDATE {{T}} SET state = ?, result = ?, lease_until = NULL, expires_at = ` + sd.plus +
			` WHERE consumer = ? AND key_hash = ? AND owner = ? AND state IN ('pending', 'uncertain')`,
		release: `DELETE FROM {{T}} WHERE consumer = ? AND key_hash = ? AND owner = ? AND state IN ('pending', 'uncertain')`,
		extend:  `UPDATE {{T}} SET lease_until = ` + sd.plus + ` WHERE consumer = ? AND key_hash = ? AND owner = ? AND state = 'pending'`,
		forget:  `DELETE FROM {{T}} WHERE consumer = ? AND key_hash = ?`,
		purge:   strings.ReplaceAll(sd.purge, "{{EXPIRED}}", expired),
		insertIdentity: `INSERT INTO {{T}} (consumer, key_hash, key_text, state, result, created_at, expires_at) VALUES (?, ?, '', 'done', ?, ` +
			sd.now + `, ` + sd.forever + `)` + sd.onConflict,
		insertIsConflictFree: sd.onConflict != "",
	}
	q.dialect, q.table = d, table
	q.batchSelect = `SELECT consumer, key_hash, ` + cols + ` FROM ` + table
	if d == Postgres {
		q.batchInsertPG = `INSERT INTO ` + table + ` (consumer, key_hash, key_text, state, fingerprint, owner, lease_until, created_at, expires_at)
SELECT u.c, u.h, u.k, u.s, u.f, u.o, CASE WHEN u.s = 'pending' THEN clock_timestamp() + $7::int8 * interval '1 microsecond' END,
       clock_timestamp(), clock_timestamp() + $8::int8 * interval '1 microsecond'
FROM unnest($1::text[], $2::bytea[], $3::text[], $4::text[], $5::bytea[], $6::text[]) AS u(c, h, k, s, f, o)
ON CONFLICT (consumer, key_hash) DO NOTHING RETURNING consumer, key_hash`
		q.batchReadPG = `SELECT t.consumer, t.key_hash, ` + cols + ` FROM ` + table + ` t
JOIN unnest($1::text[], $2::bytea[]) AS u(c, h) ON t.consumer = u.c AND t.key_hash = u.h FOR UPDATE OF t`
	}
	for _, p := range []*string{&q.insertDone, &q.insertPending, &q.selectLocked, &q.selectPlain, &q.reclaimDone,
		&q.reclaimPending, &q.takeover, &q.setState, &q.resolve, &q.settle, &q.release, &q.extend, &q.forget, &q.purge, &q.insertIdentity} {
		*p = strings.ReplaceAll(*p, "{{T}}", table)
		if sd.dollar {
			*p = dollarPlaceholders(*p)
		}
	}
	return q, nil
}

// dollarPlaceholders rewrites ? to $1, $2, … (no ? appears in our literals).
func dollarPlaceholders(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
