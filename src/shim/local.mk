# SPDX-License-Identifier: Apache-2.0
# libfashim.so: the LD_PRELOAD shim.
lib_LTLIBRARIES += src/libfashim.la
src_libfashim_la_SOURCES = %D%/symbols.def %D%/wrap.h %D%/shim_internal.h \
	%D%/fa_bridge.h \
	%D%/proc.c %D%/report.c %D%/shim_bridge.c %D%/env.c %D%/shim_judge.c \
	%D%/open.c %D%/generated.c %D%/dirent.c %D%/attr.c \
	%D%/tmp.c %D%/utmp.c %D%/net.c %D%/exec.c %D%/spawn.c %D%/spawn_actions.c \
	%D%/fd.c %D%/chdir.c
src_libfashim_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
if FA_DARWIN
# macOS: libfashim.dylib, loaded with DYLD_INSERT_LIBRARIES; dyld reads the
# __interpose tuples, so the wrappers stay hidden and the bridge is the only
# export. No syscall() (its numbers are Linux's); the floor's entry points
# are floor_darwin.c's (no kernel floor, and what dyld will not follow).
src_libfashim_la_SOURCES += %D%/interpose_darwin.c src/floor/floor_darwin.c
src_libfashim_la_LDFLAGS = -avoid-version -no-undefined
src_libfashim_la_LIBADD = src/libfaengine.la
else
src_libfashim_la_SOURCES += %D%/syscall.c
src_libfashim_la_LDFLAGS = -avoid-version -no-undefined \
	-Wl,--version-script=%D%/libfashim.map
src_libfashim_la_LIBADD = src/floor/libfafloor.la src/libfaengine.la -ldl
EXTRA_src_libfashim_la_DEPENDENCIES = %D%/libfashim.map
endif

# The version script exports exactly the names of symbols.def that this
# libc has (its #ifdef HAVE_... lines are decided by config.h), and the
# bridge: the table stays the only list.
%D%/libfashim.map: $(srcdir)/%D%/symbols.def config.h
	$(AM_V_GEN)$(MKDIR_P) src/shim && \
	printf '#include "config.h"\n#define FA_SYM(name, ...) FA_MAP_SYM name;\n#include "symbols.def"\n' \
	  >$@-in.c && \
	$(CC) -E -P $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) \
	  -I$(srcdir)/src/shim $@-in.c >$@-i && { \
	  echo '/* Generated from symbols.def by the build. */'; \
	  echo '{'; echo 'global:'; \
	  $(SED) -n 's/FA_MAP_SYM \([A-Za-z0-9_]*\);/\n\1;\n/gp' $@-i | \
	    $(SED) -n 's/^\([A-Za-z0-9_]*\);$$/	\1;/p'; \
	  printf '\tfa_bridge_v1;\nlocal:\n\t*;\n};\n'; \
	} >$@-t && rm -f $@-in.c $@-i && mv -f $@-t $@
CLEANFILES += %D%/libfashim.map

# The .la is of no use to anyone preloading the shim.
install-exec-hook: fa-shim-install-exec-hook
fa-shim-install-exec-hook:
	rm -f $(DESTDIR)$(libdir)/libfashim.la
uninstall-hook: fa-shim-uninstall-hook
fa-shim-uninstall-hook:
	rm -f $(DESTDIR)$(libdir)/libfashim.so
.PHONY: fa-shim-install-exec-hook fa-shim-uninstall-hook

