# SPDX-License-Identifier: Apache-2.0
# lib.sh - sourced by the end-to-end scripts: locations, a scratch tree,
# the preload line (with the sanitizer runtime first when the build has
# one), tree snapshots, small assertions and the way to run fa-run.
# Its variables are for the scripts that source it:
# shellcheck shell=bash disable=SC2034

# The scripts start under make's sh; what follows is bash.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"

set -u

: "${FA_SRCDIR:?run through make check}"
: "${FA_BUILDDIR:?run through make check}"
: "${FA_SHIM:=$FA_BUILDDIR/src/.libs/libfashim.so}"
: "${FA_RUN:=$FA_BUILDDIR/fa-run}"
: "${FA_SANITIZERS:=}"

E2E=$FA_BUILDDIR/tests/e2e
LC_ALL=C
export LC_ALL

fails=0
checks=0

# A missing shim is a broken build, not a reason to skip.
if [ ! -f "$FA_SHIM" ]; then
	echo "FAIL: shim not built: $FA_SHIM" >&2
	exit 99
fi

PRELOAD=$FA_SHIM
if [ -n "$FA_SANITIZERS" ]; then
	# An ASan-built shim must come after the ASan runtime in the preload
	# list; foreign programs (sh, make) leak by design, so leak checks are off.
	: "${FA_ASAN_LIB:?an ASan build names its runtime (configure sets FA_ASAN_LIB)}"
	PRELOAD="$FA_ASAN_LIB $FA_SHIM"
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
	export ASAN_OPTIONS
fi

# The scratch tree: resolved, so that paths printed by the shim compare equal.
T=$(mktemp -d "${TMPDIR:-/tmp}/fa-e2e.XXXXXX") || exit 99
T=$(cd "$T" && pwd -P)
trap 'rm -rf "$T"' EXIT
# No inherited policy may leak into the runs below.
unset FA_POLICY FA_EXEC FA_EXEC_ALLOW FA_REPORT FA_LOG FA_QUIET FA_ALLOW_STATIC FA_COUNTS FA_LEARN LD_PRELOAD

# Names, types, modes, sizes, times, link targets and content hashes of
# every entry under $1: equal snapshots mean nothing was changed.
snapshot() {
	(cd "$1" && find . -printf '%p %y %m %s %n %T@ %C@ %l\n' -type f -exec md5sum {} + | sort)
}

pass() { checks=$((checks + 1)); }
fail() {
	checks=$((checks + 1))
	fails=$((fails + 1))
	printf 'FAIL: %s\n' "$*" >&2
}

# check NAME EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then
		pass
	else
		fail "$1: expected [$2], got [$3]"
	fi
}

finish() {
	echo "$checks checks, $fails failed"
	[ "$fails" -eq 0 ] || exit 1
	exit 0
}



# FA_USERLAND (scripts/platforms): the directory of the programs the
# suites start under a shim built for another libc or machine than this
# host's (musl, aarch64). A program not there is this host's, which that
# shim cannot load into: the cases that would start it are not run, and
# say so. FA_EMULATOR names the emulator those programs run under.
# runs_here PROG: PROG can be started under the shim.
runs_here() {
	if [ -z "${FA_USERLAND:-}" ]; then
		command -v "$1" >/dev/null 2>&1
		return
	fi
	[ ! -e "$FA_USERLAND/$1" ] || return 0
	case " ${NOT_HERE:-} " in
	*" $1 "*) ;;
	*)
		NOT_HERE="${NOT_HERE:-} $1"
		echo "not run: the cases that start $1 under the shim (this platform's userland has none)"
		;;
	esac
	return 1
}
have_python() { runs_here python3; }
# The status sh exits with when a redirection fails: 2 for dash, 1 for
# busybox's ash.
SH_REDIR_FAIL=$(sh -c ': >/fa-no-such-dir/x' 2>/dev/null; echo $?)
# need_python WHY: a script that cannot run without python3 skips.
need_python() { have_python || { echo "SKIP: python3 is needed $1"; exit 77; }; }

# policy LINE...: the FA_POLICY text the next cases run under.
policy() {
	POL=$(printf '%s\n' "$@")
}

# need_fa_run: a script that drives fa-run stops here when it is not built.
need_fa_run() {
	[ -x "$FA_RUN" ] || { fail "fa-run not built: $FA_RUN"; finish; }
}

# fa_run_in DIR ARGS...: fa-run ARGS with DIR as the current directory;
# its status in $rc, its stdout in $T/o, its stderr in $T/e.
fa_run_in() {
	local dir=$1
	shift
	(cd "$dir" && "$FA_RUN" "$@" >"$T/o" 2>"$T/e")
	rc=$?
	# A program of this host cannot load another platform's shim: it
	# fails (musl) or runs unconfined (aarch64), and either is no pass.
	if [ -n "${FA_USERLAND:-}" ] &&
		grep -qE 'error while loading shared libraries|from LD_PRELOAD cannot be preloaded' "$T/e"; then
		fail "a program of this host ran under the shim: $(head -c 300 "$T/e")"
	fi
}

# status LABEL N: the last run exited with N.
status() { check "$1: exit status" "$2" "$rc"; }
# says LABEL TEXT: the last run's stderr mentions TEXT; silent_on: it does not.
says() {
	if grep -qF -- "$2" "$T/e"; then pass; else fail "$1: stderr lacks [$2]: $(head -c 600 "$T/e")"; fi
}
silent_on() {
	if grep -qF -- "$2" "$T/e"; then fail "$1: stderr has [$2]: $(head -c 600 "$T/e")"; else pass; fi
}

# untouched LABEL: the tree $O is as its snapshot $outside. When it is
# not, say how, and make it again with the script's make_outside so that
# the next case starts from the same tree. A script that checks more
# redefines untouched around outside_untouched.
untouched() { outside_untouched "$1"; }
outside_untouched() {
	local now
	now=$(snapshot "$O")
	if [ "$now" = "$outside" ]; then
		pass
		return
	fi
	fail "$1: the outside tree changed"
	diff <(printf '%s\n' "$outside") <(printf '%s\n' "$now") >&2
	rm -rf "$O"
	make_outside
	outside=$(snapshot "$O")
}
