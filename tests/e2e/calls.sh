#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Every interposed libc function, called exactly, under the shim:
#  - allowed inside the root (and with the same output as without the shim);
#  - EACCES outside, with exactly one stderr line, and the whole scratch
#    tree byte-identical before and after the denied call;
#  - with the shim loaded but no policy, the same output as bare libc
#    (errno included), so the no-policy path changes nothing.
# Path cases run twice: openat2 resolution and the forced fallback walk.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

CT=$E2E/calltest
# The cases of functions this libc lacks (the conditional rows of
# symbols.def: glibc's __open_2 under musl, ...) are not built into
# calltest; such a case is named at the end as not run, never passed.
CASES=" $("$CT" --list | tr '\n' ' ') "
ABSENT=
absent() {
	local k
	for k in "$1" "$1 ${2:-}"; do
		[ -n "${AWAY[$k]+set}" ] || continue
		case "$NOTRUN" in *" $k ("*) ;; *) NOTRUN="$NOTRUN $k (${AWAY[$k]});" ;; esac
		return 0
	done
	case $CASES in *" $1 "*) return 1 ;; esac
	case "$ABSENT " in *" $1 "*) ;; *) ABSENT="$ABSENT $1" ;; esac
	return 0
}
# Cases this libc has but where it does not do what they check, each with
# the reason; named at the end as not run, never passed.
declare -A AWAY=()
NOTRUN=
GLIBC=$("$CT" --glibc)
if [ "$GLIBC" != 1 ]; then
	for fn in updwtmp updwtmpx utmpname utmpxname pututline pututxline; do
		AWAY[$fn]="glibc's utmp and wtmp writers; musl's are stubs that write no file"
	done
	AWAY[nftw]="FTW_CHDIR as glibc has it; musl's nftw stays in the start directory"
fi
# Under qemu-user, /proc/PID/syscall shows the emulator's own system calls,
# so the watcher that signals a process blocked in one never fires.
# Its CLONE_VFORK child is a fork, so posix_spawn reports no failed exec;
# and it has no openat2, fchmodat2, setxattrat, removexattrat or execveat
# (ENOSYS), so the engine walks in both resolution modes: one is run.
PATH_MODES=(openat2 fallback)
if [ -n "${FA_EMULATOR:-}" ]; then
	for fn in sig_freopen sig_open; do
		AWAY[$fn]="no guest system call in /proc/PID/syscall under $FA_EMULATOR"
	done
	AWAY[posix_spawnp_errno]="posix_spawn reports no failed exec under $FA_EMULATOR"
	for fn in openat2 fchmodat2 setxattrat removexattrat execveat; do
		AWAY["syscall $fn"]="no such system call in $FA_EMULATOR"
	done
	AWAY[execveat]="no such system call in $FA_EMULATOR"
	PATH_MODES=(fallback)
	echo "under $FA_EMULATOR (no openat2), one resolution mode: the walk"
fi
W=$T/w
IN=$W/in
OUT=$W/out
TPL=$T/template

mkdir -p "$TPL/in/d" "$TPL/in/e" "$TPL/out/d" "$TPL/out/e"
echo data >"$TPL/in/f"
echo data >"$TPL/in/d/g"
echo secret >"$TPL/out/f"
echo secret >"$TPL/out/d/g"
ln -s f "$TPL/in/lnk_in"
ln -s ../out/f "$TPL/in/lnk_out"
ln -s ../out "$TPL/in/dir_out"
ln -s ../out/newfile "$TPL/in/dangle"
ln -s d "$TPL/in/dlink"
mkfifo "$TPL/in/fifo"
# Absolute, into the root: where it leads depends on what "/" is.
ln -s "$W/in/f" "$TPL/out/abs_in"

# XATTR_FILES: files of the fresh tree given an attribute (cp -a need not
# copy attributes: busybox's does not).
XATTR_FILES=()
fresh() {
	rm -rf "$W"
	cp -a "$TPL" "$W"
	local f
	for f in "${XATTR_FILES[@]}"; do
		"$CT" setxattr "$f" >/dev/null
	done
}

MODES=("${PATH_MODES[@]}")
XENV=()
QUIET=
XATTR=yes

# ct bare|shim|fallback FUNC ARG...: calltest run in $IN (so relative
# paths and AT_FDCWD mean the root), stderr kept in $T/stderr.
ct() {
	local how=$1 e=() v
	shift
	case $how in
	shim | fallback)
		e+=("LD_PRELOAD=$PRELOAD")
		[ -z "$POL" ] || e+=("FA_POLICY=$POL")
		;;
	esac
	[ "$how" != fallback ] || e+=(FA_FORCE_FALLBACK=1)
	[ -z "${PRE:-}" ] || eval "$PRE"
	(
		cd "$IN" || exit 99
		for v in "${e[@]}" "${XENV[@]}"; do
			# shellcheck disable=SC2163 # v is NAME=VALUE, exported as such
			export "$v"
		done
		exec "$CT" "$@"
	) 2>"$T/stderr"
}

# The tree as the last denial left it; empty when it must be rebuilt.
SNAP=

# What bare libc answers for each argument list, on a fresh tree: the
# environment of a case (FA_* variables, TMPDIR) does not change it.
# bare FUNC ARG... sets $bare.
declare -A BARE
bare() {
	local key="$*"
	if [ -z "${BARE[$key]+set}" ]; then
		fresh
		BARE[$key]=$(ct bare "$@")
	fi
	bare=${BARE[$key]}
}

# allow FUNC ARG...: ok inside the root, and the same answer as bare libc.
allow() {
	local bare got m
	! absent "$@" || return 0
	SNAP=
	bare "$@"
	for m in "${MODES[@]}"; do
		fresh
		got=$(ct "${m/openat2/shim}" "$@")
		case $got in
		ok*) check "allow[$m] $*" "$bare" "$got" ;;
		*) fail "allow[$m] $*: got [$got], bare [$bare]: $(cat "$T/stderr")" ;;
		esac
	done
}

# called FUNC ARG...: the name (or name prefix) the denial must give.
called() {
	case $1 in
	fortify_open) echo __open_2 ;;
	fortify_openat) echo __openat_2 ;;
	linkat_*) echo linkat ;;
	reopen*) echo open ;;
	freopen_null) echo freopen ;;
	# A signal handler's own open, made while freopen blocks.
	sig_freopen | sig_open) echo open ;;
	utmpname) echo pututline ;;
	utmpxname) echo pututxline ;;
	spawn_noenv | execle_noenv | clearenv_exec | syscall) echo "$2" ;;
	# A change of directory is not judged: the write made after it is.
	chdir | fchdir | daemon | fts*_open | fts*_close | nftw*) echo open ;;
	# Old binaries reach these from mknod(): that family's name will do.
	__xmknod*) echo '(__x)?mknod' ;;
	*) echo "$1" ;;
	esac
}

# deny FUNC ARG...: EACCES, one message line, nothing changed anywhere.
# A denial changes nothing, so the tree it leaves is the next one's start.
deny() {
	local after got m lines
	! absent "$@" || return 0
	for m in "${MODES[@]}"; do
		if [ -z "$SNAP" ]; then
			fresh
			SNAP=$(snapshot "$W")
		fi
		got=$(ct "${m/openat2/shim}" "$@")
		after=$(snapshot "$W")
		check "deny[$m] $*" "err EACCES" "$got"
		if [ "$SNAP" != "$after" ]; then
			fail "deny[$m] $* changed the tree:"
			diff <(printf '%s\n' "$SNAP") <(printf '%s\n' "$after") >&2
			SNAP=
		else
			pass
		fi
		lines=$(grep -c . "$T/stderr")
		if [ -n "$QUIET" ]; then
			check "deny[$m] $*: quiet" 0 "$lines"
		elif [ "$lines" -ne 1 ]; then
			fail "deny[$m] $*: $lines stderr lines, want 1: $(cat "$T/stderr")"
		elif ! grep -Eq "denied (syscall\()?$(called "$@")[a-z0-9_]*\)?\(" "$T/stderr"; then
			fail "deny[$m] $*: the message does not name the call: $(cat "$T/stderr")"
		else
			pass
		fi
	done
}

# plain FUNC ARG...: shim loaded, no policy: exactly what bare libc does.
plain() {
	local bare got
	! absent "$@" || return 0
	SNAP=
	bare "$@"
	fresh
	got=$(POL='' ct shim "$@")
	check "no-policy $*" "$bare" "$got"
	case $got in
	ok*) pass ;;
	*) fail "no-policy $*: the call itself failed: $got" ;;
	esac
	[ ! -s "$T/stderr" ] || fail "no-policy $* wrote to stderr: $(cat "$T/stderr")"
}

# both FUNC INSIDE-ARGS... -- OUTSIDE-ARGS...: allow the first, deny the
# second, and both unchanged without a policy.
both() {
	local f=$1 a=()
	shift
	while [ "$1" != -- ]; do
		a+=("$1")
		shift
	done
	shift
	allow "$f" "${a[@]}"
	deny "$f" "$@"
	plain "$f" "${a[@]}"
	plain "$f" "$@"
}

policy "root $IN"

# Does this file system take user.* attributes at all?
fresh
case $("$CT" setxattr "$IN/f") in
ok*) ;;
*) XATTR= ;;
esac

# ---- open family ----
for fn in open open64 __open __open64; do
	both $fn "$IN/new" "WRONLY|CREAT|TRUNC" -- "$OUT/new" "WRONLY|CREAT|TRUNC"
	both $fn "$IN/f" "WRONLY|TRUNC" -- "$OUT/f" "WRONLY|TRUNC"
	both $fn "$IN/f" "RDWR" -- "$OUT/f" "RDWR"
	both $fn "$IN/f" "WRONLY|APPEND" -- "$OUT/f" "WRONLY|APPEND"
	both $fn "$IN/x" "WRONLY|CREAT|EXCL" -- "$OUT/x" "WRONLY|CREAT|EXCL"
	both $fn "$IN" "RDWR|TMPFILE" -- "$OUT" "RDWR|TMPFILE"
	both $fn "new" "WRONLY|CREAT" -- "../out/new" "WRONLY|CREAT"
	both $fn "$IN/d/../new" "WRONLY|CREAT" -- "$IN/../out/new" "WRONLY|CREAT"
	# Reads are free, wherever they are.
	allow $fn "$OUT/f" RDONLY
	allow $fn "$OUT/d" "RDONLY|DIRECTORY"
	# An existing device changes no directory entry.
	allow $fn /dev/null WRONLY
	allow $fn /dev/null "WRONLY|CREAT|TRUNC"
done
# A final symlink is followed, so it is judged by where it leads, even
# when that does not exist yet (the open would create it there).
deny open "$IN/lnk_out" "WRONLY|TRUNC"
deny open "$IN/dangle" "WRONLY|CREAT"
deny creat "$IN/dangle"
deny fopen "$IN/dangle" w
deny truncate "$IN/lnk_out" 0
allow open "$IN/lnk_in" "WRONLY|TRUNC"
# '..' after a symlink climbs from where the link leads: lexically the
# paths below stay in the root, physically they are outside.
deny open "$IN/dir_out/../out/new" "WRONLY|CREAT"
deny mkdir "$IN/dir_out/../out/n"
deny unlink "$IN/dir_out/../out/f"
deny rename "$IN/f" "$IN/dir_out/../out/f2"
allow open "$IN/dir_out/../in/new" "WRONLY|CREAT"
# A directory fd's magic link as a path prefix leads where the fd is.
deny openat "$OUT" /proc/self/fd/3/new "WRONLY|CREAT"
deny openat "$OUT" /dev/fd/3/new "WRONLY|CREAT"
# A symlinked parent that leads out is judged by where it leads.
deny open "$IN/dir_out/new" "WRONLY|CREAT"
deny open "$IN/dir_out/f" "WRONLY|TRUNC"
for fn in openat openat64; do
	both $fn "$IN" new "WRONLY|CREAT" -- "$OUT" new "WRONLY|CREAT"
	both $fn . new "WRONLY|CREAT" -- . ../out/new "WRONLY|CREAT"
	both $fn "$IN/d" g "WRONLY|TRUNC" -- "$OUT/d" g "WRONLY|TRUNC"
	# The dirfd decides, never the current directory (which is the root).
	both $fn "$OUT" ../in/new "WRONLY|CREAT" -- "$OUT" f "WRONLY|TRUNC"
	both $fn "$IN" . "RDWR|TMPFILE" -- "$OUT" . "RDWR|TMPFILE"
	allow $fn "$OUT" f RDONLY
done
# Fortified entry points take no mode, so no O_CREAT. fortify_open* go
# through <bits/fcntl2.h> when the build optimises, as real programs do.
[ "$("$CT" --fortified)" = 1 ] || echo "note: calltest not built fortified; fortify_* call __open_2 by name" >&2
for fn in __open_2 __open64_2 fortify_open; do
	both $fn "$IN/f" "WRONLY|TRUNC" -- "$OUT/f" "WRONLY|TRUNC"
	both $fn "$IN/f" "RDWR" -- "$OUT/f" "RDWR"
	allow $fn "$OUT/f" RDONLY
done
for fn in __openat_2 __openat64_2 fortify_openat; do
	both $fn "$IN" f "WRONLY|TRUNC" -- "$OUT" f "WRONLY|TRUNC"
	both $fn . f "WRONLY" -- . ../out/f "WRONLY"
	allow $fn "$OUT" f RDONLY
done
for fn in creat creat64; do
	both $fn "$IN/new" -- "$OUT/new"
	both $fn "$IN/f" -- "$OUT/f"
done
for fn in fopen fopen64 freopen freopen64; do
	both $fn "$IN/new" w -- "$OUT/new" w
	both $fn "$IN/f" a -- "$OUT/f" a
	both $fn "$IN/f" r+ -- "$OUT/f" r+
	both $fn "$IN/new" wx -- "$OUT/new" wx
	both $fn "$IN/f" we -- "$OUT/f" we
	allow $fn "$OUT/f" r
	allow $fn /dev/null w
done

# ---- truncation ----
for fn in truncate truncate64; do
	both $fn "$IN/f" 0 -- "$OUT/f" 0
	both $fn "$IN/f" 100 -- "$OUT/f" 100
done
# Through a descriptor already open for writing: its open was judged.
allow ftruncate "$IN/f" 0

# ---- directory entries ----
both unlink "$IN/f" -- "$OUT/f"
both unlink "$IN/lnk_out" -- "$OUT/d/g"
both unlinkat "$IN" f 0 -- "$OUT" f 0
both unlinkat . f 0 -- . ../out/f 0
both unlinkat "$IN" e REMOVEDIR -- "$OUT" e REMOVEDIR
both unlinkat "$OUT" ../in/f 0 -- "$IN/dir_out" f 0
both remove "$IN/f" -- "$OUT/f"
both remove "$IN/e" -- "$OUT/e"
both rmdir "$IN/e" -- "$OUT/e"
both rmdir e -- ../out/e

both rename "$IN/f" "$IN/f2" -- "$IN/f" "$OUT/f2"
both rename "$IN/f" "$IN/d/f" -- "$OUT/f" "$IN/f2"
both rename "$IN/d" "$IN/d2" -- "$OUT/d" "$OUT/d2"
both rename "$IN/f" "$IN/d/g" -- "$IN/f" "$OUT/d/g"
both renameat "$IN" f "$IN" f2 -- "$IN" f "$OUT" f2
both renameat . f . f2 -- "$OUT" f . f2
both renameat2 "$IN" f "$IN" f2 0 -- "$OUT" f "$IN" f2 0
both renameat2 "$IN" f "$IN" f2 NOREPLACE -- "$IN" f "$OUT" f2 NOREPLACE
both renameat2 "$IN" f "$IN/d" g EXCHANGE -- "$IN" f "$OUT" f EXCHANGE
both renameat2 "$IN" d "$IN" e EXCHANGE -- "$OUT" d "$IN" d EXCHANGE

both link "$IN/f" "$IN/f2" -- "$IN/f" "$OUT/f2"
# The source of a hard link must be inside a root too.
deny link "$OUT/f" "$IN/f2"
both linkat "$IN" f "$IN" f2 0 -- "$IN" f "$OUT" f2 0
deny linkat "$OUT" f "$IN" f2 0
both linkat "$IN" lnk_in "$IN" f2 SYMLINK_FOLLOW -- "$IN" lnk_out "$IN" f2 SYMLINK_FOLLOW
both linkat_fd "$IN/f" "$IN/f2" -- "$IN/f" "$OUT/f2"
deny linkat_fd "$OUT/f" "$IN/f2"
both linkat_proc "$IN/f" "$IN/f2" -- "$IN/f" "$OUT/f2"
deny linkat_proc "$OUT/f" "$IN/f2"
both linkat_tmpfile "$IN" "$IN/f2" -- "$IN" "$OUT/f2"

# The new link's directory and its target must both be inside.
both symlink f "$IN/s" -- f "$OUT/s"
both symlink "$IN/f" "$IN/s" -- "$OUT/f" "$IN/s"
both symlink d/g "$IN/s" -- ../out/f "$IN/s"
both symlinkat f "$IN" s -- f "$OUT" s
both symlinkat f . s -- ../out/f . s
both symlinkat "$IN/d" "$IN/d" s -- /etc "$IN/d" s

both mkdir "$IN/n" -- "$OUT/n"
both mkdir n -- ../out/n
both mkdir "$IN/d/n" -- "$IN/dir_out/n"
both mkdirat "$IN" n -- "$OUT" n
both mkdirat . n -- "$OUT/d" n
both mknod "$IN/n" -- "$OUT/n"
both mknodat "$IN" n -- "$OUT" n
both __xmknod "$IN/n" -- "$OUT/n"
both __xmknodat "$IN" n -- "$OUT" n
both mkfifo "$IN/n" -- "$OUT/n"
both mkfifoat "$IN" n -- "$OUT" n
both mkfifoat . n -- . ../out/n

# ---- attributes ----
both chmod "$IN/f" 600 -- "$OUT/f" 600
both chmod "$IN/d" 700 -- "$OUT/d" 700
both fchmodat "$IN" f 600 -- "$OUT" f 600
both fchmodat . f 600 -- . ../out/f 600
# A read-only descriptor is judged by the file it names.
both fchmod "$IN/f" 600 -- "$OUT/f" 600
both lchmod "$IN/f" 600 -- "$OUT/f" 600
# Following a symlink to a file outside changes the file outside.
deny chmod "$IN/lnk_out" 600
deny chown "$IN/lnk_out"
deny fchownat "$IN" lnk_out 0
deny fchmodat "$IN" lnk_out 600
both chown "$IN/f" -- "$OUT/f"
# Not following it changes only the link, which is inside.
both lchown "$IN/lnk_out" -- "$OUT/f"
both fchownat "$IN" f 0 -- "$OUT" f 0
both fchownat "$IN" lnk_out SYMLINK_NOFOLLOW -- "$OUT" f SYMLINK_NOFOLLOW
both fchown "$IN/f" -- "$OUT/f"
if [ -n "$XATTR" ]; then
	both setxattr "$IN/f" -- "$OUT/f"
	both lsetxattr "$IN/f" -- "$OUT/f"
	both fsetxattr "$IN/f" -- "$OUT/f"
	# removexattr needs an attribute to remove: give the tree one.
	XATTR_FILES=("$IN/f" "$OUT/f")
	both removexattr "$IN/f" -- "$OUT/f"
	both fremovexattr "$IN/f" -- "$OUT/f"
	both lremovexattr "$IN/f" -- "$OUT/f"
	XATTR_FILES=()
else
	echo "SKIP: xattrs: user.* attributes refused by the file system" >&2
fi

# ---- temporary files ----
for fn in mkstemp mkstemp64 mkostemp mkostemp64 mkstemps mkstemps64 mkostemps mkostemps64 mkdtemp; do
	both $fn "$IN" -- "$OUT"
	both $fn . -- ../out
done
# tmpfile() always uses /tmp (glibc ignores TMPDIR for it): outside the root.
for fn in tmpfile tmpfile64; do
	deny $fn
	XENV=("TMPDIR=$IN")
	deny $fn
	XENV=()
	POL="root $IN
root /tmp" allow $fn
	plain $fn
done

# ---- POSIX IPC names live in /dev/shm, a directory like any other ----
for fn in sem_open shm_open; do
	deny $fn "/fa-e2e-$fn-$$"
	plain $fn "/fa-e2e-$fn-$$"
done
POL="root $IN
root /dev/shm" allow sem_open "/fa-e2e-sem_open-$$"
POL="root $IN
root /dev/shm" allow shm_open "/fa-e2e-shm_open-$$"

# ---- sockets ----
both bind "$IN/sock" -- "$OUT/sock"
both bind sock -- ../out/sock
allow bind "@fa-e2e-$$"

# ---- raw syscall() for the file syscalls ----
both syscall openat "$IN/new" "WRONLY|CREAT" -- openat "$OUT/new" "WRONLY|CREAT"
both syscall openat "$IN/f" "WRONLY|TRUNC" -- openat "$OUT/f" "WRONLY|TRUNC"
allow syscall openat "$OUT/f" RDONLY
both syscall unlinkat "$IN/f" 0 -- unlinkat "$OUT/f" 0
both syscall unlinkat "$IN/e" REMOVEDIR -- unlinkat "$OUT/e" REMOVEDIR
both syscall mkdirat "$IN/n" -- mkdirat "$OUT/n"
both syscall renameat2 "$IN/f" "$IN/f2" 0 -- renameat2 "$IN/f" "$OUT/f2" 0
both syscall renameat "$IN/f" "$IN/f2" -- renameat "$IN/f" "$OUT/f2"
both syscall linkat "$IN/f" "$IN/f2" -- linkat "$IN/f" "$OUT/f2"
both syscall symlinkat f "$IN/s" -- symlinkat f "$OUT/s"
both syscall mknodat "$IN/n" -- mknodat "$OUT/n"
both syscall fchmodat "$IN/f" -- fchmodat "$OUT/f"
both syscall truncate "$IN/f" -- truncate "$OUT/f"
if [ "$(uname -m)" = x86_64 ]; then
	both syscall open "$IN/new" "WRONLY|CREAT" -- open "$OUT/new" "WRONLY|CREAT"
	both syscall creat "$IN/new" -- creat "$OUT/new"
	both syscall unlink "$IN/f" -- unlink "$OUT/f"
	both syscall rmdir "$IN/e" -- rmdir "$OUT/e"
	both syscall mkdir "$IN/n" -- mkdir "$OUT/n"
	both syscall rename "$IN/f" "$IN/f2" -- rename "$IN/f" "$OUT/f2"
	both syscall link "$IN/f" "$IN/f2" -- link "$IN/f" "$OUT/f2"
	both syscall symlink f "$IN/s" -- symlink f "$OUT/s"
	both syscall chmod "$IN/f" -- chmod "$OUT/f"
fi

# ---- exported aliases of the open family, and opens libc makes by itself ----
for fn in __open_nocancel __open64_nocancel; do
	both $fn "$IN/new" "WRONLY|CREAT" -- "$OUT/new" "WRONLY|CREAT"
	allow $fn "$OUT/f" RDONLY
done
both _IO_fopen "$IN/new" w -- "$OUT/new" w
allow _IO_fopen "$OUT/f" r
# A conversion (",ccs=") is libc's: libc opens the very file the engine opened.
both fopen "$IN/new" "w,ccs=UTF-8" -- "$OUT/new" "w,ccs=UTF-8"
both fopen "$IN/new" "wx,ccs=UTF-8" -- "$OUT/new" "wx,ccs=UTF-8"
both freopen "$IN/f" "a,ccs=UTF-8" -- "$OUT/f" "a,ccs=UTF-8"
# freopen(NULL) upgrading a read-only stream writes the file it names.
both freopen_null "$IN/f" w -- "$OUT/f" w
both freopen_null "$IN/f" a -- "$OUT/f" a
allow freopen_null "$OUT/f" r
# A handle names its file only once open: judged by that file.
both open_by_handle_at "$IN/f" WRONLY -- "$OUT/f" WRONLY
both open_by_handle_at "$IN/f" "RDWR|TRUNC" -- "$OUT/f" "RDWR|TRUNC"
allow open_by_handle_at "$OUT/f" RDONLY
both _IO_file_open "$IN/new" "WRONLY|CREAT|TRUNC" -- "$OUT/new" "WRONLY|CREAT|TRUNC"
allow _IO_file_open "$OUT/f" RDONLY
both _IO_file_fopen "$IN/new" w -- "$OUT/new" w
both _IO_file_fopen "$IN/f" a -- "$OUT/f" a
allow _IO_file_fopen "$OUT/f" r
# fdopen judges nothing (the descriptor was judged when opened): it only forgets (fdcache.sh).
allow fdopen "$OUT/f"
plain fdopen "$IN/f"
# fclose and closedir judge nothing either: they tell the dirfd cache (fdcache.sh).
allow fclose "$OUT/f"
plain fclose "$IN/f"
allow closedir "$OUT"
plain closedir "$IN"
for fn in setmntent __setmntent; do
	both $fn "$IN/mtab" w -- "$OUT/mtab" w
	both $fn "$IN/f" a -- "$OUT/f" a
	allow $fn "$OUT/f" r
done
fresh
if [ "$("$CT" acct "$IN/f")" = ok ]; then
	both acct "$IN/f" -- "$OUT/f"
else
	deny acct "$OUT/f"
fi
for fn in updwtmp updwtmpx utmpname utmpxname pututline pututxline; do
	both $fn "$IN/f" -- "$OUT/f"
done
# These also write the system's wtmp or its password lock, outside any test root.
deny login "$OUT/f"
deny logout "$OUT/f"
deny logwtmp
deny lckpwdf
# Inode flags through a read-only fd: judged like fchmod.
fresh
case $("$CT" ioctl "$IN/f") in
ok*) both ioctl "$IN/f" -- "$OUT/f" ;;
*) deny ioctl "$OUT/f" ;;
esac

# ---- timestamps are changes, judged like chmod ----
both utimensat . "$IN/f" 0 -- . "$OUT/f" 0
both utimensat "$IN" f 0 -- "$OUT" f 0
both utimensat "$IN" lnk_out SYMLINK_NOFOLLOW -- "$OUT" f SYMLINK_NOFOLLOW
deny utimensat "$IN" lnk_out 0
both futimens "$IN/f" -- "$OUT/f"
both utimes "$IN/f" -- "$OUT/f"
deny utimes "$IN/lnk_out"
both lutimes "$IN/lnk_out" -- "$OUT/f"
both futimes "$IN/f" -- "$OUT/f"
both futimesat "$IN" f -- "$OUT" f
both futimesat . f -- . ../out/f
both utime "$IN/f" -- "$OUT/f"

# ---- removing an IPC name is removing its file; message queues ----
for fn in shm_unlink sem_unlink; do
	obj=/dev/shm/fa-e2e-u-$$
	# glibc names a semaphore's file sem.NAME, musl NAME.
	[ $fn = shm_unlink ] || [ "$GLIBC" != 1 ] || obj=/dev/shm/sem.fa-e2e-u-$$
	PRE=": >$obj"
	deny $fn "/fa-e2e-u-$$"
	[ -e "$obj" ] && pass || fail "a denied $fn removed $obj"
	plain $fn "/fa-e2e-u-$$"
	POL="root $IN
root /dev/shm" allow $fn "/fa-e2e-u-$$"
	PRE=
	rm -f "$obj"
done
# The mqueue file system is not under any root here (nor mounted on /dev/mqueue).
deny mq_open "/fa-e2e-mq-$$"
check "a denied mq_open created nothing" "err ENOENT" "$(ct bare mq_unlink "/fa-e2e-mq-$$")"
plain mq_open "/fa-e2e-mq-$$"
deny mq_unlink "/fa-e2e-mq-$$"
check "no-policy mq_unlink" "$(ct bare mq_unlink "/fa-e2e-mq-$$")" "$(POL='' ct shim mq_unlink "/fa-e2e-mq-$$")"

# ---- a signal handler that writes while the thread is inside a wrapper ----
both sig_freopen "$IN/sig" -- "$OUT/sig"
both sig_open "$IN/fifo" "$IN/sig" -- "$IN/fifo" "$OUT/sig"

# ---- more syscall() numbers ----
both syscall utimensat "$IN/f" -- utimensat "$OUT/f"
both syscall bind "$IN/sock" -- bind "$OUT/sock"
both syscall open_by_handle_at "$IN/f" WRONLY -- open_by_handle_at "$OUT/f" WRONLY
deny syscall mq_open "/fa-e2e-mq-$$"
plain syscall mq_open "/fa-e2e-mq-$$"
deny syscall mq_unlink "/fa-e2e-mq-$$"
# nr_both NAME...: syscall NAME on $IN/f allowed, on $OUT/f refused.
nr_both() {
	local n
	for n; do
		both syscall "$n" "$IN/f" -- "$n" "$OUT/f"
	done
}
nr_both fchmod fchown fchownat fchmodat2
# A system call the emulator lacks: the shim answers as the kernel does
# (ENOSYS), and does not make another one in its place.
if [ -n "${FA_EMULATOR:-}" ]; then
	bare syscall fchmodat2 "$IN/f"
	fresh
	check "same[$FA_EMULATOR] syscall fchmodat2" "$bare" \
		"$(ct "${MODES[0]/openat2/shim}" syscall fchmodat2 "$IN/f")"
fi
# close, close_range, dup2 and dup3 by number judge nothing: they keep pinned roots and forget marks (fdcache.sh).
allow syscall close "$OUT/f"
allow syscall close_range "$OUT/f"
# aarch64 has dup3 alone.
[ "$(uname -m)" = aarch64 ] || allow syscall dup2 "$OUT/f"
allow syscall dup3 "$OUT/f"
plain syscall close "$IN/f"
plain syscall close_range "$IN/f"
if [ -n "$XATTR" ]; then
	nr_both setxattrat setxattr lsetxattr fsetxattr
	XATTR_FILES=("$IN/f" "$OUT/f")
	nr_both removexattrat removexattr lremovexattr fremovexattr
	XATTR_FILES=()
fi
if [ "$(uname -m)" = x86_64 ]; then
	nr_both utimes futimesat utime chown
	both syscall mknod "$IN/n" -- mknod "$OUT/n"
	both syscall lchown "$IN/lnk_out" -- lchown "$OUT/f"
	deny syscall chown "$IN/lnk_out"
fi
# openat2(RESOLVE_IN_ROOT) resolves beneath its dirfd: '/' and '..' stop there.
both syscall openat2 "$IN" new "WRONLY|CREAT" -- openat2 "$OUT" new "WRONLY|CREAT"
allow syscall openat2 "$IN" /new "WRONLY|CREAT"
allow syscall openat2 "$IN" ../../new "WRONLY|CREAT"
allow syscall openat2 "$IN/d" /g "WRONLY|TRUNC"
# An absolute link beneath a dirfd outside leads beneath that dirfd, not into the root.
deny syscall openat2 "$OUT" abs_in "WRONLY"
deny syscall openat2 "$OUT" /in/new "WRONLY|CREAT"


# ---- deny subtrees: the subtree and everything that would move it ----
policy "root $IN" "deny $IN/d"
both open "$IN/new" "WRONLY|CREAT" -- "$IN/d/new" "WRONLY|CREAT"
both unlink "$IN/f" -- "$IN/d/g"
both rename "$IN/e" "$IN/e2" -- "$IN/d" "$IN/d2"
both renameat2 "$IN" e "$IN" f EXCHANGE -- "$IN" d "$IN" e EXCHANGE
both chmod "$IN/e" 700 -- "$IN/d" 700
both rename "$IN/f" "$IN/e/f" -- "$IN/f" "$IN/d/f"
both mkdir "$IN/e/n" -- "$IN/d/n"
deny rmdir "$IN/d"
# No way round it: not through a symlink, not by a new name for its files.
deny open "$IN/dlink/g" "WRONLY|TRUNC"
deny open "$IN/dlink/new" "WRONLY|CREAT"
deny unlink "$IN/dlink/g"
deny chmod "$IN/dlink/g" 600
deny link "$IN/d/g" "$IN/g2"
deny linkat_fd "$IN/d/g" "$IN/g2"
deny rename "$IN/d/g" "$IN/g2"
deny symlink d/g "$IN/g2"
allow rename "$IN/dlink" "$IN/dlink2"
policy "root $W" "deny $IN/d"
# Renaming or removing an ancestor of a deny subtree would take it along.
deny rename "$IN" "$W/in2"
deny rmdir "$IN"
allow rename "$OUT" "$W/out2"

# ---- symlink modes ----
policy "root $IN" "symlinks beneath"
deny open "$IN/lnk_out" "WRONLY|TRUNC"
allow open "$IN/lnk_in" "WRONLY|TRUNC"
deny open "$IN/dir_out/f" "WRONLY|TRUNC"
policy "root $IN" "symlinks nofollow"
deny open "$IN/lnk_in" "WRONLY|TRUNC"
deny open "$IN/lnk_out" "WRONLY|TRUNC"
allow open "$IN/f" "WRONLY|TRUNC"

# ---- magic links never let a write escape ----
policy "root $IN"
deny open /proc/self/cwd/../out/new "WRONLY|CREAT"
deny open "/proc/self/root$OUT/new" "WRONLY|CREAT"
allow open /proc/self/fd/1 WRONLY
allow open /dev/stdout WRONLY
# Upgrading a read-only descriptor to writing is a write to what it names.
both reopen "$IN/f" "WRONLY|TRUNC" -- "$OUT/f" "WRONLY|TRUNC"
both reopen_devfd "$IN/f" "WRONLY|APPEND" -- "$OUT/f" "WRONLY|APPEND"
allow reopen "$OUT/f" RDONLY

# ---- process creation: by exec policy, not by path ----
# No path is resolved here, so one resolution mode is enough.
MODES=(openat2)
ECHOS=$'/bin/echo\n/usr/bin/echo\n/bin/sh\n/usr/bin/sh\n/bin/dash\n/usr/bin/dash'
for how in allow deny list listother; do
	case $how in
	allow) XENV=(FA_EXEC=allow) ;;
	deny) XENV=(FA_EXEC=deny) ;;
	list) XENV=(FA_EXEC=list "FA_EXEC_ALLOW=$ECHOS") ;;
	listother) XENV=(FA_EXEC=list $'FA_EXEC_ALLOW=/bin/true\n/usr/bin/true') ;;
	esac
	for fn in execve execv execl execle fexecve posix_spawn; do
		case $how in
		allow | list) allow $fn /bin/echo ;;
		*) deny $fn /bin/echo ;;
		esac
	done
	for fn in execvp execvpe execlp posix_spawnp; do
		case $how in
		allow | list) allow $fn echo ;;
		*) deny $fn echo ;;
		esac
	done
	case $how in
	allow | list) allow execveat /bin echo ;;
	*) deny execveat /bin echo ;;
	esac
	case $how in
	allow | list)
		allow syscall execve /bin/echo
		allow syscall execveat /bin/echo
		;;
	*)
		deny syscall execve /bin/echo
		deny syscall execveat /bin/echo
		;;
	esac
	for fn in system popen; do
		case $how in
		allow | list) allow $fn "echo ok" ;;
		*) deny $fn "echo ok" ;;
		esac
	done
	# popen's engine needs libio's private FILE to run: only its refusal is driven.
	case $how in
	deny | listother) deny _IO_proc_open "echo ok" ;;
	esac
done
XENV=()
MODES=("${PATH_MODES[@]}")
# Children given an empty environment are confined all the same.
for fn in spawn_noenv execle_noenv clearenv_exec; do
	both $fn open "$IN/new" "WRONLY|CREAT" -- open "$OUT/new" "WRONLY|CREAT"
	both $fn unlink "$IN/f" -- unlink "$OUT/f"
done
for fn in execve execv execl execle fexecve posix_spawn; do
	plain $fn /bin/echo
done
for fn in execvp execvpe execlp posix_spawnp; do
	plain $fn echo
done
plain execveat /bin echo
# A PATH search that finds nothing leaves errno as libc's does, under a policy too.
mkdir -p "$T/pathdir/adir"
echo 'echo x' >"$T/pathdir/noexec"
kept_pol=$POL
for name in no-such-command-here noexec adir; do
	! absent posix_spawnp_errno || break
	fresh
	want=$(PATH=$T/pathdir:$PATH ct bare posix_spawnp_errno "$name")
	policy "root $IN"
	fresh
	check "posix_spawnp of $name under a policy, as libc" "$want" \
		"$(PATH=$T/pathdir:$PATH ct shim posix_spawnp_errno "$name")"
done
POL=$kept_pol
plain system "echo ok"
plain popen "echo ok"

# ---- the message: which call, which path, why; and FA_QUIET ----
policy "root $IN"
SNAP=
fresh
out=$(ct shim unlink "$OUT/f")
msg=$(cat "$T/stderr")
check "unlink denial result" "err EACCES" "$out"
case $msg in
*unlink*"$OUT/f"*) pass ;;
*) fail "denial message does not name the call and the path: [$msg]" ;;
esac
[ "$(printf '%s' "$msg" | wc -l)" -le 1 ] && pass || fail "denial message is more than one line: [$msg]"
XENV=(FA_QUIET=1)
QUIET=1
deny unlink "$OUT/f"
deny open "$OUT/new" "WRONLY|CREAT"
XENV=()
QUIET=

# ---- changes of directory: a relative write lands where the cwd really is ----
both chdir "$IN/d" new -- "$OUT/d" new
both fchdir "$IN/d" new -- "$OUT/d" new
for fn in fts_open fts64_open nftw nftw64; do
	both $fn "$IN/d" new -- "$OUT/d" new
done
for fn in fts_close fts64_close; do
	both $fn "$IN/d" "$OUT/d" new -- "$OUT/d" "$IN/d" new
done
# daemon() moves its child to "/": relative paths from there.
allow daemon "${IN#/}/new"
deny daemon "${OUT#/}/new"
plain daemon "${IN#/}/new"

# ---- FA_REPORT: nothing denied, each would-be denial said; FA_LOG ----
SNAP=
fresh
XENV=(FA_REPORT=1 "FA_LOG=$T/report.log")
check "report mode: open outside" ok "$(ct shim open "$OUT/new" "WRONLY|CREAT")"
[ -e "$OUT/new" ] && pass || fail "report mode: the file was not created"
check "report mode: one line" 1 "$(grep -c . "$T/stderr")"
check "report mode: unlink outside" ok "$(ct shim unlink "$OUT/f")"
[ ! -e "$OUT/f" ] && pass || fail "report mode: unlink was blocked"
check "report mode: logged" 2 "$(grep -c . "$T/report.log")"
XENV=("FA_LOG=$T/deny.log")
deny rename "$IN/f" "$OUT/f2"
XENV=()
# One run per resolution mode, one JSON line each, naming both paths.
check "FA_LOG lines" "${#MODES[@]}" "$(grep -c '^{.*"rename".*}$' "$T/deny.log")"
grep -q "$OUT/f2" "$T/deny.log" && pass || fail "FA_LOG does not name the destination: $(cat "$T/deny.log")"

# ---- fail closed on a malformed policy ----
SNAP=
for bad in "root relative/path" "frobnicate /x" "symlinks sideways" "root"; do
	fresh
	(cd "$IN" && env LD_PRELOAD="$PRELOAD" FA_POLICY="$bad" "$CT" open "$IN/new" "WRONLY|CREAT" >"$T/out" 2>"$T/stderr")
	rc=$?
	check "malformed policy [$bad] exit status" 125 "$rc"
	[ -s "$T/stderr" ] && pass || fail "malformed policy [$bad]: no message"
	[ ! -e "$IN/new" ] && pass || fail "malformed policy [$bad]: the program ran"
done

[ -z "$ABSENT" ] || echo "not in this libc, not run:$ABSENT"
[ -z "$NOTRUN" ] || echo "not run here:$NOTRUN"
finish
