# The Workspace API: cmocka tests of the C library, pytest of the binding.
if HAVE_CMOCKA
check_PROGRAMS += tests/workspace/ws_test
tests_workspace_ws_test_SOURCES = tests/workspace/ws_test.c
tests_workspace_ws_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_workspace_ws_test_LDADD = src/workspace/libfaworkspace.la $(CMOCKA_LIBS)
C_TESTS += tests/workspace/ws_test
endif
if WITH_PYTHON
if HAVE_PYTEST
PY_TESTS += tests/workspace/test_workspace.py tests/workspace/test_module.py
endif
endif
EXTRA_DIST += tests/workspace/test_workspace.py tests/workspace/test_module.py
