#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fa-check: PathFence's JSON lines and exit codes, from the built program.
set -u
check=${FA_CHECK:-./fa-check}
[ -x "$check" ] || { echo "fa-check not built: $check"; exit 77; }
top=$(mktemp -d /tmp/fa-check-XXXXXX)
trap 'rm -rf "$top"' EXIT
mkdir -p "$top/allowed_dir/a" "$top/allowed_dir/.git" "$top/allowed_dir_malicious" "$top/outside"
ln -s ../outside "$top/allowed_dir/out"
ln -s a "$top/allowed_dir/in"
fail=0

# expect STATUS LINE... -- ARGS...: each output line must equal the next LINE
expect() {
	want_status=$1; shift
	want=
	while [ "$1" != -- ]; do want="$want$1
"; shift; done
	shift
	got=$(cd "$top" && "$check" "$@" 2>"$top/err"; echo "status=$?")
	want="${want}status=$want_status"
	if [ "$got" != "$want" ]; then
		echo "FAIL: fa-check $*"
		echo "--- want"; echo "$want"; echo "--- got"; echo "$got"; cat "$top/err"
		fail=1
	fi
}

A=$top/allowed_dir
for FA_FORCE_FALLBACK in 0 1; do
export FA_FORCE_FALLBACK
expect 1 \
	"{\"input\":\"$top/allowed_dir_malicious/secret\",\"decision\":\"deny\",\"path\":\"$top/allowed_dir_malicious/secret\",\"reason\":\"outside-roots\"}" \
	'{"input":"../x","decision":"reject","reason":"escapes"}' \
	"{\"input\":\"a/../b\",\"decision\":\"allow\",\"path\":\"$A/b\",\"root\":\"$A\",\"rel\":\"b\"}" \
	-- --allow "$A" -- "$top/allowed_dir_malicious/secret" ../x a/../b

expect 0 \
	"{\"input\":\"a/x\",\"decision\":\"allow\",\"path\":\"$A/a/x\",\"root\":\"$A\",\"rel\":\"a/x\"}" \
	"{\"input\":\"in/y\",\"decision\":\"allow\",\"path\":\"$A/a/y\",\"root\":\"$A\",\"rel\":\"a/y\"}" \
	"{\"input\":\"$A\",\"decision\":\"allow\",\"path\":\"$A\",\"root\":\"$A\",\"rel\":\".\"}" \
	-- --allow "$A" a/x in/y "$A"

# symlinks per mode, deny subtrees, empty input
expect 1 \
	"{\"input\":\"out/z\",\"decision\":\"deny\",\"path\":\"$top/outside/z\",\"reason\":\"outside-roots\"}" \
	"{\"input\":\".git/config\",\"decision\":\"deny\",\"path\":\"$A/.git/config\",\"reason\":\"deny-subtree\"}" \
	'{"input":"","decision":"reject","reason":"empty"}' \
	-- --allow "$A" --deny "$A/.git" -- out/z .git/config ""
# A symlink refusal names the link.
expect 1 \
	"{\"input\":\"in/y\",\"decision\":\"deny\",\"path\":\"$A/in\",\"reason\":\"symlink\"}" \
	-- --allow "$A" --symlinks=nofollow in/y
expect 1 \
	"{\"input\":\"out/z\",\"decision\":\"deny\",\"path\":\"$A/out\",\"reason\":\"symlink\"}" \
	-- --allow "$A" --symlinks beneath out/z

# a second root; relative inputs still join the first
expect 0 \
	"{\"input\":\"$top/outside/q\",\"decision\":\"allow\",\"path\":\"$top/outside/q\",\"root\":\"$top/outside\",\"rel\":\"q\"}" \
	-- --allow "$A" --allow "$top/outside" "$top/outside/q"

# --portable
expect 1 \
	'{"input":"a/CON.txt","decision":"reject","reason":"not-portable"}' \
	'{"input":"nul","decision":"reject","reason":"not-portable"}' \
	'{"input":"x.","decision":"reject","reason":"not-portable"}' \
	"{\"input\":\"ok.txt\",\"decision\":\"allow\",\"path\":\"$A/ok.txt\",\"root\":\"$A\",\"rel\":\"ok.txt\"}" \
	-- --allow "$A" --portable a/CON.txt nul x. ok.txt

# JSON escaping: quotes, backslashes, control characters, bytes that are not UTF-8
tab=$(printf 'a\tb')
bad=$(printf 'x\377y')
expect 0 \
	"{\"input\":\"q\\\"b\\\\s\",\"decision\":\"allow\",\"path\":\"$A/q\\\"b\\\\s\",\"root\":\"$A\",\"rel\":\"q\\\"b\\\\s\"}" \
	"{\"input\":\"a\\u0009b\",\"decision\":\"allow\",\"path\":\"$A/a\\u0009b\",\"root\":\"$A\",\"rel\":\"a\\u0009b\"}" \
	"{\"input\":\"x\\u00ffy\",\"decision\":\"allow\",\"path\":\"$A/x\\u00ffy\",\"root\":\"$A\",\"rel\":\"x\\u00ffy\"}" \
	"{\"input\":\"é\",\"decision\":\"allow\",\"path\":\"$A/é\",\"root\":\"$A\",\"rel\":\"é\"}" \
	-- --allow "$A" 'q"b\s' "$tab" "$bad" 'é'

# patterns: writes by --deny-glob, reads (--read) by --deny-read
mkdir -p "$A/pd"
echo k >"$A/pd/k.key"
expect 1 \
	"{\"input\":\"pd/../x/.env\",\"decision\":\"deny\",\"path\":\"$A/x/.env\",\"reason\":\"deny-pattern\"}" \
	"{\"input\":\"x/env\",\"decision\":\"allow\",\"path\":\"$A/x/env\",\"root\":\"$A\",\"rel\":\"x/env\"}" \
	-- --allow "$A" --deny-glob '**/.env' pd/../x/.env x/env
expect 1 \
	"{\"input\":\"pd/k.key\",\"decision\":\"deny\",\"path\":\"$A/pd/k.key\",\"reason\":\"deny-read\"}" \
	"{\"input\":\"pd\",\"decision\":\"allow\",\"path\":\"$A/pd\"}" \
	-- --allow "$A" --deny-read '**/*.key' --read pd/k.key pd
rm -r "$A/pd"

done

# usage and policy errors: status 2, nothing judged
for args in "" "--allow $A" "x" "--allow $A --symlinks=weird x" "--allow $A --deny $top/outside x" \
	"--bogus --allow $A x" "--allow $A --deny-glob !x x" "--allow $A --deny-glob a/../b x"; do
	# shellcheck disable=SC2086
	out=$(cd "$top" && "$check" $args 2>/dev/null); st=$?
	if [ $st -ne 2 ] || [ -n "$out" ]; then
		echo "FAIL: fa-check $args: status $st, output '$out' (want 2, nothing)"
		fail=1
	fi
done
"$check" --help | grep -q 'usage: fa-check' || { echo "FAIL: --help"; fail=1; }
exit $fail
