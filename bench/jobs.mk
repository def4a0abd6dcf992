# SPDX-License-Identifier: Apache-2.0
# Real jobs under fa-run (not a test): "make bench-jobs" prints the ratios.
EXTRA_DIST += %D%/jobs/run.sh

bench-jobs: %D%/shim/floor-exec fa-run $(lib_LTLIBRARIES)
	FA_RUN='$(abs_top_builddir)/fa-run' \
	FLOOR_EXEC='$(abs_top_builddir)/%D%/shim/floor-exec' \
	FA_SHIM='$(abs_top_builddir)/src/.libs/libfashim.so' \
	PYTHON='$(PYTHON)' \
	$(SHELL) '$(abs_top_srcdir)/%D%/jobs/run.sh' $(BENCH_ROUNDS)
.PHONY: bench-jobs
