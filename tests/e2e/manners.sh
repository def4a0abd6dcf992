#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Fork from a multithreaded process, vfork + exec, signal handlers that
# call wrapped functions, errno preservation: all under a live policy.
# Every run has a time limit, so a deadlock fails instead of hanging.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

M=$E2E/manners
ROOT=$T/root
OUT=$T/out
mkdir -p "$ROOT" "$OUT"
echo keep >"$OUT/f"

run() {	# run LABEL EXPECTED [ENV...] -- ARGS...
	local label=$1 want=$2 e=() got rc
	shift 2
	while [ "$1" != -- ]; do
		e+=("$1")
		shift
	done
	shift
	got=$(timeout 60 env LD_PRELOAD="$PRELOAD" FA_POLICY="root $ROOT" FA_QUIET=1 "${e[@]}" "$M" "$@" 2>"$T/stderr")
	rc=$?
	[ "$rc" -ne 124 ] || fail "$label: timed out (deadlock?)"
	check "$label" "$want" "$got"
	[ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || fail "$label: exit status $rc: $(head -5 "$T/stderr")"
}

run "fork while threads hammer wrapped calls" ok -- fork-threads "$ROOT" "$OUT" 300
run "same, fallback walk" ok FA_FORCE_FALLBACK=1 -- fork-threads "$ROOT" "$OUT" 100
run "vfork + exec allowed" ok FA_EXEC=allow -- vfork /bin/echo
run "vfork + exec denied" "err EACCES" FA_EXEC=deny -- vfork /bin/echo
run "signal handler calling unlink" ok -- signal "$ROOT" "$OUT" 1
# The same with the denial message and the JSON log written from the handler.
run "signal handler, denials reported and logged" ok FA_QUIET= "FA_LOG=$T/sig.log" -- signal "$ROOT" "$OUT" 1
n=$(grep -c . "$T/sig.log")
[ "$n" -ge 10 ] && pass || fail "signal handler denials: $n log lines"
if have_python; then
	python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/sig.log" && pass ||
		fail "log lines written from signal handlers are torn"
fi
run "errno preserved" ok -- errno "$ROOT"
run "errno preserved, fallback walk" ok FA_FORCE_FALLBACK=1 -- errno "$ROOT"

# libc's internal names (__close, _IO_popen, ...) where this libc has them:
# the others are named at the end as not run.
CASES=" $("$E2E/manners" --list | tr '\n' ' ') "
ABSENT=
has_case() {
	case $CASES in *" $1 "*) return 0 ;; esac
	ABSENT="$ABSENT $1"
	return 1
}

for how in close __close dup2 __dup2 dup3 close_range closefrom pthread_create; do
	has_case "$how" || continue
	run "$how over every descriptor, then the policy still holds" ok -- "$how" "$ROOT" "$OUT"
	run "$how, fallback walk" ok FA_FORCE_FALLBACK=1 -- "$how" "$ROOT" "$OUT"
done

# A vfork child shares the parent's memory, not its working directory.
run "vfork-cwd: a child's chdir does not move the parent's cwd" ok -- vfork-cwd "$ROOT" "$OUT"
rm -f "$ROOT"/v*
run "vfork-cwd, fallback walk" ok FA_FORCE_FALLBACK=1 -- vfork-cwd "$ROOT" "$OUT"
rm -f "$ROOT"/v*
run "clone-vm-cwd: the same for a CLONE_VM child" ok -- clone-vm-cwd "$ROOT" "$OUT"
rm -f "$ROOT"/v*

# Shells glibc starts by itself: wordexp's command substitution, _IO_popen.
run "wordexp: command substitution refused under exec deny" ok FA_EXEC=deny -- wordexp "$ROOT" "$OUT"
run "wordexp: the substitution's shell confined after clearenv" ok FA_EXEC=allow -- wordexp "$ROOT" "$OUT"
if has_case _IO_popen; then
	run "_IO_popen: refused under exec deny" ok FA_EXEC=deny -- _IO_popen "$ROOT" "$OUT"
	run "_IO_popen: its shell confined after unsetenv LD_PRELOAD" ok FA_EXEC=allow -- _IO_popen "$ROOT" "$OUT"
fi

# LD_AUDIT modules leave little of the static TLS block glibc sizes for the
# libraries loaded with the program: the shim's own TLS must fit what is
# left, or every program fails to load.
audited() {	# audited LABEL [WRAPPER...]: a write inside and one outside, under LD_AUDIT
	local label=$1 got
	shift
	rm -f "$ROOT/aud"
	got=$(LD_AUDIT=${AUDIT:-/nonexistent.so} timeout 60 env LD_PRELOAD="$PRELOAD" \
		FA_POLICY="root $ROOT" FA_QUIET=1 "$@" sh -c \
		'echo in >"$1/aud" && { echo out >"$2/aud"; } 2>/dev/null; echo $?' sh "$ROOT" "$OUT" 2>/dev/null)
	check "$label: loads, writes inside, refused outside" "$SH_REDIR_FAIL" "$got"
	check "$label: the write inside" "in" "$(cat "$ROOT/aud" 2>/dev/null)"
}
if [ -z "$FA_SANITIZERS" ]; then
	audited "LD_AUDIT of a missing module"
	if command -v sotruss >/dev/null 2>&1 && runs_here sotruss; then
		audited "sotruss (an LD_AUDIT module)" sotruss -o "$T/sotruss" --
	fi
fi

# A program whose own mmap, munmap and malloc fail before main: the shim,
# which starts before it, reaches the kernel directly. (Under the
# sanitizers their runtime owns malloc: not a program of this kind.)
if [ -z "$FA_SANITIZERS" ]; then
	need_fa_run
	rm -f "$ROOT/own" "$T/own.log"
	got=$(timeout 60 "$FA_RUN" --landlock=off --quiet --log "$T/own.log" -w "$ROOT" -- \
		"$E2E/ownmem" "$ROOT/own" "$OUT/own" 2>"$T/stderr")
	check "own memory functions: starts, refused outside" "Permission denied" "$got"
	check "own memory functions: the write inside" "ok" "$(cat "$ROOT/own" 2>/dev/null)"
	check "own memory functions: the refusal logged" 1 \
		"$(grep -c '"outside-roots"' "$T/own.log" 2>/dev/null)"
fi

[ "$(cat "$OUT/f")" = keep ] && pass || fail "the outside file changed"
[ "$(ls "$OUT")" = f ] && pass || fail "entries appeared outside: $(ls "$OUT")"

[ -z "$ABSENT" ] || echo "not in this libc, not run:$ABSENT"
finish
