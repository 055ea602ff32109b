package ops

import (
	"bufio"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/idemkit/idem/guard"
)

// states are the record states in the order tables show them.
var states = []guard.State{guard.StatePending, guard.StateDone, guard.StateFailed, guard.StateUncertain}

func (r *run) stats(args []string) int {
	fs := r.flags("stats [--consumer C] [store flags]")
	consumer := fs.String("consumer", "", "only this consumer")
	if _, code, ok := r.parse(fs, args, 0); !ok {
		return code
	}
	o, ctx, done, err := r.open()
	if err != nil {
		return r.fail(err)
	}
	defer done()
	st, err := o.op.Stats(ctx, *consumer)
	if err != nil {
		return r.fail(err)
	}
	if r.c.json {
		type consumerJSON struct {
			Consumer      string           `json:"consumer"`
			States        map[string]int64 `json:"states"`
			Expired       int64            `json:"expired"`
			ExpiredLeases int64            `json:"expired_leases"`
			OldestPending *time.Time       `json:"oldest_pending,omitempty"`
		}
		out := struct {
			Store     string         `json:"store"`
			Table     string         `json:"table"`
			SizeBytes int64          `json:"size_bytes"`
			Now       time.Time      `json:"store_now"`
			Consumers []consumerJSON `json:"consumers"`
		}{o.t.where, r.c.table, st.Size, st.Now.UTC(), []consumerJSON{}}
		for _, c := range st.Consumers {
			cj := consumerJSON{Consumer: c.Consumer, States: map[string]int64{}, Expired: c.Expired, ExpiredLeases: c.ExpiredLeases, OldestPending: optTime(c.OldestPending)}
			for _, s := range states {
				cj.States[string(s)] = c.States[s]
			}
			out.Consumers = append(out.Consumers, cj)
		}
		return r.wrote(writeJSON(r.env.Stdout, out))
	}
	fmt.Fprintf(r.env.Stdout, "%s, table %s: %s; store clock %s\n", o.t.where, r.c.table, size(st.Size), st.Now.UTC().Format(time.RFC3339))
	if len(st.Consumers) == 0 {
		fmt.Fprintln(r.env.Stdout, "no records")
		return ExitOK
	}
	tw := tabwriter.NewWriter(r.env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONSUMER\tPENDING\tDONE\tFAILED\tUNCERTAIN\tEXPIRED\tLEASES ENDED\tOLDEST PENDING")
	for _, c := range st.Consumers {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", plain(c.Consumer), c.States[guard.StatePending], c.States[guard.StateDone],
			c.States[guard.StateFailed], c.States[guard.StateUncertain], c.Expired, c.ExpiredLeases, when(c.OldestPending, st.Now))
	}
	return r.wrote(tw.Flush())
}

// wrote turns an output error into the exit code.
func (r *run) wrote(err error) int {
	if err != nil {
		return r.fail(err)
	}
	return ExitOK
}

// parseStates parses --state: a comma-separated list of states.
func parseStates(s string) ([]guard.State, error) {
	if s == "" {
		return nil, nil
	}
	var out []guard.State
	for _, f := range strings.Split(s, ",") {
		st := guard.State(strings.TrimSpace(f))
		if !slices.Contains(states, st) {
			return nil, usagef("--state %q: want pending, done, failed or uncertain", f)
		}
		out = append(out, st)
	}
	return out, nil
}

func (r *run) list(args []string) int {
	fs := r.flags("list [--consumer C] [--state S,…] [--older-than D] [--newer-than D] [--expired] [--limit N] [store flags]")
	var f guard.RecordFilter
	fs.StringVar(&f.Consumer, "consumer", "", "only this consumer")
	stateList := fs.String("state", "", "only these states, comma-separated: pending, done, failed, uncertain")
	fs.DurationVar(&f.MinAge, "older-than", 0, "only records created at least this long ago (by the store's clock)")
	fs.DurationVar(&f.MaxAge, "newer-than", 0, "only records created at most this long ago")
	fs.BoolVar(&f.Expired, "expired", false, "also records past their retention (they behave as absent)")
	limit := fs.Int("limit", 100, "list at most this many records (0: all)")
	if _, code, ok := r.parse(fs, args, 0); !ok {
		return code
	}
	var err error
	if f.States, err = parseStates(*stateList); err != nil {
		return r.fail(err)
	}
	if f.MinAge < 0 || f.MaxAge < 0 || *limit < 0 {
		return r.fail(usagef("--older-than, --newer-than and --limit cannot be negative"))
	}
	o, ctx, done, err := r.open()
	if err != nil {
		return r.fail(err)
	}
	defer done()
	tw := tabwriter.NewWriter(r.env.Stdout, 0, 0, 2, ' ', 0)
	n, failed := 0, false
	for rec, err := range o.op.Records(ctx, f) {
		if err != nil {
			fmt.Fprintf(r.env.Stderr, "idem list: %v\n", err)
			failed = true
			continue
		}
		if *limit > 0 && n == *limit {
			fmt.Fprintf(r.env.Stderr, "idem list: more than %d records; pass --limit to see more\n", *limit)
			break
		}
		n++
		if r.c.json {
			if err := writeJSON(r.env.Stdout, toJSON(rec)); err != nil {
				return r.fail(err)
			}
			continue
		}
		if n == 1 {
			fmt.Fprintln(tw, "CONSUMER\tSTATE\tAGE\tLEASE\tHASH\tKEY")
		}
		lease := "-"
		switch {
		case rec.LeaseLive():
			lease = "live " + rec.LeaseUntil.Sub(rec.Now).Round(time.Second).String()
		case !rec.LeaseUntil.IsZero():
			lease = "ended"
		}
		hash := hex.EncodeToString(rec.Hash[:])
		if rec.Tag != "" {
			hash += " {" + plain(rec.Tag) + "}"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", plain(rec.Consumer), stateText(rec), age(rec.CreatedAt, rec.Now), lease, hash, quote(rec.Key))
	}
	if err := tw.Flush(); err != nil {
		return r.fail(err)
	}
	switch {
	case failed:
		return ExitError
	case n == 0:
		fmt.Fprintln(r.env.Stderr, "idem list: no records match")
		return ExitNoMatch
	}
	return ExitOK
}

// keyFlags are how show and resolve are given a record.
type keyFlags struct {
	consumer, quoted, hexKey, hash string
}

func (k *keyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&k.consumer, "consumer", "", "the record's consumer (required)")
	fs.StringVar(&k.quoted, "key-quoted", "", "the key in the quoted form list and show print, e.g. '\"v1\\x00…\"'")
	fs.StringVar(&k.hexKey, "key-hex", "", "the key's bytes in hex")
	fs.StringVar(&k.hash, "hash", "", "the record's key hash (hex SHA-256, as list prints it)")
}

// target returns the key hash the flags and the positional KEY name, and
// how to name it in messages.
func (k *keyFlags) target(pos []string) ([32]byte, string, error) {
	var h [32]byte
	if k.consumer == "" {
		return h, "", usagef("--consumer is required")
	}
	given := 0
	for _, v := range []bool{len(pos) > 0, k.quoted != "", k.hexKey != "", k.hash != ""} {
		if v {
			given++
		}
	}
	if given != 1 {
		return h, "", usagef("name the record once: KEY, --key-quoted, --key-hex or --hash")
	}
	switch {
	case len(pos) > 0:
		return guard.KeyHash(pos[0]), "key " + quote(pos[0]), nil
	case k.quoted != "":
		key, err := strconv.Unquote(k.quoted)
		if err != nil {
			return h, "", usagef("--key-quoted %s: not a quoted string (copy it from list or show, quotes included)", quote(k.quoted))
		}
		return guard.KeyHash(key), "key " + quote(key), nil
	case k.hexKey != "":
		b, err := hex.DecodeString(k.hexKey)
		if err != nil {
			return h, "", usagef("--key-hex: %v", err)
		}
		return guard.KeyHash(string(b)), "key " + quote(string(b)), nil
	}
	b, err := hex.DecodeString(k.hash)
	if err != nil || len(b) != len(h) {
		return h, "", usagef("--hash %s: want the 64 hex digits of a SHA-256", quote(k.hash))
	}
	copy(h[:], b)
	return h, "hash " + k.hash, nil
}

func (r *run) show(args []string) int {
	fs := r.flags("show --consumer C (KEY | --key-quoted Q | --key-hex H | --hash H) [store flags]")
	var k keyFlags
	k.register(fs)
	pos, code, ok := r.parse(fs, args, 1)
	if !ok {
		return code
	}
	h, label, err := k.target(pos)
	if err != nil {
		return r.fail(err)
	}
	o, ctx, done, err := r.open()
	if err != nil {
		return r.fail(err)
	}
	defer done()
	rec, err := o.op.Lookup(ctx, k.consumer, h)
	if err != nil {
		return r.fail(err)
	}
	if rec == nil {
		fmt.Fprintf(r.env.Stderr, "idem show: no record of consumer %s for %s\n", plain(k.consumer), label)
		return ExitNoMatch
	}
	if r.c.json {
		return r.wrote(writeJSON(r.env.Stdout, toJSON(rec)))
	}
	printRecord(r.env.Stdout, rec)
	return ExitOK
}

// An operator's change: to done, to failed, or a release (deletion).
const (
	toDone    = "done"
	toFailed  = "failed"
	toRelease = "released"
)

// allowed are the changes resolve makes, by the state a record is in (a
// pending record only once its lease has ended).
var allowed = map[guard.State][]string{
	guard.StateUncertain: {toDone, toFailed, toRelease},
	guard.StateFailed:    {toDone, toRelease},
	guard.StatePending:   {toDone, toFailed, toRelease},
}

func (r *run) resolve(args []string) int {
	fs := r.flags("resolve --consumer C (--done [--result R] | --failed | --release) --reason TEXT [--yes] [--audit-log FILE] (KEY | --key-quoted Q | --key-hex H | --hash H) [store flags]")
	var k keyFlags
	k.register(fs)
	done := fs.Bool("done", false, "mark the key done: its effect is known to have happened (later deliveries are duplicates)")
	failed := fs.Bool("failed", false, "mark an uncertain key failed: later deliveries are refused (ErrFailed) with the reason")
	release := fs.Bool("release", false, "release the key (delete its record): the next delivery runs the effect")
	result := fs.String("result", "", "with --done: the result later duplicates get (default none)")
	reason := fs.String("reason", "", "why (required): written to the audit log, and the failed key's reason")
	yes := fs.Bool("yes", false, "do not ask for confirmation")
	audit := fs.String("audit-log", "", "append a JSON line of the change to this file")
	pos, code, ok := r.parse(fs, args, 1)
	if !ok {
		return code
	}
	h, label, err := k.target(pos)
	if err != nil {
		return r.fail(err)
	}
	var to string
	for _, c := range []struct {
		set bool
		to  string
	}{{*done, toDone}, {*failed, toFailed}, {*release, toRelease}} {
		if c.set && to != "" {
			return r.fail(usagef("give one of --done, --failed and --release"))
		}
		if c.set {
			to = c.to
		}
	}
	switch {
	case to == "":
		return r.fail(usagef("give one of --done, --failed and --release"))
	case strings.TrimSpace(*reason) == "":
		return r.fail(usagef("--reason is required: say why, for the audit log"))
	case *result != "" && to != toDone:
		return r.fail(usagef("--result goes with --done"))
	case !*yes && !r.env.Terminal:
		return r.fail(usagef("standard input is not a terminal, so resolve cannot ask for confirmation: pass --yes"))
	}
	o, ctx, closeStore, err := r.open()
	if err != nil {
		return r.fail(err)
	}
	defer closeStore()
	rec, err := o.op.Lookup(ctx, k.consumer, h)
	if err != nil {
		return r.fail(err)
	}
	switch {
	case rec == nil:
		fmt.Fprintf(r.env.Stderr, "idem resolve: no record of consumer %s for %s: nothing to resolve\n", plain(k.consumer), label)
		return ExitNoMatch
	case rec.Expired():
		fmt.Fprintf(r.env.Stderr, "idem resolve: the record of consumer %s for %s expired (it behaves as absent): nothing to resolve\n", plain(k.consumer), label)
		return ExitNoMatch
	case rec.LeaseLive():
		fmt.Fprintf(r.env.Stderr, "idem resolve: the record of consumer %s for %s holds a live lease (%s): its effect may be running; refusing to touch it\n",
			plain(k.consumer), label, leaseText(rec))
		return ExitRefused
	case !slices.Contains(allowed[rec.State], to):
		can := "nothing"
		if a := allowed[rec.State]; len(a) > 0 {
			can = strings.Join(a, ", ")
		}
		fmt.Fprintf(r.env.Stderr, "idem resolve: the record of consumer %s for %s is %s: it cannot be %s (it can be: %s)\n",
			plain(k.consumer), label, rec.State, to, can)
		return ExitRefused
	}
	change := guard.Change{}
	switch to {
	case toDone:
		change = guard.Change{To: guard.StateDone}
		if *result != "" {
			change.Result = []byte(*result)
		}
	case toFailed:
		change = guard.FailedChange("operator: " + *reason)
	}
	if !*yes {
		printRecord(r.env.Stderr, rec)
		fmt.Fprintf(r.env.Stderr, "\nThe record of consumer %s for %s is %s. Mark it %s (reason: %s)? Type yes to confirm: ",
			plain(k.consumer), label, rec.State, to, quote(*reason))
		answer, _ := bufio.NewReader(r.env.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "yes" && a != "y" {
			fmt.Fprintln(r.env.Stderr, "idem resolve: not confirmed; nothing changed")
			return ExitRefused
		}
	}
	if err := o.op.Amend(ctx, rec, change); err != nil {
		if errors.Is(err, guard.ErrRecordChanged) || errors.Is(err, guard.ErrLiveLease) {
			fmt.Fprintf(r.env.Stderr, "idem resolve: %v: nothing changed (a claim, the lease's owner or another operator got there first; look again with show)\n", err)
			return ExitRefused
		}
		return r.fail(err)
	}
	entry := auditEntry{
		Time: time.Now().UTC(), Store: o.t.where, Table: r.c.table, Consumer: rec.Consumer, Key: rec.Key,
		KeyHex: hex.EncodeToString([]byte(rec.Key)), Hash: hex.EncodeToString(rec.Hash[:]), HashTag: rec.Tag,
		From: string(rec.State), To: to, Reason: *reason, Result: *result, User: r.env.Getenv("USER"),
	}
	fmt.Fprintf(r.env.Stderr, "idem resolve: consumer %s, %s: %s → %s; reason: %s\n", plain(rec.Consumer), label, rec.State, to, quote(*reason))
	if *audit != "" {
		if err := appendAudit(*audit, entry); err != nil {
			return r.fail(fmt.Errorf("the change is made, but the audit log could not be written: %w", err))
		}
	}
	if r.c.json {
		return r.wrote(writeJSON(r.env.Stdout, entry))
	}
	return ExitOK
}

// auditEntry is a change resolve made, as --json and --audit-log write it.
type auditEntry struct {
	Time     time.Time `json:"time"`
	User     string    `json:"user,omitempty"`
	Store    string    `json:"store"`
	Table    string    `json:"table"`
	Consumer string    `json:"consumer"`
	Key      string    `json:"key"`
	KeyHex   string    `json:"key_hex"`
	Hash     string    `json:"hash"`
	HashTag  string    `json:"hash_tag,omitempty"`
	From     string    `json:"from"`
	To       string    `json:"to"`
	Reason   string    `json:"reason"`
	Result   string    `json:"result,omitempty"`
}

func appendAudit(path string, e auditEntry) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := writeJSON(f, e); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (r *run) purge(args []string) int {
	fs := r.flags("purge [--dry-run] [store flags]")
	dry := fs.Bool("dry-run", false, "count the expired records instead of deleting them")
	if _, code, ok := r.parse(fs, args, 0); !ok {
		return code
	}
	o, ctx, done, err := r.open()
	if err != nil {
		return r.fail(err)
	}
	defer done()
	var n int64
	if *dry {
		st, err := o.op.Stats(ctx, "")
		if err != nil {
			return r.fail(err)
		}
		for _, c := range st.Consumers {
			n += c.Expired
		}
	} else if n, err = o.store.Purge(ctx); err != nil {
		return r.fail(err)
	}
	if r.c.json {
		return r.wrote(writeJSON(r.env.Stdout, struct {
			DryRun  bool  `json:"dry_run"`
			Expired int64 `json:"expired"`
		}{*dry, n}))
	}
	verb := "deleted"
	if *dry {
		verb = "would delete"
	}
	note := ""
	if o.t.kind == kindRedis || o.t.kind == kindRedisCluster {
		note = " (Redis deletes expired records itself)"
	}
	_, err = fmt.Fprintf(r.env.Stdout, "%s %d expired records from %s, table %s%s\n", verb, n, o.t.where, r.c.table, note)
	return r.wrote(err)
}
