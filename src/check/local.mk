# SPDX-License-Identifier: Apache-2.0
# fa-check: the engine as a path oracle for other languages.
bin_PROGRAMS += fa-check
fa_check_SOURCES = %D%/fa_check.c
fa_check_LDADD = src/libfaengine.la
dist_man_MANS += doc/fa-check.1
