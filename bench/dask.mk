# SPDX-License-Identifier: Apache-2.0
# The Dask benchmark: not a test; "make bench-dask" (PYTHON with distributed
# installed) prints what a task's audit context and the preload cost.
EXTRA_DIST += %D%/dask/bench_dask.py
if WITH_PYTHON
bench-dask: all
	PYTHONPATH='$(abs_top_builddir)/pyhook:$(abs_top_srcdir)/pyhook' \
	$(PYTHON) '$(abs_top_srcdir)/%D%/dask/bench_dask.py'
endif
.PHONY: bench-dask
