#!/bin/sh
# What the shim costs in syscalls, read from strace between two markers
# that calltest makes around the call (CALLTEST_MARK):
#  - with the shim loaded and no policy, exactly the syscalls of bare libc;
#  - with a policy, a write-open is still one syscall (one openat2 in
#    place of the openat), whether the path is absolute or relative to the
#    current directory; a read-open is the very same syscall.
# A dirfd-relative write-open is left out: what the dirfd names has to be
# read first.
. "${FA_SRCDIR:?run through make check}/tests/e2e/lib.sh" || exit 99

if ! command -v strace >/dev/null 2>&1; then
	echo "SKIP: no strace" >&2
	exit 77
fi
if [ -n "$FA_SANITIZERS" ]; then
	echo "SKIP: the sanitizer runtime makes syscalls of its own" >&2
	exit 77
fi

CT=$E2E/calltest
IN=$T/in
OUT=$T/out

fresh() {
	rm -rf "$IN" "$OUT"
	mkdir -p "$IN" "$OUT"
	echo data >"$IN/f"
	echo secret >"$OUT/f"
}

# trace bare|none|checked FUNC ARG...: the names of the syscalls the case
# made, between calltest's markers. strace -E hands the preload to the
# traced program only, not to strace.
trace() {
	local how=$1 e=()
	shift
	case $how in
	none) e=(-E "LD_PRELOAD=$PRELOAD") ;;
	checked) e=(-E "LD_PRELOAD=$PRELOAD" -E "FA_POLICY=$POL") ;;
	esac
	fresh
	(cd "$IN" && CALLTEST_MARK=1 strace -f -qq "${e[@]}" -o "$T/trace" "$CT" "$@" >/dev/null 2>&1)
	# glibc seeds its temporary-name randomness with getrandom only now and
	# then (mkstemp): that call is libc's, not the shim's, so it is left out.
	sed -n '/getppid()/,/getppid()/p' "$T/trace" | sed 's/^[0-9]* *//; s/(.*//' |
		grep -v -e '^getppid$' -e '^getrandom$' | tr '\n' ' '
}

policy "root $IN"
for args in "open $IN/new WRONLY|CREAT|TRUNC" "open $OUT/f RDONLY" "openat $IN new WRONLY|CREAT" \
	"fopen $IN/new w" "creat $IN/new" "unlink $IN/f" "rename $IN/f $IN/f2" "mkdir $IN/n" \
	"chmod $IN/f 600" "symlink f $IN/s" "truncate $IN/f 0" "mkstemp $IN"; do
	# shellcheck disable=SC2086
	want=$(trace bare $args)
	# shellcheck disable=SC2086
	got=$(trace none $args)
	check "no extra syscall without a policy: $args" "$want" "$got"
done
for args in "open $IN/new WRONLY|CREAT|TRUNC" "open $IN/f WRONLY|TRUNC" \
	"open new WRONLY|CREAT" "openat . new WRONLY|CREAT" "creat $IN/new"; do
	# shellcheck disable=SC2086
	want=$(trace bare $args | wc -w)
	# shellcheck disable=SC2086
	got=$(trace checked $args | wc -w)
	check "a checked write-open costs no extra syscall: $args" "$want" "$got"
done
# Reads are free under a policy too: the very same syscalls.
check "a read under a policy costs nothing" "$(trace bare open "$OUT/f" RDONLY)" \
	"$(trace checked open "$OUT/f" RDONLY)"

finish

