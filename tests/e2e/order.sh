#!/bin/sh
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
tree() { snapshot "$O"; snapshot "$R"; }
outside=$(tree)

# run [FA-RUN ARGS...] -- COMMAND...: in $R, stdout in $got, stderr in $T/e.
run() {
	fa_run_in "$R" -w "$R" "$@"
	got=$(cat "$T/o")
}

# kernel FUNC ARG...: under fa-run, the very answer bare libc gives, silently.
kernel() {
	local bare now
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

# Real programs: directories made on the way to the root are no denials.
run -- mkdir -p "$R/a/b/c"
check "mkdir -p inside" "" "$(cat "$T/e")"
[ -d "$R/a/b/c" ] && pass || fail "mkdir -p did not make $R/a/b/c"
run -- install -d "$R/prefix/share/man/man1"
check "install -d inside" "" "$(cat "$T/e")"
run -- mkdir -p "$O/d"
check "mkdir -p of an existing outside directory" "" "$(cat "$T/e")"
run -- mkdir -p "$O/new/x"
if grep -q "denied mkdir" "$T/e" && [ ! -e "$O/new" ]; then pass; else
	fail "mkdir -p outside: $(cat "$T/e")"
fi
finish
