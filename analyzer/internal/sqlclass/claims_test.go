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
