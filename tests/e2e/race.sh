#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The symlink-swap race: ROOT/d flips between a real directory and a
# symlink to OUTSIDE thousands of times while creations go through it.
# Zero entries may ever land in OUTSIDE. The same program without the
# shim shows that the race really is there to be lost.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

ROUNDS=${FA_RACE_ROUNDS:-20000}
SECS=${FA_RACE_SECONDS:-2}

setup() {
	rm -rf "$T/root" "$T/outside"
	mkdir -p "$T/root/d" "$T/outside"
	ln -s "$T/outside" "$T/root/s"
}

race() {	# race LABEL OP POLICY-MODE [ENV...]
	local label=$1 op=$2 mode=$3 out
	shift 3
	setup
	case $op in
	unlink | rename) "$E2E/racer" populate "$T/root" "$T/outside" "$ROUNDS" 0 || fail "populate" ;;
	esac
	out=$(env LD_PRELOAD="$PRELOAD" FA_POLICY="root $T/root
symlinks $mode" FA_QUIET=1 "$@" "$E2E/racer" "$op" "$T/root" "$T/outside" "$ROUNDS" "$SECS" 2>&1)
	rc=$?
	echo "$label: $out"
	[ "$rc" -eq 0 ] && pass || fail "$label: $out"
}

race "beneath open" open beneath
race "beneath mkdir" mkdir beneath
race "beneath open (fallback walk)" open beneath FA_FORCE_FALLBACK=1
race "trust open" open trust
race "trust mkdir" mkdir trust
ROUNDS=${FA_RACE_ENTRIES:-4000}
race "beneath unlink" unlink beneath
race "trust unlink" unlink trust
race "beneath rename" rename beneath
race "trust rename (fallback walk)" rename trust FA_FORCE_FALLBACK=1

# Without the shim the same runs must lose the race, or they prove nothing.
for op in open unlink; do
	setup
	[ "$op" != unlink ] || "$E2E/racer" populate "$T/root" "$T/outside" "$ROUNDS" 0
	out=$("$E2E/racer" $op "$T/root" "$T/outside" "$ROUNDS" "$SECS" 2>/dev/null)
	echo "no shim (control) $op: $out"
	case $out in
	*"escapes 0") echo "note: the unguarded $op run did not escape this time" ;;
	*escapes*) pass ;;
	*) fail "control run $op: $out" ;;
	esac
done

finish
