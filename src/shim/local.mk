# Whether a preload can follow a program (fa_shim_run.h): built once, linked
# into the shim, fa-run and the floor benchmark.
noinst_LTLIBRARIES += src/shim/libfaprog.la
src_shim_libfaprog_la_SOURCES = src/shim/fa_shim_run.h src/shim/elf.c
src_shim_libfaprog_la_CFLAGS = $(AM_CFLAGS) -fPIC -fvisibility=hidden

# libfashim.so: the LD_PRELOAD shim, and fa-run, which starts a command under it.
lib_LTLIBRARIES += src/libfashim.la
src_libfashim_la_SOURCES = src/shim/symbols.def src/shim/wrap.h src/shim/shim_internal.h \
	src/shim/fa_bridge.h \
	src/shim/env.c src/shim/shim_bridge.c src/shim/report.c src/shim/shim_judge.c \
	src/shim/open.c src/shim/generated.c src/shim/dirent.c src/shim/attr.c \
	src/shim/tmp.c src/shim/utmp.c src/shim/net.c src/shim/exec.c src/shim/spawn.c src/shim/spawn_actions.c \
	src/shim/syscall.c src/shim/fd.c src/shim/chdir.c src/run/landlock.c src/run/landlock.h src/run/landlock_abi.h
src_libfashim_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
src_libfashim_la_LDFLAGS = -avoid-version -no-undefined \
	-Wl,--version-script=src/shim/libfashim.map
src_libfashim_la_LIBADD = src/shim/libfaprog.la src/libfaengine.la -ldl
EXTRA_src_libfashim_la_DEPENDENCIES = src/shim/libfashim.map

# The version script exports exactly the names of symbols.def that this
# libc has (its #ifdef HAVE_... lines are decided by config.h), and the
# bridge: the table stays the only list.
src/shim/libfashim.map: $(srcdir)/src/shim/symbols.def config.h
	$(AM_V_GEN)$(MKDIR_P) src/shim && { \
	  echo '/* Generated from symbols.def by the build. */'; \
	  echo '{'; echo 'global:'; \
	  printf '#include "config.h"\n#define FA_SYM(name, ...) FA_MAP_SYM name;\n#include "symbols.def"\n' | \
	    $(CC) -E -P $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) \
	      -I$(srcdir)/src/shim - | \
	    $(SED) -n 's/FA_MAP_SYM \([A-Za-z0-9_]*\);/\n\1;\n/gp' | \
	    $(SED) -n 's/^\([A-Za-z0-9_]*\);$$/	\1;/p'; \
	  printf '\tfa_bridge_v1;\nlocal:\n\t*;\n};\n'; \
	} >$@-t && mv -f $@-t $@
CLEANFILES += src/shim/libfashim.map

# The .la is of no use to anyone preloading the shim.
install-exec-hook: fa-shim-install-exec-hook
fa-shim-install-exec-hook:
	rm -f $(DESTDIR)$(libdir)/libfashim.la
uninstall-hook: fa-shim-uninstall-hook
fa-shim-uninstall-hook:
	rm -f $(DESTDIR)$(libdir)/libfashim.so
.PHONY: fa-shim-install-exec-hook fa-shim-uninstall-hook

bin_PROGRAMS += fa-run
fa_run_SOURCES = src/run/fa_run.c $(FA_RUN_FLOOR_SOURCES)
fa_run_CPPFLAGS = $(AM_CPPFLAGS) -DFA_LIBDIR='"$(libdir)"' \
	-DFA_LIBDIR_FROM_BINDIR='"$(FA_LIBDIR_FROM_BINDIR)"'
fa_run_LDADD = src/shim/libfaprog.la src/libfaengine.la
if FA_SANITIZERS
# An ASan-built shim needs the ASan runtime first in LD_PRELOAD.
fa_run_CPPFLAGS += -DFA_ASAN_LIB='"$(shell $(CC) -print-file-name=libasan.so)"'
endif
dist_man_MANS += doc/fa-run.1
EXTRA_DIST += examples

# The bridge as a host drives it; re-runs itself under $FA_SHIM.
check_PROGRAMS += src/shim/bridge_test
C_TESTS += src/shim/bridge_test
src_shim_bridge_test_SOURCES = src/shim/bridge_test.c
src_shim_bridge_test_LDADD = src/libfaengine.la -ldl -lpthread
src_shim_bridge_test_CPPFLAGS = $(AM_CPPFLAGS)
if FA_SANITIZERS
src_shim_bridge_test_CPPFLAGS += -DFA_ASAN_LIB='"$(shell $(CC) -print-file-name=libasan.so)"'
endif

# Opens in posix_spawn file actions, judged before the spawn.
check_PROGRAMS += src/shim/spawn_test
C_TESTS += src/shim/spawn_test
src_shim_spawn_test_SOURCES = src/shim/spawn_test.c
src_shim_spawn_test_LDADD = src/libfaengine.la -ldl
src_shim_spawn_test_CPPFLAGS = $(AM_CPPFLAGS)
if FA_SANITIZERS
src_shim_spawn_test_CPPFLAGS += -DFA_ASAN_LIB='"$(shell $(CC) -print-file-name=libasan.so)"'
endif

# A process policy stacked with a context: both judged, check = use for both.
check_PROGRAMS += src/shim/stack_test
C_TESTS += src/shim/stack_test
src_shim_stack_test_SOURCES = src/shim/stack_test.c
src_shim_stack_test_LDADD = src/libfaengine.la -ldl -lpthread
src_shim_stack_test_CPPFLAGS = $(AM_CPPFLAGS)
if FA_SANITIZERS
src_shim_stack_test_CPPFLAGS += -DFA_ASAN_LIB='"$(shell $(CC) -print-file-name=libasan.so)"'
endif
