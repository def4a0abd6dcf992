#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Denials that say how to allow them (the stderr line and the "fix" of the
# --log line), and the one summary line fa-run prints at exit, which counts
# the denials of every process of the run, with the kernel floor and
# without it.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

need_fa_run

R=$T/root
O=$T/out
H=$T/home
mkdir -p "$R/keep" "$O/sub" "$H/.config"

# far [FA-RUN ARGS...] -- COMMAND...: in $R; $rc, stderr in $T/e, log in $T/l.
far() {
	rm -f "$T/l"
	HOME=$H fa_run_in "$R" -w "$R" --log "$T/l" "$@"
}

# fix N: the "fix" of the N-th log line (1-based).
fix() {
	python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readlines()[int(sys.argv[2]) - 1])["fix"])' "$T/l" "$1"
}

# ---- outside the roots: the nearest existing directory, never / ----
far --landlock=off -- sh -c "echo x >$O/sub/f"
check "outside: fix" "add -w $O/sub to fa-run" "$(fix 1)"
grep -q "; to allow: add -w $O/sub to fa-run\$" "$T/e" && pass ||
	fail "the stderr line does not end with the fix: $(cat "$T/e")"
# a directory that does not exist yet: its nearest existing ancestor
far --landlock=off -- mkdir -p "$O/new/deeper"
check "missing parents: fix" "add -w $O to fa-run" "$(fix 1)"
far --landlock=off -- sh -c "echo x >/fa-no-such-file-$$"
check "beneath /: no root suggested" "nothing short of / holds it: allow no such write" "$(fix 1)"

# ---- sensitive places are called out, not suggested blindly ----
far --landlock=off -- sh -c "echo x >$H/.config/rc"
case $(fix 1) in
"think twice: $H/.config is a sensitive place (it is a dotfile directory of the home directory); if the write is really meant, add -w $H/.config to fa-run") pass ;;
*) fail "a dotfile directory is not called out: $(fix 1)" ;;
esac
far --landlock=off -- sh -c "echo x >$H/f"
case $(fix 1) in
"think twice: $H is a sensitive place (it is the whole home directory)"*) pass ;;
*) fail "the home directory is not called out: $(fix 1)" ;;
esac
mkdir -p "$O/other/.git"
far --landlock=off -- sh -c "echo x >$O/other/.git/config"
case $(fix 1) in
"think twice: $O/other/.git is a sensitive place (it is inside a git repository's own .git)"*) pass ;;
*) fail "another project's .git is not called out: $(fix 1)" ;;
esac

# ---- the deny subtree that matched ----
far --landlock=off --deny keep -- sh -c "echo x >keep/f"
check "deny: fix" "a deny subtree covers it ($R/keep): drop that --deny from fa-run" "$(fix 1)"

# ---- exec denied: the program to allow ----
far --landlock=off --exec=deny -- sh -c 'exec /bin/true'
check "exec: fix" "exec is denied: add --allow-exec $(readlink -f /bin/true) to fa-run" "$(fix 1)"

# ---- a symlink pointing outside ----
far --landlock=off -- ln -s "$O/sub" link
check "link target: fix" "add --allow-outside-symlinks to fa-run" "$(fix 1)"
# ---- a hard link to a file outside: no symlink option allows it, a root holding the source does ----
echo x >"$O/sub/src"
far --landlock=off -- ln "$O/sub/src" hard
check "hard link source: fix" "add -w $O/sub to fa-run" "$(fix 1)"
# shellcheck disable=SC2010 # the names are the test's own, plain ASCII
check "hard link source: nothing made" "" "$(ls "$R" | grep hard)"

# ---- a relative path climbing out: judged, and fixed, where it lands ----
far --landlock=off -- sh -c 'echo x >../out/sub/g'
check "outside via ..: fix" "add -w $O/sub to fa-run" "$(fix 1)"

# ---- the summary: every process of the run, floor on and off ----
for floor in off auto; do
	far --landlock=$floor --exec=deny -- sh -c "
		{ echo x >$O/a; } 2>/dev/null
		(echo y >$O/b) 2>/dev/null
		/bin/true 2>/dev/null
		exit 3"
	check "summary, floor $floor: exit status passed on" 3 "$rc"
	check "summary, floor $floor: log lines" 3 "$(wc -l <"$T/l")"
	grep -qx "fa-run: 3 denials (2 paths, 1 exec); see $T/l" "$T/e" && pass ||
		fail "summary, floor $floor: $(grep -v denied "$T/e")"
	# a grandchild started through a fresh shell counts too
	far --landlock=$floor -- sh -c "sh -c 'echo x >$O/c' 2>/dev/null"
	grep -qx "fa-run: 1 denial (1 path, 0 execs); see $T/l" "$T/e" && pass ||
		fail "summary, floor $floor, grandchild: $(grep -v denied "$T/e")"
	# a child started with every inherited descriptor closed (Python's default) counts too
	if have_python; then
		far --landlock=$floor -- python3 -c "
import os, subprocess
os.closerange(3, 4096)
subprocess.run(['sh', '-c', '{ echo x >$O/d; } 2>/dev/null'], close_fds=True)
subprocess.run(['sh', '-c', 'exec 3>&-; { echo x >$O/e; } 2>/dev/null'])"
		grep -qx "fa-run: 2 denials (2 paths, 0 execs); see $T/l" "$T/e" && pass ||
			fail "summary, floor $floor, closed descriptors: $(grep -v denied "$T/e")"
	fi
	far --landlock=$floor --quiet -- sh -c "{ echo x >$O/a; } 2>/dev/null"
	check "summary, floor $floor, --quiet: nothing on stderr" "" "$(cat "$T/e")"
	far --landlock=$floor -- sh -c "echo x >f"
	check "summary, floor $floor, nothing denied: nothing said" "" "$(cat "$T/e")"
done
# report-only: said as what would have been denied
far --report -- sh -c "echo x >$O/r; echo y >$O/s"
grep -qx "fa-run: 2 calls would be denied (2 paths, 0 execs); see $T/l" "$T/e" && pass ||
	fail "summary, --report: $(grep -v 'would deny' "$T/e")"
rm -f "$O/r" "$O/s"

# ---- the audit trail: what the allow list let through ----
far --landlock=off --allow-exec sh --allow-exec true --log-approvals -- sh -c 'true; /bin/true; exit 0'
check "approvals: exit" 0 "$rc"
python3 - "$T/l" "$(readlink -f /bin/true)" <<'PY' && pass || fail "approval lines: $(cat "$T/l")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 1, lines
d = lines[0]
assert d['approved_by'] == 'allow-exec' and d['op'] == 'exec' and d['path'] == '/bin/true', d
assert d['resolved'] == sys.argv[2] and d['rule'] is None and d['policy'] == 'process', d
PY
# not asked for: denials only
far --landlock=off --allow-exec sh --allow-exec true -- sh -c '/bin/true'
check "approvals not asked for: no line" 0 "$(wc -l <"$T/l")"
(cd "$R" && "$FA_RUN" --log-approvals -- true) 2>"$T/e"
check "--log-approvals without --log: exit" 125 "$?"
grep -q -- "--log-approvals needs --log" "$T/e" && pass || fail "no reason given: $(cat "$T/e")"
out=$(FA_LOG_APPROVALS=yes LD_PRELOAD=$PRELOAD FA_EXEC=allow sh -c true 2>&1)
check "FA_LOG_APPROVALS=yes: exit" 125 "$?"
case $out in *"invalid FA_LOG_APPROVALS"*) pass ;; *) fail "FA_LOG_APPROVALS=yes: $out" ;; esac

# ---- a malformed counter variable stops the program (fail closed) ----
out=$(FA_COUNTS=x3 LD_PRELOAD=$PRELOAD FA_EXEC=allow sh -c true 2>&1)
rc=$?
check "FA_COUNTS=x3: exit" 125 "$rc"
case $out in *"invalid FA_COUNTS"*) pass ;; *) fail "FA_COUNTS=x3: $out" ;; esac

finish
