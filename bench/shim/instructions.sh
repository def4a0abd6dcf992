#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# instructions.sh - instructions per libc open under the shim, counted by
# callgrind (repeatable on a loaded machine, unlike time): a write-open
# at depth 1 and 5 with the root alone and with the ten deny patterns of
# bench/shim/ten-patterns, and a read-open with one read pattern and with
# the built-in set. Each figure is the difference of two runs of
# open-loop (N and 2N opens) over N. valgrind does not know openat2: the
# open itself takes the O_PATH walk, which inflates every row alike;
# the difference between rows is what the patterns cost.
#
#   OPEN_LOOP=build/bench/shim/open-loop FA_SHIM=build/src/.libs/libfashim.so \
#       bench/shim/instructions.sh [N]
set -eu

: "${OPEN_LOOP:?path of the open-loop binary}"
: "${FA_SHIM:?path of libfashim.so}"
N=${1:-1000}
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 77; }

base=${BENCH_DIR:-/dev/shm}
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
dir=$(mktemp -d "$base/fa-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
dir=$(cd "$dir" && pwd -P)
root=$dir/root
mkdir -p "$root/a/b/c/d"
globs=$(sed 's/^/deny-glob /' "$(dirname "$0")/ten-patterns")

count() {	# count POLICY DIR [read]: instructions of one run of open-loop
	# FA_ALLOW_STATIC: the preloaded launcher starts valgrind's static tool
	env LD_PRELOAD="$FA_SHIM" FA_ALLOW_STATIC=1 FA_POLICY="$1" \
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$OPEN_LOOP" "$2" "$3" ${4:-} 2>&1 |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per_open() {	# per_open POLICY DIR [read]
	a=$(count "$1" "$2" "$N" ${3:-})
	b=$(count "$1" "$2" $((2 * N)) ${3:-})
	echo $(((b - a) / N))
}

echo "instructions per open under the shim (callgrind, $N opens), on $(uname -m)"
printf '%-14s %10s %14s %8s\n' op "root alone" "ten patterns" added
for d in 1 5; do
	at=$root
	[ "$d" = 5 ] && at=$root/a/b/c/d
	a=$(per_open "root $root" "$at")
	b=$(per_open "root $root
$globs" "$at")
	printf '%-14s %10d %14d %8d\n' "write-open-d$d" "$a" "$b" $((b - a))
done
printf '%-14s %10s %14s %8s\n' op "no pattern" "**/*.pem" secrets
a=$(per_open "root $root" "$root/a/b/c/d" read)
b=$(per_open "root $root
deny-read **/*.pem" "$root/a/b/c/d" read)
c=$(per_open "root $root
deny-read secrets" "$root/a/b/c/d" read)
printf '%-14s %10d %14d %8d\n' read-open-d5 "$a" "$b" "$c"
