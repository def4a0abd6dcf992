#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The documentation stays true:
#  1. doc/ARCHITECTURE.md: every file it names exists, and every function it
#     names (`name()`) is defined somewhere in the sources;
#  2. README.md, the top-level pages and doc/*.md: every file of the source
#     tree they name (`src/...`, `scripts/...`, ...) and every page they link
#     to exists, every `make TARGET` is a target, every `python -m fastaudit
#     CMD` a command;
#  3. every fa-run or fa-check option they name is one the program's --help
#     lists, and `fa-run --help` and doc/fa-run.1 list the same options.
set -u
top=${FA_SRCDIR:-.}
doc=$top/doc/ARCHITECTURE.md
[ -f "$doc" ] || { echo "FAIL: $doc missing"; exit 1; }
fail=0 nfiles=0 nfuncs=0
for f in $(grep -o '`[A-Za-z0-9_./-]*`' "$doc" | tr -d '`' | grep '/' | grep -v '^/' | sort -u); do
	nfiles=$((nfiles + 1))
	[ -e "$top/$f" ] || { echo "FAIL: doc/ARCHITECTURE.md names $f, which does not exist"; fail=1; }
done
for fn in $(grep -o '`[A-Za-z_][A-Za-z0-9_]*()`' "$doc" | tr -d '`()' | sort -u); do
	nfuncs=$((nfuncs + 1))
	if ! grep -rqE "^([a-z].*[ *])?$fn\(|^$fn\(" "$top/src" "$top/pyhook" 2>/dev/null; then
		echo "FAIL: doc/ARCHITECTURE.md names $fn(), which no source file defines"
		fail=1
	fi
done
[ "$nfiles" -gt 20 ] && [ "$nfuncs" -gt 10 ] || { echo "FAIL: too few names read ($nfiles files, $nfuncs functions): is the page's format still backquoted names?"; fail=1; }
[ $fail = 0 ] && echo "doc/ARCHITECTURE.md: $nfiles files and $nfuncs functions named, all present"

pages="$top/README.md $top/CONTRIBUTING.md $top/SECURITY.md $top/NEWS.md $(ls "$top"/doc/*.md)"
for p in $pages; do
	[ -f "$p" ] || { echo "FAIL: $p missing"; fail=1; }
done
# Paths of the source tree, backquoted: src/..., tests/..., and so on.
npaths=0
for p in $pages; do
	name=${p#"$top/"}
	for f in $(grep -o '`\(src\|pyhook\|tests\|doc\|scripts\|examples\|bench\|pybuild\)/[A-Za-z0-9_./-]*' "$p" |
		tr -d '`' | sed 's/[.,:;]$//' | sort -u); do
		npaths=$((npaths + 1))
		[ -e "$top/$f" ] || { echo "FAIL: $name names $f, which does not exist"; fail=1; }
	done
	# Links to pages: [text](target), not to the web, relative to the page.
	dir=$(dirname "$p")
	for l in $(grep -o '](\([^)#:]*\))' "$p" | sed 's/^](//; s/)$//' | sort -u); do
		npaths=$((npaths + 1))
		[ -e "$dir/$l" ] || { echo "FAIL: $name links to $l, which does not exist"; fail=1; }
	done
	# make TARGET: a target of the build (automake's own, or one a .mk defines).
	for t in $(grep -o '\(`\|^\$ \|^\)make \([A-Z_]*=[^ ]* \|-[a-z] [^ ]* \)*[a-z][a-z0-9-]*' "$p" |
		sed 's/.* //' | sort -u); do
		case $t in
		check | install | install-strip | dist | distcheck | all | clean | uninstall | *-) continue ;;
		esac
		# shellcheck disable=SC2046 # the .mk files of the tree have no spaces in their names
		grep -q "^$t:" "$top/Makefile.am" $(find "$top/src" "$top/pyhook" "$top/tests" "$top/bench" -name '*.mk') ||
			{ echo "FAIL: $name names make $t, which no Makefile.am or .mk defines"; fail=1; }
	done
	for c in $(grep -o 'python -m fastaudit [a-z]*' "$p" | sed 's/.* //' | sort -u); do
		grep -q "'$c'" "$top/pyhook/fastaudit/__main__.py" ||
			{ echo "FAIL: $name names python -m fastaudit $c, which __main__.py does not know"; fail=1; }
	done
done
[ "$npaths" -gt 50 ] || { echo "FAIL: too few paths read from the pages ($npaths)"; fail=1; }

# Options: those the pages give fa-run and fa-check, against each --help.
fa_run=${FA_RUN:-${FA_BUILDDIR:-.}/fa-run}
fa_check=${FA_CHECK:-${FA_BUILDDIR:-.}/fa-check}
opts_of_help() {
	"$1" --help 2>&1 | grep -o '^ *\(-[a-z], \)\?--[a-z][a-z-]*' | sed 's/.*--/--/' | sort -u
}
if [ -x "$fa_run" ] && [ -x "$fa_check" ]; then
	run_opts=$(opts_of_help "$fa_run")
	check_opts=$(opts_of_help "$fa_check"; "$fa_check" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u)
	man_opts=$(grep -A1 '^\.TP' "$top/doc/fa-run.1" | grep -o '^\\fB\\-\\-[a-z\\-]*\|, \\fB\\-\\-[a-z\\-]*' |
		sed 's/.*fB//; s/\\-/-/g; s/\\f.*//' | sort -u)
	if [ "$run_opts" != "$man_opts" ]; then
		echo "FAIL: fa-run --help and doc/fa-run.1 list different options:"
		echo "  --help only: $(printf '%s\n' "$run_opts" | grep -vxF -e "$man_opts" | tr '\n' ' ')"
		echo "  fa-run.1 only: $(printf '%s\n' "$man_opts" | grep -vxF -e "$run_opts" | tr '\n' ' ')"
		fail=1
	fi
	[ "$(printf '%s\n' "$run_opts" | wc -l)" -gt 15 ] ||
		{ echo "FAIL: too few fa-run options read from --help"; fail=1; }
	# named PAGE NAME TOOL COMMAND OPTIONS: the options PAGE gives TOOL
	# (every option in TOOL's own page doc/TOOL.md; elsewhere those on a
	# command line matching COMMAND) are among OPTIONS, what its --help lists.
	named() {
		if [ "$2" = "doc/$3.md" ]; then
			used=$(grep -o -- '--[a-z][a-z-]*' "$1")
		else
			used=$(grep -o "$4 [^\`|]*" "$1" | grep -o -- ' --[a-z][a-z-]*' | tr -d ' ')
		fi
		for o in $(printf '%s\n' $used | sort -u); do
			printf '%s\n' "$5" | grep -qxF -- "$o" ||
				{ echo "FAIL: $2 gives $3 $o, which $3 --help does not list"; fail=1; }
		done
	}
	for p in $pages; do
		name=${p#"$top/"}
		named "$p" "$name" fa-run '\(fa-run\|fastaudit run\)' "$run_opts"
		named "$p" "$name" fa-check fa-check "$check_opts"
	done
else
	echo "FAIL: no fa-run or fa-check built to compare the pages' options with ($fa_run)"
	fail=1
fi
[ $fail = 0 ] && echo "doc pages: $npaths paths and links, and the options of fa-run and fa-check, all present"
exit $fail
