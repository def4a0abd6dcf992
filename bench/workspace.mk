# The Workspace benchmark: not a test. "make bench-workspace" prints the tables.
noinst_PROGRAMS += bench/workspace/bench-workspace
bench_workspace_bench_workspace_SOURCES = bench/workspace/bench_workspace.c
bench_workspace_bench_workspace_LDADD = src/workspace/libfaworkspace.la
EXTRA_DIST += bench/workspace/bench.py

bench-workspace: bench/workspace/bench-workspace
	bench/workspace/bench-workspace
if WITH_PYTHON
	PYTHONPATH='$(abs_top_builddir)/pyhook:$(abs_top_srcdir)/pyhook' \
	$(PYTHON) '$(abs_top_srcdir)/bench/workspace/bench.py'
endif
