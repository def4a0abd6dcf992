#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# What the shim costs in syscalls, read from strace between two markers
# that calltest makes around the call (CALLTEST_MARK):
#  - with the shim loaded and no policy, exactly the syscalls of bare libc;
#  - with a policy, a write-open is still one syscall (one openat2 in
#    place of the openat), whether the path is absolute or relative to the
#    current directory; a read-open is the very same syscall.
#  - a real job, tar -x of N files in D directories into a directory it
#    holds open: at most N + 2(D + 1) + 10 openat2, no readlink per file and
#    no statx per file (a directory's mode, owner and times are set in the
#    directory the engine keeps open from the previous call, once a statx
#    shows the path still names it; what the dirfd names is read once and
#    kept while the number is not seen closed, and fchmod/fchown/futimens on
#    a file the shim opened for writing are not judged again).
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

if ! command -v strace >/dev/null 2>&1; then
	echo "SKIP: no strace" >&2
	exit 77
fi
if [ -n "$FA_SANITIZERS" ]; then
	echo "SKIP: the sanitizer runtime makes syscalls of its own" >&2
	exit 77
fi
if [ -n "${FA_EMULATOR:-}" ]; then
	echo "SKIP: under $FA_EMULATOR, strace sees the emulator's system calls, not the program's" >&2
	exit 77
fi

CT=$E2E/calltest
IN=$T/in
OUT=$T/out

fresh() {
	rm -rf "$IN" "$OUT"
	mkdir -p "$IN/d" "$OUT"
	echo data >"$IN/f"
	echo secret >"$OUT/f"
}

# trace bare|none|checked FUNC ARG...: the names of the syscalls the case
# made, between calltest's markers. strace -E hands the preload to the
# traced program only, not to strace.
trace() {
	local how=$1 e=()
	shift
	case $how in
	none) e=(-E "LD_PRELOAD=$PRELOAD") ;;
	checked) e=(-E "LD_PRELOAD=$PRELOAD" -E "FA_POLICY=$POL") ;;
	esac
	fresh
	(cd "$IN" && CALLTEST_MARK=1 strace -f -qq "${e[@]}" -o "$T/trace" "$CT" "$@" >/dev/null 2>&1)
	# glibc seeds its temporary-name randomness with getrandom only now and
	# then (mkstemp): that call is libc's, not the shim's, so it is left out.
	sed -n '/getppid()/,/getppid()/p' "$T/trace" | sed 's/^[0-9]* *//; s/(.*//' |
		grep -v -e '^getppid$' -e '^getrandom$' | tr '\n' ' '
}

policy "root $IN"
for args in "open $IN/new WRONLY|CREAT|TRUNC" "open $OUT/f RDONLY" "openat $IN new WRONLY|CREAT" \
	"fopen $IN/new w" "creat $IN/new" "unlink $IN/f" "rename $IN/f $IN/f2" "mkdir $IN/n" \
	"chmod $IN/f 600" "symlink f $IN/s" "truncate $IN/f 0" "mkstemp $IN"; do
	# shellcheck disable=SC2086
	want=$(trace bare $args)
	# shellcheck disable=SC2086
	got=$(trace none $args)
	check "no extra syscall without a policy: $args" "$want" "$got"
done
for args in "open $IN/new WRONLY|CREAT|TRUNC" "open $IN/f WRONLY|TRUNC" \
	"open new WRONLY|CREAT" "openat . new WRONLY|CREAT" "creat $IN/new"; do
	# shellcheck disable=SC2086
	want=$(trace bare $args | wc -w)
	# shellcheck disable=SC2086
	got=$(trace checked $args | wc -w)
	check "a checked write-open costs no extra syscall: $args" "$want" "$got"
done
# Reads are free under a policy too: the very same syscalls.
check "a read under a policy costs nothing" "$(trace bare open "$OUT/f" RDONLY)" \
	"$(trace checked open "$OUT/f" RDONLY)"

# Under fa-run's kernel floor, which alone decides entry changes here (a
# root, no deny subtree, symlinks trusted), a creation or removal runs on
# the caller's own arguments: bare libc's very syscalls, nothing resolved.
# (A refusal is judged after the kernel's answer: landlock.sh.)
if "$FA_RUN" --landlock=on -w "$T" -- true 2>/dev/null; then
	# strace runs inside the run (its trace file is in a root), so that
	# only calltest's calls are between the markers.
	floored() {
		fresh
		(cd "$IN" && CALLTEST_MARK=1 "$FA_RUN" --landlock=on -w "$IN" -w "$T" -- \
			strace -f -qq -o "$T/trace" "$CT" "$@" >/dev/null 2>&1)
		sed -n '/getppid()/,/getppid()/p' "$T/trace" | sed 's/^[0-9]* *//; s/(.*//' |
			grep -v -e '^getppid$' -e '^getrandom$' | tr '\n' ' '
	}
	for args in "mkdir $IN/n" "mkdirat . n" "unlink $IN/f" "unlinkat . f 0" "rmdir $IN/d" \
		"open $IN/new WRONLY|CREAT|EXCL" "openat . new WRONLY|CREAT|EXCL" "mknod $IN/p"; do
		# shellcheck disable=SC2086
		want=$(trace bare $args)
		# shellcheck disable=SC2086
		got=$(floored $args)
		# mkdir may come as mkdirat (AT_FDCWD): the same call, counted alike.
		check "under the floor, as many syscalls as bare libc: $args" \
			"$(echo "$want" | wc -w)" "$(echo "$got" | wc -w)"
		case " $got " in
		*" openat2 "* | *" statx "* | *" readlink"*)
			fail "under the floor, $args was resolved first: $got" ;;
		*) pass ;;
		esac
	done
else
	echo "SKIP: no Landlock floor here: entry changes under it" >&2
fi

# tar -x of N files in D directories, counted (not timed) by strace -c.
# The bounds are GNU tar's: it sets a file's mode, owner and times through
# the descriptor it wrote it with, where busybox's tar names the path again.
if command -v tar >/dev/null 2>&1 && ! tar --version 2>/dev/null | grep -q 'GNU tar'; then
	echo "not run: tar -x counted (this tar is not GNU tar, whose calls the bounds count)"
elif command -v tar >/dev/null 2>&1; then
	N=200 D=20
	rm -rf "$T/job"
	mkdir -p "$T/job/src" "$T/job/out"
	i=0
	while [ "$i" -lt "$N" ]; do
		mkdir -p "$T/job/src/d$((i % D))"
		echo "file $i" >"$T/job/src/d$((i % D))/f$i"
		i=$((i + 1))
	done
	tar -cf "$T/job/a.tar" -C "$T/job" src
	policy "root $T/job/out"
	strace -f -qq -c -U name,calls -E "LD_PRELOAD=$PRELOAD" -E "FA_POLICY=$POL" -o "$T/job/count" \
		tar -xf "$T/job/a.tar" -C "$T/job/out" 2>/dev/null
	calls() { awk -v n="$1" '$1 == n { print $2 + 0; f = 1 } END { if (!f) print 0 }' "$T/job/count"; }
	check "tar -x under the shim extracted every file" "$N" "$(find "$T/job/out" -type f | wc -l)"
	o2=$(calls openat2) rl=$(($(calls readlink) + $(calls readlinkat))) sx=$(calls statx)
	# c: each directory resolved about once for its mkdir, chmod, chown and
	# utimens (the engine keeps the last one open), and start-up.
	c=$((2 * (D + 1) + 10))
	# cs: each of those calls in the directory kept from the one before
	# first shows, with one statx, that the path still names it.
	cs=$((4 * (D + 1) + 10))
	if [ "$o2" -le $((N + c)) ]; then pass; else fail "tar -x of $N files: $o2 openat2, more than $N + $c"; fi
	if [ "$rl" -le "$c" ]; then pass; else fail "tar -x of $N files: $rl readlink, more than $c"; fi
	if [ "$sx" -le "$cs" ]; then pass; else fail "tar -x of $N files: $sx statx, more than $cs"; fi
	echo "tar -x of $N files under the shim: $o2 openat2, $rl readlink, $sx statx"
fi

finish
