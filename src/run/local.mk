# SPDX-License-Identifier: Apache-2.0
# fa-run: starts a command under the shim, on the kernel floor.
bin_PROGRAMS += fa-run
fa_run_SOURCES = %D%/fa_run.c %D%/learn.c %D%/learn.h \
	%D%/supervise.c %D%/audit_log.c %D%/audit_log.h
fa_run_CPPFLAGS = $(AM_CPPFLAGS) -DFA_LIBDIR='"$(libdir)"' \
	-DFA_LIBDIR_FROM_BINDIR='"$(FA_LIBDIR_FROM_BINDIR)"'
fa_run_LDADD = src/floor/libfafloor.la src/libfaengine.la
dist_man_MANS += doc/fa-run.1
EXTRA_DIST += examples
