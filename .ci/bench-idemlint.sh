#!/usr/bin/env bash
# .ci/bench-idemlint.sh - wall time and peak memory of idemlint vs go vet, side by side.
#
# Usage: bash .ci/bench-idemlint.sh [TARGET...]    (TARGET: realmod, std; default both)
#        REPS=3 (default) repetitions; prints one line per run, then a table of medians.
#        TOOLS="idemlint idemlint-modular vet" (default) chooses the tools (vet is the baseline).
#
# TARGET is realmod (analyzer/testdata/realmod), std, or MODULE@VERSION of a public module
# (copied out of the module cache; its dependencies come from the module proxy).
#
# For each target, a fresh GOCACHE is warmed once and kept as a template: `go build` of the
# packages, then `go vet -unusedresult=false` of them, which compiles their test variants
# (export data every vet tool needs) but caches vet results under other flags than any tool
# below uses. Each repetition starts from a copy of it (the same cold state, without
# rebuilding), then each tool runs once "cold" (no vet results and no idemlint results
# cached; compiled export data present), then once more "warm" (same caches, nothing
# changed), then "touched": a comment line appended to one file of the target, so
# every tool re-analyses what depends on it. Tools:
#   idemlint          idemlint ./...              (standalone, whole-program: go/packages
#                                                 loads the program from source, SSA of all of
#                                                 it, call graph; the result cache in
#                                                 IDEMLINT_CACHE keys a run by its inputs)
#   idemlint-modular  idemlint -modular ./...     (drives go vet -vettool=idemlint: per package,
#                                                 facts and findings cached in GOCACHE)
#   vet               go vet ./...                (the default vet analyzers)
# Measured with /usr/bin/time -f '%e %M' (wall seconds, peak RSS of the largest process in KiB;
# for go vet, and idemlint driving it, that is the go command or one vet process, whichever is
# larger).
# Not run by .ci/run; results go to BENCHMARKS.md by hand.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$PATH:/usr/local/go/bin"
export GOWORK=off GOFLAGS=-mod=mod
REPS=${REPS:-3}
TOOLS=${TOOLS:-idemlint idemlint-modular vet}
case " $TOOLS " in *" vet "*) ;; *) echo "TOOLS must include vet (the baseline)" >&2; exit 2 ;; esac
TARGETS=("$@"); [ ${#TARGETS[@]} -gt 0 ] || TARGETS=(realmod std)
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

WORK=$(mktemp -d /tmp/idem-bench.XXXXXX)
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
BIN=$WORK/idemlint
go build -o "$BIN" ./cmd/idemlint

# A module target is copied out of the module cache into $WORK/mod.<slug> (writable, so
# "touched" can edit it).
slug() { printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_'; }
target_dir() { case $1 in std) echo "$ROOT" ;; realmod) echo "$ROOT/analyzer/testdata/realmod" ;; *) echo "$WORK/mod.$(slug "$1")" ;; esac; }
target_pkgs() { case $1 in std) echo std ;; *) echo ./... ;; esac; }
prepare() { # target: copy a module target out of the module cache
  case $1 in std | realmod) return ;; esac
  local dir
  dir=$(cd "$WORK" && go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  [ -d "$dir" ] || { echo "cannot download $1" >&2; exit 1; }
  cp -r "$dir/." "$(target_dir "$1")/"; chmod -R u+w "$(target_dir "$1")"
  (cd "$(target_dir "$1")" && go mod download)
}
touch_one() { # target: append a comment line to the first Go file of the first package built
  # (go list: a file excluded by a build constraint, as a tree's first file often is, would
  # change nothing); awk reads all of its input, where head would end the pipe early
  # (SIGPIPE under pipefail).
  case $1 in std) echo "std cannot be touched (GOROOT is read-only here); touched = warm" >&2; return ;; esac
  TOUCHED=$(cd "$(target_dir "$1")" && go list -f '{{if .GoFiles}}{{.Dir}}/{{index .GoFiles 0}}{{end}}' ./... | awk 'NF' | sort | awk 'NR == 1')
  cp -p "$TOUCHED" "$WORK/touched.orig"
  echo "// touched by bench-idemlint" >>"$TOUCHED"
}
untouch() { # restore the touched file, so the next repetition starts from the same tree
  if [ -n "${TOUCHED:-}" ]; then cp -p "$WORK/touched.orig" "$TOUCHED"; TOUCHED=; fi
}

RES=$WORK/results   # target mode tool rep secs kib
: >"$RES"
measure() { # target mode tool rep cmd...
  local t=$1 m=$2 tool=$3 r=$4; shift 4
  local out=$WORK/time.out rc=0
  (cd "$(target_dir "$t")" && /usr/bin/time -f '%e %M' -o "$out" "$@" >/dev/null 2>"$WORK/stderr") || rc=$?
  read -r secs kib <"$out" <<<"$(tail -n1 "$out")"
  printf '%-8s %-5s %-13s rep %d  %7.2fs %8d KiB  exit %d\n' "$t" "$m" "$tool" "$r" "$secs" "$kib" "$rc"
  echo "$t $m $tool $r $secs $kib" >>"$RES"
}

echo "# $(date -u '+%F %T') UTC, $(go version), $(nproc) cores, REPS=$REPS"
for t in "${TARGETS[@]}"; do
  pkgs=$(target_pkgs "$t")
  prepare "$t"
  export GOCACHE=$WORK/gocache.$t.template
  (cd "$(target_dir "$t")" && go build $pkgs >/dev/null && go vet -unusedresult=false $pkgs >/dev/null 2>&1 || true)
  for r in $(seq 1 "$REPS"); do
    export GOCACHE=$WORK/gocache.$t.$r
    cp -a "$WORK/gocache.$t.template" "$GOCACHE"
    export IDEMLINT_CACHE=$WORK/idemlint-cache.$t.$r
    for m in cold warm touched; do
      [ "$m" = touched ] && touch_one "$t"
      for tool in $TOOLS; do
        case $tool in
        idemlint) measure "$t" "$m" idemlint "$r" "$BIN" $pkgs ;;
        idemlint-modular) measure "$t" "$m" idemlint-modular "$r" "$BIN" -modular $pkgs ;;
        vet) measure "$t" "$m" vet "$r" go vet $pkgs ;;
        *) echo "unknown tool $tool" >&2; exit 2 ;;
        esac
      done
    done
    untouch
    chmod -R u+w "$GOCACHE"; rm -rf "$GOCACHE" "$IDEMLINT_CACHE"
  done
done

echo
echo "Medians of $REPS runs; ratios are to go vet on the same packages in the same mode."
echo
echo "| packages | cache | tool | wall (s) | peak RSS (MiB) | wall ÷ go vet | RSS ÷ go vet |"
echo "|---|---|---|---:|---:|---:|---:|"
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
for t in "${TARGETS[@]}"; do
  for m in cold warm touched; do
    vs=$(awk -v t="$t" -v m="$m" '$1==t && $2==m && $3=="vet" {print $5}' "$RES" | median)
    vk=$(awk -v t="$t" -v m="$m" '$1==t && $2==m && $3=="vet" {print $6}' "$RES" | median)
    for tool in $TOOLS; do
      s=$(awk -v t="$t" -v m="$m" -v x="$tool" '$1==t && $2==m && $3==x {print $5}' "$RES" | median)
      k=$(awk -v t="$t" -v m="$m" -v x="$tool" '$1==t && $2==m && $3==x {print $6}' "$RES" | median)
      awk -v t="$t" -v m="$m" -v x="$tool" -v s="$s" -v k="$k" -v vs="$vs" -v vk="$vk" \
        'BEGIN {printf "| %s | %s | %s | %.2f | %.0f | %.2f× | %.2f× |\n", t, m, x, s, k/1024, s/vs, k/vk}'
    done
  done
done
