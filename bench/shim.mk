# The shim microbenchmark: not a test. "make bench-shim" prints the table.
noinst_PROGRAMS += bench/shim/bench-shim
bench_shim_bench_shim_SOURCES = bench/shim/bench_shim.c
EXTRA_DIST += bench/shim/run.sh
# The kernel floor alone, for the floor columns of bench-shim and bench-jobs.
noinst_PROGRAMS += bench/shim/floor-exec
bench_shim_floor_exec_SOURCES = bench/shim/floor-exec.c $(FA_RUN_FLOOR_SOURCES)
bench_shim_floor_exec_LDADD = src/shim/libfaprog.la src/libfaengine.la

bench-shim: bench/shim/bench-shim bench/shim/floor-exec fa-run $(lib_LTLIBRARIES)
	BENCH='$(abs_top_builddir)/bench/shim/bench-shim' \
	FLOOR_EXEC='$(abs_top_builddir)/bench/shim/floor-exec' \
	FA_RUN='$(abs_top_builddir)/fa-run' \
	FA_SHIM='$(abs_top_builddir)/src/.libs/libfashim.so' \
	$(SHELL) '$(abs_top_srcdir)/bench/shim/run.sh' $(BENCH_ROUNDS)
