#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# What a denial says: every --log line parses as JSON and gives back the
# bytes of hostile paths; the stderr line is one line with no control
# byte; paths of 4095 bytes (two of them, full of escapes) are neither
# cut nor dropped; the caller is the program's real path, not argv[0];
# a log that cannot be written stops the start (125) or, later, is said.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

need_fa_run
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is needed to read the lines back"; exit 77; }

W=$T/w
O=$T/out
mkdir -p "$W" "$O"

# ---- hostile names: each denial one JSON line that gives the name back ----
if have_python; then
(cd "$W" && "$FA_RUN" -w "$W" --log "$T/h.log" -- python3 - "$O" "$W/names" <<'PY') 2>"$T/h.err"
import os, random, sys
out, names = sys.argv[1], sys.argv[2]
rnd = random.Random(8)
special = [1, 7, 8, 9, 10, 13, 27, 34, 92, 127, 0x80, 0x9b, 0xc0, 0xc2, 0xe2, 0xed, 0xf0, 0xf4, 0xff]
with open(names, 'wb') as f:
    for i in range(300):
        n = bytes(rnd.choice(special) if rnd.random() < 0.6 else rnd.randrange(1, 256)
                  for _ in range(rnd.randrange(1, 40))).replace(b'/', b'_')
        if n in (b'.', b'..'):
            n = b'x' + n
        try:
            os.close(os.open(os.fsencode(out) + b'/' + n, os.O_WRONLY | os.O_CREAT))
            sys.exit('created %r' % n)
        except PermissionError:
            pass
        f.write(n.hex().encode() + b'\n')
PY
check "hostile names run" 0 $?
[ -z "$(ls -A "$O")" ] && pass || fail "a denied open created something in $O"
python3 - "$T/h.log" "$W/names" "$O" <<'PY' && pass || fail "log lines do not give the names back"
import codecs, json, sys
# The documented reading: valid UTF-8 as is, any other byte as U+00XX.
codecs.register_error('latin1byte', lambda e: (''.join(chr(b) for b in e.object[e.start:e.end]), e.end))
log, names, out = sys.argv[1], sys.argv[2], sys.argv[3]
want = [bytes.fromhex(l.strip()) for l in open(names)]
raw = open(log, 'rb').read()
lines = raw.split(b'\n')
assert lines[-1] == b'', 'the log does not end with a newline'
lines = lines[:-1]
assert len(lines) == len(want), (len(lines), len(want))
for line, name in zip(lines, want):
    d = json.loads(line)
    path = (out.encode() + b'/' + name).decode('utf-8', 'latin1byte')
    assert d['resolved'] == path, (d['resolved'], path)
    assert d['call'] and d['rule'] == 'outside-roots' and d['policy'] == 'process', d
PY
python3 - "$T/h.err" "$W/names" <<'PY' && pass || fail "the stderr lines are not one clean line per denial"
import sys
err = open(sys.argv[1], 'rb').read()
n = sum(1 for _ in open(sys.argv[2]))
lines = err.split(b'\n')[:-1]
# the summary at exit counts them all
summary = lines.pop()
assert summary.startswith(b'fa-run: %d denials (%d paths, 0 execs); see ' % (n, n)), summary
assert len(lines) == n, (len(lines), n)
for l in lines:
    assert l.startswith(b'fa-run: denied '), l
    text = l.decode('utf-8')           # never an invalid byte
    bad = [c for c in text if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f or c in '\u202e\u2066']
    assert not bad, (bad, l)
PY

# ---- fa-check writes its lines with the same writer ----
python3 - "$FA_BUILDDIR/fa-check" "$W" "$W/names" <<'PY' && pass || fail "fa-check lines do not give the inputs back"
import codecs, json, os, subprocess, sys
codecs.register_error('latin1byte', lambda e: (''.join(chr(b) for b in e.object[e.start:e.end]), e.end))
check, root, names = sys.argv[1:4]
want = [bytes.fromhex(l.strip()) for l in open(names)]
p = subprocess.run([check, '--allow', root, '--'] + want, capture_output=True)
lines = p.stdout.split(b'\n')[:-1]
assert len(lines) == len(want), (len(lines), len(want))
for line, name in zip(lines, want):
    assert json.loads(line)['input'] == name.decode('utf-8', 'latin1byte'), line
p = subprocess.run([check, '--allow', root + '/no\x1b[2J\nsuch', '--', 'x'], capture_output=True)
assert p.returncode == 2 and p.stderr.count(b'\n') == 1 and b'\x1b' not in p.stderr, p.stderr
PY

# ---- two paths of 4095 bytes each, full of bytes that need escapes ----
python3 - "$O" "$T/long" <<'PY' || fail "cannot build the deep tree"
import os, sys
out, dest = sys.argv[1].encode(), sys.argv[2]
comp = (b'\x01\x1b[\n\xff"' * 50)[:200]
p = out
while len(p) + 1 + 200 + 1 + 20 < 4095:
    p += b'/' + comp
    os.mkdir(p)
last = 4095 - len(p) - 1
src, dst = p + b'/' + b'\x9b' * last, p + b'/' + b'\x07' * last
assert len(src) == len(dst) == 4095
open(src, 'w').close()
open(dest, 'w').write(src.hex() + '\n' + dst.hex() + '\n')
PY
(cd "$W" && "$FA_RUN" -w "$W" --log "$T/l.log" -- python3 - "$T/long" <<'PY') 2>"$T/l.err"
import os, sys
src, dst = [bytes.fromhex(l) for l in open(sys.argv[1])]
try:
    os.rename(src, dst)
    sys.exit('renamed')
except PermissionError:
    pass
PY
check "long paths run" 0 $?
python3 - "$T/l.log" "$T/l.err" "$T/long" <<'PY' && pass || fail "a line with two 4095-byte paths was cut or dropped"
import codecs, json, sys
codecs.register_error('latin1byte', lambda e: (''.join(chr(b) for b in e.object[e.start:e.end]), e.end))
log, err, names = sys.argv[1:4]
src, dst = [bytes.fromhex(l) for l in open(names)]
lines = open(log, 'rb').read().split(b'\n')
assert len(lines) == 2 and lines[1] == b'', len(lines)
d = json.loads(lines[0])
assert d['path'] == src.decode('utf-8', 'latin1byte'), 'path cut'
assert d['path2'] == dst.decode('utf-8', 'latin1byte'), 'path2 cut'
assert len(lines[0]) > 4 * 4095, len(lines[0])
e = open(err, 'rb').read().split(b'\n')
assert e[1].startswith(b'fa-run: 1 denial (1 path, 0 execs)'), e[1][:200]
del e[1]
assert len(e) == 2 and e[1] == b'' and e[0].startswith(b'fa-run: denied '), e[:1]
esc = {10: '\\n', 9: '\\t', 13: '\\r', 34: '\\"', 92: '\\\\'}
shown = lambda b: ''.join(esc.get(c) or ('\\x%02x' % c if c < 0x20 or c >= 0x7f else chr(c))
                          for c in b)
assert shown(src) in e[0].decode() and shown(dst) in e[0].decode(), 'stderr line cut'
PY

fi

# ---- the caller is the program's real path, whatever argv[0] says ----
want=$(readlink -f "$(command -v touch)")
if runs_here bash; then
	(cd "$W" && "$FA_RUN" -w "$W" --log "$T/c.log" -- bash -c "exec -a /usr/bin/not-touch touch $O/c") 2>/dev/null
	python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["caller"])' "$T/c.log" >"$T/c.out" 2>&1
	check "caller of the main program" "$want" "$(cat "$T/c.out")"
fi

# The same when ld.so is the program the kernel started (/proc/self/exe is ld.so then).
ldso=$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); i=d.find(b"/lib"); print(d[i:d.index(b"\0",i)].decode())' "$(command -v touch)" 2>/dev/null)
if [ -x "$ldso" ] && "$ldso" --argv0 x /bin/true 2>/dev/null; then
	FA_POLICY="root $W" FA_LOG=$T/c2.log LD_PRELOAD=$PRELOAD "$ldso" --argv0 /usr/bin/not-touch \
		"$(command -v touch)" "$O/c2" 2>/dev/null
	python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["caller"])' "$T/c2.log" >"$T/c.out" 2>&1
	check "caller of a program started through ld.so" "$want" "$(cat "$T/c.out")"
fi

# ---- a log that cannot be written ----
mkdir -p "$T/isdir"
ln -s "$T/elsewhere" "$T/link"
for bad in "$T/missing/dir/log" "$T/isdir" "$T/link"; do
	FA_LOG=$bad LD_PRELOAD=$PRELOAD sh -c "touch $W/ran" 2>"$T/b.err"
	check "FA_LOG=$bad status" 125 $?
	grep -q '^libfashim: invalid FA_LOG: .*cannot be opened' "$T/b.err" && pass ||
		fail "FA_LOG=$bad: no clear message: $(cat "$T/b.err")"
	[ ! -e "$W/ran" ] && pass || fail "FA_LOG=$bad: the program ran"
	rm -f "$W/ran"
	(cd "$W" && "$FA_RUN" -w "$W" --log "$bad" -- touch "$W/ran") 2>"$T/b.err"
	check "fa-run --log $bad status" 125 $?
	grep -q '^fa-run: --log ' "$T/b.err" && pass || fail "fa-run --log $bad: $(cat "$T/b.err")"
	[ ! -e "$W/ran" ] && pass || fail "fa-run --log $bad: the command ran"
done
[ ! -e "$T/elsewhere" ] && pass || fail "the log was created through a symlink"
FA_LOG="$T/no$(printf '\033[2J')dir/log" LD_PRELOAD=$PRELOAD /bin/true 2>"$T/b.err"
check "FA_LOG with an escape: status" 125 $?
grep -q "no.x1b\[2Jdir/log: cannot be opened" "$T/b.err" && ! grep -q "$(printf '\033')" "$T/b.err" && pass ||
	fail "the FA_LOG message sends the escape raw: $(cat -v "$T/b.err")"

# A log that goes away after the start (in this process: a new one would
# stop with 125): the denial is still said, even with --quiet.
if have_python; then
mkdir "$W/logdir"
(cd "$W" && "$FA_RUN" -w "$W" --quiet --log "$W/logdir/log" -- python3 -c '
import os, shutil, sys
shutil.rmtree(sys.argv[1])
try:
    open(sys.argv[2], "w")
except PermissionError:
    pass' "$W/logdir" "$O/gone") 2>"$T/g.err"
grep -q "^fa-run: denied .*$O/gone" "$T/g.err" && pass || fail "lost denial not on stderr: $(cat "$T/g.err")"
grep -q "^libfashim: cannot append to the log $W/logdir/log" "$T/g.err" && pass ||
	fail "the failed log is not named: $(cat "$T/g.err")"
fi

finish
