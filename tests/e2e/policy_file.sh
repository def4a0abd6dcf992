#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fa-run --policy FILE: what a file grants and refuses, relative paths from
# the file's directory, options adding to the file and never silently
# widening it, and every malformed file stopping with 125 and its
# FILE:LINE:COL before the command runs.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

need_fa_run

P=$T/proj
mkdir -p "$P/build/secret" "$P/src" "$P/etc" "$T/elsewhere" "$T/other"
cat > "$P/etc/fa.policy" <<'EOF'
# relative to this file's directory
root ../build
deny ../build/secret
symlinks beneath
EOF

# ---- what the file grants, run from another directory ----
(cd "$T/elsewhere" && "$FA_RUN" --policy "$P/etc/fa.policy" --quiet -- \
	sh -c "echo a > '$P/build/a'") 2>"$T/e1"
check "a write inside the file's root" 0 $?
[ -f "$P/build/a" ] && pass || fail "build/a not written: $(cat "$T/e1")"
before=$(snapshot "$P")
(cd "$T/elsewhere" && "$FA_RUN" --policy "$P/etc/fa.policy" -- \
	sh -c "echo b > '$P/build/secret/b'") 2>"$T/e2"
check "the file's deny subtree (the shell fails its redirection)" "$SH_REDIR_FAIL" $?
grep -q "deny-subtree" "$T/e2" && pass || fail "no deny-subtree: $(cat "$T/e2")"
(cd "$T/elsewhere" && "$FA_RUN" --policy "$P/etc/fa.policy" -- \
	sh -c "echo c > '$P/src/c'; echo d > '$T/elsewhere/d'") 2>"$T/e3"
check "outside the file's root, and not in the directory fa-run starts in" "$SH_REDIR_FAIL" $?
check "two refusals" 2 "$(grep -c 'outside-roots' "$T/e3")"
check "nothing changed" "$before" "$(snapshot "$P")"
[ ! -e "$T/elsewhere/d" ] && pass || fail "the start directory was granted beside the file"

# ---- options add to the file: -w widens only where it says ----
(cd "$T/elsewhere" && "$FA_RUN" --policy "$P/etc/fa.policy" -w "$P/src" --quiet -- \
	sh -c "echo c > '$P/src/c' && echo e > '$P/build/e'")
check "-w adds a root to the file's" 0 $?
(cd "$T/elsewhere" && "$FA_RUN" --policy "$P/etc/fa.policy" -w "$P/src" --quiet -- \
	sh -c "echo z > '$P/build/secret/z'") 2>/dev/null
check "-w leaves the file's deny subtree" "$SH_REDIR_FAIL" $?

# ---- exec rules from the file ----
printf 'root .\nexec deny\n' > "$T/other/exec.policy"
(cd "$T/other" && "$FA_RUN" --policy exec.policy --quiet --landlock=off -- sh -c 'true; /bin/true')
check "exec deny in the file" 126 $?
printf 'root .\nallow-exec sh\nallow-exec true\n' > "$T/other/list.policy"
(cd "$T/other" && "$FA_RUN" --policy list.policy --quiet -- sh -c 'true; exec true')
check "allow-exec lines are the allow list" 0 $?

# ---- every malformed file: 125, FILE:LINE:COL, the command never runs ----
i=0
while IFS='|' read -r text where says; do
	i=$((i + 1))
	f=$T/bad$i.policy
	printf "$text" > "$f"
	rm -f "$T/ran"
	(cd "$P" && "$FA_RUN" --policy "$f" -- sh -c "touch '$T/ran'") 2>"$T/bad.err"
	check "malformed $i exit" 125 $?
	grep -q "^fa-run: --policy $f$where.*$says" "$T/bad.err" && pass ||
		fail "malformed $i: wanted $f$where...$says, got: $(cat "$T/bad.err")"
	[ ! -e "$T/ran" ] && pass || fail "malformed $i: the command ran"
done <<'EOF'
root .\nwrite build\n|:2:1: |unknown key 'write'
root .\nsymlinks sometimes\n|:2:10: |unknown symlink mode 'sometimes'
root build\ndeny src\n|:2:6: |deny subtree [^ ]*/fa-e2e[^/]*/src is not inside any root of the file
symlinks trust\n  symlinks nofollow\n|:2:12: |contradicts symlinks trust
exec allow\nallow-exec sh\n|:2:1: |contradicts 'exec allow' on line 1
exec\n|:1:5: |'exec' needs a value
root .\noutside-symlinks please\n|:2:18: |expected 'outside-symlinks allow'
EOF

# the file cannot be read
"$FA_RUN" --policy "$T/none.policy" -- true 2>"$T/e4"
check "unreadable file exit" 125 $?
grep -q "^fa-run: --policy $T/none.policy: cannot read the policy file: No such file" "$T/e4" &&
	pass || fail "unreadable: $(cat "$T/e4")"
# a root that does not exist is named with the file
printf 'root missing\n' > "$T/other/missing.policy"
"$FA_RUN" --policy "$T/other/missing.policy" -- true 2>"$T/e5"
check "missing root exit" 125 $?
grep -q "missing.policy: root $T/other/missing does not exist" "$T/e5" && pass ||
	fail "missing root: $(cat "$T/e5")"
# an allow-exec program that is not there
printf 'root .\nallow-exec no-such-program-here\n' > "$T/other/noprog.policy"
"$FA_RUN" --policy "$T/other/noprog.policy" -- true 2>"$T/e6"
check "missing program exit" 125 $?
grep -q "noprog.policy: allow-exec no-such-program-here" "$T/e6" && pass || fail "$(cat "$T/e6")"

# ---- options that contradict the file stop, never override ----
"$FA_RUN" --policy "$P/etc/fa.policy" --symlinks=trust -- true 2>"$T/e7"
check "--symlinks against the file" 125 $?
grep -q "contradicts 'symlinks beneath' in $P/etc/fa.policy" "$T/e7" && pass || fail "$(cat "$T/e7")"
"$FA_RUN" --policy "$T/other/exec.policy" --exec=allow -- true 2>"$T/e8"
check "--exec=allow against exec deny" 125 $?
"$FA_RUN" --policy "$T/other/list.policy" --exec=allow -- true 2>/dev/null
check "--exec=allow against allow-exec lines" 125 $?
"$FA_RUN" --policy "$P/etc/fa.policy" --policy "$P/etc/fa.policy" -- true 2>/dev/null
check "two policy files" 125 $?

finish
