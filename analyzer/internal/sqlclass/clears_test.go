package sqlclass

import (
	"slices"
	"testing"
)

func TestClears(t *testing.T) {
	tests := []struct {
		q    string
		want []Clear
	}{
		{`TRUNCATE bids; TRUNCATE delegators;`, []Clear{{Table: "bids"}, {Table: "delegators"}}},
		{`TRUNCATE TABLE ONLY public.rates, "Fx" RESTART IDENTITY CASCADE`, []Clear{{Table: "rates"}, {Table: "fx"}}},
		{`DELETE FROM snapshot`, []Clear{{Table: "snapshot"}}},
		{`DELETE FROM order_items WHERE order_id = $1`, []Clear{{Table: "order_items", Keys: []string{"order_id"}}}},
		{`DELETE FROM tags t WHERE t.post_id = ? AND t.kind = ? RETURNING id`, []Clear{{Table: "tags", Keys: []string{"post_id", "kind"}}}},
		// Not clears: a cleanup by time, a comparison, a disjunction, a join.
		{`DELETE FROM sessions WHERE expires_at < now()`, nil},
		{`DELETE FROM items WHERE order_id = $1 OR sku = $2`, nil},
		{`DELETE FROM items WHERE status = 'done'`, nil},
		{`DELETE FROM items USING orders WHERE items.order_id = orders.id`, nil},
		{`SELECT 1`, nil},
	}
	for _, tt := range tests {
		got := Classify(tt.q).Clears
		if !slices.EqualFunc(got, tt.want, func(a, b Clear) bool { return a.Table == b.Table && slices.Equal(a.Keys, b.Keys) }) {
			t.Errorf("Classify(%q).Clears = %v, want %v", tt.q, got, tt.want)
		}
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		c     Clear
		table string
		cols  []string
		want  bool
	}{
		{Clear{Table: "bids"}, "bids", nil, true},
		{Clear{Table: "bids"}, "delegators", nil, false},
		{Clear{Table: "items", Keys: []string{"order_id"}}, "items", []string{"order_id", "sku", "qty"}, true},
		{Clear{Table: "items", Keys: []string{"order_id"}}, "items", []string{"sku", "qty"}, false},
		{Clear{Table: "items", Keys: []string{"order_id"}}, "items", nil, false},
		{Clear{Table: ""}, "", nil, false},
	}
	for _, tt := range tests {
		if got := tt.c.Covers(tt.table, tt.cols); got != tt.want {
			t.Errorf("%v.Covers(%q, %v) = %v, want %v", tt.c, tt.table, tt.cols, got, tt.want)
		}
	}
}

// TestReplaceInOneText: an insert after a clear of its rows in the same
// text replaces them; one of rows nothing cleared still adds.
func TestReplaceInOneText(t *testing.T) {
	tests := []struct {
		q      string
		effect bool
	}{
		{`DELETE FROM order_items WHERE order_id = $1; INSERT INTO order_items (order_id, sku) VALUES ($1, $2)`, false},
		{`TRUNCATE rates; INSERT INTO rates SELECT * FROM staging_rates`, false},
		{`DELETE FROM order_items WHERE order_id = $1; INSERT INTO audit (order_id) VALUES ($1)`, true},
		{`INSERT INTO rates (k) VALUES ($1); TRUNCATE rates`, true},
		{`DELETE FROM items WHERE order_id = $1; INSERT INTO items (sku) VALUES ($2)`, true},
	}
	for _, tt := range tests {
		if got := Classify(tt.q).Effect(); got != tt.effect {
			t.Errorf("Classify(%q).Effect() = %v, want %v", tt.q, got, tt.effect)
		}
	}
}

func TestInsertColumns(t *testing.T) {
	if got := Classify(`INSERT INTO public.items AS i (order_id, "SKU", qty) VALUES ($1, $2, $3)`).Columns; !slices.Equal(got, []string{"order_id", "sku", "qty"}) {
		t.Errorf("Columns = %v", got)
	}
	if got := Classify(`INSERT INTO items VALUES ($1)`).Columns; got != nil {
		t.Errorf("Columns = %v, want nil", got)
	}
}

func TestMoves(t *testing.T) {
	tests := []struct {
		q       string
		effect  bool
		sources []string
		deletes []string
	}{
		// A copy: an effect, whose source a later DELETE may make a move.
		{`INSERT INTO mails_archive (id, subject) SELECT m.id, m.subject FROM mails m WHERE m.id = ANY($1)`, true, []string{"mails"}, nil},
		{`WITH to_archive AS (SELECT id FROM mails WHERE created_at < now() LIMIT $1 FOR UPDATE SKIP LOCKED)
			INSERT INTO mails_archive SELECT * FROM mails m WHERE m.id IN (SELECT id FROM to_archive) RETURNING id`, true, []string{"mails"}, nil},
		{`INSERT INTO orders (id) VALUES ($1)`, true, nil, nil},
		// A move in one statement: a repeat finds nothing to move.
		{`WITH moved AS (DELETE FROM audit_logs_default WHERE created_at >= '2026-01-01' RETURNING *) INSERT INTO audit_logs_2026_01 SELECT * FROM moved`, false, []string{"moved"}, []string{"audit_logs_default"}},
		// A deleting CTE whose rows are not what the insert copies.
		{`WITH gone AS (DELETE FROM carts WHERE id = $1 RETURNING id) INSERT INTO orders (id) VALUES ($2)`, true, nil, []string{"carts"}},
		{`DELETE FROM mails WHERE id = ANY($1::uuid[])`, false, nil, []string{"mails"}},
	}
	for _, tt := range tests {
		c := Classify(tt.q)
		if c.Effect() != tt.effect || !slices.Equal(c.Sources, tt.sources) || !slices.Equal(c.Deletes, tt.deletes) {
			t.Errorf("Classify(%q): effect %v, sources %v, deletes %v; want %v, %v, %v", tt.q, c.Effect(), c.Sources, c.Deletes, tt.effect, tt.sources, tt.deletes)
		}
	}
}
