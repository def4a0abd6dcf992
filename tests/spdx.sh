#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every source file says its license in its first lines (after a shebang):
# C, headers and the wrapper table, Python, shell, the build files and the
# templates configure fills. The tracked files when the tree is a git
# checkout, else those of the unpacked tarball.
set -u
top=${FA_SRCDIR:-.}
tag='SPDX-License-Identifier: Apache-2.0'
# A tarball unpacked inside another checkout is no checkout of its own.
gittop=$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)
if [ -n "$gittop" ] && [ "$(cd "$gittop" && pwd -P)" = "$(cd "$top" && pwd -P)" ]; then
	files=$(git -C "$top" ls-files)
else
	files=$(cd "$top" && find src pyhook tests scripts bench examples pybuild .ci Makefile.am configure.ac \
		pyproject.toml -type f 2>/dev/null)
fi
fail=0 n=0
for f in $files; do
	case $f in
	*.c | *.h | *.def | *.py | *.pyi | *.sh | *.mk | *.in | *.toml | Makefile.am | configure.ac | \
		scripts/* | .ci/*) ;;
	*) head -n 1 "$top/$f" 2>/dev/null | grep -q '^#!' || continue ;;
	esac
	case $f in */Makefile.in | Makefile.in) continue ;; esac
	n=$((n + 1))
	head -n 3 "$top/$f" | grep -qF "$tag" || { echo "FAIL: $f has no '$tag' in its first lines"; fail=1; }
done
[ "$n" -gt 200 ] || { echo "FAIL: only $n source files found under $top"; fail=1; }
[ $fail = 0 ] && echo "$n source files, each with its SPDX license identifier"
exit $fail
