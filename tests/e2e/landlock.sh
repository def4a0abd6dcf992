#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The kernel floor under the preload (fa-run --landlock): writes no preload
# can see - a static program with no libc, the syscall instruction in a
# dynamic one, io_uring - are refused outside the roots with nothing
# created and work inside; --landlock=off shows the preload alone; deny
# subtrees stay the preload's; a kernel refusing Landlock makes
# --landlock=on exit 125; a nested fa-run or a rewritten FA_* only
# narrows; exec rules reach execve made without libc; real programs run.
# By default the floor handles no right a read-only open asks for
# (truncate, device ioctls): a truncate made without libc outside the
# roots gets through it, and --landlock=strict refuses it. fa-run's note
# that the floor may have refused something comes only when no preload
# reported a denial.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

need_fa_run
FLOOR=$E2E/floor
STATIC=$E2E/floorstatic

"$FA_RUN" --landlock=on -w "$T" -- true 2>"$T/probe"
case $? in
0) ;;
125)
	if grep -q 'no Landlock\|Landlock is disabled' "$T/probe"; then
		echo "SKIP: $(cat "$T/probe")"
		exit 77
	fi
	fail "fa-run --landlock=on: $(cat "$T/probe")"
	finish
	;;
*) fail "fa-run --landlock=on -- true: $(cat "$T/probe")"; finish ;;
esac

R=$T/root
O=$T/out
mkdir -p "$R/deny"
make_outside() { mkdir -p "$O" && echo theirs >"$O/f"; }
make_outside
outside=$(snapshot "$O")

# far ARGS...: fa-run ARGS in $R; $rc, $T/o and $T/e.
far() { fa_run_in "$R" "$@"; }
exists() { [ -e "$2" ] && pass || fail "$1: $2 was not made"; }

# ---- the floor catches what the preload cannot see ----
far --landlock=on -w "$R" -- "$STATIC" "$O/static"
status "static program, outside, floor on" 13
untouched "static program, outside, floor on"
far --landlock=on -w "$R" -- "$STATIC" "$R/static"
status "static program, inside, floor on" 0
exists "static program, inside, floor on" "$R/static"
far --landlock=off -w "$R" -- "$STATIC" "$O/static"
status "static program, floor off: fa-run refuses it" 126
says "static program, floor off" "static binary"
untouched "static program, floor off"

far --landlock=on -w "$R" -- "$FLOOR" raw "$O/raw"
status "syscall instruction, outside, floor on" 13
untouched "syscall instruction, outside, floor on"
far --landlock=on -w "$R" -- "$FLOOR" raw "$R/raw"
status "syscall instruction, inside, floor on" 0
exists "syscall instruction, inside, floor on" "$R/raw"
# The preload alone does not see it: the documented bypass the floor closes.
far --landlock=off -w "$R" -- "$FLOOR" raw "$O/raw"
status "syscall instruction, outside, floor off" 0
exists "syscall instruction, floor off: the preload alone misses it" "$O/raw"
rm -f "$O/raw"
outside=$(snapshot "$O")

# io_uring: the kernel checks its openat and renameat against the floor
# too (its workers carry the submitter's credentials); were that to stop
# being so, fa-run would need to refuse io_uring_setup instead.
far --landlock=on -w "$R" -- "$FLOOR" uring-open "$O/uring"
status "io_uring openat, outside, floor on" 13
untouched "io_uring openat, outside, floor on"
far --landlock=on -w "$R" -- "$FLOOR" uring-open "$R/uring"
status "io_uring openat, inside, floor on" 0
exists "io_uring openat, inside, floor on" "$R/uring"
far --landlock=on -w "$R" -- "$FLOOR" uring-rename "$R/uring" "$O/moved"
status "io_uring renameat out of the root, floor on" 13
exists "io_uring renameat out of the root: the source stays" "$R/uring"
untouched "io_uring renameat out of the root, floor on"
far --landlock=on -w "$R" -- "$FLOOR" uring-rename "$R/uring" "$R/moved"
status "io_uring renameat inside, floor on" 0
far --landlock=off -w "$R" -- "$FLOOR" uring-open "$O/uring"
status "io_uring openat, outside, floor off" 0
exists "io_uring openat, floor off: the preload alone misses it" "$O/uring"
rm -f "$O/uring"
outside=$(snapshot "$O")

# ---- the preload keeps what Landlock cannot express ----
far --landlock=on -w "$R" --deny "$R/deny" -- sh -c 'echo x >deny/f'
check "deny subtree under the floor: refused" 1 "$([ "$rc" -ne 0 ] && echo 1)"
says "deny subtree under the floor" "inside a denied subtree"
[ -e "$R/deny/f" ] && fail "deny subtree under the floor: deny/f was made" || pass

# ---- what the preload allows keeps working ----
far --landlock=on -w "$R" -- sh -c 'echo a >/dev/null && echo b >/dev/stderr && echo via-fd >>/dev/fd/2 && echo via-proc >>/proc/self/fd/2 && { echo e >/dev/full; } 2>/dev/null; echo done'
status "devices and inherited descriptors under the floor" 0
check "devices and inherited descriptors: output" "done" "$(cat "$T/o")"
# stderr ($T/e) is a file outside the roots, re-opened by name above.
says "a log outside the roots re-opened through /dev/fd/2" "via-fd"
says "a log outside the roots re-opened through /proc/self/fd/2" "via-proc"

# A call the preload allows and the floor refuses is said to be the
# floor's: a FIFO outside the roots (the preload lets FIFOs through).
mkfifo "$T/fifo"
far --landlock=on -w "$R" -- sh -c "exec 3<>'$T/fifo'"
says "a refusal by the floor alone" "refused by the kernel floor"
silent_on "a refusal by the floor alone" "not under any allowed root"

# Under a floor that decides entry changes by itself (roots only, no deny
# subtree, symlinks trusted), mkdir, mknod, unlink, rmdir and O_EXCL
# creations run on the caller's arguments; a refusal still gets its line,
# judged after the kernel refused, naming where the path led.
ln -s "$O" "$R/out-link"
for how in "mkdir $O/d" "mkdir out-link/d" "mkfifo out-link/p" "rm $O/f" "rmdir $O" \
	"python3 -c \"import os; os.open('out-link/x', os.O_CREAT | os.O_EXCL | os.O_WRONLY)\""; do
	case $how in python3*) have_python || continue ;; esac
	far --landlock=on -w "$R" -- sh -c "$how"
	[ "$rc" -ne 0 ] && pass || fail "floor decides: $how was allowed"
	says "floor decides: $how" "not under any allowed root"
	silent_on "floor decides: $how" "refused by the kernel floor"
	untouched "floor decides: $how"
done
far --landlock=on -w "$R" --log "$T/entries.log" -- sh -c "mkdir out-link/d"
grep -q "\"resolved\":\"$O/d\".*\"rule\":\"outside-roots\"" "$T/entries.log" && pass ||
	fail "floor decides: the log lacks the refusal: $(cat "$T/entries.log")"
far --landlock=on -w "$R" -- sh -c 'mkdir a && mkfifo a/p && touch a/f && rm a/f a/p && rmdir a && mkdir a && echo ok'
check "floor decides: inside the root" "ok" "$(cat "$T/o")"
check "floor decides: inside the root, quiet" "" "$(cat "$T/e")"
rm -rf "${R:?}/a" "$R/out-link"

# ---- the floor's modes ----
far --landlock=on --verbose -w "$R" -- true
status "--verbose" 0
says "--verbose names the ABI" "kernel floor: Landlock ABI"
far --report -w "$R" -- "$FLOOR" raw "$R/report"
says "--report turns the floor off" "kernel floor (Landlock) is off"
far --report --landlock=on -w "$R" -- true
status "--report with --landlock=on" 125
far --landlock=sometimes -w "$R" -- true
status "--landlock=sometimes" 125
says "--landlock=sometimes" "expected auto, on, strict or off"
far --landlock=STRICT -w "$R" -- true
status "--landlock=STRICT" 125
far --landlock= -w "$R" -- true
status "--landlock= (empty)" 125
far --report --landlock=strict -w "$R" -- true
status "--report with --landlock=strict" 125
says "--report with --landlock=strict" "--landlock=strict cannot be combined with --report"
far --learn --landlock=strict -w "$R" -- true
status "--learn with --landlock=strict" 125
far -w "$R" --learn -- "$FA_RUN" --landlock=strict -w "$R" -- true
status "--landlock=strict inside fa-run --learn" 125
says "--landlock=strict inside fa-run --learn" "--landlock=strict cannot be used inside fa-run --learn"

# ---- a read-only open asks the default floor nothing ----
# Landlock asks for truncate (and, on a device, ioctl) on every open, reads
# included; the default floor handles neither, so no open walks to / for a
# rule. What shows it without a clock: the rights it leaves unhandled get
# through it from code the preload cannot see, and --landlock=strict, which
# handles them, refuses the same calls.
far --landlock=on --verbose -w "$R" -- true
says "--verbose: the default floor's handled rights" "truncate and device ioctls left to the preload"
far --landlock=strict --verbose -w "$R" -- true
says "--verbose: the strict floor's handled rights" "truncate and device ioctls too"
for mode in auto on; do
	far --landlock=$mode -w "$R" -- "$FLOOR" raw-truncate "$O/f"
	status "raw truncate outside, --landlock=$mode: the floor handles no truncate" 0
	check "raw truncate outside, --landlock=$mode: the file was truncated" 0 "$(stat -c %s "$O/f")"
	make_outside
	far --landlock=$mode -w "$R" -- "$FLOOR" raw-otrunc "$O/f"
	status "raw O_RDONLY|O_TRUNC outside, --landlock=$mode" 0
	check "raw O_RDONLY|O_TRUNC outside, --landlock=$mode: truncated" 0 "$(stat -c %s "$O/f")"
	make_outside
done
outside=$(snapshot "$O")
# The preload refuses the same through libc, and says so.
far --landlock=on -w "$R" -- truncate -s 0 "$O/f"
check "truncate(1) outside, default floor: refused" 1 "$([ "$rc" -ne 0 ] && echo 1)"
says "truncate(1) outside, default floor: the preload says it" "not under any allowed root"
untouched "truncate(1) outside, default floor"

# ---- --landlock=strict refuses them in the kernel too ----
far --landlock=strict -w "$R" -- "$FLOOR" raw-truncate "$O/f"
status "raw truncate outside, --landlock=strict" 13
untouched "raw truncate outside, --landlock=strict"
far --landlock=strict -w "$R" -- "$FLOOR" raw-otrunc "$O/f"
status "raw O_RDONLY|O_TRUNC outside, --landlock=strict" 13
untouched "raw O_RDONLY|O_TRUNC outside, --landlock=strict"
echo inside >"$R/trunc"
far --landlock=strict -w "$R" -- "$FLOOR" raw-truncate "$R/trunc"
status "raw truncate inside, --landlock=strict" 0
check "raw truncate inside, --landlock=strict: truncated" 0 "$(stat -c %s "$R/trunc")"
far --landlock=strict -w "$R" -- sh -c 'echo a >/dev/null && echo b >/dev/stderr && echo c >f && cp f g && : >g && cat f'
status "--landlock=strict: devices, inherited descriptors and the root" 0
check "--landlock=strict: output" "c" "$(cat "$T/o")"
# A device outside the few the preload lets a process write: its ioctls
# are the preload's by default, the kernel's under strict.
if "$FLOOR" ioctl-dev /dev/kmsg 2>/dev/null; then
	far --landlock=on -w "$R" -- "$FLOOR" ioctl-dev /dev/kmsg
	status "a device ioctl, default floor: not handled" 0
	far --landlock=strict -w "$R" -- "$FLOOR" ioctl-dev /dev/kmsg
	status "a device ioctl, --landlock=strict" 13
	far --landlock=strict -w "$R" -- "$FLOOR" ioctl-dev /dev/null
	status "an ioctl on /dev/null, --landlock=strict" 0
else
	echo "SKIP: device ioctl cases: /dev/kmsg cannot be opened here" >&2
fi
for err in 38 1; do
	far -- "$FLOOR" no-landlock "$err" "$FA_RUN" --landlock=strict -w "$R" -- true
	status "--landlock=strict without Landlock (errno $err)" 125
	says "--landlock=strict without Landlock (errno $err)" "--landlock=strict: the kernel floor cannot be had"
done

# Where the kernel refuses Landlock (seccomp, an old kernel, a container).
for err in 38 1; do
	far -- "$FLOOR" no-landlock "$err" "$FA_RUN" --landlock=on -w "$R" -- true
	status "--landlock=on without Landlock (errno $err)" 125
	says "--landlock=on without Landlock (errno $err)" "the kernel floor cannot be had"
	far -- "$FLOOR" no-landlock "$err" "$FA_RUN" --landlock=auto -w "$R" -- "$FLOOR" raw "$R/auto$err"
	status "--landlock=auto without Landlock (errno $err): runs on the preload" 0
done

# fa-run, the parent under the floor, holds none of the command's pipes:
# the reader sees the end when the command closes its stdout, while the
# command still runs (it waits, up to 30 s, for the reader's mark).
(cd "$R" && exec "$FA_RUN" --landlock=on -w "$R" -- sh -c 'exec >&-; i=0; while [ ! -e eof ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; [ -e eof ]') 2>"$T/e" | { cat >/dev/null; touch "$R/eof"; }
rc=${PIPESTATUS[0]}
status "the command's stdout closes when the command closes it" 0

# Signals sent to fa-run reach the command, and fa-run dies of the same
# one; killing fa-run kills the command. (Bounded waits, no timing.)
gone() {	# gone PID: wait up to 30 s for PID to end
	local i=0
	while kill -0 "$1" 2>/dev/null && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	! kill -0 "$1" 2>/dev/null
}
started() {	# started FILE: wait up to 30 s for the command to write its pid
	local i=0
	while [ ! -s "$1" ] && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}
for sig in TERM KILL; do
	rm -f "$R/pid"
	"$FA_RUN" --landlock=on -w "$R" -- sh -c "echo \$\$ >'$R/pid'; exec sleep 600" 2>/dev/null &
	runner=$!
	if started "$R/pid"; then
		kill -"$sig" "$runner"
		gone "$(cat "$R/pid")" && pass || { fail "SIG$sig to fa-run: the command lives on"; kill -9 "$(cat "$R/pid")"; }
		wait "$runner"
		rc=$?
		status "SIG$sig to fa-run: fa-run dies of it" "$((128 + $(kill -l "$sig")))"
	else
		fail "SIG$sig to fa-run: the command did not start"
		kill -9 "$runner"
	fi
done

# The floor's refusals: named from the kernel's audit records where they
# can be read (Landlock ABI 7, the audit subsystem on, CAP_AUDIT_READ);
# elsewhere one note at exit, only when the command failed.
: >"$T/log"
far --verbose --landlock=on --log "$T/log" -w "$R" -- "$STATIC" "$O/static"
if grep -q "refusals were named from the audit log" "$T/e"; then
	says "a floor refusal, named" 'fa-run: denied fs.make_reg("'"$O"'"): refused by the kernel floor'
	says "a floor refusal, its rule and fix" "[landlock]; to allow: add -w $O to fa-run"
	if grep -q '^{"layer":"landlock",.*"call":"fs.make_reg","op":null,"path":"'"$O"'"' "$T/log"; then
		pass
	else
		fail "a floor refusal in the log: $(cat "$T/log")"
	fi
	silent_on "a refusal named: no vague note" "may have been refused"
	named=1
else
	says "why the floor's refusals cannot be named" "the kernel floor's refusals could not be named: "
	says "a failure under the floor" "may have been refused by the kernel"
	check "the note, once" 1 "$(grep -c 'may have been refused' "$T/e")"
	check "no floor line in the log" 0 "$(grep -c '"layer":"landlock"' "$T/log")"
	named=0
fi
far --landlock=on -w "$R" -- "$STATIC" "$R/static"
silent_on "a success under the floor" "may have been refused"
# The note is for failures nothing else explains: not when the preload
# itself refused and said so, the floor's refusal of what it allowed included.
far --landlock=on -w "$R" -- touch "$O/touched"
status "touch outside under the floor" 1
says "touch outside under the floor: the preload says it" "not under any allowed root"
silent_on "touch outside: the preload reported it, no note" "may have been refused"
untouched "touch outside under the floor"
far --landlock=on -w "$R" -- sh -c "echo x >'$O/sh'"
check "a shell redirection outside under the floor: fails" 1 "$([ "$rc" -ne 0 ] && echo 1)"
silent_on "a shell redirection outside: the preload reported it, no note" "may have been refused"
far --landlock=on -w "$R" -- sh -c "exec 3<>'$T/fifo'"
check "a FIFO outside under the floor: fails" 1 "$([ "$rc" -ne 0 ] && echo 1)"
says "a FIFO outside: the shim says the floor refused it" "refused by the kernel floor"
silent_on "a FIFO outside: reported, no note" "may have been refused"
# ... and when the kernel alone refused, for code the preload did not see.
for cmd in "$FLOOR raw $O/raw" "$STATIC $O/static"; do
	far --landlock=on -w "$R" -- $cmd
	status "${cmd%% *} outside, floor on" 13
	if [ "$named" = 0 ]; then
		says "${cmd%% *} outside, nothing reported: the note" "failed under the kernel floor: calls the preload did not see"
	else
		says "${cmd%% *} outside: named from the audit records" "refused by the kernel floor"
	fi
done
far --landlock=strict -w "$R" -- "$FLOOR" raw-truncate "$O/f"
status "raw truncate outside, strict" 13
[ "$named" = 1 ] || says "raw truncate outside, strict, nothing reported: the note" "may have been refused by the kernel"
untouched "the exit note's cases"

# ---- set-ID programs run, without their privileges, and are said to ----
cp "$FLOOR" "$T/sgid"
if chgrp 65534 "$T/sgid" 2>/dev/null && chmod g+s "$T/sgid" && [ "$(id -g)" != 65534 ]; then
	far --landlock=off -w "$R" -- "$T/sgid" raw "$R/sgid0"
	status "a set-group-ID command, floor off" 126
	far --landlock=on -w "$R" -- "$T/sgid" raw "$R/sgid1"
	status "a set-group-ID command, floor on" 0
	says "a set-group-ID command, floor on" "runs without its privileges"
	far --landlock=on -w "$R" -- "$T/sgid" raw "$O/sgid1"
	status "a set-group-ID command writing outside, floor on" 13
	untouched "a set-group-ID command writing outside, floor on"
	far --landlock=on -w "$R" -- sh -c "'$T/sgid' raw '$R/sgid2'"
	status "a set-group-ID program started by a child, floor on" 0
else
	echo "SKIP: set-ID cases: cannot make a set-group-ID file for another group here" >&2
fi

# ---- a child can only narrow ----
far --landlock=on -w "$R" -- "$FA_RUN" --landlock=on -w "$T" -- "$STATIC" "$O/nested"
status "a nested fa-run with a wider root" 13
untouched "a nested fa-run with a wider root"
far --landlock=on -w "$R" -- env -u LD_PRELOAD FA_POLICY="root $T" "$FLOOR" raw "$O/rewritten"
status "a child that drops the preload and rewrites FA_POLICY" 13
untouched "a child that drops the preload and rewrites FA_POLICY"
far --landlock=off -w "$R" -- "$FA_RUN" --landlock=on -w "$R/deny" -- "$FLOOR" raw "$R/narrowed"
status "a nested fa-run narrows" 13
# Every shim appends to the outer run's --log: a nested floor must leave it writable.
rm -f "$T/outer.log"
far --landlock=on --log "$T/outer.log" -w "$R" -- "$FA_RUN" --landlock=on -w "$R/deny" -- sh -c "echo x >'$O/nestlog'; echo ok"
check "a nested fa-run under --log: runs" "ok" "$(cat "$T/o")"
untouched "a nested fa-run under --log"
if grep -qF '"path":"'"$O/nestlog"'"' "$T/outer.log"; then pass; else fail "a nested fa-run under --log: the outer log lacks the denial: $(cat "$T/outer.log" "$T/e")"; fi

# ---- exec rules reach execve made without libc ----
far --landlock=on --exec=deny -w "$R" -- "$FLOOR" raw-exec /bin/true
status "--exec=deny, raw execve, floor on" 13
far --landlock=off --exec=deny -w "$R" -- "$FLOOR" raw-exec /bin/true
status "--exec=deny, raw execve, floor off: the preload alone misses it" 0
truebin=$(type -P true)
far --landlock=on --allow-exec "$truebin" -w "$R" -- "$FLOOR" raw-exec "$truebin"
status "--allow-exec: a listed dynamic program (and its loader) runs" 0
far --landlock=on --allow-exec "$truebin" -w "$R" -- "$FLOOR" raw-exec /bin/echo x
status "--allow-exec: an unlisted program, raw execve" 13
cp "$STATIC" "$R/made"
far --landlock=on --allow-exec "$truebin" -w "$R" -- "$FLOOR" raw-exec "$R/made" "$R/x"
status "--allow-exec: a program written into a root" 13
# The command itself and its #! interpreter chain.
printf '#!/bin/sh\necho script ran\n' >"$T/script"
chmod +x "$T/script"
far --landlock=on --exec=deny -w "$R" -- "$T/script"
status "--exec=deny: a #! command" 0
check "--exec=deny: a #! command runs through its interpreter" "script ran" "$(cat "$T/o")"

# ---- real programs under the floor ----
mkdir -p "$R/src/d"
echo one >"$R/src/a"
echo two >"$R/src/d/b"
far --landlock=on -w "$R" -- sh -c 'cp -a src copy && tar -cf t.tar src && mkdir x && tar -xf t.tar -C x && cmp src/d/b x/src/d/b && cmp src/a copy/a'
status "sh, cp -a, tar under the floor" 0
printf 'all: out\nout: src/a\n\tcp src/a out\n' >"$R/Makefile"
far --landlock=on -w "$R" -- make -s
status "make under the floor" 0
exists "make under the floor" "$R/out"
if command -v git >/dev/null 2>&1 && runs_here git; then
	far --landlock=on -w "$R" -- env HOME="$R" sh -c 'git init -q repo && cd repo && echo x >f && git add f && git -c user.name=t -c user.email=t@t commit -qm m && git checkout -q -b b2'
	status "git under the floor" 0
fi
if have_python; then
	far --landlock=on -w "$R" -- env TMPDIR="$R" HOME="$R" python3 -m venv "$R/venv"
	status "python3 -m venv under the floor" 0
	exists "python3 -m venv under the floor" "$R/venv/bin/python3"
fi
untouched "real programs under the floor"

finish
