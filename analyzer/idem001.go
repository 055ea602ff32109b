package analyzer

import (
	"fmt"

	"golang.org/x/tools/go/ssa"
)

var doc001 = CodeDoc{
	Code:  IDEM001,
	Title: "effect with no dedup check guarding it",
	Text: `An effect in a handler with no dedup check guarding it. A redelivery
performs it again. An HTTP PUT, PATCH or DELETE sets state (a PATCH is
read as a merge of the fields it names) and is no effect. An HTTP POST made inside a function of the program named
as a read (GetBlock, FetchRates; not GetOrCreateUser or FetchAndLock) is a
query sent as a POST (JSON-RPC, GraphQL, a search API) and no effect for
the function's callers; so is one made inside a function named as a
computation (Embed, TranslateText, ClassifyTicket: a model or a document
service asked to compute, not to change anything); so is one made inside
a function named as obtaining a credential (Login, SignIn, Authenticate,
RefreshAccessToken, postToken; not SaveToken or SendToken: a login or an
OAuth token request). A write whose every
table is bookkeeping by its name (audit*, *_audit*, *_log, *_logs,
*_status, *_statuses: an audit trail, a log of events or status changes;
metrics, *_metrics, metric_*: metric samples;
a gorm model AuditLog) is telemetry kept in a database, no effect, and its
failure loses nothing (IDEM003); a plain insert into one whose unique
violation tells a repeat is still a dedup check. So is an UPDATE setting
only columns that record how the row's thing is doing (health,
heartbeat*, last_check*, last_seen*, last_error*, updated_at,
*_checked_at). Declare a business table
of such a name by its writing function under effects in the rules file. An insert into rows the same function removed
before it on every path is a replace, no effect: TRUNCATE bids then a
CopyFrom into bids (a snapshot reloaded); DELETE FROM items WHERE
order_id = $1 then INSERT INTO items (order_id, …) (the rows of a key
rewritten). An INSERT … SELECT copying rows that the same function then
deletes from their table (INSERT INTO mails_archive … SELECT … FROM mails,
then DELETE FROM mails …: an archive) is a move, no effect: a repeat
finds nothing left to copy; so is WITH moved AS (DELETE … RETURNING *)
INSERT … SELECT * FROM moved. A merge into a jsonb object (SET attrs = COALESCE(attrs,
'{}'::jsonb) || $1) replaces keys and is no effect; || on an array
appends and is one. A processor behind an interface that a shared
consumer hands every event to, and acks by, is a handler of its own: its
effects are reported in its own file, unless the consumer claims the
event before it hands it on. A dedup insert made last in a transaction
guards the writes on that transaction before it when its duplicate side
rolls them back: it fails a gorm Transaction callback, or never commits a
transaction the function began (BeginTx, then a duplicate that returns
without tx.Commit). An insert that sets every column of a natural unique key declared
by the module's SQL files (migrations, an sqlc schema; whole-program mode)
is no effect either: a redelivery violates the key instead of adding a
row. A single-column primary key, an id, or a key the database fills
(SERIAL, DEFAULT gen_random_uuid()) is not natural: programs fill it with
a fresh value. A job completed in the transaction of its writes
(River's JobCompleteTx on a transaction the worker began, before its
commit) is acked by that commit: the writes on that transaction are
guarded by it. Where the finding is reported: in the function that
handles the message, at its step towards the effect. That is the
per-message function of a consume loop that only fetches and settles
(for { m := fetch(); if err := c.process(m); … }), and below it the
function a router hands the message to by its kind (a case of a switch
on the event's type, or a handler looked up in a map by it); a handler
that switches on the kind itself is reported at its own call of the
branch. A dedup check of the consumer in front of the dispatch still
guards every kind.
`,
	Bad: `func handle(ctx context.Context, d amqp.Delivery) error {
	_, err := db.ExecContext(ctx, ` + "`" + `UPDATE stock SET qty = qty - $1 WHERE sku = $2` + "`" + `, qty, sku)
	return err
}
`,
	Good: `out, err := store.Do(ctx, "deduct_inventory", key, fp, func(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, ` + "`" + `UPDATE stock SET qty = qty - $1 WHERE sku = $2` + "`" + `, qty, sku)
	return err
})
`,
}

// invalidGuard returns a check that would guard b but is invalid.
func (s *summary) invalidGuard(b *ssa.BasicBlock) *check {
	for _, d := range s.decisions {
		if d.fresh != nil && !d.chk.valid() && d.fresh.Dominates(b) && !s.reaches(d.other, b, d.blk) {
			return d.chk
		}
	}
	for _, c := range s.checks {
		if c.invalid != "" && c.call.Block() != nil && c.call.Block().Dominates(b) {
			return c
		}
	}
	return nil
}

// checkUnguarded reports an effect of a handler that no dedup check guards,
// unless a dedup check whose result decides nothing precedes it (that is
// IDEM004's finding).
func (a *pkgAnalysis) checkUnguarded(s *summary, o *occ, name string) {
	if o.covered != nil && !a.suppressed(o.covered.pos, IDEM004) {
		return
	}
	if a.atMostOnce(s.fn) {
		return // the broker never delivers its messages twice
	}
	if a.dispatchGuarded(s.fn) {
		return // its dispatcher claims the message before it hands it on
	}
	note := ""
	if c := s.invalidGuard(o.instr.Block()); c != nil {
		note = fmt.Sprintf(": the check %s guards nothing, %s", c.desc, c.invalid)
	}
	for _, r := range a.attributed(o, name) {
		msg := "the effect"
		if r.at.innerMsg != "" {
			msg = r.at.innerMsg
		}
		a.report(IDEM001, r.at.pos, r.name, r.at.inner, msg, "effect %s in handler %s is not guarded by a dedup check%s", r.at.desc, r.name, note)
	}
}
