#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh - real jobs under fa-run, not micro-benchmarks: tar -x of an
# archive, cp -a of a tree, git checkout between two branches and pip
# install into a venv (pip reinstalling itself from its bundled wheel,
# no network, no byte-compiling), each run bare, under the kernel floor alone, under
# the preload alone (fa-run --landlock=off) and under both (fa-run
# --landlock=on). Settings run in turn ROUNDS times, the order rotating;
# each round's times are divided by the same round's bare time (paired),
# and the median ratio is printed, with the median bare time.
#
#   FA_RUN=build/fa-run FLOOR_EXEC=build/bench/shim/floor-exec PYTHON=python3 \
#       bench/jobs/run.sh [ROUNDS]
#
# BENCH_JOBS="tar-x cp-a" runs only those jobs; BENCH_FILES sets the tree's size.
set -eu

: "${FA_RUN:?path of fa-run}"
: "${FLOOR_EXEC:?path of the floor-exec binary}"
: "${PYTHON:=python3}"
ROUNDS=${1:-5}
FILES=${BENCH_FILES:-3000}

# tmpfs by default: the figures are fa-run's cost, not the disk's.
base=${BENCH_DIR:-/dev/shm}
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
W=$(mktemp -d "$base/fa-jobs.XXXXXX")
trap 'rm -rf "$W"' EXIT
W=$(cd "$W" && pwd -P)
HOME=$W
TMPDIR=$W/tmp
export HOME TMPDIR
mkdir -p "$TMPDIR"

floors=floor
"$FLOOR_EXEC" "$W" -- true 2>/dev/null || floors=

# ---- the material: a tree of small files, its archive, a repository, a wheel ----
mkdir -p "$W/src"
i=0
while [ "$i" -lt "$FILES" ]; do
	d=$W/src/d$((i / 50))/e$((i % 5))
	[ -d "$d" ] || mkdir -p "$d"
	echo "file $i of the benchmark tree" >"$d/f$i.txt"
	i=$((i + 1))
done
chmod 0755 "$W/src"/d0/e0/f0.txt
tar -cf "$W/tree.tar" -C "$W" src
git init -q "$W/repo"
cp -a "$W/src/." "$W/repo/"
git -C "$W/repo" add -A
git -C "$W/repo" -c user.name=b -c user.email=b@b commit -qm a
git -C "$W/repo" branch -q -M a
git -C "$W/repo" checkout -q -b b
find "$W/repo" -name 'f*[02468].txt' -exec sh -c 'for f; do echo changed >>"$f"; done' sh {} +
find "$W/repo" -name 'f*5.txt' -delete
git -C "$W/repo" add -A
git -C "$W/repo" -c user.name=b -c user.email=b@b commit -qm b
git -C "$W/repo" checkout -q a
wheel=$("$PYTHON" -c 'import ensurepip, glob, os; print(sorted(glob.glob(os.path.join(os.path.dirname(ensurepip.__file__), "_bundled", "pip-*.whl")))[-1])' 2>/dev/null) || wheel=
jobs="tar-x cp-a git-checkout"
if [ -n "$wheel" ] && "$PYTHON" -m venv --without-pip "$W/venv" 2>/dev/null; then
	jobs="$jobs pip-install"
fi
if [ -n "${BENCH_JOBS:-}" ]; then
	want=
	for j in $BENCH_JOBS; do
		case " $jobs " in
		*" $j "*) want="$want $j" ;;
		*) echo "run.sh: no job named $j here (jobs: $jobs)" >&2; exit 2 ;;
		esac
	done
	jobs=${want# }
fi

# What runs outside the clock before each job.
prepare() {
	case $1 in
	tar-x) rm -rf "$W/out" && mkdir "$W/out" ;;
	cp-a) rm -rf "$W/copy" ;;
	*) ;;
	esac
}
# The jobs, as one script every setting starts the same way.
cat >"$W/job.sh" <<JOB
W='$W'
wheel='$wheel'
case \$1 in
tar-x) tar -xf "\$W/tree.tar" -C "\$W/out" ;;
cp-a) cp -a "\$W/src" "\$W/copy" ;;
git-checkout) git -C "\$W/repo" checkout -q b && git -C "\$W/repo" checkout -q a ;;
pip-install) "\$W/venv/bin/python" "\$wheel/pip" install -q --no-index --no-deps \\
	--no-cache-dir --no-compile --disable-pip-version-check --force-reinstall "\$wheel" ;;
esac
JOB
setting() {	# setting SETTING JOB
	case $1 in
	bare) sh "$W/job.sh" "$2" ;;
	floor) "$FLOOR_EXEC" "$W" -- sh "$W/job.sh" "$2" ;;
	preload) "$FA_RUN" --landlock=off -w "$W" -- sh "$W/job.sh" "$2" ;;
	both) "$FA_RUN" --landlock=on -w "$W" -- sh "$W/job.sh" "$2" ;;
	esac
}

set -- bare $floors preload both
for j in $jobs; do
	r=0
	order="$*"
	while [ "$r" -lt "$ROUNDS" ]; do
		for s in $order; do
			prepare "$j"
			t0=$(date +%s%N)
			setting "$s" "$j" >/dev/null 2>"$W/err" || { echo "$j under $s failed: $(cat "$W/err")" >&2; exit 1; }
			t1=$(date +%s%N)
			echo "$r $j $s $(((t1 - t0) / 1000))"
		done
		order="${order#* } ${order%% *}"
		r=$((r + 1))
	done
done >"$W/raw"

echo "real jobs: median of $ROUNDS paired runs, ratio to bare in the same round"
echo "$(uname -sr), $(nproc) CPUs, files on $(df -T "$W" | awk 'NR == 2 { print $2 }'), $FILES files"
awk -v settings="$*" '
	{ t[$1 " " $2 " " $3] = $4; if (!($2 in jobs)) { jobs[$2] = 1; job[++nj] = $2 } rounds[$1] = 1 }
	function median(a, n,   i, j, x) {
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		ns = split(settings, s, " ")
		printf "%-14s %10s", "job", "bare (ms)"
		for (k = 2; k <= ns; k++) printf " %10s", s[k] == "both" ? "floor+pre" : s[k] == "preload" ? "preload" : s[k]
		printf "  target\n"
		for (jj = 1; jj <= nj; jj++) {
			j = job[jj]
			n = 0
			for (r in rounds) b[++n] = t[r " " j " bare"]
			printf "%-14s %10.0f", j, median(b, n) / 1000
			for (k = 2; k <= ns; k++) {
				n = 0
				for (r in rounds) q[++n] = t[r " " j " " s[k]] / t[r " " j " bare"]
				printf " %9.2fx", median(q, n)
			}
			printf "  preload<=1.10 both<=1.15\n"
		}
	}' "$W/raw"
