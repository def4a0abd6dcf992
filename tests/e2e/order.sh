#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The kernel's order of checks under fa-run: a call the kernel fails for
# another reason first (an entry that exists, one that is missing, a file
# where a directory must be) gives the kernel's errno and prints nothing;
# a call it would perform is still refused with EACCES and one line.
# Real programs that probe this way (mkdir -p, install -d) run silently.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

need_fa_run

CT=$E2E/calltest
R=$T/root
O=$T/out
mkdir -p "$R/d" "$O/d"
echo mine >"$R/f"
echo theirs >"$O/f"
# a link that never ends, and one whose directory is missing or a file
ln -s loop "$O/loop"
ln -s none/x "$O/dnone"
ln -s f/x "$O/dfile"
ln -s made "$O/dangling"
ln -s d "$O/ld"
tree() { snapshot "$O"; snapshot "$R"; }
outside=$(tree)

# run [FA-RUN ARGS...] -- COMMAND...: in $R, stdout in $got, stderr in $T/e.
run() {
	fa_run_in "$R" -w "$R" "$@"
	got=$(cat "$T/o")
}

# A function this libc lacks (renameat2 before musl 1.2.4) has no case in
# calltest: named at the end as not run.
CASES=" $("$CT" --list | tr '\n' ' ') "
ABSENT=
absent() {
	case $CASES in *" $1 "*) return 1 ;; esac
	case "$ABSENT " in *" $1 "*) ;; *) ABSENT="$ABSENT $1" ;; esac
	return 0
}

# kernel FUNC ARG...: under fa-run, the very answer bare libc gives, silently.
kernel() {
	local bare now
	! absent "$1" || return 0
	bare=$(cd "$R" && "$CT" "$@" 2>/dev/null)
	case $bare in
	err*) ;;
	*) fail "kernel $*: bare libc did not fail: $bare"; return ;;
	esac
	run -- "$CT" "$@"
	check "kernel $*" "$bare" "$got"
	if [ -s "$T/e" ]; then
		fail "kernel $*: printed a denial: $(cat "$T/e")"
	else
		pass
	fi
	now=$(tree)
	check "kernel $*: nothing changed" "$outside" "$now"
}

# refused FUNC ARG...: EACCES and exactly one line naming the call.
refused() {
	local now
	! absent "$1" || return 0
	run -- "$CT" "$@"
	check "refused $*" "err EACCES" "$got"
	check "refused $*: one line" 1 "$(grep -c "denied $1" "$T/e")"
	now=$(tree)
	check "refused $*: nothing changed" "$outside" "$now"
}

for m in "" fallback; do
	if [ -n "$m" ]; then
		export FA_FORCE_FALLBACK=1
	fi
	kernel mkdir "$O"
	kernel mkdir "$O/f"
	kernel mkdir "$R"
	kernel mkdir "$T"
	kernel mkdir /
	kernel mkdir "$O/none/x"
	kernel mkdir "$O/f/x"
	kernel mkdirat . "$O/d"
	kernel mknod "$O/f"
	kernel symlink x "$O/f"
	kernel open "$O/none" RDWR
	kernel open "$O/none" "WRONLY|TRUNC"
	kernel open "$O/f" "WRONLY|CREAT|EXCL"
	kernel open "$O/f/x" "WRONLY|CREAT"
	kernel open "$O" WRONLY
	kernel open "$O/new/" "WRONLY|CREAT"
	kernel open "$R/f/../new" "WRONLY|CREAT"
	kernel open "f/../new" "WRONLY|CREAT"
	kernel unlink "$O/none"
	kernel rmdir "$O/none"
	kernel rename "$O/none" "$R/x"
	kernel rename "$R/f" "$O/none/x"
	kernel chmod "$O/none" 644
	# Two-path calls, looked at whole: the source, then the new name.
	kernel link "$R/f" "$O/f"
	kernel link "$R/f" "$O/d"
	kernel link "$R/none" "$O/new"
	kernel link "$O/none" "$R/new"
	kernel link "$R/f" "$O/new/"
	kernel rename "$R/none" "$O/new"
	kernel rename "$R/f" "$O/d/"
	kernel rename "$R/f/" "$O/new"
	kernel renameat2 . "$R/f" . "$O/f" NOREPLACE
	kernel renameat2 . "$R/f" . "$O/new" EXCHANGE
	# Both paths wrong: the source is looked up first, then the new name.
	kernel link "$R/none" "$O/f/x"
	kernel link "$R/f/x" "$O/none/x"
	kernel linkat . "$R/none" . "$O/f/x" 0
	# Flags, "." and "..", and the two ends of a move, before any permission.
	kernel renameat2 . "$R/f" . "$O/f" "NOREPLACE|EXCHANGE"
	kernel linkat . "$R/f" . "$O/new" REMOVEDIR
	kernel unlinkat . "$O/f" SYMLINK_FOLLOW
	kernel rename "$O/d/." "$R/x"
	kernel rename "$R/f" "$O/d/.."
	kernel rename "$O" "$O/d/x"
	kernel rename "$O/d" "$O/ld/x"
	kernel rename "$O/d" "$T"
	kernel renameat2 . "$O/d" . "$T" EXCHANGE
	kernel rmdir "$O/d/."
	kernel rmdir "$O/d/.."
	kernel remove "$O/d/."
	kernel unlinkat . "$O/d/.." REMOVEDIR
	kernel symlink "" "$O/new"
	# Only mkdir makes "name/": a symlink by that name is ENOENT (EEXIST if it is there).
	kernel symlink x "$O/new/"
	kernel symlink x "$O/f/"
	kernel symlinkat x . "$O/new/"
	# O_CREAT follows a final link: where it cannot lead, the kernel says so.
	kernel open "$O/loop" "WRONLY|CREAT"
	kernel open "$O/loop" "WRONLY|CREAT|TRUNC"
	kernel open "$O/dnone" "WRONLY|CREAT"
	kernel open "$O/dfile" "WRONLY|CREAT"
	kernel fopen "$O/loop" a
	# unlink never removes "name/"; rmdir does.
	kernel unlink "$O/d/"
	kernel unlink "$O/f/"
	kernel unlinkat . "$O/d/" 0
	kernel unlinkat . "$O/none" REMOVEDIR
	# Calls judged on their path alone: bind's name must be new.
	kernel bind "$O/f"
	kernel bind "$O/d"
	kernel bind "$O/none/x"
	kernel bind "$O/f/x"
	kernel fopen "$O/none/x" "w,ccs=UTF-8"
	kernel fopen "$O/d" "w,ccs=UTF-8"
	kernel fopen "$O/f/x" "a,ccs=UTF-8"
	kernel truncate "$O/none" 0
	# What the kernel would do stays refused.
	refused mkdir "$O/new"
	refused open "$O/f" RDWR
	refused open "$O/new" "WRONLY|CREAT"
	refused unlink "$O/f"
	refused rename "$R/f" "$O/f"
	refused rename "$R/f" "$O/new"
	refused chmod "$O/f" 600
	refused link "$R/f" "$O/new"
	refused rmdir "$O/d/"
	refused unlinkat . "$O/d/" REMOVEDIR
	refused remove "$O/d/"
	refused renameat2 . "$R/f" . "$O/f" EXCHANGE
	refused bind "$O/sock"
	refused fopen "$O/f" "w,ccs=UTF-8"
	refused open "$O/dangling" "WRONLY|CREAT"
	refused renameat2 . "$R/f" . "$O/d" EXCHANGE
done
unset FA_FORCE_FALLBACK

# Every call against every kind of outside path, decided by bare libc on a
# fresh copy of the tree: where libc fails (other than EACCES) fa-run gives
# the same answer silently; where libc succeeds fa-run refuses, with one
# line, and changes nothing.
TPL=$T/template
mkdir -p "$TPL/d" "$T/rtemplate/d"
echo theirs >"$TPL/f"
echo mine >"$T/rtemplate/f"
ln -s none2 "$TPL/dl"
ln -s f "$TPL/fl"
fresh_out() {
	rm -rf "$O" "$R"
	cp -a "$TPL" "$O"
	cp -a "$T/rtemplate" "$R"
}
matrix() {
	local bare now
	fresh_out
	bare=$(cd "$R" && "$CT" "$@" 2>/dev/null)
	fresh_out
	outside=$(tree)
	case $bare in
	"err EACCES") fail "matrix $*: bare libc says EACCES" ;;
	# Once it has found the entry, the kernel asks for permission before
	# it looks at the type of what is removed or replaced: there the
	# refusal comes first. (A lookup that fails on the way is the
	# kernel's own answer, above.)
	"err ENOTDIR" | "err EISDIR" | "err ENOTEMPTY")
		case $1:$KIND in
		rmdir:[fd]* | unlink:[fd]* | remove:[fd]* | rename:[fd]*) refused "$@" ;;
		*) kernel "$@" ;;
		esac
		;;
	err*) kernel "$@" ;;
	*) refused "$@" ;;
	esac
}
for m in "" fallback; do
	if [ -n "$m" ]; then
		export FA_FORCE_FALLBACK=1
	fi
	for p in none f d f/x none/x dl fl d/ f/; do
		P=$O/$p
		# f, d, dl, fl, d/: found by the lookup; f/ and f/x fail in it
		case $p in f/*) KIND=lookup ;; *) KIND=$p ;; esac
		k=$KIND
		for fn in mkdir rmdir unlink remove creat mkfifo mknod lchown chown; do
			# unlink("name/") fails before the permission check, whatever
			# the name is; rmdir("d/") and remove("d/") would run.
			case $fn:$p in unlink:*/) KIND=lookup ;; *) KIND=$k ;; esac
			matrix $fn "$P"
		done
		KIND=$k
		matrix chmod "$P" 600
		matrix truncate "$P" 0
		matrix symlink x "$P"
		matrix rename "$P" "$R/moved"
		matrix link "$R/f" "$P"
		# A file moved onto "name/" is ENOTDIR before the permission check.
		case $p in */) KIND=lookup ;; esac
		matrix rename "$R/f" "$P"
		KIND=$k
		for fl in RDWR "WRONLY|TRUNC" "WRONLY|CREAT" "WRONLY|CREAT|EXCL" "RDWR|NOFOLLOW" \
			"RDONLY|CREAT" "RDWR|TMPFILE" "WRONLY|DIRECTORY"; do
			matrix open "$P" "$fl"
		done
	done
done
unset FA_FORCE_FALLBACK
fresh_out

# Inside the root nothing is refused, and a call fa-run cannot judge the
# usual way is no reason for another answer: the very errno bare libc
# gives, or the very link it makes, silently. A hard link to a symlink is
# the symlink once more: one that never ends (or leads to nothing yet) is
# linked as bare libc links it; one whose chain passes outside is not.
# Each case runs bare and under fa-run on a fresh copy of one tree.
STPL=$T/stemplate
mkdir -p "$STPL/root/d" "$STPL/out"
echo mine >"$STPL/root/f"
echo theirs >"$STPL/out/f"
ln -s loop "$STPL/root/loop"
ln -s b "$STPL/root/a"
ln -s a "$STPL/root/b"
ln -s made "$STPL/root/dangling"
ln -s f "$STPL/root/fl"
ln -s "$O/f" "$STPL/root/lout"
ln -s "$O/m" "$STPL/root/viaout"
ln -s "$R/viaout" "$STPL/out/m"
fresh_same() {
	rm -rf "$O" "$R"
	cp -a "$STPL/root" "$R"
	cp -a "$STPL/out" "$O"
	mkdir "$R/g"
}
# Names, types, link counts and link texts: what a call made or removed.
names() { (cd "$T" && find root out -printf '%p %y %n %l\n' | sort); }

# same FUNC ARG...: fa-run's answer and tree are bare libc's, and it prints nothing.
same() {
	local bare btree
	fresh_same
	bare=$(cd "$R" && "$CT" "$@" 2>&1)
	btree=$(names)
	fresh_same
	run -- "$CT" "$@"
	check "same $*" "$bare" "$got"
	check "same $*: the tree" "$btree" "$(names)"
	if [ -s "$T/e" ]; then fail "same $*: printed $(cat "$T/e")"; else pass; fi
}

# in_removed COMMAND...: COMMAND runs calltest's "removed $R/g FUNC ARG...",
# and this shell removes $R/g once the program has made its first call
# there (what the program was told of its directory is then out of date);
# its output in $got, fa-run's messages in $T/e.
in_removed() {
	local line=
	fresh_same
	rm -f "$T/to" "$T/from"
	mkfifo "$T/to" "$T/from"
	"$@" <"$T/to" >"$T/from" 2>"$T/e" &
	exec 4>"$T/to" 3<"$T/from"
	read -r line <&3
	rmdir "$R/g"
	[ "$line" != "?" ] || echo go >&4
	exec 4>&-
	got=$(cat <&3)
	exec 3<&-
	wait $!
}
# removed FUNC ARG...: the same as bare libc in a directory removed meanwhile, silently.
removed() {
	local bare
	in_removed "$CT" removed "$R/g" "$@"
	bare=$got
	in_removed "$FA_RUN" -w "$R" -- "$CT" removed "$R/g" "$@"
	check "removed $*" "$bare" "$got"
	if [ -s "$T/e" ]; then fail "removed $*: printed $(cat "$T/e")"; else pass; fi
}

for m in "" fallback; do
	if [ -n "$m" ]; then
		export FA_FORCE_FALLBACK=1
	fi
	# A hard link to a link that never ends, or that leads nowhere yet.
	same link loop h
	same link a d/h
	same linkat . b . h 0
	same linkat . loop . h SYMLINK_FOLLOW
	same link dangling h
	same link fl h
	same symlink loop h
	same symlink a d/h
	# Two wrong paths: the kernel looks up the source, then the new name.
	same link none f/x
	same link f/x none/x
	same linkat . none gone:"$R/g" h 0
	same linkat . f/x . d/none/h 0
	same rename none f/x
	same rename f/x none/x
	# A symlink's new name is looked up before its target.
	same symlink loop f
	same symlink loop f/
	# O_CREAT through a link that never ends.
	same open loop "WRONLY|CREAT|TRUNC"
	same creat a
	# A directory removed: nothing can be made or found in it.
	same openat gone:"$R/g" h "WRONLY|CREAT"
	same symlinkat x gone:"$R/g" h
	same mkdirat gone:"$R/g" h
	same linkat . f gone:"$R/g" h 0
	same unlinkat gone:"$R/g" h 0
	removed symlink x h
	removed link ../f h
	removed mkdir h
	removed open h "WRONLY|CREAT"
	# What passes outside stays refused.
	fresh_same
	outside=$(tree)
	refused link lout h
	refused link viaout h
	refused symlink viaout h
done
unset FA_FORCE_FALLBACK
fresh_out

# Real programs: directories made on the way to the root are no denials.
run -- mkdir -p "$R/a/b/c"
check "mkdir -p inside" "" "$(cat "$T/e")"
[ -d "$R/a/b/c" ] && pass || fail "mkdir -p did not make $R/a/b/c"
if runs_here install; then
	run -- install -d "$R/prefix/share/man/man1"
	check "install -d inside" "" "$(cat "$T/e")"
fi
run -- mkdir -p "$O/d"
check "mkdir -p of an existing outside directory" "" "$(cat "$T/e")"
run -- mkdir -p "$O/new/x"
if grep -q "denied mkdir" "$T/e" && [ ! -e "$O/new" ]; then pass; else
	fail "mkdir -p outside: $(cat "$T/e")"
fi
[ -z "$ABSENT" ] || echo "not in this libc, not run:$ABSENT"
finish
