# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of libfashim.so and fa-run: small C programs run under
# the shim by the .sh scripts (exit status; 77 = skip).

check_PROGRAMS += %D%/calltest %D%/racer %D%/manners %D%/fdcache %D%/exact %D%/ownmem
# -O2 so that fortify.c really goes through the fortified headers.
%C%_calltest_SOURCES = %D%/calltest.c %D%/fortify.c %D%/calltest.h
%C%_calltest_CFLAGS = $(AM_CFLAGS) -O2
%C%_racer_SOURCES = %D%/racer.c
%C%_racer_LDADD = -lpthread
%C%_manners_SOURCES = %D%/manners.c
%C%_manners_LDADD = -lpthread
%C%_fdcache_SOURCES = %D%/fdcache.c
%C%_exact_SOURCES = %D%/exact.c
%C%_ownmem_SOURCES = %D%/ownmem.c

E2E_TESTS += \
	%D%/calls.sh \
	%D%/symbols.sh \
	%D%/programs.sh \
	%D%/race.sh \
	%D%/manners.sh \
	%D%/syscalls.sh \
	%D%/report.sh \
	%D%/order.sh \
	%D%/outside_symlinks.sh \
	%D%/deep.sh \
	%D%/roots.sh \
	%D%/explain.sh \
	%D%/learn.sh \
	%D%/policy_file.sh \
	%D%/deny_glob.sh \
	%D%/fdcache.sh \
	%D%/exact.sh

# A library whose constructor calls into the shim before the shim's own ran.
check_LTLIBRARIES += %D%/libearly.la
%C%_libearly_la_SOURCES = %D%/early.c
%C%_libearly_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
%C%_libearly_la_LIBADD = -ldl
E2E_TESTS += %D%/early.sh

EXTRA_DIST += %D%/lib.sh $(E2E_TESTS) tests/libc_compat.h

# The kernel floor: writes no preload can see (raw system calls, io_uring,
# a static program with no libc, built without the sanitizers it cannot carry).
check_PROGRAMS += %D%/floor %D%/floorstatic
%C%_floor_SOURCES = %D%/floor.c
%C%_floorstatic_SOURCES = %D%/floorstatic.c
%C%_floorstatic_CFLAGS = -O2 -ffreestanding -fno-stack-protector -fno-pie
%C%_floorstatic_LDFLAGS = -nostdlib -static -no-pie
E2E_TESTS += %D%/landlock.sh
