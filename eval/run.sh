#!/usr/bin/env bash
# Runs idemlint over every module of a labelled set and scores the results.
#
#   bash eval/run.sh SET [TOOL]
#
# SET is dev or test (eval/SET.yaml). TOOL is the idemlint binary; by default
# ./cmd/idemlint is built into a temporary directory. Outputs go to $OUT
# (default: a new temporary directory, printed): for each mode (standalone,
# vet) and module, MODE/SLUG.json (stdout), MODE/SLUG.stderr, MODE/SLUG.rc
# and MODE/SLUG.root (the directory the tool ran in), plus log/ and
# errors.txt. idemlint's exit code 3 (findings) is not a failure. Then
# eval/score scores both modes and writes $OUT/results.md.
set -u
# Analyse each module as published: a go.work shipped in a module zip names
# nested modules that the zip does not contain.
export GOWORK=off

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: bash eval/run.sh dev|test [TOOL]" >&2
	exit 2
fi
SET=$1
root=$(cd "$(dirname "$0")/.." && pwd)
setfile=$root/eval/$SET.yaml
if [ ! -f "$setfile" ]; then
	echo "run.sh: no set file eval/$SET.yaml" >&2
	exit 2
fi

OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT/standalone" "$OUT/vet" "$OUT/log"
: >"$OUT/errors.txt"
echo "output: $OUT"

TOOL=${2:-}
if [ -z "$TOOL" ]; then
	tooldir=$(mktemp -d)
	if ! (cd "$root" && go build -o "$tooldir/idemlint" ./cmd/idemlint); then
		echo "run.sh: building ./cmd/idemlint failed" >&2
		exit 1
	fi
	TOOL=$tooldir/idemlint
fi
case $TOOL in
/*) ;;
*) TOOL=$(cd "$(dirname "$TOOL")" && pwd)/$(basename "$TOOL") ;;
esac

modules=$(cd "$root" && go run ./eval/score -list "$setfile") || {
	echo "run.sh: cannot read $setfile" >&2
	exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
	echo "$1" | tee -a "$OUT/errors.txt" >&2
}

while read -r mod ver slug patterns; do
	[ -n "$mod" ] || continue
	echo "== $mod@$ver"
	dir=$(cd "$work" && go mod download -json "$mod@$ver" 2>"$OUT/log/$slug.modcache.log" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
	if [ -z "$dir" ] || [ ! -d "$dir" ]; then
		fail "$mod@$ver: go mod download failed (log/$slug.modcache.log)"
		continue
	fi
	copy=$work/$slug
	rm -rf "$copy"
	mkdir -p "$copy"
	cp -r "$dir/." "$copy/"
	chmod -R u+w "$copy"
	if ! (cd "$copy" && go mod download) >"$OUT/log/$slug.download.log" 2>&1; then
		fail "$mod@$ver: go mod download in the copy failed (log/$slug.download.log); running anyway"
	fi
	# shellcheck disable=SC2086 # patterns are a word list
	for mode in standalone vet; do
		echo "$copy" >"$OUT/$mode/$slug.root"
		if [ "$mode" = standalone ]; then
			(cd "$copy" && "$TOOL" -json $patterns) >"$OUT/$mode/$slug.json" 2>"$OUT/$mode/$slug.stderr"
		else
			(cd "$copy" && go vet -vettool="$TOOL" -json $patterns) >"$OUT/$mode/$slug.json" 2>"$OUT/$mode/$slug.stderr"
		fi
		rc=$?
		echo "$rc" >"$OUT/$mode/$slug.rc"
		if [ "$rc" != 0 ] && [ "$rc" != 3 ]; then
			fail "$mod@$ver: $mode exited $rc ($mode/$slug.stderr)"
		fi
	done
	rm -rf "$copy"
done <<<"$modules"

cd "$root" && go run ./eval/score -md "$OUT/results.md" "$setfile" "$OUT"
status=$?
if [ -s "$OUT/errors.txt" ]; then
	echo "errors (also in $OUT/errors.txt):"
	cat "$OUT/errors.txt"
fi
echo "output: $OUT"
exit $status
