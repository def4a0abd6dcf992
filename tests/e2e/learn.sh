#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fa-run --learn on real jobs: a make writing into build/ and a temporary
# directory, a pip install into a venv, a git commit. Each learned policy,
# fed back with --policy, runs the job again with no denial at all, and is
# no wider than the job: no root above the project, the temporary
# directory only where it was used, sensitive places named, not granted.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

need_fa_run

# A temporary directory of the job's own, directly under /tmp, as jobs use it.
TMPD=$(mktemp -d /tmp/fa-learn-tmp.XXXXXX) || exit 99
TMPD=$(cd "$TMPD" && pwd -P)
trap 'rm -rf "$T" "$TMPD"' EXIT
HOME=$T/home
mkdir -p "$HOME"
export HOME

roots() { grep '^root ' "$1" | cut -c6- | sort; }
# a run under the policy: no denial line, no summary, an empty log
clean_run() { # NAME LOG ERR
	[ ! -s "$2" ] && pass || fail "$1: denials logged: $(head -c 600 "$2")"
	grep -q 'denied\|would deny\|fa-run: [0-9]' "$3" && fail "$1: $(cat "$3")" || pass
}

# ---- make: build/ inside the project, $TMPD outside it, programs on an allow list ----
P=$T/proj
mkdir -p "$P/src" "$P/build.none"
echo 'int x;' > "$P/src/a.c"
cat > "$P/Makefile" <<EOF
all: build/a.o $TMPD/stamp
build/a.o: src/a.c
	mkdir -p build
	cp src/a.c build/a.o
$TMPD/stamp: build/a.o
	cp build/a.o $TMPD/stamp
EOF
(cd "$P" && "$FA_RUN" -w "$P/build.none" --allow-exec make --learn="$T/make.pol" -- make -s) \
	>"$T/make.out" 2>"$T/make.err"
check "make under --learn exits as make does" 0 $?
[ -f "$TMPD/stamp" ] && pass || fail "--learn denied a write: $(cat "$T/make.err")"
grep -q '^fa-run --learn: [0-9]* calls would have been denied' "$T/make.err" && pass ||
	fail "no learned policy on stderr: $(cat "$T/make.err")"
grep -q '^fa-run --learn: against the policy in force' "$T/make.err" && pass || fail "no diff"
grep -q "^+root $TMPD\$" "$T/make.err" && pass || fail "the diff does not add $TMPD"
grep -q 'would deny' "$T/make.err" && fail "--learn printed a line per call" || pass
# Exactly the project (fa-run's directory) and the temporary directory used.
check "make: roots" "$(printf '%s\n' "$P" "$TMPD" | sort)" "$(roots "$T/make.pol")"
grep -q "^-root $P/build.none\$" "$T/make.err" && pass || fail "the diff keeps a root the project holds"
grep -q '^exec list$' "$T/make.pol" && pass || fail "make: no exec rule: $(cat "$T/make.pol")"
grep -q "^allow-exec $(readlink -f "$(command -v cp)")\$" "$T/make.pol" && pass ||
	fail "make: cp is not allowed: $(cat "$T/make.pol")"
rm -rf "$P/build" "$TMPD/stamp"
(cd "$P" && "$FA_RUN" --policy "$T/make.pol" --log "$T/make2.log" -- make -s) \
	>/dev/null 2>"$T/make2.err"
check "make under the learned policy" 0 $?
[ -f "$TMPD/stamp" ] && pass || fail "make under the learned policy did not finish"
clean_run "make under the learned policy" "$T/make2.log" "$T/make2.err"
# ...and the policy in force before learning did deny: the test means something.
rm -rf "$P/build" "$TMPD/stamp"
(cd "$P" && "$FA_RUN" -w "$P/build.none" --allow-exec make --quiet --log "$T/make3.log" \
	--landlock=off -- make -s) >/dev/null 2>&1
[ -s "$T/make3.log" ] && pass || fail "the first policy denied nothing"

# ---- git commit: the project's own .git, nothing above it, no /tmp ----
if ! command -v git >/dev/null 2>&1; then
	echo "# git not found: the git case is skipped"
elif runs_here git; then
	G=$T/repo
	mkdir -p "$G/src"
	(cd "$G" && git init -q && echo one > src/f && git add src/f) || fail "git init"
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
		GIT_COMMITTER_EMAIL=t@example.org GIT_CONFIG_NOSYSTEM=1
	(cd "$G" && "$FA_RUN" -w src --learn="$T/git.pol" -- git commit -q -m one) \
		>/dev/null 2>"$T/git.err"
	check "git commit under --learn" 0 $?
	check "git: roots" "$(printf '%s\n' "$G/.git" "$G/src" | sort)" "$(roots "$T/git.pol")"
	grep -q 'not granted\|outside-symlinks' "$T/git.pol" && fail "git: $(cat "$T/git.pol")" || pass
	echo two > "$G/src/f"
	(cd "$G" && git add src/f 2>/dev/null; "$FA_RUN" --policy "$T/git.pol" --log "$T/git2.log" \
		-- git commit -q -am two) >/dev/null 2>"$T/git2.err"
	check "git commit under the learned policy" 0 $?
	clean_run "git commit under the learned policy" "$T/git2.log" "$T/git2.err"
	check "git: two commits" 2 "$(cd "$G" && git rev-list --count HEAD)"
fi

# ---- pip install of a local wheel into a venv in the project ----
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$PY" ] && have_python && "$PY" -m venv "$T/pyproj/venv" >/dev/null 2>&1 &&
	[ -x "$T/pyproj/venv/bin/pip" ]; then
	V=$T/pyproj
	mkdir -p "$T/wheels" "$T/piptmp"
	"$PY" - "$T/wheels" <<'PY' || fail "cannot make the wheel"
import base64, hashlib, sys, zipfile
files = {
    'tinypkg/__init__.py': b'VALUE = 42\n',
    'tinypkg-1.0.dist-info/METADATA': b'Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n',
    'tinypkg-1.0.dist-info/WHEEL': b'Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
}
rec = []
for n, b in files.items():
    h = base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode()
    rec.append(f'{n},sha256={h},{len(b)}')
rec.append('tinypkg-1.0.dist-info/RECORD,,')
with zipfile.ZipFile(sys.argv[1] + '/tinypkg-1.0-py3-none-any.whl', 'w') as z:
    for n, b in files.items():
        z.writestr(n, b)
    z.writestr('tinypkg-1.0.dist-info/RECORD', '\n'.join(rec) + '\n')
PY
	PIP="venv/bin/python -m pip install -q --no-index --no-cache-dir --disable-pip-version-check"
	(cd "$V" && TMPDIR=$T/piptmp "$FA_RUN" -w venv/lib --learn="$T/pip.pol" -- \
		$PIP "$T/wheels/tinypkg-1.0-py3-none-any.whl") >/dev/null 2>"$T/pip.err"
	check "pip install under --learn" 0 $?
	# Beneath the project (its venv), and pip's temporary directory: nothing above.
	bad=$(roots "$T/pip.pol" | grep -v "^$V\(/\|\$\)" | grep -v "^$T/piptmp\$")
	check "pip: no root outside the venv and pip's temporary directory" "" "$bad"
	roots "$T/pip.pol" | grep -q "^$T/piptmp\$" && pass || fail "pip: $(cat "$T/pip.pol")"
	(cd "$V" && venv/bin/python -m pip uninstall -q -y tinypkg) >/dev/null 2>&1
	(cd "$V" && TMPDIR=$T/piptmp "$FA_RUN" --policy "$T/pip.pol" --log "$T/pip2.log" -- \
		$PIP "$T/wheels/tinypkg-1.0-py3-none-any.whl") >/dev/null 2>"$T/pip2.err"
	check "pip install under the learned policy" 0 $?
	clean_run "pip install under the learned policy" "$T/pip2.log" "$T/pip2.err"
	check "pip: installed" 42 "$(cd / && "$V/venv/bin/python" -c 'import tinypkg; print(tinypkg.VALUE)')"
else
	echo "# no python3 with venv and pip: the pip case is skipped"
fi

# ---- a sensitive place is named, not granted ----
mkdir -p "$HOME/.config" "$HOME/.ssh"
(cd "$P" && "$FA_RUN" --learn="$T/dot.pol" -- sh -c "echo x > '$HOME/.config/x'; echo y > '$HOME/.ssh/y'") \
	>/dev/null 2>"$T/dot.err"
check "dotfiles under --learn" 0 $?
check "dotfiles: roots" "$P" "$(roots "$T/dot.pol")"
grep -q "^# not granted: $HOME/.config (it is a dotfile directory" "$T/dot.pol" && pass ||
	fail "dotfiles: $(cat "$T/dot.pol")"
grep -q "^# not granted: $HOME/.ssh (it holds keys)" "$T/dot.pol" && pass ||
	fail "keys: $(cat "$T/dot.pol")"

# ---- never a root above the project ----
(cd "$P" && "$FA_RUN" --learn="$T/up.pol" -- sh -c 'echo x > ../beside') >/dev/null 2>&1
check "above the project: roots" "$P" "$(roots "$T/up.pol")"
grep -q "^# not granted: $T (it holds the project and what lies beside it)" "$T/up.pol" && pass ||
	fail "above the project: $(cat "$T/up.pol")"

# ---- a deny subtree the run wrote in is dropped, and said ----
mkdir -p "$P/keep"
(cd "$P" && "$FA_RUN" --deny keep --learn="$T/deny.pol" -- sh -c 'echo x > keep/x') \
	>/dev/null 2>"$T/deny.err"
grep -q "^deny " "$T/deny.pol" && fail "deny kept: $(cat "$T/deny.pol")" || pass
grep -q "^# dropped: deny $P/keep" "$T/deny.pol" && pass || fail "deny: $(cat "$T/deny.pol")"
grep -q "^-deny $P/keep\$" "$T/deny.err" && pass || fail "deny diff: $(cat "$T/deny.err")"

# ---- a nested fa-run is learned through: the outer policy is the one learned ----
# The nested run's kernel floor would refuse the outer run's record (a file
# outside its roots) and the write itself; it is off while the outer run learns.
mkdir -p "$P/in" "$T/nested"
(cd "$P" && "$FA_RUN" -w "$P" --learn="$T/nest.pol" -- \
	"$FA_RUN" -w "$P/in" -w "$T/nested" -- sh -c "echo x > $T/nested/f; echo y > in/g") \
	>/dev/null 2>"$T/nest.err"
check "nested fa-run under --learn" 0 $?
[ -f "$T/nested/f" ] && [ -f "$P/in/g" ] && pass ||
	fail "nested: a write was denied: $(cat "$T/nest.err")"
check "nested: roots" "$(printf '%s\n' "$P" "$T/nested" | sort)" "$(roots "$T/nest.pol")"
grep -q '^fa-run: inside fa-run --learn: nothing is denied' "$T/nest.err" && pass ||
	fail "nested: the floor being off is not said: $(cat "$T/nest.err")"
rm -f "$T/nested/f" "$P/in/g"
# a nested fa-run --learn: its command runs under the outer policy, so the outer
# run learns it and the nested one says it learns nothing (no file)
(cd "$P" && "$FA_RUN" -w "$P" --learn="$T/outer.pol" -- \
	"$FA_RUN" -w "$P/in" --learn="$T/inner.pol" -- sh -c "echo x > $T/nested/f; echo y > in/g") \
	>/dev/null 2>"$T/nestl.err"
check "nested --learn under --learn" 0 $?
check "nested --learn: outer roots" "$(printf '%s\n' "$P" "$T/nested" | sort)" \
	"$(roots "$T/outer.pol")"
grep -q '^fa-run --learn: inside fa-run --learn: .*this run learns nothing and writes no file$' \
	"$T/nestl.err" && pass || fail "nested --learn: not said: $(cat "$T/nestl.err")"
[ ! -e "$T/inner.pol" ] && pass || fail "nested --learn: wrote $(cat "$T/inner.pol")"
grep -q 'nothing would have been denied' "$T/nestl.err" &&
	fail "nested --learn: claims nothing was denied: $(cat "$T/nestl.err")" || pass
rm -f "$T/nested/f" "$P/in/g"
# the log where the nested floor lets it be written
(cd "$P" && "$FA_RUN" --policy "$T/nest.pol" --log "$T/nested/log" -- \
	"$FA_RUN" -w "$P/in" -w "$T/nested" -- sh -c "echo x > $T/nested/f; echo y > in/g") \
	>/dev/null 2>"$T/nest2.err"
check "nested under the learned policy" 0 $?
[ ! -s "$T/nested/log" ] && pass || fail "nested: denials logged: $(cat "$T/nested/log")"
# FA_LEARN alone, with no outer run, turns no floor off (a write the preload cannot see)
(cd "$P" && FA_LEARN=/dev/null "$FA_RUN" -w "$P/in" -- "$FA_BUILDDIR/tests/e2e/floor" raw \
	"$T/nested/h") >/dev/null 2>&1
[ ! -e "$T/nested/h" ] && pass || fail "FA_LEARN alone turned the kernel floor off"
"$FA_RUN" -w "$P" --learn -- "$FA_RUN" --landlock=on -w "$P" -- true 2>/dev/null
check "--landlock=on inside --learn exits 125" 125 $?

# ---- --learn=FILE that cannot be written stops before the command runs ----
"$FA_RUN" --learn="$T/no/such/dir/p" -- sh -c "touch '$T/ran'" 2>"$T/nofile.err"
check "--learn=unwritable exits 125" 125 $?
[ ! -e "$T/ran" ] && pass || fail "the command ran"
"$FA_RUN" --learn --landlock=on -- true 2>/dev/null
check "--learn --landlock=on exits 125" 125 $?

finish
