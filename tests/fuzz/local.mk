# Fuzz targets for the path algebra, the policy text and fa-check's core,
# each differential against the obvious model in model.c. Built with clang
# from the engine's own source list; not part of `make check`:
#   make fuzz-burst           a short run of each (the test command runs it)
#   make fuzz FUZZ_SECONDS=N  a long run of each (default 600 s)
FUZZ_SECONDS = 600
FUZZ_BURST_SECONDS = 20
EXTRA_DIST += %D%/run.sh %D%/model.h %D%/model.c %D%/fuzz_fold.c \
	%D%/fuzz_policy.c %D%/fuzz_check.c %D%/fuzz_policy_file.c %D%/policy.dict \
	%D%/policy_file.dict
FUZZ_RUN = FUZZ_CFLAGS='$(FA_CFLAGS)' $(SHELL) $(srcdir)/%D%/run.sh '$(abs_top_srcdir)' '$(abs_top_builddir)'

fuzz:
	$(FUZZ_RUN) $(FUZZ_SECONDS) $(src_libfaengine_la_SOURCES)
fuzz-burst:
	$(FUZZ_RUN) $(FUZZ_BURST_SECONDS) $(src_libfaengine_la_SOURCES)
.PHONY: fuzz fuzz-burst
