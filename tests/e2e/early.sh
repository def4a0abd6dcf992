#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Before the shim's constructor: a library preloaded after the shim runs
# its constructor first (ld.so's own trace says so, checked below), and
# its first call into the shim (a write-open, a mkdir, an exec, the
# host's bridge) is judged under the process policy all the same, which
# then stays in force after the environment that carried it is cleared.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

EARLY=$E2E/.libs/libearly.so
[ -f "$EARLY" ] || { fail "not built: $EARLY"; finish; }
W=$T/w
O=$T/out
mkdir -p "$W" "$O"

# early HOW [ENV...]: the program sh, the library's first call HOW.
early() {
	local how=$1
	shift
	env LD_PRELOAD="$PRELOAD $EARLY" FA_POLICY="root $W" FA_QUIET=1 FA_EARLY="$how" \
		FA_EARLY_OUT="$O/$how" FA_EARLY_IN="$W/$how" "$@" \
		sh -c '{ echo late >"$1"; } 2>/dev/null && echo "late ok" || echo "late refused"' sh "$O/late-$how"
}

# glibc's ld.so calls the constructors of preloads given later first, and
# says so in its trace. musl's loader has no trace and runs them in the
# order given, the shim's first: nothing comes before its start-up there,
# and the cases below then prove the calls judged all the same.
LD_DEBUG=files early none 2>"$T/trace" >/dev/null
if grep -q 'calling init:' "$T/trace"; then
	order=$(sed -n 's/.*calling init: \(.*\)$/\1/p' "$T/trace" | grep -F -e "$EARLY" -e "$FA_SHIM" |
		sed -e "s|$EARLY|early|" -e "s|$FA_SHIM|shim|" | tr '\n' ' ')
	check "the library's constructor runs before the shim's" "early shim " "$order"
	# With no call before it, the shim's constructor finds the environment cleared.
	check "no early call: no policy left" "late ok" "$(early none)"
else
	echo "not run: the constructors' order and the no-early-call case (this loader has no LD_DEBUG trace: musl runs the shim's constructor first)"
fi
rm -f "$O/late-none"

check "a write-open before start-up" "write out EACCES
write in ok
late refused" "$(early write)"
check "a mkdir before start-up" "mkdir out EACCES
late refused" "$(early mkdir)"
printf '#!/bin/sh\n' >"$W/exec" && chmod +x "$W/exec"
check "an exec before start-up" "exec EACCES
late refused" "$(early exec FA_EXEC=deny)"
check "the host's bridge before start-up" "bridge policy
late refused" "$(early bridge)"
check "nothing made outside" "" "$(ls -A "$O")"
[ -f "$W/write" ] && pass || fail "the allowed write was not made"
finish
