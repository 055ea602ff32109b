// Command idem is the operators' tool of an idem store: it counts, lists
// and shows the dedup records that guard's stores keep, resolves the keys
// that need a person (an uncertain key, a failed key to run again), and
// purges expired records.
//
// Usage:
//
//	idem stats   [--consumer C]
//	idem list    [--consumer C] [--state S,…] [--older-than D] [--newer-than D] [--expired] [--limit N]
//	idem show    --consumer C (KEY | --key-quoted Q | --key-hex H | --hash H)
//	idem resolve --consumer C (--done [--result R] | --failed | --release) --reason TEXT [--yes] [--audit-log FILE] KEY
//	idem purge   [--dry-run]
//
// Every command takes the store flags: --store (default $IDEM_STORE) is a
// PostgreSQL URL (postgres://user:password@host:port/db), a MySQL or
// MariaDB URL (mysql://user:password@host:port/db; go-sql-driver/mysql's
// own DSN with --dialect mysql), a SQLite file (sqlite:path, or the path
// itself; it must exist), or a Redis URL (redis://host:port/db,
// rediss://…; a cluster as redis+cluster://host:port,host:port or
// redis:// with several addresses). --table is the dedup table or Redis key
// prefix, as guard.WithTable sets it (default idem_keys); --hash-tag the
// Redis hash tag records were written under (redisguard.HashTag); --json
// prints JSON (list: one object a line); --timeout bounds the run.
//
// Keys are printed quoted, in Go's syntax, so that no byte of a key reaches
// the terminal raw: control characters, invalid UTF-8 and characters that
// are not printable are escapes. show and resolve take the key as an
// argument (its bytes as given), as --key-quoted (that quoted form, read
// back), as --key-hex (its bytes in hex), or by the record's key hash
// (--hash, the hex SHA-256 list prints), which works even where the store
// keeps only a readable copy of the key (SQL stores replace bytes that are
// not UTF-8, and NUL, in key_text).
//
// resolve changes a record only when it can: an uncertain key becomes done
// (--done: its effect is known to have happened), failed (--failed) or is
// released (--release: its record is deleted and the next delivery runs the
// effect); a failed key becomes done or is released; a pending key whose
// lease has ended likewise. It refuses a record holding a live lease, and
// the change is made by the store only while the record is as it was read
// and holds no live lease (guard.Operator's Amend), so a claim racing it
// wins or loses whole. It asks for confirmation on the terminal, reading
// the answer from standard input, unless --yes is given, and refuses to run
// without --yes when standard input is not a terminal. --reason is
// required: it is printed, appended as a JSON line to --audit-log, and
// kept as the reason of a key marked failed.
//
// purge deletes the records past their retention (Purge, which never
// touches a live lease); --dry-run counts them.
//
// Exit codes: 0 done; 1 an error (the store cannot be reached, a table is
// missing, a record cannot be read); 2 a usage error, or resolve without
// --yes when standard input is not a terminal; 3 nothing matched (show and
// resolve found no record, list listed none); 4 resolve refused (a live
// lease, a state the change does not apply to, a record that changed
// meanwhile, or no confirmation).
//
// The work is in package github.com/idemkit/idem/cmd/idem/internal/ops.
package main

import (
	"context"
	"os"
	"os/signal"

	"golang.org/x/term"

	"github.com/idemkit/idem/cmd/idem/internal/ops"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := ops.Main(ctx, os.Args[1:], ops.Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Terminal: term.IsTerminal(int(os.Stdin.Fd())),
	})
	stop()
	os.Exit(code)
}
