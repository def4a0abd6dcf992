#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Real programs under fa-run: shell redirections, coreutils, tar, install,
# make, grandchildren, env -i, exec policy, deny subtrees, report mode, the
# JSON log, and fa-run's own exit statuses. After every denial the outside
# tree (and what the deny subtree holds) is unchanged.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

need_fa_run

P=$T/proj
O=$T/other
mkdir -p "$P/.git/objects" "$P/src"
echo head >"$P/.git/HEAD"
echo obj >"$P/.git/objects/x"
echo mine >"$P/src/a.c"
make_outside() { mkdir -p "$O/sub" && echo theirs >"$O/f" && echo theirs >"$O/sub/g"; }
make_outside

outside=$(snapshot "$O")
gitsnap=$(snapshot "$P/.git")

# far [FA-RUN ARGS...] -- COMMAND...: run in $P; $rc, $T/o and $T/e.
far() { fa_run_in "$P" "$@"; }

# untouched LABEL: nothing outside and nothing in .git changed.
untouched() {
	outside_untouched "$1"
	[ "$(snapshot "$P/.git")" = "$gitsnap" ] && pass || fail "$1: .git changed"
}

# ---- shell redirections ----
far -- sh -c 'echo in >inside.txt && echo more >>inside.txt && ls nosuch 2>err.txt; cat inside.txt'
status "sh redirections inside" 0
check "sh redirections inside: content" "in
more" "$(cat "$T/o")"
[ -s "$P/err.txt" ] && pass || fail "2> inside the root did not write"
for redir in ">$O/new" ">>$O/f" "2>$O/err" ">$O/f" ">$O/sub/new"; do
	far -- sh -c "echo x $redir"
	[ "$rc" -ne 0 ] && pass || fail "sh -c 'echo x $redir' succeeded"
	says "sh $redir" "Permission denied"
	untouched "sh $redir"
done
# Writing to devices is what every script does.
far -- sh -c 'echo x >/dev/null && echo y 2>/dev/null'
status "sh >/dev/null" 0
# /dev/stdin in a pipeline names a pipe's read end: opening it for writing,
# or setting its times, changes no directory entry (the pipe itself).
fa_run_in "$P" -- sh -c 'echo | touch /dev/stdin && echo | touch -d @1000000000 /dev/stdin && echo ok'
status "touch /dev/stdin on a pipe" 0
check "touch /dev/stdin on a pipe: no refusal" "" "$(cat "$T/e")"
fa_run_in "$P" -- sh -c 'touch /dev/stdout | cat && echo ok'
status "touch /dev/stdout into a pipe" 0
# A removed current directory still has its "..": a write there lands in
# the parent, as bare libc's does, and one that climbs out is refused.
fa_run_in "$P" -- sh -c 'mkdir -p gone/b && cd gone/b && rmdir ../b && touch ../foo && mkdir ../d && echo ok'
status "touch ../foo from a removed cwd" 0
[ -f "$P/gone/foo" ] && [ -d "$P/gone/d" ] && pass || fail "touch ../foo from a removed cwd: not made"
fa_run_in "$P" -- sh -c 'mkdir -p gone2/b && cd gone2/b && rmdir ../b && touch ../../../other/new'
status "touch from a removed cwd out of the roots" 1
says "touch from a removed cwd out of the roots" "$O/new: not under any allowed root"
untouched "touch from a removed cwd out of the roots"
# /dev/stdin read-only from a file outside: reopening it to write is that file.
fa_run_in "$P" -- sh -c 'touch /dev/stdin' <"$O/f"
status "touch /dev/stdin read from a file outside" 1
says "touch /dev/stdin read from a file outside" "$O/f: not under any allowed root"
untouched "touch /dev/stdin from outside"

# ---- cp, mv, rm, install ----
far -- cp "$O/f" "$P/copied"
status "cp from outside into the root" 0
far -- cp "$P/src/a.c" "$O/copied"
[ "$rc" -ne 0 ] && pass || fail "cp into outside succeeded"
untouched "cp out"
far -- cp -r "$P/src" "$O/sub/"
[ "$rc" -ne 0 ] && pass || fail "cp -r into outside succeeded"
untouched "cp -r out"
far -- mv "$P/copied" "$P/moved"
status "mv inside" 0
far -- mv "$P/moved" "$O/"
[ "$rc" -ne 0 ] && pass || fail "mv out of the root succeeded"
[ -f "$P/moved" ] && pass || fail "mv out: the source is gone"
untouched "mv out"
far -- mv "$O/f" "$P/stolen"
[ "$rc" -ne 0 ] && pass || fail "mv from outside into the root succeeded"
[ ! -e "$P/stolen" ] && pass || fail "mv in: a copy landed inside"
untouched "mv in"
if runs_here install; then
	far -- install -m 600 "$P/src/a.c" "$P/installed"
	status "install inside" 0
	check "install mode" 600 "$(stat -c %a "$P/installed")"
	far -- install -D -m 644 "$P/src/a.c" "$O/newdir/x"
	[ "$rc" -ne 0 ] && pass || fail "install -D outside succeeded"
	untouched "install -D"
fi
far -- rm -rf "$O"
[ "$rc" -ne 0 ] && pass || fail "rm -rf outside succeeded"
untouched "rm -rf outside"

# rm -rf of a tree whose middle is a deny subtree: the rest goes, the
# subtree and the directories holding it stay.
mkdir -p "$P/tree/a" "$P/tree/keep/deep"
echo 1 >"$P/tree/a/x"
echo 2 >"$P/tree/keep/deep/y"
echo 3 >"$P/tree/z"
far --deny "$P/tree/keep" -- rm -rf "$P/tree"
[ "$rc" -ne 0 ] && pass || fail "rm -rf through a deny subtree reported success"
[ -f "$P/tree/keep/deep/y" ] && pass || fail "rm -rf removed inside the deny subtree"
[ ! -e "$P/tree/a" ] && [ ! -e "$P/tree/z" ] && pass || fail "rm -rf left the allowed part"
rm -rf "$P/tree"

# ---- tar: ../ members, absolute members, a symlink leading out ----
if ! tar --help 2>&1 | grep -q -- '-P\b\|--absolute-names'; then
	echo "not run: tar -x -P of a hostile archive (this tar has no -P: busybox's)"
elif command -v python3 >/dev/null 2>&1; then
	python3 - "$T/evil.tar" "$O" <<'PY'
import io, sys, tarfile
out, outside = sys.argv[1], sys.argv[2]
def add(t, name, data=b"x\n", kind=tarfile.REGTYPE, target=""):
    i = tarfile.TarInfo(name)
    i.type = kind
    i.linkname = target
    i.size = len(data) if kind == tarfile.REGTYPE else 0
    t.addfile(i, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
with tarfile.open(out, "w", format=tarfile.GNU_FORMAT) as t:
    add(t, "good.txt")
    add(t, "../other/dotdot.txt")
    add(t, outside + "/absolute.txt")
    add(t, "lnk", kind=tarfile.SYMTYPE, target=outside)
    add(t, "lnk/via-link.txt")
    add(t, "gooddir/", kind=tarfile.DIRTYPE)
    add(t, "gooddir/inner.txt")
PY
	mkdir -p "$P/x"
	(cd "$P/x" && "$FA_RUN" -w "$P" -- tar -x -P -f "$T/evil.tar" >"$T/o" 2>"$T/e")
	rc=$?
	[ "$rc" -ne 0 ] && pass || fail "tar -x of a hostile archive reported success"
	[ -f "$P/x/good.txt" ] && [ -f "$P/x/gooddir/inner.txt" ] && pass ||
		fail "tar -x did not extract the harmless members: $(cat "$T/e")"
	untouched "tar -x -P"
	rm -rf "$P/x"
else
	echo "SKIP: tar: no python3 to build the archive" >&2
fi

# ---- make: a rule inside and a rule outside ----
mkdir -p "$P/mk"
printf 'all: in.out %s/made\nin.out:\n\techo in >$@\n%s/made:\n\techo out >$@\n' "$O" "$O" >"$P/mk/Makefile"
(cd "$P/mk" && "$FA_RUN" -w "$P" -- make -k >"$T/o" 2>"$T/e")
rc=$?
[ "$rc" -ne 0 ] && pass || fail "make with an outside rule succeeded"
[ -f "$P/mk/in.out" ] && pass || fail "make did not build the inside target"
untouched "make"

# ---- children, grandchildren, env -i ----
far -- sh -c "sh -c 'touch $O/deep'"
[ "$rc" -ne 0 ] && pass || fail "a grandchild wrote outside"
says "grandchild" "Permission denied"
untouched "grandchild"
far -- sh -c "sh -c 'touch $P/deep'"
status "grandchild inside" 0
far -- env -i /bin/sh -c "touch $O/envi"
[ "$rc" -ne 0 ] && pass || fail "env -i escaped the policy"
untouched "env -i"
far -- env -i PATH=/usr/bin:/bin sh -c "echo \$LD_PRELOAD | grep -q fashim && touch $P/envi"
status "env -i child still preloaded" 0
if have_python; then
	far -- python3 -c "import os; os.execve('/bin/sh', ['sh', '-c', 'touch $O/py'], {})"
	[ "$rc" -ne 0 ] && pass || fail "execve with an empty environment escaped"
	untouched "execve with an empty environment"
fi

# ---- an interpreter: its writes are libc writes too ----
if have_python; then
	far -- python3 -c "open('$O/py.txt', 'w')"
	[ "$rc" -ne 0 ] && pass || fail "python3 wrote outside"
	says "python3 open outside" "PermissionError"
	untouched "python3 open outside"
	far -- python3 -c "import os, shutil; open('py.txt', 'w').write('x'); os.makedirs('pyd/a'); shutil.rmtree('pyd'); os.replace('py.txt', 'py2.txt')"
	status "python3 inside" 0
	# subprocess closes every descriptor in the child before exec.
	far -- python3 -c "import subprocess, sys; r = subprocess.run(['sh', '-c', 'touch sub-in && touch $O/sub-out']); sys.exit(0 if r.returncode and __import__('os').path.exists('sub-in') else 1)"
	status "python3 subprocess: inside yes, outside no" 0
	untouched "python3 subprocess"
	far -- python3 -c "import os; pid = os.posix_spawn('/bin/sh', ['sh', '-c', 'touch $O/spawned'], {}); os.waitpid(pid, 0)"
	untouched "python3 os.posix_spawn with an empty environment"
	# Its locks are POSIX semaphores in /dev/shm, a directory like any other.
	far -w . -w /dev/shm -- python3 -c "import multiprocessing as m
def w(p):
    open(p, 'w')
if __name__ == '__main__':
    with m.get_context('fork').Pool(2) as pool:
        try:
            pool.map(w, ['$O/mp1', '$O/mp2'])
        except PermissionError:
            raise SystemExit(0)
    raise SystemExit(1)"
	status "python3 multiprocessing workers confined" 0
	untouched "python3 multiprocessing"
	far -- python3 -c "import shutil; shutil.rmtree('$O')"
	[ "$rc" -ne 0 ] && pass || fail "python3 rmtree outside succeeded"
	untouched "python3 rmtree outside"
fi

# ---- exec policy ----
far --exec=deny -- sh -c 'ls'
status "--exec=deny sh -c ls" 126
says "--exec=deny" "denied"
far --exec=deny -- sh -c 'echo builtin-only >b.txt'
status "--exec=deny, builtins only" 0
ls_path=$(command -v ls)
sh_path=$(command -v sh)
far --allow-exec "$ls_path" --allow-exec "$sh_path" -- sh -c 'ls >/dev/null'
status "--allow-exec ls" 0
far --allow-exec "$ls_path" --allow-exec "$sh_path" -- sh -c 'cat /dev/null'
status "--allow-exec ls, cat not allowed" 126
# --exec=deny with --allow-exec is how an allow list is written: it means the list.
far --exec=deny --allow-exec "$sh_path" --allow-exec "$ls_path" -- sh -c 'ls >/dev/null && echo listed >listed.txt'
status "--exec=deny --allow-exec ls" 0
far --allow-exec "$sh_path" --exec=deny -- sh -c 'cat /dev/null'
status "--allow-exec sh --exec=deny, cat not listed" 126
# A directory, or a file that cannot be run, is not a program: a usage error.
mkdir -p "$T/notaprog"
echo 'echo x' >"$T/noexec.sh"
chmod 644 "$T/noexec.sh"
for bad in "$T/notaprog" "$T/noexec.sh"; do
	far --exec=deny --allow-exec "$bad" --allow-exec "$sh_path" -- touch "$P/badlist"
	status "--allow-exec $bad" 125
	says "--allow-exec $bad" "not an executable file"
	[ ! -e "$P/badlist" ] && pass || fail "--allow-exec $bad: the command ran"
done
far --exec=allow --allow-exec "$sh_path" -- touch "$P/contradiction"
status "--exec=allow with --allow-exec" 125
says "--exec=allow with --allow-exec" "contradicts"
[ ! -e "$P/contradiction" ] && pass || fail "--exec=allow --allow-exec: the command ran"
far --exec=deny --exec=allow -- touch "$P/contradiction"
status "--exec=deny then --exec=allow" 125
[ ! -e "$P/contradiction" ] && pass || fail "--exec twice: the command ran"

# ---- deny subtrees ----
far --deny "$P/.git" -- mv .git x
[ "$rc" -ne 0 ] && pass || fail "mv .git x succeeded"
[ -d "$P/.git" ] && [ ! -e "$P/x" ] && pass || fail "mv .git x moved it"
untouched "mv .git"
far --deny .git -- sh -c 'echo bad >.git/HEAD'
[ "$rc" -ne 0 ] && pass || fail "write into a relative deny subtree succeeded"
untouched "write into .git"
far --deny "$P/.git" -- rm -rf .git
[ "$rc" -ne 0 ] && pass || fail "rm -rf .git succeeded"
untouched "rm -rf .git"
far --deny "$P/.git" -- chmod 000 .git
[ "$rc" -ne 0 ] && pass || fail "chmod .git succeeded"
untouched "chmod .git"
far --deny "$P/.git" -- sh -c 'echo ok >src/b.c'
status "write beside the deny subtree" 0
far --deny "$O/sub" -- touch "$P/never"
status "--deny outside every root" 125
[ ! -e "$P/never" ] && pass || fail "--deny outside roots: the command ran"

# ---- report mode and the JSON log ----
far --report --log "$T/report.log" -- sh -c "echo x >$O/reported"
status "--report" 0
[ -f "$O/reported" ] && pass || fail "--report blocked the write"
grep -q "$O/reported" "$T/report.log" && pass || fail "--report did not log the write"
rm -f "$O/reported"
outside=$(snapshot "$O")
far --log "$T/deny.log" -- sh -c "touch $O/l1; mkdir $O/l2; rm $O/f; true"
status "--log run" 0
untouched "--log run"
n=$(grep -c . "$T/deny.log" 2>/dev/null)
[ "${n:-0}" -ge 3 ] && pass || fail "--log: $n lines for 3 denials"
if have_python; then
	python3 - "$T/deny.log" "$O" <<'PY' && pass || fail "--log lines are not the promised JSON"
import json, sys
path, outside = sys.argv[1], sys.argv[2]
lines = [l for l in open(path) if l.strip()]
for l in lines:
    d = json.loads(l)
    assert isinstance(d, dict), l
    # time, pid, operation, path given and resolved, flags, rule, caller
    for key in ("time", "pid", "op", "path", "resolved", "flags", "rule", "caller"):
        assert key in d, (key, sorted(d))
    assert isinstance(d["pid"], int) and d["pid"] > 0, d
    assert isinstance(d["time"], str) and d["time"], d
    assert d["rule"], d
    assert outside in (d["path"] or "") + (d["resolved"] or "") + (d.get("path2") or ""), l
seen = " ".join(lines)
for name in ("l1", "l2", "/f"):
    assert name in seen, name
PY
else
	grep -q '^{.*"pid".*}$' "$T/deny.log" && pass || fail "--log lines are not JSON objects"
fi
far --quiet -- touch "$O/q"
[ "$rc" -ne 0 ] && pass || fail "--quiet run succeeded"
# The program's own complaint stays; the shim's line ("denied CALL(...)") goes.
grep -q 'denied [a-z_0-9]*(' "$T/e" && fail "--quiet still printed the denial: $(cat "$T/e")" || pass
far -- touch "$O/q"
grep -q 'denied [a-z_0-9]*(' "$T/e" && pass || fail "without --quiet no denial line: $(cat "$T/e")"

# ---- symlink modes ----
ln -s "$O/f" "$P/to-outside-file"
ln -s "$O/sub" "$P/to-outside-dir"
ln -s src/a.c "$P/to-inside-file"
for mode in beneath nofollow trust; do
	far --symlinks=$mode -- sh -c 'echo x >to-outside-dir/new'
	[ "$rc" -ne 0 ] && pass || fail "--symlinks=$mode: wrote through a symlinked directory leading out"
	untouched "--symlinks=$mode, directory link"
done
for mode in beneath nofollow; do
	far --symlinks=$mode -- sh -c 'echo x >to-outside-file'
	[ "$rc" -ne 0 ] && pass || fail "--symlinks=$mode: wrote through a final symlink leading out"
	untouched "--symlinks=$mode, final link"
done
far --symlinks=beneath -- sh -c 'echo x >>to-inside-file'
status "--symlinks=beneath, a link that stays inside" 0
far --symlinks=nofollow -- sh -c 'echo x >>to-inside-file'
[ "$rc" -ne 0 ] && pass || fail "--symlinks=nofollow followed a symlink"
rm -f "$P/to-outside-file" "$P/to-outside-dir" "$P/to-inside-file"

# ---- roots: default, several, no implicit /tmp ----
far -- touch "$P/default-root"
status "no -w: the start directory" 0
far -w "$P/src" -- touch "$P/not-a-root"
[ "$rc" -ne 0 ] && pass || fail "-w src: wrote beside it"
far -w "$P/src" -w "$O/sub" -- sh -c "touch $P/src/n $O/sub/n"
status "two roots" 0
rm -f "$O/sub/n"
outside=$(snapshot "$O")
far -- sh -c 'mktemp >/dev/null'
[ "$rc" -ne 0 ] && pass || fail "mktemp in /tmp allowed without -w /tmp"
far -w . -w /tmp -- sh -c 'rm -f "$(mktemp)"'
status "-w /tmp" 0

# ---- fa-run's own statuses ----
far -- sh -c 'exit 3'
status "exit status passes through" 3
# Relative -w and --log mean the start directory's, whatever a child's cwd.
far -w src --log rel.log -- sh -c "touch src/rel-ok && cd / && touch $O/rel-denied; true"
status "relative -w and --log" 0
[ -f "$P/src/rel-ok" ] && pass || fail "relative -w: src/rel-ok not written"
grep -q "rel-denied" "$P/rel.log" && pass || fail "relative --log: no line in $P/rel.log"
untouched "relative -w"
far -- /nonexistent/program
status "command not found" 127
far -- "$P/src/a.c"
status "not executable" 126
far --no-such-option -- touch "$P/bad-opt"
status "bad option" 125
[ ! -e "$P/bad-opt" ] && pass || fail "bad option: the command ran"
far -w "$T/missing-root" -- touch "$P/bad-root"
status "missing root" 125
[ ! -e "$P/bad-root" ] && pass || fail "missing root: the command ran"
far --symlinks=sideways -- touch "$P/bad-mode"
status "bad symlink mode" 125
# A later, weaker mode must not win silently over a stricter one.
far --symlinks=nofollow --symlinks=trust -- touch "$P/two-modes"
status "two different symlink modes" 125
says "two different symlink modes" "contradicts"
[ ! -e "$P/two-modes" ] && pass || fail "two symlink modes: the command ran"
far --symlinks=beneath --symlinks=beneath -- touch "$P/same-mode"
status "the same symlink mode twice" 0
far --exec=maybe -- touch "$P/bad-exec"
status "bad exec mode" 125
far
status "no command" 125

# ---- static executables cannot be confined by a preload ----
# The preload alone: under the kernel floor they run, confined by the
# kernel (tests/e2e/landlock.sh).
printf '#include <stdio.h>\nint main(void){FILE*f=fopen("%s/static","w");return f?0:1;}\n' "$O" >"$T/st.c"
if ${CC:-cc} -static -o "$T/st" "$T/st.c" 2>/dev/null; then
	far --landlock=off -- "$T/st"
	[ "$rc" -ne 0 ] && pass || fail "a static executable ran unconfined"
	says "static refused" "static"
	untouched "static"
	far --landlock=off --allow-static -- "$T/st"
	status "--allow-static" 0
	rm -f "$O/static"
	outside=$(snapshot "$O")

	# Scripts run their #! interpreter, a relative one from the cwd (the
	# kernel's rule), and an interpreter may be a script itself.
	mkdir -p "$P/bin"
	cp "$T/st" "$P/bin/st"
	printf '#!bin/st\n' >"$T/rel.sh"
	printf '#!%s/rel.sh\n' "$T" >"$T/chain.sh"
	printf '#! %s/chain.sh -x\n' "$T" >"$T/chain2.sh"
	chmod +x "$T/rel.sh" "$T/chain.sh" "$T/chain2.sh"
	for s in rel chain chain2; do
		far --landlock=off -- "$T/$s.sh"
		status "$s.sh as fa-run's command" 126
		says "$s.sh as fa-run's command" "static"
		untouched "$s.sh as fa-run's command"
		far --landlock=off -- sh -c "$T/$s.sh"
		[ "$rc" -ne 0 ] && pass || fail "$s.sh through execve ran"
		says "$s.sh through execve" "static"
		untouched "$s.sh through execve"
	done
	# An interpreter the kernel will not start is the kernel's to refuse, silently.
	cp "$T/st" "$T/st-noexec"
	chmod 644 "$T/st-noexec"
	printf '#!%s/st-noexec\n' "$T" >"$T/noexec.sh"
	chmod +x "$T/noexec.sh"
	far --landlock=off -- sh -c "$T/noexec.sh"
	[ "$rc" -ne 0 ] && pass || fail "a script with a non-executable interpreter ran"
	grep -q 'denied execve' "$T/e" && fail "a denial line for an exec the kernel refuses: $(cat "$T/e")" || pass
	if have_python; then
		far --landlock=off -- python3 -c "import os, sys
try:
    os.posix_spawn('$T/chain.sh', ['chain.sh'], os.environ)
except PermissionError:
    sys.exit(0)
sys.exit(1)"
		status "script chain through posix_spawn" 0
		untouched "script chain through posix_spawn"
		far --landlock=off -- python3 -c "import os, sys
fd = os.open('$T/chain.sh', os.O_RDONLY)
try:
    os.execve(fd, ['chain.sh'], os.environ)
except PermissionError:
    sys.exit(0)
sys.exit(1)"
		status "script chain through fexecve" 0
		untouched "script chain through fexecve"
	fi
	# The loader run as a command reads LD_PRELOAD itself: not a static
	# program; what it is asked to run is judged instead.
	ld_so=$(readelf -l /bin/true 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)]$/\1/p')
	if [ -n "$ld_so" ]; then
		far --landlock=off -- "$ld_so" "$T/st"
		status "the loader running a static program" 126
		untouched "the loader running a static program"
		far --landlock=off -- sh -c "$ld_so --library-path /nonexistent $T/st"
		[ "$rc" -ne 0 ] && pass || fail "the loader with options ran a static program"
		untouched "the loader with options"
	fi
	rm -rf "${P:?}/bin"
else
	echo "SKIP: static: no static libc to link with" >&2
fi

# ldd and the loader itself: dynamic programs, confined as usual.
ld_so=$(readelf -l /bin/true 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)]$/\1/p')
if [ -n "$ld_so" ]; then
	if runs_here ldd; then
		far -- ldd /bin/true
		status "fa-run -- ldd /bin/true" 0
		grep -q libc "$T/o" && pass || fail "ldd printed no libraries: $(cat "$T/o" "$T/e")"
		far -- sh -c "ldd /bin/true >/dev/null"
		status "ldd from a shell" 0
	fi
	far -- "$ld_so" /bin/true
	status "fa-run -- $ld_so /bin/true" 0
	far -- "$ld_so" /bin/sh -c "echo x >$O/via-loader"
	[ "$rc" -ne 0 ] && pass || fail "a program run by the loader wrote outside"
	untouched "a program run by the loader"
else
	echo "SKIP: loader: readelf did not name /bin/true's interpreter" >&2
fi

# A set-user-ID program drops LD_PRELOAD when an unprivileged user runs it,
# so a child that execs one would run unconfined: refused, unless allowed.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$T"
	mkdir -p "$T/nobody"
	chown 65534:65534 "$T/nobody"
	# far_nobody ARGS...: fa-run ARGS as an unprivileged user, the preload
	# alone (under the floor these programs run); $rc, $T/o, $T/e.
	far_nobody() {
		(cd "$T/nobody" && setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$FA_RUN" --landlock=off "$@" >"$T/o" 2>"$T/e")
		rc=$?
	}
	# refused_privileged LABEL WORD PROG: PROG (a touch that would gain
	# privilege) refused as a child and as fa-run's command, saying WORD.
	refused_privileged() {
		far_nobody -- sh -c "$3 $O/$1-escaped"
		[ "$rc" -ne 0 ] && pass || fail "a $1 child ran under fa-run"
		says "$1 child refused" "$2"
		untouched "$1 child"
		far_nobody -- "$3" "$O/$1-escaped"
		check "fa-run refuses a $1 command" 126 "$rc"
		untouched "$1 command"
	}
	cp "$(command -v touch)" "$T/suidtouch"
	chmod 4755 "$T/suidtouch"
	refused_privileged set-user-ID set-user "$T/suidtouch"
	# Execute-only: its content cannot be read, its set-ID bit still counts.
	cp "$(command -v touch)" "$T/xsuid"
	chmod 4711 "$T/xsuid"
	refused_privileged execute-only-set-user-ID set-user "$T/xsuid"

	# File capabilities make the exec secure too: the loader drops LD_PRELOAD.
	# Named touch: a multi-call busybox runs what its name says.
	mkdir -p "$T/cap"
	if command -v setcap >/dev/null 2>&1 && cp "$(command -v touch)" "$T/cap/touch" &&
		setcap cap_dac_override+ep "$T/cap/touch" 2>/dev/null; then
		refused_privileged file-capability capabilities "$T/cap/touch"
		# Root gains nothing from them: no secure exec, the preload follows.
		far -- "$T/cap/touch" "$P/cap-root"
		status "file capabilities run by root" 0
	else
		echo "SKIP: file capabilities: no setcap, or no security xattrs here" >&2
	fi
else
	echo "SKIP: set-user-ID: needs root and setpriv" >&2
fi

finish
