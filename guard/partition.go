package guard

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Daily partitions (PostgreSQL).
//
// A dedup table of 10⁸–10⁹ records is slow to purge row by row: every
// DELETE writes WAL for each row, bloats the indexes and leaves the work to
// autovacuum. PartitionedTableSQL creates the table partitioned by day of
// expiry instead (PARTITION BY RANGE (expires_at), one partition per UTC
// day, plus one for the records that never expire), so that purging is
// dropping whole partitions whose every record has expired: a catalog
// operation, whatever their size. A store opened WithDailyPartitions
// claims in such a table and its Purge is MaintainPartitions.
//
// PostgreSQL requires every unique key of a partitioned table to include
// the partition key, so the primary key is (consumer, key_hash,
// expires_at): the database no longer refuses a second record of a key
// whose expiry falls on another day. The store enforces uniqueness
// instead: each claim first takes a transaction-scoped advisory lock on
// its key (pg_advisory_xact_lock of a hash of consumer and key hash; a
// batch takes its keys' locks in order), then inserts only where no record
// of the key exists in any partition. Two deliveries of one key serialize
// on the lock, and the second one's insert, a new statement with a new
// snapshot, sees the first's committed record: a duplicate is refused
// across partitions as it is in the plain table. The cost is one more
// statement (round trip) per claim, and a lookup by key probes the primary
// key index of every partition (about retention + 3 days of them). An
// expired record that is claimed again is updated in place and moves to
// the partition of its new expiry. Writing the table without the store
// (another program inserting records) must take the same lock.

// partitionedTable is the partitioned dedup table: the columns of the plain
// one, the partition key in the primary key, a partial index for
// MaintainPartitions' check for live leases, the partition of records
// that never expire (key identities), and a DO block creating the day
// partitions from today through {{DAYS}} days ahead.
var partitionedTable = []string{`CREATE TABLE IF NOT EXISTS {{T}} (
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
    PRIMARY KEY (consumer, key_hash, expires_at)
) PARTITION BY RANGE (expires_at)`,
	`CREATE INDEX IF NOT EXISTS {{I}}_pending ON {{T}} (lease_until) WHERE state = 'pending'`,
	`CREATE TABLE IF NOT EXISTS {{T}}_forever PARTITION OF {{T}} FOR VALUES FROM ('9999-01-01 00:00:00+00') TO (MAXVALUE)`,
	`DO $$
DECLARE d date;
BEGIN
    FOR d IN SELECT generate_series(0, {{DAYS}}) + (clock_timestamp() AT TIME ZONE 'UTC')::date LOOP
        EXECUTE format('CREATE TABLE IF NOT EXISTS %s PARTITION OF {{T}} FOR VALUES FROM (%L) TO (%L)',
            '{{T}}_p' || to_char(d, 'YYYYMMDD'), d || ' 00:00:00+00', (d + 1) || ' 00:00:00+00');
    END LOOP;
END $$`}

// maxPartitionedBase is the longest table name (without its schema) that
// leaves room for a partition's suffix (_pYYYYMMDD) in PostgreSQL's 63 bytes.
const maxPartitionedBase = 63 - len("_p20060102")

// PartitionDaysAhead is how many days past the retention
// PartitionedTableSQL and Purge create partitions for, so that a missed
// day of upkeep does not stop the claims.
const PartitionDaysAhead = 3

// PartitionedTableSQL returns the statements that create the dedup table
// named table partitioned by day of expiry (see the doc above
// WithDailyPartitions), with the partitions of today through
// ceil(retention) + PartitionDaysAhead days ahead. Only PostgreSQL
// partitions; the name without its schema is at most 53 bytes.
func PartitionedTableSQL(d Dialect, table string, retention time.Duration) ([]string, error) {
	if d != Postgres {
		return nil, fmt.Errorf("guard: daily partitions need PostgreSQL, not %s", d)
	}
	if err := checkPartitionedName(table); err != nil {
		return nil, err
	}
	stmts, err := render(map[Dialect][]string{Postgres: partitionedTable}, d, table)
	if err != nil {
		return nil, err
	}
	days := strconv.Itoa(partitionDays(retention))
	for i := range stmts {
		stmts[i] = strings.ReplaceAll(stmts[i], "{{DAYS}}", days)
	}
	return stmts, nil
}

func partitionDays(retention time.Duration) int {
	return int((retention+24*time.Hour-1)/(24*time.Hour)) + PartitionDaysAhead
}

func checkPartitionedName(table string) error {
	if bare := table[strings.LastIndexByte(table, '.')+1:]; len(bare) > maxPartitionedBase {
		return fmt.Errorf("guard: table %q: a partitioned table's name is at most %d bytes (its partitions add _pYYYYMMDD)", table, maxPartitionedBase)
	}
	return nil
}

// WithDailyPartitions declares that the store's table is partitioned by day
// of expiry (PartitionedTableSQL; idemgen's migrations.partition: daily):
// claims take an advisory lock on their key before inserting, since the
// database cannot refuse a second record of a key in another partition,
// and Purge drops expired partitions (MaintainPartitions) instead of
// deleting rows. PostgreSQL only: a store of another dialect refuses it.
func WithDailyPartitions() Option { return func(c *Config) { c.DailyPartitions = true } }

// partitioned rewrites the PostgreSQL queries of q for a table partitioned
// by PartitionedTableSQL: the claim inserts skip a key that has a record in
// any partition (after lockKey), and the identity insert conflicts on the
// whole primary key (its expiry is a constant).
func (q *queries) partitioned(table string) error {
	if q.dialect != Postgres {
		return fmt.Errorf("guard: WithDailyPartitions needs PostgreSQL, not %s", q.dialect)
	}
	if err := checkPartitionedName(table); err != nil {
		return err
	}
	sd := dialects[Postgres]
	absent := ` WHERE NOT EXISTS (SELECT 1 FROM ` + table + ` WHERE consumer = $1 AND key_hash = $2)`
	cols := `INSERT INTO ` + table + ` (consumer, key_hash, key_text, state, fingerprint, owner, lease_until, created_at, expires_at) SELECT $1::text, $2::bytea, $3::text, $4::text, $5::bytea, $6::text, `
	q.insertDone = cols + `NULL, ` + sd.now + `, ` + strings.Replace(sd.plus, "?", "$7", 1) + absent
	q.insertPending = cols + strings.Replace(sd.plus, "?", "$7", 1) + `, ` + sd.now + `, ` + strings.Replace(sd.plus, "?", "$8", 1) + absent
	q.insertIdentity = strings.Replace(q.insertIdentity, sd.onConflict, ` ON CONFLICT DO NOTHING`, 1)
	q.lockKey = `SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || encode($2, 'hex'), 0))`
	q.batchLockPG = `SELECT pg_advisory_xact_lock(l) FROM (SELECT DISTINCT hashtextextended(c || ':' || encode(h, 'hex'), 0) AS l
FROM unnest($1::text[], $2::bytea[]) AS u(c, h) ORDER BY l) AS s`
	q.batchInsertPG = strings.Replace(q.batchInsertPG, `ON CONFLICT (consumer, key_hash) DO NOTHING`,
		`WHERE NOT EXISTS (SELECT 1 FROM `+table+` t WHERE t.consumer = u.c AND t.key_hash = u.h) ON CONFLICT DO NOTHING`, 1)
	q.dailyPartitions = true
	return nil
}

// PartitionUpkeep is what MaintainPartitions did: the partitions it
// created and dropped, the expired ones it kept because a record in them
// still holds a live lease, and an estimate of the records dropped (the
// planner's row counts, pg_class.reltuples).
type PartitionUpkeep struct {
	Created, Dropped, Kept []string
	DroppedRows            int64
}

var dayPartition = regexp.MustCompile(`_p(\d{8})$`)

// MaintainPartitions keeps the daily partitions of a store opened
// WithDailyPartitions: it creates the partitions of today through ahead
// from now (by the database's clock, in UTC) that are missing, and drops
// every day partition whose day has ended, unless a record in it holds a
// live lease. A dropped partition held only expired records, which claims
// already treat as absent. Purge calls it with the store's retention plus
// PartitionDaysAhead days; call it at least daily, with the longest
// retention of the consumers sharing the table. Dropping a partition waits
// for the transactions using the table and holds new claims meanwhile.
func (e *sqlEngine) MaintainPartitions(ctx context.Context, ahead time.Duration) (PartitionUpkeep, error) {
	var up PartitionUpkeep
	if !e.q.dailyPartitions {
		return up, fmt.Errorf("guard: MaintainPartitions: the store of %s was not opened WithDailyPartitions", e.cfg.Table)
	}
	table := e.cfg.Table
	schema := table[:max(strings.LastIndexByte(table, '.'), 0)]
	var today string
	if err := e.b.QueryRow(ctx, `SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYYMMDD')`).Scan(&today); err != nil {
		return up, fmt.Errorf("guard: partitions of %s: %w", table, err)
	}
	start, err := time.Parse("20060102", today)
	if err != nil {
		return up, fmt.Errorf("guard: partitions of %s: %w", table, err)
	}
	rows, err := e.b.Query(ctx, `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`, table)
	if err != nil {
		return up, fmt.Errorf("guard: partitions of %s: %w", table, err)
	}
	existing := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return up, fmt.Errorf("guard: partitions of %s: %w", table, err)
		}
		if m := dayPartition.FindStringSubmatch(name); m != nil {
			existing[m[1]] = true
		}
	}
	if err := rows.Close(); err != nil {
		return up, fmt.Errorf("guard: partitions of %s: %w", table, err)
	}
	qualified := func(day string) string {
		if schema != "" {
			return schema + "." + table[len(schema)+1:] + "_p" + day
		}
		return table + "_p" + day
	}
	days := int((ahead + 24*time.Hour - 1) / (24 * time.Hour))
	for i := 0; i <= days; i++ {
		d := start.AddDate(0, 0, i)
		day := d.Format("20060102")
		if existing[day] {
			continue
		}
		q := `CREATE TABLE IF NOT EXISTS ` + qualified(day) + ` PARTITION OF ` + table + ` FOR VALUES FROM ('` +
			d.Format("2006-01-02") + ` 00:00:00+00') TO ('` + d.AddDate(0, 0, 1).Format("2006-01-02") + ` 00:00:00+00')`
		if _, err := e.b.Exec(ctx, q); err != nil {
			return up, fmt.Errorf("guard: create partition %s: %w", qualified(day), err)
		}
		up.Created = append(up.Created, qualified(day))
	}
	var expired []string
	for day := range existing {
		if day < today { // its day ended at 00:00 UTC today or earlier: every record in it has expired
			expired = append(expired, day)
		}
	}
	for _, day := range sortedStrings(expired) {
		part := qualified(day)
		var live bool
		if err := e.b.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+part+` WHERE state = 'pending' AND lease_until > clock_timestamp())`).Scan(&live); err != nil {
			return up, fmt.Errorf("guard: check partition %s: %w", part, err)
		}
		if live {
			up.Kept = append(up.Kept, part)
			continue
		}
		var n float64
		if err := e.b.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = $1::regclass`, part).Scan(&n); err == nil && n > 0 {
			up.DroppedRows += int64(n)
		}
		if _, err := e.b.Exec(ctx, `DROP TABLE IF EXISTS `+part); err != nil {
			return up, fmt.Errorf("guard: drop partition %s: %w", part, err)
		}
		up.Dropped = append(up.Dropped, part)
	}
	return up, nil
}

func sortedStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}
