# SPDX-License-Identifier: Apache-2.0
# The policy engine: a convenience library linked into everything else.
noinst_LTLIBRARIES += %D%/libfaengine.la
%C%_libfaengine_la_SOURCES = %D%/fa_policy.h %D%/fa_enums.h %D%/fa_policy_layout.h %D%/why.c \
	%D%/engine_internal.h %D%/sys.h %D%/linux_abi.h %D%/match.c %D%/glob.c %D%/reads.c %D%/policy.c \
	%D%/fd_path.c %D%/resolve_mode.c %D%/dirfd_cache.c %D%/parent_cache.c %D%/where.c %D%/judge.c %D%/use.c \
	%D%/cwd_cache.c %D%/linkfree_cache.c %D%/thread_block.c %D%/order.c %D%/deep.c %D%/json.h %D%/json.c %D%/denial.h %D%/denial.c %D%/places.c %D%/policy_file.c \
	%D%/counts.h %D%/learn_record.h %D%/path_search.h %D%/path_search.c
# The door to the kernel and the resolver strategy: raw system calls and
# openat2 (with the O_PATH walk behind it) on Linux; libSystem and an
# fstat-checked walk on macOS.
if FA_DARWIN
%C%_libfaengine_la_SOURCES += %D%/darwin_abi.h %D%/sys_darwin.c %D%/resolve_darwin.c
else
%C%_libfaengine_la_SOURCES += %D%/sys.c %D%/resolve.c %D%/resolve_openat2.c %D%/resolve_walk.c
endif
%C%_libfaengine_la_CFLAGS = $(AM_CFLAGS) -fPIC -fvisibility=hidden
# The engine's names a Workspace user compiles against (fa_workspace.h includes it).
include_HEADERS += %D%/fa_enums.h
# The policy file's format, the engine's to read.
dist_man_MANS += doc/fa-policy.5
