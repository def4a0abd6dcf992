# SPDX-License-Identifier: Apache-2.0
# Fuzz targets for the path algebra, the policy text and fa-check's core,
# each differential against the obvious model in model.c. Built with clang
# from the engine's own source list; not part of `make check`:
#   make fuzz-burst           a short run of each, then of seqfuzz below
#                             (the test command runs it)
#   make fuzz FUZZ_SECONDS=N  a long run of each, seqfuzz too (default 600 s)
FUZZ_SECONDS = 600
FUZZ_BURST_SECONDS = 20
EXTRA_DIST += %D%/run.sh %D%/model.h %D%/model.c %D%/fuzz_fold.c \
	%D%/fuzz_policy.c %D%/fuzz_check.c %D%/fuzz_policy_file.c %D%/policy.dict \
	%D%/policy_file.dict
FUZZ_RUN = FUZZ_CFLAGS='$(FA_CFLAGS)' $(SHELL) $(srcdir)/%D%/run.sh '$(abs_top_srcdir)' '$(abs_top_builddir)'

# seqfuzz: random sequences of file operations, each run bare and under
# fa-run -w ROOT with the floor off and on, with directories renamed,
# swapped and removed by a process outside the run between the calls; the
# results and the trees must be the same. A check program, built by the
# normal compiler with the others (no clang):
#   make fuzz-seq                  sequences for SEQFUZZ_SECONDS (20)
#   tests/fuzz/seqfuzz --seed N    one sequence again (--help: the options)
check_PROGRAMS += %D%/seqfuzz
%C%_seqfuzz_SOURCES = %D%/seqfuzz.c
SEQFUZZ_SECONDS = $(FUZZ_BURST_SECONDS)
SEQFUZZ_RUN = TMPDIR='$(abs_top_builddir)/%D%' '$(abs_top_builddir)/%D%/seqfuzz$(EXEEXT)' \
	--fa-run '$(abs_top_builddir)/fa-run$(EXEEXT)'
SEQFUZZ_NEEDS = %D%/seqfuzz$(EXEEXT) fa-run$(EXEEXT) src/libfashim.la

fuzz: $(SEQFUZZ_NEEDS)
	$(FUZZ_RUN) $(FUZZ_SECONDS) $(src_libfaengine_la_SOURCES)
	$(SEQFUZZ_RUN) --seconds $(FUZZ_SECONDS)
fuzz-burst: $(SEQFUZZ_NEEDS)
	$(FUZZ_RUN) $(FUZZ_BURST_SECONDS) $(src_libfaengine_la_SOURCES)
	$(SEQFUZZ_RUN) --seconds $(SEQFUZZ_SECONDS)
fuzz-seq: $(SEQFUZZ_NEEDS)
	$(SEQFUZZ_RUN) --seconds $(SEQFUZZ_SECONDS)
.PHONY: fuzz fuzz-burst fuzz-seq
