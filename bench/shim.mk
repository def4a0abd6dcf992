# The shim microbenchmark: not a test. "make bench-shim" prints the table.
noinst_PROGRAMS += bench/shim/bench-shim
bench_shim_bench_shim_SOURCES = bench/shim/bench.c
EXTRA_DIST += bench/shim/run.sh

bench-shim: bench/shim/bench-shim $(lib_LTLIBRARIES)
	BENCH='$(abs_top_builddir)/bench/shim/bench-shim' \
	FA_SHIM='$(abs_top_builddir)/src/.libs/libfashim.so' \
	$(SHELL) '$(abs_top_srcdir)/bench/shim/run.sh' $(BENCH_ROUNDS)
