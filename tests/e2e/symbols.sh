#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# src/shim/symbols.def is the list of interposed functions. Each entry
# must be exported by the built shim, and must have a case in the
# end-to-end tests (a calltest case driven by calls.sh, or a manners case
# driven by manners.sh), so a wrapper added without a test fails here;
# so must every syscall() number it judges (its FA_NR lines).
# The shim exports nothing else but its bridge.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

DEF=$FA_SRCDIR/src/shim/symbols.def
CONFIG=$FA_BUILDDIR/config.h
[ -f "$DEF" ] || { fail "no $DEF"; finish; }

# Entries whose #ifdef HAVE_... is not defined in this build are skipped.
names=$(awk -v cfg="$CONFIG" '
	BEGIN { while ((getline l < cfg) > 0) if (l ~ /^#define HAVE_/) { split(l, w, " "); have[w[2]] = 1 } }
	/^#ifdef / { stack[++n] = ($2 in have); next }
	/^#ifndef / { stack[++n] = !($2 in have); next }
	/^#else/ { stack[n] = !stack[n]; next }
	/^#endif/ { n--; next }
	/^FA_SYM\(/ {
		on = 1
		for (i = 1; i <= n; i++) if (!stack[i]) on = 0
		if (on) { s = $0; sub(/^FA_SYM\(/, "", s); sub(/,.*/, "", s); print s }
	}' "$DEF")
[ -n "$names" ] || { fail "no FA_SYM lines read from $DEF"; finish; }

exported=$(nm -D --defined-only "$FA_SHIM" | awk '$2 ~ /^[TWi]$/ { print $3 }' | sed 's/@.*//' | sort -u)
ct_cases=$("$E2E/calltest" --list)
m_cases=$("$E2E/manners" --list)

word_in() { grep -qw -- "$1" "$2"; }
for n in $names; do
	if printf '%s\n' "$exported" | grep -qx -- "$n"; then
		pass
	else
		fail "$n is in symbols.def but not exported by $(basename "$FA_SHIM")"
	fi
	if printf '%s\n' "$ct_cases" | grep -qx -- "$n" && word_in "$n" "$FA_SRCDIR/tests/e2e/calls.sh"; then
		pass
	elif printf '%s\n' "$m_cases" | grep -qx -- "$n" && word_in "$n" "$FA_SRCDIR/tests/e2e/manners.sh"; then
		pass
	else
		fail "$n is interposed but has no end-to-end case (calltest + calls.sh, or manners + manners.sh)"
	fi
done

# Every syscall() number the table judges is called by number in calls.sh
# (chdir and fchdir, which are told to the cwd cache, in tests/shim/test_stack.c).
nrs=$(sed -n 's/^FA_NR(\([a-z0-9_]*\),.*/\1/p' "$DEF")
[ -n "$nrs" ] || fail "no FA_NR lines read from $DEF"
for n in $nrs; do
	if grep -Eq "syscall $n( |\$)|nr_both( [a-z0-9_]+)* $n( |\$)" "$FA_SRCDIR/tests/e2e/calls.sh" ||
		grep -q "syscall(SYS_$n," "$FA_SRCDIR/tests/shim/test_stack.c"; then
		pass
	else
		fail "syscall($n) is judged by the shim but has no end-to-end case"
	fi
done

# Exports beyond the table: the bridge and the linker's own symbols only.
for e in $exported; do
	case $e in
	fa_bridge_v1 | _init | _fini) continue ;;
	esac
	if printf '%s\n' "$names" | grep -qx -- "$e"; then
		continue
	fi
	fail "$(basename "$FA_SHIM") exports $e, which is not in symbols.def"
done

echo "$(printf '%s\n' "$names" | wc -l) interposed functions"
finish
