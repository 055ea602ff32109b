package sqlclass

import "testing"

func TestClaimTable(t *testing.T) {
	for _, tc := range []struct {
		q, want string
	}{
		{`UPDATE jobs SET status = 'processing', attempts = attempts + 1 WHERE id = (SELECT id FROM jobs WHERE status = 'pending' AND run_at <= now() ORDER BY run_at FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING *`, "jobs"},
		{`UPDATE tasks SET status = ?, updated_at = ? WHERE id = (SELECT id FROM tasks WHERE status = ? AND run_after <= ? ORDER BY priority DESC, id ASC LIMIT 1) RETURNING id, type, payload`, "tasks"},
		{`UPDATE public.queue q SET state = 'taken' WHERE q.id IN (SELECT id FROM public.queue WHERE state = 'new' FOR UPDATE SKIP LOCKED) RETURNING q.id, q.body`, "queue"},
		{`DELETE FROM mail_queue WHERE id = (SELECT id FROM mail_queue ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id, rcpt, body`, "mail_queue"},
		{`WITH next AS (SELECT id FROM audit_jobs WHERE status = 'queued' AND run_at <= $1 ORDER BY run_at FOR UPDATE SKIP LOCKED LIMIT 1) UPDATE audit_jobs aj SET status='running', attempts=aj.attempts+1 FROM next WHERE aj.id = next.id RETURNING aj.id, aj.kind, aj.payload`, "audit_jobs"},
		{`WITH picked AS MATERIALIZED (SELECT id FROM outbox ORDER BY id LIMIT 10) DELETE FROM outbox WHERE id IN (SELECT id FROM picked) RETURNING id, body`, "outbox"},
		// No claim: no RETURNING, a subquery of another table, no pick.
		{`UPDATE jobs SET status = 'processing' WHERE id = (SELECT id FROM jobs WHERE status = 'pending' LIMIT 1)`, ""},
		{`UPDATE orders SET status = 'paid' WHERE id IN (SELECT order_id FROM payments WHERE ok LIMIT 10) RETURNING id`, ""},
		{`UPDATE jobs SET status = 'done' WHERE id IN (SELECT id FROM jobs WHERE status = 'running') RETURNING id`, ""},
		{`UPDATE jobs SET status = 'done' WHERE id = $1 RETURNING id`, ""},
		{`SELECT id FROM jobs WHERE status = 'pending' LIMIT 1 FOR UPDATE SKIP LOCKED`, ""},
		{`INSERT INTO jobs (type) VALUES ($1) RETURNING id`, ""},
		{`WITH next AS (SELECT id FROM jobs WHERE status = 'queued' LIMIT 1) UPDATE jobs SET status = 'running' WHERE id = $1 RETURNING id`, ""},
		{`WITH next AS (SELECT id FROM other WHERE ok LIMIT 1) UPDATE jobs j SET status = 'running' FROM next WHERE j.id = next.id RETURNING j.id`, ""},
	} {
		if got := ClaimTable(tc.q); got != tc.want {
			t.Errorf("ClaimTable(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

func TestClaimPair(t *testing.T) {
	for _, tc := range []struct {
		pick, update, want string
	}{
		{`SELECT id FROM jobs WHERE status = ? AND (claimed_by IS NULL OR claimed_by = '') ORDER BY created_at ASC LIMIT 1`,
			`UPDATE jobs SET status = ?, claimed_by = ?, claimed_at = ? WHERE id = ? AND status = ? AND (claimed_by IS NULL OR claimed_by = '')`, "jobs"},
		{`SELECT id, payload FROM tasks WHERE state = 'new' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`,
			`UPDATE tasks SET state = 'running' WHERE id = $1`, "tasks"},
		{`SELECT t.id FROM public.tasks t WHERE t.locked_by IS NULL LIMIT 5`,
			`UPDATE public.tasks SET locked_by = $1 WHERE id = $2 AND locked_by IS NULL`, "tasks"},
		// No claim: the update does not test what it moves, moves nothing
		// the pick filters on, or writes another table; the pick takes
		// every row.
		{`SELECT code FROM coupons WHERE used = false LIMIT 1`, `UPDATE coupons SET used = true WHERE id = $1`, ""},
		{`SELECT id FROM jobs WHERE status = 'pending' LIMIT 1 FOR UPDATE`, `UPDATE jobs SET attempts = attempts + 1 WHERE id = $1`, ""},
		{`SELECT id FROM jobs WHERE status = 'pending' LIMIT 1 FOR UPDATE`, `UPDATE runs SET status = 'running' WHERE job_id = $1`, ""},
		{`SELECT id FROM jobs WHERE status = 'pending'`, `UPDATE jobs SET status = 'running' WHERE id = $1 AND status = 'pending'`, ""},
		{`INSERT INTO jobs (status) VALUES ('pending')`, `UPDATE jobs SET status = 'running' WHERE id = $1 AND status = 'pending'`, ""},
	} {
		if got := ClaimPair(tc.pick, tc.update); got != tc.want {
			t.Errorf("ClaimPair(%q, %q) = %q, want %q", tc.pick, tc.update, got, tc.want)
		}
	}
}
