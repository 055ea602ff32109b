package sqlclass

import "testing"

// TestNatural reads DDL as migrations declare it and checks which inserts
// set a natural unique key.
func TestNatural(t *testing.T) {
	ddl := `
CREATE TABLE IF NOT EXISTS public.document_chunks (
    id UUID PRIMARY KEY DEFAULT uuidv7(),
    document_id UUID NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    sequence_number INTEGER NOT NULL,
    text TEXT NOT NULL DEFAULT '' -- a comment, with a , comma
);
CREATE UNIQUE INDEX IF NOT EXISTS idx_document_chunks_document_sequence
    ON document_chunks(document_id, sequence_number);
CREATE TABLE payments (id UUID PRIMARY KEY, order_id TEXT NOT NULL, amount NUMERIC(10, 2));
CREATE TABLE users (id BIGSERIAL PRIMARY KEY, email TEXT UNIQUE, name TEXT);
CREATE TABLE ledger (
    id INT AUTO_INCREMENT,
    account VARCHAR(64) NOT NULL,
    period CHAR(7) NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_account_period (account, period)
);
CREATE TABLE visits (id SERIAL, user_id TEXT, day DATE, seen_at TIMESTAMPTZ DEFAULT now(), UNIQUE (user_id, seen_at));
CREATE UNIQUE INDEX active_email ON members (email) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX lower_email ON members (lower(email));
CREATE TABLE grants (user_id TEXT, role TEXT);
ALTER TABLE grants ADD CONSTRAINT grants_user_role UNIQUE (user_id, role);
CREATE TABLE tags (post_id TEXT, tag TEXT, CONSTRAINT tags_pk PRIMARY KEY (post_id, tag));
CREATE TABLE dropped (a TEXT, b TEXT, UNIQUE (a, b));
DROP TABLE IF EXISTS dropped;
CREATE TABLE renamed (a TEXT, b TEXT);
CREATE UNIQUE INDEX renamed_ab ON renamed (a, b);
DROP INDEX renamed_ab;
CREATE TABLE job_logs_v2 (
    event_id String NOT NULL COMMENT 'dedupe id',
    job_id UUID NOT NULL,
    message String NOT NULL CODEC(ZSTD(3)),
    sequence_num UInt32 NOT NULL,
    INDEX idx_job (job_id) TYPE minmax GRANULARITY 1
)
ENGINE = ReplacingMergeTree()
PARTITION BY toDate(timestamp)
ORDER BY (job_id, sequence_num, event_id)
SETTINGS index_granularity = 8192;
RENAME TABLE job_logs TO job_logs_legacy, job_logs_v2 TO job_logs;
CREATE TABLE events_raw (event_id String, body String) ENGINE = MergeTree ORDER BY (event_id);
CREATE TABLE latest (k String, v String) ENGINE = ReplicatedReplacingMergeTree('/t', 'r') ORDER BY k;
CREATE TABLE old_name (a TEXT, b TEXT, UNIQUE (a, b));
ALTER TABLE old_name RENAME TO new_name;
`
	sc := Schema{}
	sc.ReadDDL(ddl)
	for _, c := range []struct {
		table string
		cols  []string
		want  bool
	}{
		{"document_chunks", []string{"id", "document_id", "sequence_number", "text"}, true},
		{"document_chunks", []string{"id", "document_id", "text"}, false},             // not all of the key
		{"payments", []string{"id", "order_id", "amount"}, false},                     // a single-column primary key
		{"users", []string{"email", "name"}, true},                                    // UNIQUE on email
		{"users", []string{"name"}, false},                                            //
		{"ledger", []string{"account", "period"}, true},                               // MySQL UNIQUE KEY
		{"visits", []string{"user_id", "seen_at"}, false},                             // seen_at has DEFAULT now()
		{"members", []string{"email"}, false},                                         // partial, and an expression
		{"grants", []string{"user_id", "role"}, true},                                 // ALTER TABLE … ADD CONSTRAINT
		{"tags", []string{"post_id", "tag"}, true},                                    // a composite primary key
		{"dropped", []string{"a", "b"}, false},                                        // DROP TABLE
		{"renamed", []string{"a", "b"}, false},                                        // DROP INDEX
		{"job_logs", []string{"event_id", "job_id", "message", "sequence_num"}, true}, // ReplacingMergeTree's ORDER BY, renamed
		{"job_logs_v2", []string{"event_id", "job_id", "message", "sequence_num"}, false},
		{"job_logs", []string{"event_id", "message"}, false}, // not all of the sorting key
		{"events_raw", []string{"event_id", "body"}, false},  // a MergeTree keeps every row
		{"latest", []string{"k", "v"}, true},                 // one column, not id
		{"new_name", []string{"a", "b"}, true},               // ALTER TABLE … RENAME TO
		{"old_name", []string{"a", "b"}, false},
		{"unknown", []string{"a"}, false},
	} {
		if got := sc.Natural(c.table, c.cols); got != c.want {
			t.Errorf("Natural(%s, %v) = %v, want %v (keys %+v)", c.table, c.cols, got, c.want, sc[c.table])
		}
	}
}
