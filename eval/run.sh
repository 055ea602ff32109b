#!/usr/bin/env bash
# Runs idemlint over every module of a labelled set and scores the results.
#
#   bash eval/run.sh SET [TOOL]
#
# SET names a labelled set, eval/SET.yaml (dev, test, fresh, fresh2 … fresh20:
# ls eval/*.yaml). TOOL is the idemlint binary; by default
# ./cmd/idemlint is built into a temporary directory. Outputs go to $OUT
# (default: a new temporary directory, printed): for each mode (standalone,
# vet) and module, MODE/SLUG.json (stdout), MODE/SLUG.stderr, MODE/SLUG.rc
# and MODE/SLUG.root (the directory the tool ran in), plus log/ and
# errors.txt. idemlint's exit code 3 (findings) is not a failure. MODES
# (default "standalone vet") chooses the modes to run. Then eval/score
# scores them and writes $OUT/results.md.
#
# A module with a repo field comes from that GitHub repository at the commit
# its version names: from a bare mirror $EVAL_MIRRORS/OWNER+NAME (any git
# directory below it) when there is one, else by git clone from GitHub.
set -u
# Analyse each module as published: a go.work shipped in a module zip names
# nested modules that the zip does not contain.
export GOWORK=off

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: bash eval/run.sh SET [TOOL]   (SET: a file eval/SET.yaml)" >&2
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

# fromrepo REPO COMMIT DEST extracts the repository's tree at COMMIT into
# DEST.
fromrepo() {
	local repo=$1 commit=$2 dest=$3 name gitdir
	name=${repo#github.com/}
	gitdir=$(find "${EVAL_MIRRORS:-/nonexistent}/${name/\//+}" -name HEAD -type f -printf '%h\n' 2>/dev/null | head -n 1)
	if [ -z "$gitdir" ]; then
		gitdir=$work/git-$slug
		git clone -q --bare "https://$repo" "$gitdir" || return 1
	fi
	if git --git-dir="$gitdir" archive "$commit" | tar -x -C "$dest" && [ "${PIPESTATUS[0]}" = 0 ]; then
		return 0
	fi
	# A snapshot may lack some large blobs: extract file by file, leaving
	# those out (listed in the log).
	echo "git archive failed; extracting file by file"
	rm -rf "${dest:?}"/* "$dest"/.[!.]* 2>/dev/null
	git --git-dir="$gitdir" ls-tree -r "$commit" | while read -r mode type obj path; do
		[ "$type" = blob ] || continue
		mkdir -p "$dest/$(dirname "$path")"
		if [ "$mode" = 120000 ]; then
			continue # symlinks are not followed into the copy
		fi
		git --git-dir="$gitdir" cat-file blob "$obj" >"$dest/$path" 2>/dev/null || {
			echo "missing from the snapshot: $path"
			rm -f "$dest/$path"
		}
	done
}

while read -r mod ver slug repo patterns; do
	[ -n "$mod" ] || continue
	echo "== $mod@$ver"
	copy=$work/$slug
	rm -rf "$copy"
	mkdir -p "$copy"
	if [ "$repo" != - ]; then
		if ! fromrepo "$repo" "$ver" "$copy" >"$OUT/log/$slug.git.log" 2>&1; then
			fail "$mod: $repo at $ver could not be extracted (log/$slug.git.log)"
			continue
		fi
	else
		dir=$(cd "$work" && go mod download -json "$mod@$ver" 2>"$OUT/log/$slug.modcache.log" |
			sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
		if [ -z "$dir" ] || [ ! -d "$dir" ]; then
			fail "$mod@$ver: go mod download failed (log/$slug.modcache.log)"
			continue
		fi
		cp -r "$dir/." "$copy/"
	fi
	chmod -R u+w "$copy"
	# A repository's go.sum may lack entries its module zip would not need;
	# complete them (the go.mod is the copy's, not the repository's).
	if [ "$repo" != - ]; then
		# shellcheck disable=SC2086 # patterns are a word list
		(cd "$copy" && GOFLAGS=-mod=mod go list -deps $patterns) >"$OUT/log/$slug.deps.log" 2>&1
	fi
	if ! (cd "$copy" && go mod download) >"$OUT/log/$slug.download.log" 2>&1; then
		fail "$mod@$ver: go mod download in the copy failed (log/$slug.download.log); running anyway"
	fi
	# shellcheck disable=SC2086 # patterns are a word list
	for mode in ${MODES:-standalone vet}; do
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

scoremode=all
case ${MODES:-standalone vet} in standalone) scoremode=standalone ;; vet) scoremode=vet ;; esac
cd "$root" && go run ./eval/score -mode "$scoremode" -md "$OUT/results.md" "$setfile" "$OUT"
status=$?
if [ -s "$OUT/errors.txt" ]; then
	echo "errors (also in $OUT/errors.txt):"
	cat "$OUT/errors.txt"
fi
echo "output: $OUT"
exit $status
