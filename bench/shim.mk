# SPDX-License-Identifier: Apache-2.0
# The shim microbenchmark: not a test, built only by "make bench-shim", which prints the table.
EXTRA_PROGRAMS += %D%/shim/bench-shim
%C%_shim_bench_shim_SOURCES = %D%/shim/bench_shim.c
EXTRA_DIST += %D%/shim/run.sh %D%/shim/instructions.sh %D%/shim/ten-patterns
# What the shim's judging costs in instructions, for the pattern rows.
EXTRA_PROGRAMS += %D%/shim/open-loop
%C%_shim_open_loop_SOURCES = %D%/shim/open_loop.c
# The kernel floor alone, for the floor columns of bench-shim and bench-jobs.
EXTRA_PROGRAMS += %D%/shim/floor-exec
%C%_shim_floor_exec_SOURCES = %D%/shim/floor-exec.c
%C%_shim_floor_exec_LDADD = src/floor/libfafloor.la src/libfaengine.la

bench-shim: %D%/shim/bench-shim %D%/shim/floor-exec fa-run $(lib_LTLIBRARIES)
	BENCH='$(abs_top_builddir)/%D%/shim/bench-shim' \
	FLOOR_EXEC='$(abs_top_builddir)/%D%/shim/floor-exec' \
	FA_RUN='$(abs_top_builddir)/fa-run' \
	FA_SHIM='$(abs_top_builddir)/src/.libs/libfashim.so' \
	$(SHELL) '$(abs_top_srcdir)/%D%/shim/run.sh' $(BENCH_ROUNDS)

bench-shim-instructions: %D%/shim/open-loop $(lib_LTLIBRARIES)
	OPEN_LOOP='$(abs_top_builddir)/%D%/shim/open-loop' \
	FA_SHIM='$(abs_top_builddir)/src/.libs/libfashim.so' \
	$(SHELL) '$(abs_top_srcdir)/%D%/shim/instructions.sh' $(BENCH_OPENS)
.PHONY: bench-shim-instructions
