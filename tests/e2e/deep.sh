#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Trees deeper than PATH_MAX under fa-run: built with mkdirat in a loop
# (6000 bytes below the top), removed by rm -rf through directory fds.
# Inside the root both work; outside, every change is refused with EACCES
# and a message, and the tree is left as it was.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

need_fa_run
need_python "to dig the deep trees"

R=$T/root
O=$T/out
mkdir -p "$R" "$O"
SEG=$(printf 'd%.0s' $(seq 100))

# dig TOP: 60 levels of 100-byte names by mkdirat, a file at the bottom,
# then the same from the bottom's current directory.
cat >"$T/dig.py" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
for i in range(60):
    os.mkdir('d' * 100, dir_fd=fd)
    nfd = os.open('d' * 100, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = nfd
os.close(os.open('f', os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
os.fchdir(fd)
with open('g', 'w') as f:
    f.write('deep\n')
os.mkdir('sub')
print('ok')
PY

run() {
	fa_run_in "$T" -w "$R" "$@"
	got=$(cat "$T/o")
}

run -- python3 "$T/dig.py" "$R"
check "dig inside: output" ok "$got"
check "dig inside: quiet" "" "$(cut -c1-200 "$T/e")"
run -- rm -rf "$R/$SEG"
check "rm -rf inside: exit" 0 "$rc"
check "rm -rf inside: quiet" "" "$(cut -c1-200 "$T/e")"
[ ! -e "$R/$SEG" ] && pass || fail "rm -rf left the deep tree"

# Outside: the deep tree is made without fa-run, then fa-run may not touch it.
python3 "$T/dig.py" "$O" >/dev/null || { fail "cannot build the outside tree"; finish; }
before=$(cd "$O" && find . -depth | wc -l)
run -- rm -rf "$O/$SEG"
check "rm -rf outside: exit" 1 "$rc"
grep -q "denied unlinkat(\"f\"): $O/.*/f: not under any allowed root" "$T/e" && pass ||
	fail "rm -rf outside: no denial naming the file: $(cut -c1-300 "$T/e")"
grep -qi "too long\|no such file" "$T/e" && fail "rm -rf outside: $(grep -i 'too long\|no such' "$T/e" | cut -c1-200)" || pass
check "rm -rf outside: nothing removed" "$before" "$(cd "$O" && find . -depth | wc -l)"
run -- python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
for i in range(60):
    nfd = os.open("d" * 100, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = nfd
os.fchdir(fd)
for f in (lambda: open("new", "w"), lambda: os.mkdir("new"), lambda: os.unlink("g")):
    try:
        f()
        print("done")
    except OSError as e:
        print(e.errno == 13)
' "$O"
check "outside from a deep cwd" "True
True
True" "$got"
check "outside from a deep cwd: three denials" 3 "$(grep -c 'denied' "$T/e")"
check "outside: nothing changed" "$before" "$(cd "$O" && find . -depth | wc -l)"
finish
