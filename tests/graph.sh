#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Calls and includes go one way, down: scripts/graph-check reads this
# build's objects and the sources, and fails on a circle among the files
# of src/ and pyhook/ that its ledger does not list.
set -u
top=${FA_SRCDIR:-.}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3 to run scripts/graph-check"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "SKIP: no nm to read the objects with"; exit 77; }
python3 "$top/scripts/graph-check" "$top" "${FA_BUILDDIR:-.}"
