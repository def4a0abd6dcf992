# tests/python: pytest suites for the fastaudit package, one PY_TESTS entry each.
if WITH_PYTHON
PY_TESTS += \
	tests/python/test_api.py \
	tests/python/test_paths.py \
	tests/python/test_events.py \
	tests/python/test_context.py \
	tests/python/test_monitor.py \
	tests/python/test_imports.py \
	tests/python/test_native.py \
	tests/python/test_exec_search.py \
	tests/python/test_denials.py \
	tests/python/test_explain.py \
	tests/python/test_reference_suite.py
endif
EXTRA_DIST += tests/python/conftest.py tests/python/requirements.txt \
	tests/python/test_api.py tests/python/test_paths.py tests/python/test_events.py \
	tests/python/test_context.py tests/python/test_monitor.py tests/python/test_imports.py \
	tests/python/test_native.py tests/python/test_exec_search.py \
	tests/python/test_denials.py tests/python/test_explain.py tests/python/test_reference_suite.py
