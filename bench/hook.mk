# SPDX-License-Identifier: Apache-2.0
# bench/hook: what the audit hook costs, against no hook, a no-op C hook and
# the reference implementation, plus native write-opens through the bridge
# (not a test). make bench-hook [BENCH_REF=python-with-reference-fastaudit]
EXTRA_DIST += %D%/hook/bench_hook.py
if WITH_PYTHON
bench-hook: all
	$(PYTHON) $(srcdir)/%D%/hook/bench_hook.py --build '$(abs_top_builddir)' \
		--shim '$(abs_top_builddir)/src/.libs/libfashim.so' $(BENCH_REF:%=--ref %)
endif
