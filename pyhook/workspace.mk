# fastaudit._workspace: the Workspace API's Python binding, a separate
# extension module linked with the same C code as libfaworkspace.so.
if WITH_PYTHON
fawspydir = $(pyexecdir)/fastaudit
fawspy_LTLIBRARIES = pyhook/fastaudit/_workspace.la
pyhook_fastaudit__workspace_la_SOURCES = \
	pyhook/py_symlinks.h \
	pyhook/_workspace/wsmodule.h \
	pyhook/_workspace/workspace_module.c \
	pyhook/_workspace/object.c
pyhook_fastaudit__workspace_la_CPPFLAGS = $(AM_CPPFLAGS) $(PYTHON_CPPFLAGS)
pyhook_fastaudit__workspace_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
pyhook_fastaudit__workspace_la_LIBADD = src/workspace/libfawscore.la
pyhook_fastaudit__workspace_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version \
	-shrext $(PYTHON_EXT_SUFFIX) -export-symbols-regex '^PyInit__workspace$$'
fawspy_PYTHON = pyhook/fastaudit/workspace.py

# The build tree's importable package (see pyhook/local.mk) gets the module
# and, when building out of tree, a copy of workspace.py.
all-local: workspace-stage
workspace-stage: pyhook/fastaudit/_workspace.la $(fawspy_PYTHON)
	@$(MKDIR_P) pyhook/fastaudit
	@test "$(srcdir)/$(fawspy_PYTHON)" -ef "$(fawspy_PYTHON)" || \
		cp -f "$(srcdir)/$(fawspy_PYTHON)" "$(fawspy_PYTHON)"
	@cp -f pyhook/fastaudit/.libs/_workspace$(PYTHON_EXT_SUFFIX) pyhook/fastaudit/
clean-local: workspace-unstage
workspace-unstage:
	-rm -f pyhook/fastaudit/_workspace$(PYTHON_EXT_SUFFIX)
	-test "$(srcdir)" = "." || rm -f $(fawspy_PYTHON)
endif
