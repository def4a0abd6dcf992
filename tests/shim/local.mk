# SPDX-License-Identifier: Apache-2.0
# The shim driven through its bridge as a host drives it (cmocka, TAP
# output): each program runs itself again under $FA_SHIM in a scratch tree.
if HAVE_CMOCKA
check_LTLIBRARIES += %D%/libundershim.la
%C%_libundershim_la_SOURCES = %D%/under_shim.c %D%/under_shim.h $(rm_tree_sources)
%C%_libundershim_la_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_libundershim_la_LIBADD = src/libfaengine.la $(CMOCKA_LIBS) -ldl -lpthread

check_PROGRAMS += %D%/test_bridge %D%/test_spawn %D%/test_stack %D%/test_reclaim
%C%_test_bridge_SOURCES = %D%/test_bridge.c
%C%_test_bridge_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_bridge_LDADD = %D%/libundershim.la
%C%_test_spawn_SOURCES = %D%/test_spawn.c
%C%_test_spawn_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_spawn_LDADD = %D%/libundershim.la
%C%_test_stack_SOURCES = %D%/test_stack.c
%C%_test_stack_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_stack_LDADD = %D%/libundershim.la

%C%_test_reclaim_SOURCES = %D%/test_reclaim.c
%C%_test_reclaim_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_reclaim_LDADD = %D%/libundershim.la

C_TESTS += %D%/test_bridge %D%/test_spawn %D%/test_stack %D%/test_reclaim
endif
