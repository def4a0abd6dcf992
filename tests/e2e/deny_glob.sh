#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Deny patterns under the shim and fa-run: every libc call that would
# create, write, truncate, rename onto or away, link, remove, chmod, utime
# or mkdir what a pattern names is refused with EACCES and leaves the tree
# byte-identical, however the path is spelt (relative, '..', a symlinked
# directory, a dirfd); the same calls on names no pattern matches go
# through. Then fa-run: --deny-glob '**/.git/**' keeps git from committing,
# and --deny-read=secrets keeps keys from being read while ~/.ssh can
# still be listed. Path cases run twice: openat2 and the fallback walk.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

CT=$E2E/calltest
W=$T/w
IN=$W/in
TPL=$T/template

mkdir -p "$TPL/in/d" "$TPL/in/keep" "$TPL/in/.git"
echo data >"$TPL/in/f"
echo kept >"$TPL/in/keep/k"
echo cfg >"$TPL/in/.git/config"
echo pem >"$TPL/in/d/old.pem"
ln -s d "$TPL/in/dlink"

fresh() {
	rm -rf "$W"
	cp -a "$TPL" "$W"
}

POL=$(printf '%s\n' "root $IN" 'deny-glob **/.env' 'deny-glob **/*.pem' \
	'deny-glob keep/**' 'deny-glob **/.git/**')

# ct MODE FUNC ARG...: calltest in $IN under the shim and $POL.
ct() {
	local mode=$1
	shift
	(
		cd "$IN" || exit 99
		export LD_PRELOAD="$PRELOAD" FA_POLICY="$POL"
		[ "$mode" = openat2 ] || export FA_FORCE_FALLBACK=1
		exec "$CT" "$@"
	) 2>"$T/stderr"
}

# refused MODE FUNC ARG...: EACCES, one line naming the pattern, nothing changed.
refused() {
	local mode=$1 before out
	shift
	fresh
	before=$(snapshot "$W")
	out=$(ct "$mode" "$@")
	check "$mode $*" "err EACCES" "$out"
	check "$mode $*: tree unchanged" "$before" "$(snapshot "$W")"
	if grep -q "deny-pattern" "$T/stderr" && grep -q "remove --deny-glob '" "$T/stderr"; then
		pass
	else
		fail "$mode $*: the refusal names no pattern: $(cat "$T/stderr")"
	fi
}

# allowed MODE FUNC ARG...: the call goes through.
allowed() {
	local mode=$1 out
	shift
	fresh
	out=$(ct "$mode" "$@")
	check "$mode $*" ok "$out"
}

for mode in openat2 fallback; do
	# create and write: as given, through '..', a symlinked directory, a dirfd
	refused $mode open .env 'WRONLY|CREAT'
	refused $mode open d/../.env 'WRONLY|CREAT'
	refused $mode open dlink/.env 'WRONLY|CREAT'
	refused $mode open "$IN/dlink/x.pem" 'WRONLY|CREAT|TRUNC'
	refused $mode openat d .env 'WRONLY|CREAT'
	refused $mode openat dlink ../keep/new 'WRONLY|CREAT'
	refused $mode creat d/new.pem
	refused $mode fopen .env w
	refused $mode open d/old.pem 'WRONLY|APPEND'
	refused $mode open .git/config 'RDWR'
	# truncate, chmod, utime of what a pattern names
	refused $mode truncate keep/k 0
	refused $mode truncate dlink/old.pem 0
	refused $mode chmod keep/k 600
	refused $mode utimes .git/config
	refused $mode utimensat d old.pem 0
	# rename onto and away, and a directory holding matches
	refused $mode rename f .env
	refused $mode rename f dlink/new.pem
	refused $mode rename keep/k k2
	refused $mode rename d/old.pem d/old.txt
	refused $mode rename keep kept
	refused $mode rename .git git2
	refused $mode renameat d old.pem . plain
	# links: a new name a pattern names, and a matched file given another name
	refused $mode link f d/x.pem
	refused $mode link keep/k k3
	refused $mode symlink f .env
	# remove and mkdir
	refused $mode unlink keep/k
	refused $mode unlink dlink/old.pem
	refused $mode unlinkat d old.pem 0
	refused $mode mkdir keep/sub
	refused $mode mkdir .git/refs
	refused $mode mkdir d/.env
	refused $mode mkfifo .env
	# names no pattern matches, in the same places
	allowed $mode open d/new 'WRONLY|CREAT'
	allowed $mode open dlink/x.pem.txt 'WRONLY|CREAT'
	allowed $mode open d/keep 'WRONLY|CREAT'
	allowed $mode rename f g
	allowed $mode rename d d2
	allowed $mode link f f2
	allowed $mode chmod f 600
	allowed $mode mkdir d/sub
	allowed $mode unlink f
done

# reads at libc under a read pattern: every open-family entry point, a dirfd, a link
POL=$(printf '%s\n' "root $IN" 'deny-read **/*.pem' 'deny-read keep/**')
CASES=" $("$CT" --list | tr '\n' ' ') "
for fn in open64 __open_2; do
	case $CASES in *" $fn "*) ;; *) echo "not in this libc, not run: read $fn" ;; esac
done
for mode in openat2 fallback; do
	fresh
	check "$mode read open" "err EACCES" "$(ct $mode open d/old.pem RDONLY)"
	# open64 and __open_2 are glibc's own entry points (musl has neither).
	case $CASES in *" open64 "*)
		check "$mode read open64 through a link" "err EACCES" "$(ct $mode open64 dlink/old.pem RDONLY)" ;;
	esac
	check "$mode read openat dirfd" "err EACCES" "$(ct $mode openat d old.pem RDONLY)"
	check "$mode read openat through '..'" "err EACCES" "$(ct $mode openat dlink ../keep/k RDONLY)"
	check "$mode read fopen" "err EACCES" "$(ct $mode fopen d/../d/old.pem r)"
	case $CASES in *" __open_2 "*)
		check "$mode read __open_2" "err EACCES" "$(ct $mode __open_2 keep/k RDONLY)"
		grep -q "deny-read" "$T/stderr" || fail "$mode read refusal names no rule: $(cat "$T/stderr")" ;;
	esac
	check "$mode read a directory a pattern names" ok "$(ct $mode open keep 'RDONLY|DIRECTORY')"
	check "$mode O_PATH of a matched file" ok "$(ct $mode open d/old.pem PATH)"
	check "$mode syscall(SYS_openat)" "err EACCES" "$(ct $mode syscall openat d/old.pem RDONLY)"
	check "$mode read another file" ok "$(ct $mode open f RDONLY)"
	check "$mode read a missing file" "err ENOENT" "$(ct $mode open d/none.pem RDONLY)"
	check "$mode read NOFOLLOW of a link" "err ELOOP" "$(ct $mode open dlink 'RDONLY|NOFOLLOW')"
	check "$mode read a near name" ok "$(ct $mode fopen f r)"
done

need_fa_run

# git: a repository made inside a root with .git denied cannot be written.
G=$T/g
mkdir -p "$G/repo"
if runs_here git; then
echo a >"$G/repo/file"
fa_run_in "$G/repo" -w "$G" --deny-glob '**/.git/**' -- git init -q
check "git init refused: no .git made" no "$([ -e "$G/repo/.git" ] && echo yes || echo no)"
says "git init refused" "deny-pattern"
(cd "$G/repo" && git init -q && git -c user.email=t@t -c user.name=t add file \
	&& git -c user.email=t@t -c user.name=t commit -qm one) || fail "git outside fa-run"
before=$(snapshot "$G/repo/.git")
echo b >>"$G/repo/file"
fa_run_in "$G/repo" -w "$G" --deny-glob '**/.git/**' -- \
	git -c user.email=t@t -c user.name=t commit -qam two
check "git commit refused: status" 1 "$([ "$rc" -ne 0 ] && echo 1 || echo 0)"
check "git commit refused: .git unchanged" "$before" "$(snapshot "$G/repo/.git")"
fa_run_in "$G/repo" -w "$G" --deny-glob '**/.git/**' -- sh -c 'echo c >>file'
status "a file beside .git is still written" 0
fi

# --learn: a secret written is flagged with its pattern; a pattern in force written is dropped
L=$T/learn
mkdir -p "$L"
fa_run_in "$L" --learn --deny-glob 'keep/**' -- sh -c 'echo x >.env; mkdir keep; echo y >keep/a; echo z >plain'
status "--learn" 0
says "--learn flags the secret" "# secret? the run wrote $L/.env, which the common secret pattern **/.env names: 'deny-glob **/.env'"
says "--learn drops the pattern written" "# dropped: deny-glob keep/** (the run wrote what it names)"
says "--learn counts the refusals of the policy in force only" "2 calls would have been denied"
silent_on "--learn flags no plain file" "$L/plain"
check "--learn denies nothing" "x y z" "$(cat "$L/.env" "$L/keep/a" "$L/plain" | tr '\n' ' ' | sed 's/ $//')"

# reads: the built-in secrets, with HOME a scratch directory
H=$T/home
mkdir -p "$H/.ssh" "$H/.aws" "$G/proj"
echo private >"$H/.ssh/id_ed25519"
echo public >"$H/.ssh/id_ed25519.pub"
echo creds >"$H/.aws/credentials"
echo TOKEN=x >"$G/proj/.env"
HOME=$H fa_run_in "$G" -w "$G" --deny-read=secrets -- cat "$H/.ssh/id_ed25519"
check "cat ~/.ssh/id_ed25519 refused" 1 "$rc"
check "nothing of the key read" "" "$(cat "$T/o")"
says "the refusal names the rule" "[deny-read]"
HOME=$H fa_run_in "$G" -w "$G" --deny-read=secrets -- sh -c 'cat proj/sub/../.env 2>/dev/null; cat proj/./.env'
check "cat .env refused, however spelt" "" "$(cat "$T/o")"
HOME=$H fa_run_in "$G" -w "$G" --deny-read=secrets -- ls "$H/.ssh"
status "ls ~/.ssh" 0
check "ls ~/.ssh lists" "id_ed25519 id_ed25519.pub" "$(tr '\n' ' ' <"$T/o" | sed 's/ $//')"
HOME=$H fa_run_in "$G" -w "$G" --deny-read=secrets -- cat "$H/.ssh/id_ed25519.pub"
check "a public key is read" public "$(cat "$T/o")"
ln -s "$H/.ssh" "$G/keys"
HOME=$H fa_run_in "$G" -w "$G" --deny-read=secrets -- cat keys/id_ed25519
check "through a symlinked directory: refused" "" "$(cat "$T/o")"
if have_python; then
	HOME=$H fa_run_in "$G" -w "$G" --deny-read=secrets -- python3 -c '
import os
try:
    open(os.path.expanduser("~/.aws/credentials")).read()
    print("read")
except PermissionError:
    print("refused")'
	check "python open(~/.aws/credentials)" refused "$(cat "$T/o")"
fi
# without --deny-read nothing is refused
HOME=$H fa_run_in "$G" -w "$G" -- cat "$H/.ssh/id_ed25519"
check "no read pattern: read" private "$(cat "$T/o")"

finish
