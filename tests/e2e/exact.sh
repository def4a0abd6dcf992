#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Exactness: every call acts on what its arguments name at the moment of
# the call, as bare libc would, whatever the shim kept from the calls
# before (the path a dirfd names, the last parent directory pinned, the
# cwd). Between two calls of one program another process, outside the
# run, moves ROOT/a to ROOT/b and makes a new ROOT/a (log rotation, an
# editor, a sync tool); the program's output and the tree must be the
# bare run's, under fa-run with the floor off and on. When the root itself
# is what moves, the floor (which holds the directory) refuses instead.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99
need_fa_run

EX=$E2E/exact
R=$T/r

floors="off"
if "$FA_RUN" --landlock=on -w "$T" -- true 2>/dev/null; then
	floors="off on"
else
	echo "note: Landlock cannot be had here: the floor-on runs are skipped"
fi

# The tree: names, types, modes, sizes, link targets, and which entries
# carry the times the utime case sets.
tree() {
	(cd "$R" && find . -printf '%p %y %m %s %l\n' | sort &&
		find . -newermt @999999999 ! -newermt @1000000001 -printf 'time %p\n' | sort)
}

# run HOW CASE: the case on a fresh tree, bare or under fa-run with the
# floor HOW, with the move made when the program asks; its output then
# the tree.
run() {
	local how=$1 c=$2 pid root=$R
	case $c in root-*) root=$R/a ;; esac
	rm -rf "$R" "$T/in" "$T/out"
	mkdir -p "$R/a/sub"
	echo 1 >"$R/a/u1"
	echo 22 >"$R/a/u2"
	ln -s sub "$R/a/ln"
	mkfifo "$T/in"
	: >"$T/out"
	if [ "$how" = bare ]; then
		"$EX" "$c" "$R" <"$T/in" >"$T/out" 2>"$T/err" &
	else
		"$FA_RUN" --landlock="$how" -w "$root" -- "$EX" "$c" "$R" <"$T/in" >"$T/out" 2>"$T/err" &
	fi
	pid=$!
	exec 4>"$T/in"
	# The program says "?" once its first calls are made; no clock involved.
	while ! grep -qx '?' "$T/out"; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	mv "$R/a" "$R/b" && mkdir "$R/a"
	echo go >&4
	exec 4>&-
	wait "$pid"
	echo "exit $?"
	cat "$T/out"
	tree
}

for c in dirfd-open dirfd-deep dirfd-link dirfd-mkdir dirfd-unlink dirfd-rename \
	dirfd-chmod dirfd-utime parent-mkdir parent-unlink parent-chmod parent-open \
	cwd-in cwd-below root-open root-entries; do
	bare=$(run bare "$c")
	case $bare in
	*"exit 0"*) ;;
	*) fail "$c: the bare run failed: $bare $(cat "$T/err")"; continue ;;
	esac
	for f in $floors; do
		case $c,$f in
		root-*,on)
			# The floor holds the root directory itself, moved now: what
			# the new one at the root's path receives is refused, and
			# nothing lands in the moved one.
			got=$(run "$f" "$c")
			case $got in
			*"second: EACCES"* | *"mkdir: EACCES"*) pass ;;
			*) fail "$c, floor on: no refusal after the root moved: $got" ;;
			esac
			check "$c, floor on: the moved root holds only what came first" \
				"$(printf '%s\n' "$bare" | grep '^\./b')" "$(printf '%s\n' "$got" | grep '^\./b')"
			;;
		*) check "$c, floor $f" "$bare" "$(run "$f" "$c")" ;;
		esac
	done
done

finish
