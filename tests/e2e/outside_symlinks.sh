#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Symlinks that point outside the roots: refused by default, with a
# message naming the option that allows them; allowed with
# --allow-outside-symlinks, where a write through such a link is still
# refused where it lands and hard links stay refused.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

need_fa_run

R=$T/root
O=$T/out
S=$T/src
mkdir -p "$R" "$S"
make_outside() { mkdir -p "$O" && echo theirs >"$O/f"; }
make_outside
ln -s "$O/f" "$S/abs"
ln -s ../out "$S/rel"
echo x >"$S/plain"
tar -C "$S" -cf "$T/a.tar" abs rel plain
outside=$(snapshot "$O")
# The status tar exits with when it fails (GNU tar's 2, busybox's 1).
mkdir "$T/tarfail"
tar -C "$T/tarfail" -xf "$T/a.tar" fa-no-such-member 2>/dev/null
TAR_FAIL=$?

# far [FA-RUN ARGS...] -- COMMAND...: in $R; $rc, stderr in $T/e.
far() { fa_run_in "$R" -w "$R" "$@"; }

# By default: refused, and the message says how to allow it.
far -- tar -xf "$T/a.tar"
check "tar -x, absolute link: exit" "$TAR_FAIL" "$rc"
grep -q -- "--allow-outside-symlinks" "$T/e" && pass ||
	fail "the refusal does not name the option: $(cat "$T/e")"
[ ! -L "$R/abs" ] && pass || fail "the refused link exists"
untouched "default"
rm -rf "${R:?}"/*

far --allow-outside-symlinks -- tar -xf "$T/a.tar"
check "tar -x --allow-outside-symlinks: exit" 0 "$rc"
check "tar -x --allow-outside-symlinks: quiet" "" "$(cat "$T/e")"
check "the absolute link" "$O/f" "$(readlink "$R/abs")"
check "the relative link" "../out" "$(readlink "$R/rel")"
far --allow-outside-symlinks -- ln -s /etc/passwd pw
check "ln -s outside: exit" 0 "$rc"
# Writes through them land outside: refused there.
far --allow-outside-symlinks -- sh -c 'echo x >abs'
check "write through the link: exit" "$SH_REDIR_FAIL" "$rc"
grep -q "denied open" "$T/e" && pass || fail "no denial for the write: $(cat "$T/e")"
far --allow-outside-symlinks -- sh -c 'echo x >rel/new'
check "write through the directory link: exit" "$SH_REDIR_FAIL" "$rc"
# Hard links never.
far --allow-outside-symlinks -- ln "$O/f" hard
check "hard link outside: exit" 1 "$rc"
grep -q "denied link" "$T/e" && pass || fail "no denial for the hard link: $(cat "$T/e")"
[ ! -e "$R/hard" ] && pass || fail "the hard link exists"
# Children get the same policy.
far --allow-outside-symlinks -- sh -c 'ln -s /etc/hosts h && echo x >h'
check "child: link made, write refused" "$SH_REDIR_FAIL" "$rc"
[ -L "$R/h" ] && pass || fail "the child's link is missing"
untouched "--allow-outside-symlinks"

# python -m venv links its interpreter: copied by default, linked with the option.
if have_python; then
	far -- python3 -m venv --without-pip v1
	[ -f "$R/v1/bin/python3" ] && [ ! -L "$R/v1/bin/python3" ] && pass ||
		fail "venv without the option: $(cat "$T/e")"
	far --allow-outside-symlinks -- python3 -m venv --without-pip v2
	check "venv --allow-outside-symlinks: quiet" "" "$(cat "$T/e")"
	[ -L "$R/v2/bin/python3" ] && pass || fail "venv with the option did not link python3"
fi

# beneath: relative links that stay inside are followed; an absolute one is
# refused even into the same root, and the message names the link.
rm -rf "${R:?}"/*
mkdir "$R/sub"
ln -s sub "$R/rel"
ln -s "$R/sub" "$R/abs"
far --symlinks=beneath -- sh -c 'echo x >rel/a'
check "beneath, relative link inside: exit" 0 "$rc"
far --symlinks=beneath -- sh -c 'echo x >abs/b'
check "beneath, absolute link inside: exit" "$SH_REDIR_FAIL" "$rc"
grep -q "denied open.*: $R/abs: a symlink not allowed by the symlink mode (beneath: an absolute link" "$T/e" &&
	pass || fail "beneath: the message does not name the link: $(cat "$T/e")"
[ -e "$R/sub/a" ] && [ ! -e "$R/sub/b" ] && pass || fail "beneath: wrong files made"
# As an unprivileged user, from a directory it may search but not read:
# a creation through a link out of the roots is refused with its line,
# and one through a link into a directory it cannot search says so.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$T"
	rm -rf "${R:?}"/* "$O"
	make_outside
	chmod 777 "$O"
	mkdir -p "$T/shut/in" "$R/noread"
	chmod 700 "$T/shut"
	ln -s "$O" "$R/noread/out"
	ln -s "$T/shut/in" "$R/noread/shut"
	chown -R 65534:65534 "$R"
	chmod 311 "$R/noread"
	outside=$(snapshot "$O")
	nobody() {
		(cd "$R/noread" && setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$FA_RUN" --landlock=off -w "$R" --log "$T/nobody.log" "$@" >"$T/o" 2>"$T/e")
		rc=$?
	}
	: >"$T/nobody.log"
	chmod 666 "$T/nobody.log"
	for how in "mkdir out/d" "touch out/f" "mkdir $R/noread/out/d"; do
		nobody -- $how
		check "unreadable cwd, $how: exit" 1 "$rc"
		says "unreadable cwd, $how" "not under any allowed root"
	done
	for p in out/d out/f "$R/noread/out/d"; do
		grep -q "\"path\":\"$p\".*\"rule\":\"outside-roots\"" "$T/nobody.log" && pass ||
			fail "unreadable cwd: the log lacks $p: $(cat "$T/nobody.log")"
	done
	untouched "unreadable cwd"
	nobody -- mkdir shut/d
	check "a link into a directory it cannot search: exit" 1 "$rc"
	says "a link into a directory it cannot search" "cannot be searched by this user (EACCES)"
	[ ! -e "$T/shut/in/d" ] && pass || fail "unsearchable: the directory was made"
else
	echo "SKIP: an unprivileged user's refusals: needs root and setpriv" >&2
fi
finish
