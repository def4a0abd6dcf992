# SPDX-License-Identifier: Apache-2.0
# pyhook: the fastaudit package and its C extension fastaudit._fastaudit.
if WITH_PYTHON
fastauditdir = $(pyexecdir)/fastaudit
fastaudit_LTLIBRARIES = %D%/_fastaudit.la
%C%__fastaudit_la_SOURCES = \
	%D%/py_symlinks.h \
	%D%/_fastaudit/parts.h \
	%D%/_fastaudit/cpython_private.h \
	%D%/_fastaudit/fastaudit_module.c \
	%D%/_fastaudit/state.c \
	%D%/_fastaudit/hook.c \
	%D%/_fastaudit/deny.c \
	%D%/_fastaudit/events.c \
	%D%/_fastaudit/frames.c \
	%D%/_fastaudit/ctx.c \
	%D%/_fastaudit/roots.c \
	%D%/_fastaudit/py_policy.c \
	%D%/_fastaudit/py_learn.c \
	%D%/_fastaudit/monitor.c \
	%D%/_fastaudit/moves.c \
	%D%/_fastaudit/py_bridge.c \
	%D%/_fastaudit/py_denial.c \
	%D%/_fastaudit/guard.c \
	%D%/_fastaudit/text.c \
	%D%/_fastaudit/unaudited.c
%C%__fastaudit_la_CPPFLAGS = $(AM_CPPFLAGS) $(PYTHON_CPPFLAGS)
%C%__fastaudit_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
%C%__fastaudit_la_LDFLAGS = -module -avoid-version -shared -shrext $(PYTHON_EXT_SUFFIX)
%C%__fastaudit_la_LIBADD = src/libfaengine.la -ldl

fastaudit_PYTHON = \
	%D%/fastaudit/__init__.py \
	%D%/fastaudit/__main__.py \
	%D%/fastaudit/_cmd.py \
	%D%/fastaudit/_kernelspec.py \
	%D%/fastaudit/_shim.py \
	%D%/fastaudit/core.py \
	%D%/fastaudit/hooks.py \
	%D%/fastaudit/ipython.py \
	%D%/fastaudit/_audited.py \
	%D%/fastaudit/dask.py \
	%D%/fastaudit/ray.py
# The page of fastaudit.audited, fastaudit.dask and fastaudit.ray.
EXTRA_DIST += doc/clusters.md
# PEP 561: the package is typed; the stubs describe the two extensions.
dist_fastaudit_DATA = \
	%D%/fastaudit/py.typed \
	%D%/fastaudit/_fastaudit.pyi \
	%D%/fastaudit/_workspace.pyi
# Written by configure from AC_INIT's version.
nodist_fastaudit_PYTHON = %D%/fastaudit/_version.py
EXTRA_DIST += %D%/fastaudit/_version.py.in
# %load_ext fastaudit and python -m fastaudit kernel install.
EXTRA_DIST += doc/notebooks.md

# The package reaches the shim and the two programs through lib/ and bin/
# inside itself, wherever it is: links here, in the build tree and after
# "make install"; the files themselves in the wheel (pybuild/ replaces
# each link by what it names).
fastaudit_links = lib/libfashim.so bin/fa-run bin/fa-check

# An importable package in the build tree for the tests: the sources
# (copied when building out of tree) next to the freshly built extension.
all-local: fastaudit-stage
fastaudit-stage: %D%/_fastaudit.la $(fastaudit_PYTHON) $(dist_fastaudit_DATA) src/libfashim.la fa-run$(EXEEXT) fa-check$(EXEEXT)
	@$(MKDIR_P) %D%/fastaudit/lib %D%/fastaudit/bin
	@for f in $(fastaudit_PYTHON) $(dist_fastaudit_DATA); do \
		test "$(srcdir)/$$f" -ef "$$f" || cp -f "$(srcdir)/$$f" "$$f"; \
	done
	@ln -sf ../.libs/_fastaudit$(PYTHON_EXT_SUFFIX) %D%/fastaudit/_fastaudit$(PYTHON_EXT_SUFFIX)
	@ln -sf ../../../src/.libs/libfashim.so %D%/fastaudit/lib/libfashim.so
	@ln -sf ../../../fa-run$(EXEEXT) %D%/fastaudit/bin/fa-run
	@ln -sf ../../../fa-check$(EXEEXT) %D%/fastaudit/bin/fa-check

# The .la files libtool installs for the two modules are of no use to Python
# (so uninstall removes the modules by name, as for the shim).
fastaudit-install-links:
	rm -f '$(DESTDIR)$(fastauditdir)/_fastaudit.la' '$(DESTDIR)$(fawspydir)/_workspace.la'
	$(MKDIR_P) '$(DESTDIR)$(fastauditdir)/lib' '$(DESTDIR)$(fastauditdir)/bin'
	ln -sf '$(libdir)/libfashim.so' '$(DESTDIR)$(fastauditdir)/lib/libfashim.so'
	ln -sf '$(bindir)/fa-run$(EXEEXT)' '$(DESTDIR)$(fastauditdir)/bin/fa-run'
	ln -sf '$(bindir)/fa-check$(EXEEXT)' '$(DESTDIR)$(fastauditdir)/bin/fa-check'
fastaudit-uninstall-links:
	rm -f '$(DESTDIR)$(fastauditdir)/_fastaudit$(PYTHON_EXT_SUFFIX)' \
		'$(DESTDIR)$(fawspydir)/_workspace$(PYTHON_EXT_SUFFIX)'
	-cd '$(DESTDIR)$(fastauditdir)' && rm -f $(fastaudit_links) && rmdir lib bin

clean-local: fastaudit-unstage
fastaudit-unstage:
	-rm -f %D%/fastaudit/_fastaudit$(PYTHON_EXT_SUFFIX)
	-cd %D%/fastaudit && rm -f $(fastaudit_links) && rmdir lib bin
	-test "$(srcdir)" = "." || rm -f $(fastaudit_PYTHON) $(dist_fastaudit_DATA)
else
fastaudit-install-links fastaudit-uninstall-links:
endif
install-data-hook: fastaudit-install-links
uninstall-hook: fastaudit-uninstall-links
