#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh - the shim benchmark table from one run of bench-shim per setting:
# bare libc, the shim loaded with no policy, the shim checking a policy
# (openat2 and the fallback walk), and the naive realpath+prefix pattern;
# then the kernel floor (Landlock): the smallest ruleset that refuses
# writes outside the root (the kernel's own cost), fa-run's floor alone,
# the preload alone, fa-run's default (floor + preload) and
# fa-run --landlock=strict; and fa-run's start-up with and without the
# floor. Settings are interleaved ROUNDS times and the fastest figure of
# each kept, so a noisy neighbour moves all columns alike. Ratios are
# against bare, and for the floor's write targets against the smallest
# ruleset; the median of the per-round ratios is printed beside them.
#
#   BENCH=build/bench/shim/bench-shim FA_SHIM=build/src/.libs/libfashim.so \
#       bench/shim/run.sh [ROUNDS]
set -eu

: "${BENCH:?path of the bench-shim binary}"
: "${FA_SHIM:?path of libfashim.so}"
: "${FLOOR_EXEC:?path of the floor-exec binary}"
: "${FA_RUN:?path of fa-run}"
ROUNDS=${1:-11}

# tmpfs by default: the figures are the shim's cost, not the disk's.
base=${BENCH_DIR:-/dev/shm}
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
dir=$(mktemp -d "$base/fa-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
dir=$(cd "$dir" && pwd -P)
root=$dir/root
mkdir -p "$root"

run() {	# run SETTING: "NAME NS" lines, prefixed with the setting
	case $1 in
	bare) "$BENCH" "$root" ;;
	nopolicy) env LD_PRELOAD="$FA_SHIM" "$BENCH" "$root" ;;
	checked) env LD_PRELOAD="$FA_SHIM" FA_POLICY="root $root" "$BENCH" "$root" ;;
	fallback) env LD_PRELOAD="$FA_SHIM" FA_POLICY="root $root" FA_FORCE_FALLBACK=1 "$BENCH" "$root" ;;
	naive) "$BENCH" "$root" naive ;;
	# the same policy with ten write patterns, and with one read pattern
	glob10) env LD_PRELOAD="$FA_SHIM" FA_POLICY="root $root
$globs" "$BENCH" "$root" ;;
	readpat) env LD_PRELOAD="$FA_SHIM" FA_POLICY="root $root
deny-read **/*.pem" "$BENCH" "$root" ;;
	minimal) "$FLOOR_EXEC" --minimal "$root" -- "$BENCH" "$root" ;;
	floor) "$FLOOR_EXEC" "$root" -- "$BENCH" "$root" ;;
	# fa-run itself, as a user runs it: its floor, its preload, its environment
	farun) "$FA_RUN" -w "$root" -- "$BENCH" "$root" ;;
	strict) "$FA_RUN" --landlock=strict -w "$root" -- "$BENCH" "$root" ;;
	esac | sed "s/^/$i $1 /"
}

# Ten patterns of the kinds people write; none names what the benchmark writes.
globs=$(sed 's/^/deny-glob /' "$(dirname "$0")/ten-patterns")

# Landlock present? Without it the floor columns are left out.
floors="minimal floor farun strict"
"$FLOOR_EXEC" "$root" -- true 2>/dev/null || floors=
"$FA_RUN" --landlock=strict -w "$root" -- true 2>/dev/null || floors=${floors% strict}

# The order rotates each round, so no setting always runs first.
set -- bare nopolicy checked fallback naive glob10 readpat $floors
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	for s in "$@"; do
		run "$s"
	done
	first=$1
	shift
	set -- "$@" "$first"
	i=$((i + 1))
done >"$dir/raw"

echo "shim benchmark: ns per call (best batch of $ROUNDS interleaved runs), ratio to bare libc"
echo "$(uname -sr), $(nproc) CPUs, glibc $(ldd --version | head -1 | sed 's/.* //'), files on $(df -T "$dir" | awk 'NR == 2 { print $2 }')"
awk '
	function median(s, base, op,   r, m, v, t, a, b) {	# per-round ratios s/base
		m = 0
		for (r = 0; r < rounds; r++)
			if ((r " " s " " op) in val && (r " " base " " op) in val)
				v[++m] = val[r " " s " " op] / val[r " " base " " op]
		for (a = 2; a <= m; a++)
			for (b = a; b > 1 && v[b - 1] > v[b]; b--) { t = v[b]; v[b] = v[b - 1]; v[b - 1] = t }
		return m ? (m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2) : 0
	}
	function goal(what, s, base, op, max,   r, md) {
		if (!((s " " op) in best) || !((base " " op) in best))
			return
		r = best[s " " op] / best[base " " op]
		md = median(s, base, op)
		printf "  %-14s %-38s %5.2fx [%5.2fx]  target <= %.2fx  %s\n", op, what, r, md, max,
			r <= max ? "met" : "NOT MET"
	}
	{ val[$1 " " $2 " " $3] = $4; if ($1 + 1 > rounds) rounds = $1 + 1
	  k = $2 " " $3; if (!(k in best) || $4 < best[k]) best[k] = $4; order[$3] = order[$3] ? order[$3] : ++n }
	END {
		target["write-open-d1"] = "nopolicy<=1.02 checked<=1.10"
		target["write-open-d5"] = "nopolicy<=1.02 checked<=1.10"
		target["read-open-d1"] = "nopolicy<=1.02 checked<=1.02"
		target["read-open-d5"] = "nopolicy<=1.02 checked<=1.02"
		target["unlink"] = "checked<=1.30"
		target["rename"] = "checked<=1.30"
		target["mkdir"] = "-"
		printf "%-14s %8s %16s %16s %16s %16s  %s\n", "op", "bare", "shim,no-policy", "shim,checked", "checked,fallback", "naive-realpath", "target"
		for (j = 1; j <= n; j++) for (op in order) if (order[op] == j && op !~ /^limit:/) {
			b = best["bare " op]
			printf "%-14s %8.0f", op, b
			split("nopolicy checked fallback naive", cols, " ")
			for (c = 1; c <= 4; c++) {
				v = best[cols[c] " " op]
				printf " %8.0f (%5.2fx)", v, v / b
			}
			printf "  %s\n", target[op]
		}
		for (j = 1; j <= n; j++) for (op in order) if (order[op] == j && op ~ /^limit:/) {
			b = best["bare write-open-" substr(op, length(op) - 1)]
			printf "%s: one openat2(RESOLVE_BENEATH) from a root fd, bare: %.0f ns (%.2fx the plain open)\n", substr(op, 7), best["bare " op], best["bare " op] / b
		}
		print ""
		print "deny patterns: ns per call, ratio to bare libc; checked = the same root, no pattern"
		printf "%-14s %8s %16s %16s %16s\n", "op", "bare", "checked", "10 deny-glob", "1 deny-read"
		split("write-open-d1 write-open-d5 read-open-d1 read-open-d5 unlink rename", pops, " ")
		for (j = 1; j <= 6; j++) {
			op = pops[j]
			b = best["bare " op]
			printf "%-14s %8.0f", op, b
			split("checked glob10 readpat", cols, " ")
			for (c = 1; c <= 3; c++) {
				v = best[cols[c] " " op]
				printf " %8.0f (%5.2fx)", v, v / b
			}
			printf "\n"
		}
		goal("write-open, 10 deny-glob / bare", "glob10", "bare", "write-open-d1", 1.10)
		goal("write-open, 10 deny-glob / bare", "glob10", "bare", "write-open-d5", 1.10)
		goal("read-open, 10 deny-glob / bare", "glob10", "bare", "read-open-d1", 1.02)
		goal("read-open, no read pattern / bare", "checked", "bare", "read-open-d5", 1.02)
		if (!(("floor write-open-d1") in best))
			exit
		print ""
		print "kernel floor (Landlock): ns per call, ratio to bare libc; smallest = a ruleset handling only"
		print "the write-class rights, one rule on the root; fa-run = its default, floor + preload"
		printf "%-14s %8s %16s %16s %16s %16s %16s\n", "op", "bare", "smallest", "floor only", "preload only", "fa-run", "fa-run strict"
		for (j = 1; j <= n; j++) for (op in order) if (order[op] == j && op !~ /^limit:/) {
			b = best["bare " op]
			printf "%-14s %8.0f", op, b
			split("minimal floor checked farun strict", cols, " ")
			for (c = 1; c <= 5; c++) {
				if (!((cols[c] " " op) in best)) { printf " %16s", "-"; continue }
				v = best[cols[c] " " op]
				printf " %8.0f (%5.2fx)", v, v / b
			}
			printf "\n"
		}
		print ""
		print "targets (ratio of the fastest figures; median of the per-round ratios in brackets):"
		goal("read-open, fa-run default / bare", "farun", "bare", "read-open-d1", 1.03)
		goal("read-open, fa-run default / bare", "farun", "bare", "read-open-d5", 1.03)
		for (d = 1; d <= 5; d += 4) {
			op = "read-open-d" d
			printf "  %-14s %-38s %5.2fx [%5.2fx]  target -  (the kernel'"'"'s own cost, any ruleset)\n", op,
				"read-open, smallest / bare", best["minimal " op] / best["bare " op], median("minimal", "bare", op)
			printf "  %-14s %-38s %5.2fx [%5.2fx]  target -  (what fa-run adds to it)\n", op,
				"read-open, fa-run default / smallest", best["farun " op] / best["minimal " op], median("farun", "minimal", op)
		}
		goal("write-open, floor only / smallest", "floor", "minimal", "write-open-d1", 1.05)
		goal("write-open, floor only / smallest", "floor", "minimal", "write-open-d5", 1.05)
		goal("write-open, fa-run default / smallest", "farun", "minimal", "write-open-d1", 1.10)
		goal("write-open, fa-run default / smallest", "farun", "minimal", "write-open-d5", 1.10)
	}' "$dir/raw"

# fa-run start-up: the same trivial command with and without the floor,
# STARTS runs per batch, batches interleaved; the fastest batch of each.
[ -n "$floors" ] || exit 0
STARTS=${BENCH_STARTS:-200}
start_batch() {	# start_batch MODE: mean microseconds per fa-run start
	local t0 t1 k=0
	t0=$(date +%s%N)
	while [ "$k" -lt "$STARTS" ]; do
		"$FA_RUN" --landlock="$1" -w "$root" -- /bin/true || exit 1
		k=$((k + 1))
	done
	t1=$(date +%s%N)
	echo $(((t1 - t0) / STARTS / 1000))
}
best_off='' best_on=''
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	a=$(start_batch off)
	b=$(start_batch on)
	[ -z "$best_off" ] || [ "$a" -lt "$best_off" ] && best_off=$a
	[ -z "$best_on" ] || [ "$b" -lt "$best_on" ] && best_on=$b
	i=$((i + 1))
done
echo
printf 'fa-run start-up (fa-run -w ROOT -- /bin/true, fastest batch of %d runs):\n' "$STARTS"
printf '  --landlock=off %6d us\n  --landlock=on  %6d us\n  floor adds     %6d us  (target < 2000 us)\n' \
	"$best_off" "$best_on" "$((best_on - best_off))"
