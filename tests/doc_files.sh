#!/bin/sh
# doc/ARCHITECTURE.md stays true: every file it names exists, and every
# function it names (`name()`) is defined somewhere in the sources.
set -u
top=${FA_SRCDIR:-.}
doc=$top/doc/ARCHITECTURE.md
[ -f "$doc" ] || { echo "FAIL: $doc missing"; exit 1; }
fail=0 nfiles=0 nfuncs=0
for f in $(grep -o '`[A-Za-z0-9_./-]*`' "$doc" | tr -d '`' | grep '/' | grep -v '^/' | sort -u); do
	nfiles=$((nfiles + 1))
	[ -e "$top/$f" ] || { echo "FAIL: doc/ARCHITECTURE.md names $f, which does not exist"; fail=1; }
done
for fn in $(grep -o '`[A-Za-z_][A-Za-z0-9_]*()`' "$doc" | tr -d '`()' | sort -u); do
	nfuncs=$((nfuncs + 1))
	if ! grep -rqE "^([a-z].*[ *])?$fn\(|^$fn\(" "$top/src" "$top/pyhook" 2>/dev/null; then
		echo "FAIL: doc/ARCHITECTURE.md names $fn(), which no source file defines"
		fail=1
	fi
done
[ "$nfiles" -gt 20 ] && [ "$nfuncs" -gt 10 ] || { echo "FAIL: too few names read ($nfiles files, $nfuncs functions): is the page's format still backquoted names?"; fail=1; }
[ $fail = 0 ] && echo "doc/ARCHITECTURE.md: $nfiles files and $nfuncs functions named, all present"
exit $fail
