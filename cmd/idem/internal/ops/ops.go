// Package ops is the operator command idem: it reads and changes the dedup
// records of an idem store (see cmd/idem for the command's documentation).
//
// Its commands use only the stores' public methods: guard.Store and
// guard.Operator (Records, Stats, Lookup, Amend), so they decide as the
// stores do and never change a record holding a live lease.
package ops

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/idemkit/idem/guard"
)

// Exit codes of the command.
const (
	ExitOK      = 0 // done
	ExitError   = 1 // the store could not be reached or read, or another error
	ExitUsage   = 2 // a bad command line (or resolve without --yes and no terminal)
	ExitNoMatch = 3 // nothing matched: no such record (show, resolve), no record listed (list)
	ExitRefused = 4 // resolve refused: a live lease, a state it does not apply to, a record changed meanwhile, or "no" at the prompt
)

// Env is what the command runs with: its standard streams, whether standard
// input is a terminal (resolve prompts only then), and the environment.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Terminal       bool
	Getenv         func(string) string
}

// Usage is the command's help, which idem --help prints.
const Usage = `idem: operate the dedup records of an idem store

Usage:
  idem <command> [flags] [KEY]

Commands:
  stats     records per consumer and state, oldest pending, expired leases, table size
  list      records, filtered by consumer, state and age (--consumer, --state, --older-than, --newer-than)
  show      one record: idem show --consumer C KEY
  resolve   mark an uncertain key done or failed, or release a failed key so it runs again:
            idem resolve --consumer C (--done [--result R] | --failed | --release) --reason TEXT [--yes] KEY
  purge     delete the records past their retention (--dry-run: count them)

Store flags (every command, before or after its name):
  --store DSN       postgres://user:password@host:port/db?sslmode=disable
                    mysql://user:password@host:port/db (or the driver's DSN with --dialect mysql)
                    sqlite:path/to/file.db, or a file path
                    redis://[user:password@]host:port[/db], rediss://…
                    redis+cluster://host:port,host:port (or redis:// with several addresses)
                    default: $IDEM_STORE
  --dialect D       postgres, mysql, sqlite or redis: how to read a --store without a scheme
  --table NAME      the dedup table, or the Redis key prefix (guard.WithTable; default idem_keys)
  --hash-tag TAG    Redis: the hash tag the records were written under (show, resolve)
  --json            JSON output: one object (list: one object a line)
  --timeout D       give up after D (default 2m)

Keys (show, resolve): KEY is taken as its bytes; --key-quoted '"v1\x00…"' reads the quoted
form list and show print; --key-hex 7631… the bytes in hex; --hash H the record's SHA-256
(what list prints; it works whatever the key holds).

Exit codes: 0 done; 1 error; 2 usage; 3 nothing matched; 4 refused (resolve: a live lease,
a state the change does not apply to, the record changed meanwhile, or "no" at the prompt).
Run 'idem <command> --help' for the flags of a command.
`

// commands are the command names and their functions.
var commands = map[string]func(*run, []string) int{
	"stats":   (*run).stats,
	"list":    (*run).list,
	"show":    (*run).show,
	"resolve": (*run).resolve,
	"purge":   (*run).purge,
}

// common are the flags of every command.
type common struct {
	store, dialect, table, hashTag string
	json                           bool
	timeout                        time.Duration
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.store, "store", c.store, "the store's DSN or URL (default $IDEM_STORE)")
	fs.StringVar(&c.dialect, "dialect", c.dialect, "postgres, mysql, sqlite or redis: how to read a --store without a scheme")
	fs.StringVar(&c.table, "table", c.table, "the dedup table, or the Redis key prefix")
	fs.StringVar(&c.hashTag, "hash-tag", c.hashTag, "Redis: the hash tag of the records (show, resolve)")
	fs.BoolVar(&c.json, "json", c.json, "JSON output")
	fs.DurationVar(&c.timeout, "timeout", c.timeout, "give up after this long")
}

// run is one command's run.
type run struct {
	ctx  context.Context
	env  Env
	c    common
	name string
}

// Main runs the command line args (without the program name) and returns
// the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	r := &run{ctx: ctx, env: env, c: common{store: env.Getenv("IDEM_STORE"), table: guard.DefaultTable, timeout: 2 * time.Minute}}
	top := flag.NewFlagSet("idem", flag.ContinueOnError)
	top.SetOutput(io.Discard)
	r.c.register(top)
	help := top.Bool("help", false, "")
	top.BoolVar(help, "h", false, "")
	if err := top.Parse(args); err != nil {
		fmt.Fprintf(env.Stderr, "idem: %v\n\n%s", err, Usage)
		return ExitUsage
	}
	rest := top.Args()
	if *help || (len(rest) > 0 && rest[0] == "help" && len(rest) == 1) {
		fmt.Fprint(env.Stdout, Usage)
		return ExitOK
	}
	if len(rest) == 0 {
		fmt.Fprint(env.Stderr, Usage)
		return ExitUsage
	}
	if rest[0] == "help" {
		rest = []string{rest[1], "--help"}
	}
	cmd, ok := commands[rest[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "idem: unknown command %q\n\n%s", rest[0], Usage)
		return ExitUsage
	}
	r.name = rest[0]
	return cmd(r, rest[1:])
}

// flags returns the flag set of r's command, with the common flags, whose
// usage is use (the synopsis) and what the command does.
func (r *run) flags(use string) *flag.FlagSet {
	fs := flag.NewFlagSet("idem "+r.name, flag.ContinueOnError)
	fs.SetOutput(r.env.Stderr)
	r.c.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: idem %s\n\nFlags:\n", use)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args with flags and positional arguments in any order ("--"
// ends the flags); ok false means the command is over with code.
func (r *run) parse(fs *flag.FlagSet, args []string, maxArgs int) (pos []string, code int, ok bool) {
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(r.env.Stdout)
				fs.Usage()
				return nil, ExitOK, false
			}
			return nil, ExitUsage, false
		}
		left := fs.Args()
		if used := len(args) - len(left); used > 0 && args[used-1] == "--" {
			pos = append(pos, left...) // after "--", all positional
			break
		}
		if len(left) == 0 {
			break
		}
		pos, args = append(pos, left[0]), left[1:]
	}
	if len(pos) > maxArgs {
		fmt.Fprintf(r.env.Stderr, "idem %s: unexpected arguments %s\n", r.name, quoteAll(pos[maxArgs:]))
		return nil, ExitUsage, false
	}
	return pos, 0, true
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quote(a)
	}
	return strings.Join(q, " ")
}

// fail reports err and returns its exit code: usage for a usageError.
func (r *run) fail(err error) int {
	fmt.Fprintf(r.env.Stderr, "idem %s: %v\n", r.name, err)
	var u usageError
	if errors.As(err, &u) {
		return ExitUsage
	}
	return ExitError
}

// open opens the store of the common flags, within the timeout.
func (r *run) open() (*opened, context.Context, context.CancelFunc, error) {
	if _, err := guard.NewConfig(guard.WithTable(r.c.table)); err != nil {
		return nil, nil, nil, usagef("--table: %v", err)
	}
	t, err := parseStore(r.c.store, r.c.dialect)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.c.timeout)
	o, err := openStore(ctx, t, r.c.table, r.c.hashTag)
	if err != nil {
		cancel()
		return nil, nil, nil, err
	}
	return o, ctx, func() { o.close(); cancel() }, nil
}
