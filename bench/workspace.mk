# SPDX-License-Identifier: Apache-2.0
# The Workspace benchmark: not a test, built only by "make bench-workspace", which prints the tables.
EXTRA_PROGRAMS += %D%/workspace/bench-workspace
%C%_workspace_bench_workspace_SOURCES = %D%/workspace/bench_workspace.c
%C%_workspace_bench_workspace_LDADD = src/workspace/libfaworkspace.la
EXTRA_DIST += %D%/workspace/bench.py

bench-workspace: %D%/workspace/bench-workspace
	%D%/workspace/bench-workspace
if WITH_PYTHON
	PYTHONPATH='$(abs_top_builddir)/pyhook:$(abs_top_srcdir)/pyhook' \
	$(PYTHON) '$(abs_top_srcdir)/%D%/workspace/bench.py'
endif
