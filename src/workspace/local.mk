# The Workspace API: libfaworkspace.so (public header fa_workspace.h, pkg-config
# fa-workspace), built on the engine. The same code, as a convenience library,
# goes into the Python extension fastaudit._workspace.
noinst_LTLIBRARIES += src/workspace/libfawscore.la
src_workspace_libfawscore_la_SOURCES = \
	src/workspace/fa_workspace.h \
	src/workspace/ws_internal.h \
	src/workspace/error.c \
	src/workspace/workspace.c \
	src/workspace/entries.c \
	src/workspace/atomic.c
src_workspace_libfawscore_la_CFLAGS = $(AM_CFLAGS) -fPIC
src_workspace_libfawscore_la_LIBADD = src/libfaengine.la

lib_LTLIBRARIES += src/workspace/libfaworkspace.la
src_workspace_libfaworkspace_la_SOURCES =
src_workspace_libfaworkspace_la_LIBADD = src/workspace/libfawscore.la
src_workspace_libfaworkspace_la_LDFLAGS = $(AM_LDFLAGS) -no-undefined \
	-version-info 0:0:0 -export-symbols-regex '^fa_ws_'

include_HEADERS += src/workspace/fa_workspace.h
fawspcdir = $(libdir)/pkgconfig
fawspc_DATA = src/workspace/fa-workspace.pc
CLEANFILES += src/workspace/fa-workspace.pc
