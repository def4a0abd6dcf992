# tests/python: pytest suites for the fastaudit package, one PY_TESTS entry each.
if WITH_PYTHON
if HAVE_PYTEST
PY_TESTS += \
	tests/python/test_api.py \
	tests/python/test_paths.py \
	tests/python/test_events.py \
	tests/python/test_context.py \
	tests/python/test_monitor.py \
	tests/python/test_imports.py \
	tests/python/test_native.py \
	tests/python/test_pools.py \
	tests/python/test_exec_search.py \
	tests/python/test_denials.py \
	tests/python/test_explain.py \
	tests/python/test_symlinks.py \
	tests/python/test_bridge_abi.py \
	tests/python/test_hook_reentry.py \
	tests/python/test_learn.py \
	tests/python/test_children.py \
	tests/python/test_reference_suite.py
else
# One line instead of a failure per suite (configure found what is missing).
check-local: python-suites-skipped
python-suites-skipped:
	@echo "SKIP: the Python suites: $(PYTHON) has no $(FA_PY_MISSING); get them with:" \
		"$(PYTHON) -m pip install -r $(srcdir)/tests/python/requirements.txt" "(then re-run configure)"
endif
endif
# The reference suite's downloads and environments, cached in the build tree.
clean-local: reference-suite-clean
reference-suite-clean:
	-rm -rf tests/reference-suite
.PHONY: reference-suite-clean
EXTRA_DIST += tests/python/conftest.py tests/python/requirements.txt tests/python/test_learn.py \
	tests/python/test_api.py tests/python/test_paths.py tests/python/test_events.py \
	tests/python/test_context.py tests/python/test_monitor.py tests/python/test_imports.py \
	tests/python/test_native.py tests/python/test_pools.py tests/python/test_exec_search.py \
	tests/python/test_denials.py tests/python/test_explain.py tests/python/test_children.py \
	tests/python/test_symlinks.py tests/python/test_bridge_abi.py tests/python/test_hook_reentry.py \
	tests/python/test_reference_suite.py
