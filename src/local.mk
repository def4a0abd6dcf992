# The policy engine: a convenience library linked into everything else.
noinst_LTLIBRARIES += src/libfaengine.la
src_libfaengine_la_SOURCES = src/fa_policy.h src/fa_enums.h src/fa_policy_layout.h src/why.c \
	src/engine_internal.h src/sys.h src/sys.c src/match.c src/policy.c \
	src/resolve.c src/resolve_openat2.c src/resolve_walk.c src/resolve_mode.c src/dirfd_cache.c src/judge.c src/use.c \
	src/cwd_cache.c src/order.c src/deep.c src/json.h src/json.c src/denial.h src/denial.c src/places.c src/policy_file.c \
	src/counts.h
src_libfaengine_la_CFLAGS = $(AM_CFLAGS) -fPIC -fvisibility=hidden

# fa-check: the engine as a path oracle for other languages.
bin_PROGRAMS += fa-check
fa_check_SOURCES = src/fa_check.c
# The engine's names a Workspace user compiles against (fa_workspace.h includes it).
include_HEADERS += src/fa_enums.h
fa_check_LDADD = src/libfaengine.la
dist_man_MANS += doc/fa-check.1

# fa-run's kernel floor (Landlock); fa-run itself is listed with the shim.
FA_RUN_FLOOR_SOURCES = src/run/landlock.c src/run/landlock.h src/run/landlock_abi.h \
	src/run/learn.c src/run/learn.h \
	src/run/supervise.c src/run/audit_log.c src/run/audit_log.h
