#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh SRCDIR BUILDDIR SECONDS ENGINE_SOURCE...
#
# Build each fuzz target with clang's libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer from the engine's own source list (the one
# src/local.mk gives the library), run it for SECONDS, and print one line
# per target: executions, mismatches (0 or the run fails), sanitizer
# reports. The corpus is kept in the build directory between runs.
set -eu
srcdir=$1; builddir=$2; seconds=$3; shift 3
here=$srcdir/tests/fuzz
out=$builddir/tests/fuzz
cc=${CLANG:-clang}

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz: skipped: $cc not found (apt-get install clang)"
	exit 0
fi
sources=
for f in "$@"; do
	case $f in *.c) sources="$sources $srcdir/$f" ;; esac
done
mkdir -p "$out"
# A target that stops on a mismatch leaves its scratch tree here, not in /tmp.
TMPDIR=$out/tmp; export TMPDIR
rm -rf "$TMPDIR"; mkdir -p "$TMPDIR"
flags="-g -O1 ${FUZZ_CFLAGS:-} -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I$srcdir/src -I$builddir -I$here"

status=0
for t in fold policy check policy_file; do
	bin=$out/fuzz_$t
	# shellcheck disable=SC2086
	"$cc" $flags -o "$bin" $sources "$here/model.c" "$here/fuzz_$t.c"
	mkdir -p "$out/corpus-$t"
	dict=
	[ -f "$here/$t.dict" ] && dict="-dict=$here/$t.dict"
	log=$out/fuzz_$t.log
	# shellcheck disable=SC2086
	if "$bin" -max_total_time="$seconds" -print_final_stats=1 $dict "$out/corpus-$t" >"$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		echo "fuzz_$t: ${runs:-?} executions in ${seconds}s, 0 mismatches, 0 sanitizer reports"
	else
		echo "fuzz_$t: FAILED (log: $log)"
		grep -E 'mismatch|differs|ERROR|SUMMARY|runtime error' "$log" | head -n 20
		status=1
	fi
done
exit $status
