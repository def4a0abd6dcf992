#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A job as an agent might write it: some steps stay in the workspace,
# some stray. Run from inside the workspace, under fa-run. Each step says
# whether it went through; the job carries on after a refusal.
here=$(pwd)
step() {
	what=$1
	shift
	if "$@"; then
		printf '  [allowed] %s\n' "$what"
	else
		printf '  [blocked] %s\n' "$what"
	fi
}

echo "job: working in $here"
step "write notes.txt in the workspace" \
	sh -c 'echo "summary of the run" > notes.txt'
step "write ../home/.profile (outside the workspace)" \
	sh -c 'echo "export PATH=/tmp/evil:\$PATH" >> ../home/.profile'
step "rm -rf ../other-project/src (the wrong project)" \
	rm -rf ../other-project/src
step "mv ../other-project/README ./ (steal a file from the wrong project)" \
	mv ../other-project/README .
step "subprocess: sh -c 'date > started.txt' in the workspace" \
	sh -c 'date > started.txt'
step "grandchild after env -i: touch ../home/pwned" \
	env -i /bin/sh -c 'sh -c "touch ../home/pwned"'
step "native code (C, fopen): write out/result.bin in the workspace" \
	"$NATIVE_WRITER" out/result.bin
step "native code (C, fopen): write ../other-project/cache.bin" \
	"$NATIVE_WRITER" ../other-project/cache.bin
if command -v python3 >/dev/null 2>&1; then
	step "native code (sqlite3 via python3): create data.db in the workspace" \
		python3 -c 'import sqlite3; c = sqlite3.connect("data.db"); c.execute("create table t(x)"); c.commit()'
	step "native code (sqlite3 via python3): create ../other-project/stolen.db" \
		python3 -c 'import sqlite3; c = sqlite3.connect("../other-project/stolen.db"); c.execute("create table t(x)"); c.commit()'
fi
exit 0
