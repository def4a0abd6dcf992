# pyhook: the fastaudit package and its C extension fastaudit._fastaudit.
if WITH_PYTHON
fastauditdir = $(pyexecdir)/fastaudit
fastaudit_LTLIBRARIES = pyhook/_fastaudit.la
pyhook__fastaudit_la_SOURCES = \
	pyhook/_fastaudit/parts.h \
	pyhook/_fastaudit/module.c \
	pyhook/_fastaudit/hook.c \
	pyhook/_fastaudit/events.c \
	pyhook/_fastaudit/ctx.c \
	pyhook/_fastaudit/policy.c \
	pyhook/_fastaudit/monitor.c \
	pyhook/_fastaudit/bridge.c \
	pyhook/_fastaudit/denial.c \
	pyhook/_fastaudit/text.c
pyhook__fastaudit_la_CPPFLAGS = $(AM_CPPFLAGS) $(PYTHON_CPPFLAGS)
pyhook__fastaudit_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
pyhook__fastaudit_la_LDFLAGS = -module -avoid-version -shared -shrext $(PYTHON_EXT_SUFFIX)
pyhook__fastaudit_la_LIBADD = src/libfaengine.la -ldl

fastaudit_PYTHON = \
	pyhook/fastaudit/__init__.py \
	pyhook/fastaudit/core.py \
	pyhook/fastaudit/hooks.py

# An importable package in the build tree for the tests: the sources
# (copied when building out of tree) next to the freshly built extension.
all-local: fastaudit-stage
fastaudit-stage: pyhook/_fastaudit.la $(fastaudit_PYTHON)
	@$(MKDIR_P) pyhook/fastaudit
	@for f in $(fastaudit_PYTHON); do \
		test "$(srcdir)/$$f" -ef "$$f" || cp -f "$(srcdir)/$$f" "$$f"; \
	done
	@ln -sf ../.libs/_fastaudit$(PYTHON_EXT_SUFFIX) pyhook/fastaudit/_fastaudit$(PYTHON_EXT_SUFFIX)

clean-local: fastaudit-unstage
fastaudit-unstage:
	-rm -f pyhook/fastaudit/_fastaudit$(PYTHON_EXT_SUFFIX)
	-test "$(srcdir)" = "." || rm -f $(fastaudit_PYTHON)
endif
