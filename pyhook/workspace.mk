# SPDX-License-Identifier: Apache-2.0
# fastaudit._workspace: the Workspace API's Python binding, a separate
# extension module linked with the same C code as libfaworkspace.so.
if WITH_PYTHON
fawspydir = $(pyexecdir)/fastaudit
fawspy_LTLIBRARIES = %D%/fastaudit/_workspace.la
%C%_fastaudit__workspace_la_SOURCES = \
	%D%/py_symlinks.h \
	%D%/_workspace/wsmodule.h \
	%D%/_workspace/workspace_module.c \
	%D%/_workspace/object.c \
	%D%/_workspace/args.c
%C%_fastaudit__workspace_la_CPPFLAGS = $(AM_CPPFLAGS) $(PYTHON_CPPFLAGS)
%C%_fastaudit__workspace_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
%C%_fastaudit__workspace_la_LIBADD = src/workspace/libfawscore.la
%C%_fastaudit__workspace_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version \
	-shrext $(PYTHON_EXT_SUFFIX) -export-symbols-regex '^PyInit__workspace$$'
fawspy_PYTHON = %D%/fastaudit/workspace.py

# The build tree's importable package (see pyhook/local.mk) gets the module
# and, when building out of tree, a copy of workspace.py.
all-local: workspace-stage
workspace-stage: %D%/fastaudit/_workspace.la $(fawspy_PYTHON)
	@$(MKDIR_P) %D%/fastaudit
	@test "$(srcdir)/$(fawspy_PYTHON)" -ef "$(fawspy_PYTHON)" || \
		cp -f "$(srcdir)/$(fawspy_PYTHON)" "$(fawspy_PYTHON)"
	@# A new file renamed into place: a process that has the old one mapped
	@# keeps it (copying over it in place crashes that process at exit).
	@cp -f %D%/fastaudit/.libs/_workspace$(PYTHON_EXT_SUFFIX) %D%/fastaudit/_workspace.so.tmp
	@mv -f %D%/fastaudit/_workspace.so.tmp %D%/fastaudit/_workspace$(PYTHON_EXT_SUFFIX)
clean-local: workspace-unstage
workspace-unstage:
	-rm -f %D%/fastaudit/_workspace$(PYTHON_EXT_SUFFIX)
	-test "$(srcdir)" = "." || rm -f $(fawspy_PYTHON)
endif
