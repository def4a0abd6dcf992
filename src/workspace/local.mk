# SPDX-License-Identifier: Apache-2.0
# The Workspace API: libfaworkspace.so (public header fa_workspace.h, pkg-config
# fa-workspace), built on the engine. The same code, as a convenience library,
# goes into the Python extension fastaudit._workspace.
noinst_LTLIBRARIES += %D%/libfawscore.la
%C%_libfawscore_la_SOURCES = \
	%D%/fa_workspace.h \
	%D%/ws_internal.h \
	%D%/error.c \
	%D%/workspace.c \
	%D%/entries.c \
	%D%/atomic.c
%C%_libfawscore_la_CFLAGS = $(AM_CFLAGS) -fPIC
%C%_libfawscore_la_LIBADD = src/libfaengine.la

lib_LTLIBRARIES += %D%/libfaworkspace.la
%C%_libfaworkspace_la_SOURCES =
%C%_libfaworkspace_la_LIBADD = %D%/libfawscore.la
%C%_libfaworkspace_la_LDFLAGS = $(AM_LDFLAGS) -no-undefined \
	-version-info 0:0:0 -export-symbols-regex '^fa_ws_'

include_HEADERS += %D%/fa_workspace.h
fawspcdir = $(libdir)/pkgconfig
fawspc_DATA = %D%/fa-workspace.pc
CLEANFILES += %D%/fa-workspace.pc
