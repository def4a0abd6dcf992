# SPDX-License-Identifier: Apache-2.0
# Unit tests of the policy engine (cmocka, TAP output), and fa-check's lines.
# The scratch tree the engine's tests run in; its removal, which the
# shim's tests share.
rm_tree_sources = %D%/rm_tree.c %D%/rm_tree.h
unit_tree_sources = %D%/tree.c %D%/tree.h $(rm_tree_sources)
if HAVE_CMOCKA
check_PROGRAMS += %D%/test_escape
%C%_test_escape_SOURCES = %D%/test_escape.c $(unit_tree_sources)
%C%_test_escape_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_escape_LDADD = src/libfaengine.la $(CMOCKA_LIBS)

check_PROGRAMS += %D%/test_use
%C%_test_use_SOURCES = %D%/test_use.c $(unit_tree_sources)
%C%_test_use_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_use_LDADD = src/libfaengine.la $(CMOCKA_LIBS)

check_PROGRAMS += %D%/test_race
%C%_test_race_SOURCES = %D%/test_race.c $(unit_tree_sources)
%C%_test_race_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_race_LDADD = src/libfaengine.la $(CMOCKA_LIBS) -lpthread

check_PROGRAMS += %D%/test_audit_log
%C%_test_audit_log_SOURCES = %D%/test_audit_log.c src/run/audit_log.c
%C%_test_audit_log_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_audit_log_LDADD = src/libfaengine.la $(CMOCKA_LIBS)

check_PROGRAMS += %D%/test_policy
%C%_test_policy_SOURCES = %D%/test_policy.c $(unit_tree_sources)
%C%_test_policy_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_policy_LDADD = src/libfaengine.la $(CMOCKA_LIBS)

check_PROGRAMS += %D%/test_glob
%C%_test_glob_SOURCES = %D%/test_glob.c $(unit_tree_sources)
%C%_test_glob_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_glob_LDADD = src/libfaengine.la $(CMOCKA_LIBS)

check_PROGRAMS += %D%/test_walk
%C%_test_walk_SOURCES = %D%/test_walk.c $(rm_tree_sources)
%C%_test_walk_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_walk_LDADD = src/libfaengine.la $(CMOCKA_LIBS)

check_PROGRAMS += %D%/test_linkfree
%C%_test_linkfree_SOURCES = %D%/test_linkfree.c $(unit_tree_sources)
%C%_test_linkfree_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_linkfree_LDADD = src/libfaengine.la $(CMOCKA_LIBS)

check_PROGRAMS += %D%/test_cwd
%C%_test_cwd_SOURCES = %D%/test_cwd.c $(unit_tree_sources)
%C%_test_cwd_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_cwd_LDADD = src/libfaengine.la $(CMOCKA_LIBS)

check_PROGRAMS += %D%/test_json
%C%_test_json_SOURCES = %D%/test_json.c
%C%_test_json_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_json_LDADD = src/libfaengine.la $(CMOCKA_LIBS)

check_PROGRAMS += %D%/test_order
%C%_test_order_SOURCES = %D%/test_order.c $(unit_tree_sources)
%C%_test_order_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_order_LDADD = src/libfaengine.la $(CMOCKA_LIBS)

check_PROGRAMS += %D%/test_deep
%C%_test_deep_SOURCES = %D%/test_deep.c $(unit_tree_sources)
%C%_test_deep_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_deep_LDADD = src/libfaengine.la $(CMOCKA_LIBS)

check_PROGRAMS += %D%/test_policy_file
%C%_test_policy_file_SOURCES = %D%/test_policy_file.c
%C%_test_policy_file_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
%C%_test_policy_file_LDADD = src/libfaengine.la $(CMOCKA_LIBS)

C_TESTS += %D%/test_policy_file
C_TESTS += %D%/test_json %D%/test_policy %D%/test_glob %D%/test_audit_log %D%/test_escape %D%/test_use %D%/test_race %D%/test_walk \
	%D%/test_cwd %D%/test_linkfree %D%/test_order %D%/test_deep
endif

E2E_TESTS += %D%/fa_check.sh
EXTRA_DIST += %D%/fa_check.sh
