# SPDX-License-Identifier: Apache-2.0
# The Workspace API: cmocka tests of the C library, pytest of the binding.
if HAVE_CMOCKA
check_PROGRAMS += %D%/ws_test
%C%_ws_test_SOURCES = %D%/ws_test.c
%C%_ws_test_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_ws_test_LDADD = src/workspace/libfaworkspace.la $(CMOCKA_LIBS)
C_TESTS += %D%/ws_test
endif
if WITH_PYTHON
if HAVE_PYTEST
PY_TESTS += %D%/test_workspace.py %D%/test_module.py
endif
endif
EXTRA_DIST += %D%/test_workspace.py %D%/test_module.py
