#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The root limit under fa-run: 64 write roots; a directory given again, or
# by another name that resolves to it, counts once; one more is refused at
# start-up with status 125 and a message saying the limit.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

need_fa_run

args=()
for i in $(seq 64); do
	mkdir -p "$T/r$i"
	args+=(-w "$T/r$i")
done
ln -s r1 "$T/alias"
# The same 64 again, by the same and by other names: still 64.
again=()
for i in $(seq 64); do
	again+=(-w "$T/r$i" -w "$T/./r$i/")
done
out=$("$FA_RUN" "${args[@]}" "${again[@]}" -w "$T/alias" -- sh -c 'echo x >"$0/r64/f" && echo ok' "$T" 2>&1)
check "64 roots, each named three times" ok "$out"
mkdir -p "$T/r65"
"$FA_RUN" "${args[@]}" -w "$T/r65" -- true 2>"$T/e"
check "65 roots: status" 125 "$?"
grep -q "at most 64" "$T/e" && pass || fail "65 roots: no message naming the limit: $(cat "$T/e")"
finish
