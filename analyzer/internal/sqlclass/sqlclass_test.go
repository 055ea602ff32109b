package sqlclass

import (
	"reflect"
	"slices"
	"testing"
)

func TestClassifySQL(t *testing.T) {
	// want: r = read, e = non-idempotent write (effect), i = idempotent write,
	// n = no data change (DDL, transaction control).
	// dedup: the dedup kind expected; table: the target table when checked.
	tests := []struct {
		dialect, q string
		want       byte
		dedup      DedupKind
		table      string
		insert     bool
	}{
		// Reads.
		{"pg", `SELECT qty FROM stock WHERE sku = $1`, 'r', DedupNone, "", false},
		{"pg", `select 1 from processed where id = $1 for update`, 'r', DedupNone, "", false},
		{"my", "SELECT EXISTS(SELECT 1 FROM `processed` WHERE id = ?)", 'r', DedupNone, "", false},
		{"lite", `WITH x AS (SELECT id FROM a) SELECT * FROM x`, 'r', DedupNone, "", false},
		{"pg", `  -- comment first
		  SELECT now()`, 'r', DedupNone, "", false},
		{"pg", `EXPLAIN SELECT 1`, 'r', DedupNone, "", false},
		// Plain inserts: effects, unique-violation candidates.
		{"pg", `INSERT INTO orders (id, total) VALUES ($1, $2)`, 'e', DedupNone, "orders", true},
		{"my", "INSERT INTO `points_ledger` (user_id, points) VALUES (?, ?)", 'e', DedupNone, "points_ledger", true},
		{"lite", `insert into sms_log(phone, body) values (?, ?)`, 'e', DedupNone, "sms_log", true},
		{"pg", `INSERT INTO public.events SELECT * FROM staging`, 'e', DedupNone, "events", true},
		{"pg", `INSERT INTO orders (id) VALUES ($1) RETURNING id`, 'e', DedupNone, "orders", true},
		// Dedup inserts.
		{"pg", `INSERT INTO idem_keys (consumer, key) VALUES ($1, $2) ON CONFLICT DO NOTHING`, 'i', DedupInsertNothing, "idem_keys", false},
		{"pg", `INSERT INTO processed (id) VALUES ($1) ON CONFLICT (id) DO NOTHING RETURNING id`, 'i', DedupInsertNothing, "processed", false},
		{"pg", `INSERT INTO processed (id) VALUES ($1) ON CONFLICT ON CONSTRAINT processed_pkey DO NOTHING`, 'i', DedupInsertNothing, "processed", false},
		{"my", `INSERT IGNORE INTO processed (id) VALUES (?)`, 'i', DedupInsertNothing, "processed", false},
		{"lite", `INSERT OR IGNORE INTO processed (id) VALUES (?)`, 'i', DedupInsertNothing, "processed", false},
		{"my", `INSERT INTO processed (id) VALUES (?) ON DUPLICATE KEY UPDATE id = id`, 'i', DedupInsertNothing, "processed", false},
		{"pg", `INSERT INTO processed (id) SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM processed WHERE id = $1)`, 'i', DedupInsertNothing, "processed", false},
		// Upserts that overwrite: idempotent.
		{"pg", `INSERT INTO profiles (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name`, 'i', DedupNone, "", false},
		{"my", `INSERT INTO profiles (id, name) VALUES (?, ?) ON DUPLICATE KEY UPDATE name = VALUES(name)`, 'i', DedupNone, "", false},
		{"my", `INSERT INTO profiles (id, name) VALUES (?, ?) AS new ON DUPLICATE KEY UPDATE name = new.name`, 'i', DedupNone, "", false},
		{"lite", `INSERT OR REPLACE INTO profiles (id, name) VALUES (?, ?)`, 'i', DedupNone, "", false},
		{"my", `REPLACE INTO profiles (id, name) VALUES (?, ?)`, 'i', DedupNone, "", false},
		{"pg", `INSERT INTO seen (id, at) VALUES ($1, now()) ON CONFLICT (id) DO UPDATE SET at = GREATEST(seen.at, EXCLUDED.at)`, 'i', DedupNone, "", false},
		// Upserts that accumulate: effects.
		{"pg", `INSERT INTO daily_stats (day, n) VALUES ($1, 1) ON CONFLICT (day) DO UPDATE SET n = daily_stats.n + 1`, 'e', DedupNone, "", false},
		{"pg", `INSERT INTO daily_stats AS t (day, gmv) VALUES ($1, $2) ON CONFLICT (day) DO UPDATE SET gmv = t.gmv + EXCLUDED.gmv`, 'e', DedupNone, "", false},
		{"my", `INSERT INTO daily_stats (day, n) VALUES (?, ?) ON DUPLICATE KEY UPDATE n = n + VALUES(n)`, 'e', DedupNone, "", false},
		{"lite", `INSERT INTO daily_stats (day, n) VALUES (?, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1`, 'e', DedupNone, "", false},
		{"my", `INSERT INTO points (user_id, total) VALUES (?, ?) AS new ON DUPLICATE KEY UPDATE total = points.total + new.total`, 'e', DedupNone, "", false},
		// Updates.
		{"pg", `UPDATE stock SET qty = qty - $1 WHERE sku = $2`, 'e', DedupNone, "", false},
		{"my", "UPDATE `users` SET `points` = `points` + ? WHERE id = ?", 'e', DedupNone, "", false},
		{"lite", `UPDATE users SET points = points + ? WHERE id = ?`, 'e', DedupNone, "", false},
		{"pg", `UPDATE stats s SET count = s.count + 1 WHERE day = $1`, 'e', DedupNone, "", false},
		{"pg", `UPDATE users SET tags = array_append(tags, $1) WHERE id = $2`, 'e', DedupNone, "", false},
		{"pg", `UPDATE users SET n = COALESCE(n, 0) + 1 WHERE id = $1`, 'e', DedupNone, "", false},
		// jsonb objects merge with ||: the same keys again change nothing;
		// arrays (an uncast '{}' is one) append.
		{"pg", `UPDATE channels SET attrs = COALESCE(attrs, '{}'::jsonb) || $1 WHERE id = $2`, 'i', DedupNone, "", false},
		{"pg", `UPDATE channels SET attrs = attrs || jsonb_build_object('name', $1::text) WHERE id = $2`, 'i', DedupNone, "", false},
		{"pg", `UPDATE users SET tags = COALESCE(tags, '{}') || $1 WHERE id = $2`, 'e', DedupNone, "", false},
		{"pg", `UPDATE users SET tags = COALESCE(tags, '{}'::text[]) || $1 WHERE id = $2`, 'e', DedupNone, "", false},
		{"pg", `UPDATE users SET events = COALESCE(events, '[]'::jsonb) || $1 WHERE id = $2`, 'e', DedupNone, "", false},
		{"pg", `UPDATE users SET attrs = COALESCE(attrs, '{}'::jsonb) || $1, n = n + 1 WHERE id = $2`, 'e', DedupNone, "", false},
		{"pg", `UPDATE users SET name = $1, updated_at = now() WHERE id = $2`, 'i', DedupNone, "", false},
		{"my", `UPDATE users SET status = 'active' WHERE id = ?`, 'i', DedupNone, "", false},
		{"pg", `UPDATE users SET last_seen = GREATEST(last_seen, $1) WHERE id = $2`, 'i', DedupNone, "", false},
		// Business rule: the stock check is no dedup; it still accumulates.
		{"pg", `UPDATE stock SET qty = qty - $1 WHERE sku = $2 AND qty >= $1`, 'e', DedupNone, "", false},
		// Conditional updates: state and version transitions apply once.
		{"pg", `UPDATE orders SET status = 'paid' WHERE id = $1 AND status = 'pending'`, 'i', DedupCondUpdate, "orders", false},
		{"my", `UPDATE accounts SET balance = balance - ?, version = version + 1 WHERE id = ? AND version = ?`, 'i', DedupCondUpdate, "accounts", false},
		{"lite", `UPDATE orders SET processed_at = CURRENT_TIMESTAMP WHERE id = ? AND processed_at IS NULL`, 'i', DedupCondUpdate, "orders", false},
		{"pg", `UPDATE orders SET stats_counted = true WHERE id = $1 AND NOT stats_counted`, 'i', DedupCondUpdate, "orders", false},
		{"pg", `UPDATE orders SET counted = true WHERE NOT (counted) AND id = $1`, 'i', DedupCondUpdate, "orders", false},
		{"pg", `UPDATE orders SET counted = true WHERE NOT archived AND id = $1`, 'i', DedupNone, "", false},
		{"pg", `INSERT INTO checkpoints (name, pos) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET pos = EXCLUDED.pos WHERE checkpoints.pos < EXCLUDED.pos`, 'i', DedupCondUpdate, "checkpoints", false},
		{"pg", `INSERT INTO checkpoints (name, pos) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET pos = EXCLUDED.pos WHERE EXCLUDED.pos > checkpoints.pos`, 'i', DedupCondUpdate, "checkpoints", false},
		{"pg", `INSERT INTO profiles (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name WHERE profiles.deleted = false`, 'i', DedupNone, "", false},
		{"pg", `UPDATE items SET seq = $1, qty = qty + $2 WHERE id = $3 AND seq < $1`, 'i', DedupCondUpdate, "items", false},
		// Deletes.
		{"pg", `DELETE FROM carts WHERE user_id = $1`, 'i', DedupDelete, "carts", false},
		{"my", `DELETE FROM inbox WHERE id = ?`, 'i', DedupDelete, "inbox", false},
		// DDL and transaction control.
		{"pg", `CREATE TABLE IF NOT EXISTS t (id int)`, 'n', DedupNone, "", false},
		{"my", `BEGIN`, 'n', DedupNone, "", false},
		// Writing CTE and several statements.
		// A move: the repeat's DELETE returns no row, so it inserts none.
		{"pg", `WITH moved AS (DELETE FROM queue WHERE id = $1 RETURNING *) INSERT INTO done SELECT * FROM moved`, 'i', DedupNone, "", false},
		{"pg", `UPDATE a SET x = 1 WHERE id = $1; UPDATE b SET n = n + 1 WHERE id = $1`, 'e', DedupNone, "", false},
		// Not understood: the safe way.
		{"pg", `CALL add_points($1, $2)`, 'e', DedupNone, "", false},
		{"my", `DO something`, 'e', DedupNone, "", false},
		// Sprintf'd text (verbs replaced by identifiers).
		{"pg", `UPDATE _fmt_ SET n = n + 1 WHERE id = $1`, 'e', DedupNone, "", false},
	}
	for _, tt := range tests {
		c := Classify(tt.q)
		var got byte
		switch {
		case !c.Write && c.Lookup || !c.Write && c.Returning:
			got = 'r'
		case !c.Write:
			got = 'n'
		case c.Idempotent:
			got = 'i'
		default:
			got = 'e'
		}
		if got != tt.want {
			t.Errorf("%s %q: got %c, want %c (%+v)", tt.dialect, tt.q, got, tt.want, c)
		}
		if c.Dedup != tt.dedup {
			t.Errorf("%s %q: dedup %d, want %d", tt.dialect, tt.q, c.Dedup, tt.dedup)
		}
		if tt.table != "" && c.Table != tt.table {
			t.Errorf("%s %q: table %q, want %q", tt.dialect, tt.q, c.Table, tt.table)
		}
		if c.Insert != tt.insert {
			t.Errorf("%s %q: insert %v, want %v", tt.dialect, tt.q, c.Insert, tt.insert)
		}
		if got == 'e' && c.Reason == "" {
			t.Errorf("%s %q: an effect without a reason", tt.dialect, tt.q)
		}
	}
	if len(tests) < 40 {
		t.Fatalf("only %d cases", len(tests))
	}
}

func TestTokenize(t *testing.T) {
	toks := tokenize(`SELECT "Col", 'it''s', $12, ?, :name, x::int /* c */ -- d`)
	var kinds []tokKind
	for _, tk := range toks {
		kinds = append(kinds, tk.kind)
	}
	want := []tokKind{tWord, tQuoted, tOp, tString, tOp, tParam, tOp, tParam, tOp, tParam, tOp, tWord, tOp, tWord}
	if len(kinds) != len(want) {
		t.Fatalf("got %v tokens %+v", len(kinds), toks)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Errorf("token %d %+v: kind %d, want %d", i, toks[i], kinds[i], want[i])
		}
	}
	if toks[3].s != "it's" {
		t.Errorf("string literal %q", toks[3].s)
	}
}

func TestUpdateSets(t *testing.T) {
	tests := []struct {
		q    string
		want []string
	}{
		{`UPDATE orders SET status = 'paid' WHERE id = $1`, []string{"status"}},
		{`UPDATE orders o SET o.status = ?, paid_at = NOW() WHERE o.id = ?`, []string{"status", "paid_at"}},
		{`UPDATE "Orders" SET "Status" = $1, total = total + $2 WHERE id = $3 RETURNING id`, []string{"status", "total"}},
		{`INSERT INTO orders (id) VALUES ($1)`, nil},
	}
	for _, tt := range tests {
		if got := Classify(tt.q).Sets; !slices.Equal(got, tt.want) {
			t.Errorf("%s: Sets %q, want %q", tt.q, got, tt.want)
		}
	}
}

// TestFunction checks which SELECTs name a stored function they call.
func TestFunction(t *testing.T) {
	tests := []struct{ q, want string }{
		{`SELECT sda.set_verified($1, $2, $3);`, "sda.set_verified"},
		{`select add_points($1, $2)`, "add_points"},
		{`SELECT "Ledger"."Credit"($1)`, "ledger.credit"},
		{`SELECT pg_advisory_xact_lock($1)`, ""},
		{`SELECT set_config('app.user', $1, true)`, ""},
		{`SELECT nextval('orders_id_seq')`, ""},
		{`SELECT now()`, ""},
		{`SELECT count(*) FROM orders WHERE id = $1`, ""},
		{`SELECT 1`, ""},
		{`SELECT ` + Unknown + `($1, $2)`, ""}, // a name filled in at run time
		{`SELECT id FROM sda.files WHERE id = $1`, ""},
		{`UPDATE t SET n = 1`, ""},
	}
	for _, tt := range tests {
		if got := Classify(tt.q).Function; got != tt.want {
			t.Errorf("Classify(%q).Function = %q, want %q", tt.q, got, tt.want)
		}
	}
}

func TestConstantRow(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT 1 FROM inbox WHERE message_id = $1": true,
		"select true from seen where id = ?":        true,
		"SELECT 1":                                  true,
		"SELECT count(*) FROM inbox WHERE id = $1":  false,
		"SELECT 1 + n FROM t":                       false,
		"SELECT id FROM inbox":                      false,
		"UPDATE t SET n = 1":                        false,
	} {
		if got := ConstantRow(q); got != want {
			t.Errorf("ConstantRow(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestFilterColumns(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"SELECT id, dest_id FROM pending_signals WHERE message_id IS NULL AND ($1::uuid IS NULL OR service_id = $1) FOR UPDATE SKIP LOCKED LIMIT 100", []string{"message_id"}},
		{"SELECT id FROM jobs j WHERE j.status = 'pending' ORDER BY id", []string{"status"}},
		{"SELECT id FROM mails WHERE NOT sent", []string{"sent"}},
		{"SELECT * FROM t WHERE status IN ('created', 'pending') AND expires_at < ?", []string{"status", "expires_at"}},
		{"SELECT id FROM leaderboards WHERE next_reset_at IS NOT NULL AND next_reset_at <= $1::timestamptz FOR UPDATE", []string{"next_reset_at"}},
		{"SELECT id FROM jobs WHERE run_at < now() AND tries < 3", []string{"run_at"}},
		{"SELECT id FROM jobs WHERE run_at > $1", nil},
		{"SELECT * FROM t WHERE status IN (?) AND kind IN (1, 2)", []string{"kind"}},
		{"SELECT * FROM t WHERE status IN (SELECT s FROM u)", nil},
		{"SELECT id FROM mails WHERE done = false AND tries < 3", []string{"done"}},
		{"SELECT id FROM mails WHERE processed_at IS NOT NULL", nil},
		{"SELECT id FROM orders WHERE id = $1", nil},
		{"SELECT id FROM orders WHERE user_id = ? LIMIT 1", nil},
		{"SELECT count(*) FROM orders", nil},
	} {
		if got := FilterColumns(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("FilterColumns(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

// TestUpdates: the UPDATEs a text holds besides its main statement (a
// writing CTE, a second statement) are named with the columns they set.
func TestUpdates(t *testing.T) {
	tests := []struct {
		q    string
		want []Update
	}{
		{`WITH before AS (SELECT id, status FROM orders WHERE id = $2 FOR UPDATE),
			transitioned AS (UPDATE orders SET status = $1, updated_at = NOW() FROM before WHERE orders.id = before.id AND before.status = ANY($3) RETURNING orders.id, before.status AS from_status)
			INSERT INTO order_status_history (order_id, from_status, to_status) SELECT id, from_status, $1 FROM transitioned`,
			[]Update{{"orders", []string{"status", "updated_at"}}}},
		{`UPDATE orders SET status = 'paid' WHERE id = $1; INSERT INTO ledger (order_id) VALUES ($1)`,
			[]Update{{"orders", []string{"status"}}}},
		{`UPDATE orders SET status = 'paid' WHERE id = $1`, nil}, // Table and Sets say it
		{`INSERT INTO ledger (order_id) VALUES ($1)`, nil},
	}
	for _, tt := range tests {
		got := Classify(tt.q).Updates
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Classify(%q).Updates = %v, want %v", tt.q, got, tt.want)
		}
	}
}
