#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# What the shim remembers about descriptors is forgotten when it must be
# (fdcache.c): an fd it opened for writing, whose fchmod/fchown/futimens
# it does not judge again, once that number is closed, replaced by dup2,
# handed to stdio (fopen, fdopen) or reopened by freopen, and then reused outside the
# roots; a device opened for writing is never remembered;
# the path a dirfd names once the number is given up (close, close_range,
# closefrom, closedir, fclose, dup2 over it) and reused for another
# directory by an open the shim does not see, the directory is renamed or
# removed by the process (or, under fa-run, by another process of the run),
# or the process changes directory. A directory another process moves out
# of the roots is judged by its old name but acted in where it lies, as
# bare libc would; the kernel floor refuses what that stale judgement lets
# through.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

FC=$E2E/fdcache
IN=$T/in
OUT=$T/out

fresh() {
	rm -rf "$IN" "$OUT"
	mkdir -p "$IN" "$OUT"
	echo secret >"$OUT/f"
}

# run CASE: the case's lines under the shim with a policy rooted at IN.
run() {
	fresh
	LD_PRELOAD=$PRELOAD FA_POLICY=$POL FA_QUIET=1 "$FC" "$1" "$IN" "$OUT" 2>/dev/null
}

policy "root $IN"

check "an fd closed and its number reused outside" "open in: ok
fchmod in: ok
close: ok
fchmod reused: EACCES
fchown reused: EACCES" "$(run close-reuse)"
check "the directory outside kept its mode" "755" "$(stat -c %a "$OUT")"

check "dup2 over a remembered fd" "open in: ok
fchmod in: ok
open out: ok
dup2: ok
fchmod replaced: EACCES" "$(run dup2-over)"
check "the file outside kept its mode" "644" "$(stat -c %a "$OUT/f")"

check "an fd handed to stdio, closed by fclose, reused outside" "fchmod stream: ok
fclose: ok
fchmod reused: EACCES" "$(run stdio)"
check "an fd closed by syscall(SYS_close), reused outside" "open in: ok
fchmod in: ok
syscall close: ok
fchmod reused: EACCES" "$(run raw-close)"
check "the directory outside kept its mode after syscall(SYS_close)" "755" "$(stat -c %a "$OUT")"
check "an fd of the program's own given to fdopen, closed by fclose, reused outside" "open in: ok
fchmod in: ok
fdopen: ok
fclose: ok
fchmod reused: EACCES" "$(run fdopen)"
check "the directory outside kept its mode after fdopen" "755" "$(stat -c %a "$OUT")"

check "freopen into a remembered fd's number" "open in: ok
freopen out: ok
fchmod reopened: EACCES" "$(run freopen)"
check "the file reopened outside kept its mode" "644" "$(stat -c %a "$OUT/f")"

# The mode given is /dev/null's own: nothing changes even if it were allowed.
check "a device opened for writing is not remembered" "open /dev/null: ok
fchmod device: EACCES" "$(run device)"

check "a dirfd's number reused for a directory outside" "mkdir: ok
open dir in: ok
openat in: ok
close dir: ok
openat reused: EACCES
mkdirat reused: EACCES" "$(run dirfd-reuse)"
# shellcheck disable=SC2010 # the names are the test's own, plain ASCII
check "nothing made outside, nor where the old dirfd was" "" \
	"$(ls "$OUT" | grep -v '^f$'; ls "$IN/d1" | grep -v '^a$')"

# The same, the number given up each way the shim sees, then reused by an
# open it does not see (libc's opendir): judged by what it names now.
for how in close close_range syscall-close_range closefrom closedir fdopendir fclose dup2; do
	case $how in
	dup2) gone="dup2 over: ok" ;;
	*) gone="$how: ok" ;;
	esac
	check "a dirfd given up by $how, its number reused outside" "mkdir: ok
open dir in: ok
openat in: ok
$gone
openat reused: EACCES
mkdirat reused: EACCES" "$(run "dirfd-gone-$how")"
	# shellcheck disable=SC2010 # the names are the test's own, plain ASCII
	check "nothing made outside nor where the dirfd was ($how)" "" \
		"$(ls "$OUT" | grep -v '^f$'; ls "$IN/d1" | grep -v '^a$')"
done

check "a dirfd whose directory the process removed" "mkdir: ok
open dir: ok
openat: ok
unlink: ok
rmdir: ok
mkdir again: ok
openat removed: ENOENT
mkdirat removed: ENOENT" "$(run dirfd-rmdir)"
check "nothing made in the directory made again" "" "$(ls "$IN/d")"

# The engine keeps the last directory it pinned open (parent_cache.c): a
# rename or rmdir makes it resolve again, the program cannot close or
# replace the number, and a vfork child's pin stays the child's.
for rel in "" -rel; do
	check "the kept parent after a rename$rel" "mkdir a: ok
mkdir a/x: ok
rename a b: ok
mkdir a again: ok
mkdir a/y: ok" "$(run "parent-rename$rel")"
	check "made in the new a, not in the old one renamed$rel" "x|y" \
		"$(ls "$IN/b" | tr '\n' ' ' | sed 's/ $//')|$(ls "$IN/a" | tr '\n' ' ' | sed 's/ $//')"
	check "the kept parent after an rmdir$rel" "mkdir a: ok
mkdir a/x: ok
rmdir a/x: ok
rmdir a: ok
mkdir a again: ok
mkdir a/y: ok" "$(run "parent-rmdir$rel")"
	check "made in the new a$rel" "y" "$(ls "$IN/a")"
done
check "the kept parent's number, dup2'd over and closed by the program" "mkdir a: ok
mkdir a/x: ok
mkdir a/y: ok
mkdir a/z: ok" "$(run parent-dup2)"
check "made inside, nothing outside" "x y z|f" \
	"$(ls "$IN/a" | tr '\n' ' ' | sed 's/ $//')|$(ls "$OUT" | tr '\n' ' ' | sed 's/ $//')"
check "a vfork child's pin" "mkdir a: ok
mkdir c: ok
mkdir a/x: ok
mkdir c/z: ok" "$(run parent-vfork)"
check "made where named" "x|x z" \
	"$(ls "$IN/a" | tr '\n' ' ' | sed 's/ $//')|$(ls "$IN/c" | tr '\n' ' ' | sed 's/ $//')"

check "a dirfd whose directory the process renamed" "mkdir: ok
open dir: ok
openat: ok
rename: ok
openat renamed: ok
mkdirat renamed: ok" "$(run dirfd-rename)"
check "made in the directory under its new name" "a b c" "$(ls "$IN/e" | tr '\n' ' ' | sed 's/ $//')"

check "fchdir in and out" "mkdir: ok
open dir: ok
openat: ok
fchdir in: ok
open relative: ok
open dir out: ok
fchdir out: ok
open relative out: EACCES
openat still in: ok
openat out: EACCES" "$(run fchdir)"
check "made only inside" "a b c2|f" "$(ls "$IN/d" | tr '\n' ' ' | sed 's/ $//')|$(ls "$OUT" | tr '\n' ' ' | sed 's/ $//')"

# Another process moves the directory out while the program holds it.
# The call acts where the descriptor is, as bare libc would: the name the
# shim kept for it is only what it judges by, stale now. The preload alone
# lets the call through on that judgement (the threat model says so); the
# kernel floor, which holds the directories themselves, refuses it.
moved_out() {
	fresh
	rm -f "$T/go"
	mkfifo "$T/go"
	"$@" "$FC" dirfd-moved-out "$IN" "$OUT" <"$T/go" >"$T/moved" 2>/dev/null &
	pid=$!
	exec 3>"$T/go"
	while ! grep -q '^openat:' "$T/moved"; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	mv "$IN/d" "$OUT/d"
	echo go >&3
	exec 3>&-
	wait "$pid"
}
moved_out env LD_PRELOAD="$PRELOAD" FA_POLICY="$POL" FA_QUIET=1
check "a dirfd moved out by another process: the call acts where it is" "mkdir: ok
open dir: ok
openat: ok
openat moved: ok
mkdirat moved: ok" "$(cat "$T/moved")"
check "made in the directory where it now lies, as bare libc would" "a b c" \
	"$(ls "$OUT/d" | tr '\n' ' ' | sed 's/ $//')"
check "nothing made where it was" "" "$(ls "$IN")"
if "$FA_RUN" --landlock=on -w "$T" -- true 2>/dev/null; then
	moved_out "$FA_RUN" --landlock=on --quiet -w "$IN" --
	check "the same under the kernel floor: refused" "mkdir: ok
open dir: ok
openat: ok
openat moved: EACCES
mkdirat moved: EACCES" "$(cat "$T/moved")"
	check "nothing made in the directory moved out" "a" "$(ls "$OUT/d" | tr '\n' ' ' | sed 's/ $//')"
	check "nothing made where it was, under the floor" "" "$(ls "$IN")"
fi

# Under fa-run the processes of a run tell each other of the directories
# they move (the run's shared page): a directory another process of the run
# renamed is not taken from the kept parent for what it was.
fresh
mkdir -p "$T/io"
mkfifo "$T/io/go"
"$FA_RUN" --landlock=off --quiet -w "$IN" -w "$T/io" -- sh -c '
	"$1" parent-moved "$2" "$3" <"$4" >"$5" 2>/dev/null &
	exec 3>"$4"
	i=0
	while [ ! -e "$2/a/x" ] && [ "$i" -lt 3000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	mv "$2/a" "$2/b" && mkdir "$2/a"
	echo go >&3
	exec 3>&-
	wait' sh "$FC" "$IN" "$OUT" "$T/io/go" "$T/io/moved"
check "a kept parent another process of the run renamed" "mkdir a: ok
mkdir a/x: ok
mkdir a/y: ok" "$(cat "$T/io/moved")"
check "made in the new a, not in the renamed one" "y|x" "$(ls "$IN/a")|$(ls "$IN/b" | tr '\n' ' ' | sed 's/ $//')"

finish
