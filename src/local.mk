# The policy engine: a convenience library linked into everything else.
noinst_LTLIBRARIES += src/libfaengine.la
src_libfaengine_la_SOURCES = src/fa_policy.h src/fa_bridge.h src/why.c
src_libfaengine_la_CFLAGS = $(AM_CFLAGS) -fPIC -fvisibility=hidden
