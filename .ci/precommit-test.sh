#!/usr/bin/env bash
# .ci/precommit-test.sh - test .pre-commit-hooks.yaml with Debian's pre-commit.
#
# Usage: bash .ci/precommit-test.sh     (run by .ci/run after go test; root for apt-get)
#
# For each hook, `pre-commit try-repo <this checkout> HOOK --ref HEAD
# --all-files` runs in a sample git repo made in a temp dir: first it must fail
# (a naive //idem:handler -> IDEM001; a stale idem.yaml -> idemgen check), then,
# after the fix, pass. Last, with the hooks installed in the sample
# (pre-commit install), a `git commit` that stages only a hand-edited
# migration must be refused by idemgen-check. try-repo installs the hook repo afresh on every call (a
# new store in a temp dir), so the four calls take 3-4 min; the rev tested is
# HEAD: uncommitted changes are not (a warning says so).
# pre-commit's golang language builds the repo with the system Go (`go install
# ./...` with GOPATH=its env dir, which installs cmd/idemlint and cmd/idemgen).
# GOMODCACHE and GOCACHE are exported so that build uses the machine's module
# and build caches: nothing is fetched.
#
# If pre-commit cannot be installed (apt-get fails), the test is skipped with a
# message and exit 0: that is the machine, not our hooks. Any other failure
# (the hook repo does not build, a hook passes that must fail or the reverse)
# exits 1.
set -euo pipefail

SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
ROOT="$(dirname "$(dirname "$SELF")")"
export PATH="$PATH:/usr/local/go/bin:/usr/local/sbin:/usr/sbin:/sbin"
export DEBIAN_FRONTEND=noninteractive

say() { printf '==> precommit: %s\n' "$*"; }
fail() { printf 'ERROR: precommit: %s\n' "$*" >&2; exit 1; }
now_ms() { local t=${EPOCHREALTIME//[!0-9]/}; echo $(( 10#$t / 1000 )); }
elapsed() { local ms=$(( $(now_ms) - $1 )); printf '%d.%03ds' $((ms / 1000)) $((ms % 1000)); }
T_ALL=$(now_ms)

# ----------------------------------------------------------------------------- pre-commit
if ! command -v pre-commit >/dev/null 2>&1; then
  say "installing with apt-get: pre-commit"
  t0=$(now_ms)
  APT_LOG=$(mktemp /tmp/idem-ci-apt.XXXXXX)
  APT_OPTS=(-q -y -o Acquire::Retries=3 -o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0)
  if ! { apt-get "${APT_OPTS[@]}" update &&
         apt-get "${APT_OPTS[@]}" install --no-install-recommends pre-commit; } >"$APT_LOG" 2>&1; then
    tail -n 40 "$APT_LOG" >&2; rm -f "$APT_LOG"
    say "SKIP: Debian's pre-commit package could not be installed (see above); hooks not tested"
    exit 0
  fi
  rm -f "$APT_LOG"
  say "installed pre-commit $(dpkg-query -W -f='${Version}' pre-commit) ($(elapsed "$t0"))"
fi
say "$(pre-commit --version)"
command -v go >/dev/null || fail "go not found in PATH"
command -v git >/dev/null || fail "git not found in PATH"
[ -f "$ROOT/.pre-commit-hooks.yaml" ] || fail "$ROOT/.pre-commit-hooks.yaml is missing"
git -C "$ROOT" cat-file -e HEAD:.pre-commit-hooks.yaml 2>/dev/null ||
  fail ".pre-commit-hooks.yaml is not in HEAD: pre-commit clones HEAD (commit it)"

# ----------------------------------------------------------------------------- environment
T=$(mktemp -d /tmp/idem-precommit.XXXXXX)
trap 'rm -rf "$T"' EXIT
export GOMODCACHE="$(go env GOMODCACHE)" GOCACHE="$(go env GOCACHE)"
# No -trimpath: it would miss every dependency in the build cache that go vet /
# go test filled (~5.5 min cold here); without it only this module's packages
# are compiled again in pre-commit's clone.
REV=$(git -C "$ROOT" rev-parse HEAD)
git -C "$ROOT" diff --quiet HEAD -- ||
  say "WARNING: testing HEAD ($REV); uncommitted changes of the checkout are not tested"
PASSED=0
export PRE_COMMIT_HOME="$T/pre-commit-home" PRE_COMMIT_COLOR=never
export GIT_AUTHOR_NAME=idem-ci GIT_AUTHOR_EMAIL=ci@idem.invalid
export GIT_COMMITTER_NAME=idem-ci GIT_COMMITTER_EMAIL=ci@idem.invalid
GOVER=$(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')

new_repo() { # dir module
  mkdir -p "$1"
  git -C "$1" init -q
  printf 'module %s\n\ngo %s\n' "$2" "$GOVER" >"$1/go.mod"
}

# try HOOK DIR WANT(pass|fail) [GREP]: pre-commit run HOOK in DIR; output in $T/HOOK-WANT.log
try() {
  local hook=$1 dir=$2 want=$3 pattern=${4:-} log="$T/$1-$3.log" rc=0 t0
  git -C "$dir" add -A
  t0=$(now_ms)
  (cd "$dir" && pre-commit try-repo "$ROOT" "$hook" --ref "$REV" --all-files) >"$log" 2>&1 || rc=$?
  if grep -q 'An unexpected error has occurred\|error: failed to install\|An error has occurred' "$log"; then
    cat "$log" >&2; cat "$PRE_COMMIT_HOME/pre-commit.log" 2>/dev/null >&2 || true
    fail "pre-commit try-repo $hook: pre-commit could not install or run the hook (exit $rc)"
  fi
  if [ "$want" = pass ] && [ "$rc" != 0 ]; then cat "$log" >&2; fail "pre-commit try-repo $hook: want pass, got exit $rc"; fi
  if [ "$want" = fail ] && [ "$rc" = 0 ]; then cat "$log" >&2; fail "pre-commit try-repo $hook: want failure, got exit 0"; fi
  if [ -n "$pattern" ] && ! grep -q -- "$pattern" "$log"; then cat "$log" >&2; fail "pre-commit try-repo $hook: output lacks $pattern"; fi
  say "$hook on the ${dir##*/} sample: ${want}ed as expected (exit $rc, $(elapsed "$t0"))"
  PASSED=$((PASSED + 1))
  if [ "$want" = fail ]; then grep -E 'IDEM0|stale|^(---|\+\+\+) ' "$log" | head -n 5 | sed 's/^/    /'; fi
}

# ----------------------------------------------------------------------------- idemlint
A="$T/lint"
new_repo "$A" example.com/stock
cat >"$A/stock.go" <<'GO'
package stock

import (
	"context"
	"database/sql"
)

// Deduct is a naive handler: a redelivered message deducts twice.
//
//idem:handler
func Deduct(ctx context.Context, db *sql.DB, sku string) error {
	_, err := db.ExecContext(ctx, "UPDATE stock SET n = n - 1 WHERE sku = $1", sku)
	return err
}
GO
try idemlint "$A" fail 'IDEM001'

cat >"$A/stock.go" <<'GO'
package stock

import (
	"context"
	"database/sql"
)

// Deduct deducts once per message id: the dedup row and the update share a
// transaction, and a duplicate (no row inserted) does nothing.
//
//idem:handler
func Deduct(ctx context.Context, db *sql.DB, msgID, sku string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, "INSERT INTO processed (id) VALUES ($1) ON CONFLICT DO NOTHING", msgID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE stock SET n = n - 1 WHERE sku = $1", sku); err != nil {
		return err
	}
	return tx.Commit()
}
GO
try idemlint "$A" pass

# ----------------------------------------------------------------------------- idemgen-check
B="$T/gen"
new_repo "$B" example.com/orders
cat >"$B/idem.yaml" <<'YAML'
version: 1
package: orders
output: .
sql_package: database/sql
dialect: postgres
table: idem_keys
migrations:
  dir: ./migrations/idem
  format: plain
consumers:
  - name: deduct_inventory
    message:
      fields: {order_id: string, sku: string, quantity: int64}
    key: [order_id, sku]
    fingerprint: [quantity]
    effect: sql
YAML
try idemgen-check "$B" fail 'the generated code is stale: run'

t0=$(now_ms)
(cd "$ROOT" && go build -o "$T/bin/idemgen" ./cmd/idemgen) || fail "go build ./cmd/idemgen"
(cd "$B" && "$T/bin/idemgen") >"$T/idemgen.log" 2>&1 || { cat "$T/idemgen.log" >&2; fail "idemgen in the sample repo"; }
say "idemgen generated $(cd "$B" && git add -A && git diff --cached --name-only -- . ':!idem.yaml' ':!go.mod' | wc -l) files ($(elapsed "$t0"))"
try idemgen-check "$B" pass

# A commit that only hand-edits a migration is refused. Through a real `git
# commit`, with the hooks of this checkout at $REV installed in the sample
# (pre-commit install): only the migration is staged, so the hook must run
# whatever the files (always_run) and refuse the edited migration.
t0=$(now_ms)
MIG=migrations/idem/000001_create_idem_keys.sql
[ -f "$B/$MIG" ] || fail "the sample has no $MIG"
cat >"$B/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $ROOT
    rev: $REV
    hooks:
      - id: idemgen-check
YAML
git -C "$B" add -A
git -C "$B" commit -q --no-verify -m "orders: generated consumers"
(cd "$B" && pre-commit install) >"$T/install.log" 2>&1 || { cat "$T/install.log" >&2; fail "pre-commit install in the sample"; }
printf -- '-- an index added by hand\n' >>"$B/$MIG"
git -C "$B" add "$MIG"
[ "$(git -C "$B" diff --cached --name-only)" = "$MIG" ] || fail "more than $MIG staged"
rc=0
(cd "$B" && git commit -m "edit the dedup migration by hand") >"$T/commit.log" 2>&1 || rc=$?
if [ "$rc" = 0 ]; then cat "$T/commit.log" >&2; fail "a commit that only hand-edits $MIG went through"; fi
grep -q "$MIG: the migration exists with other content" "$T/commit.log" ||
  { cat "$T/commit.log" >&2; fail "the refused commit does not name the edited migration"; }
say "idemgen-check refused a commit that only hand-edits $MIG (exit $rc, $(elapsed "$t0"))"
grep "$MIG" "$T/commit.log" | head -n 2 | sed 's/^/    /'
PASSED=$((PASSED + 1))

say "ok: both hooks fail on the samples and pass after the fix, and a hand-edited migration is refused ($(elapsed "$T_ALL"))"
echo "precommit: $PASSED passed, 0 failed"
