# SPDX-License-Identifier: Apache-2.0
# The floor under the preload, for the shim and fa-run alike: the Landlock
# ruleset (landlock.c) and whether a preload can follow a program (elf.c).
# Built once; both link it (and the floor benchmark).
noinst_LTLIBRARIES += %D%/libfafloor.la
%C%_libfafloor_la_SOURCES = %D%/landlock.h %D%/landlock_abi.h %D%/landlock.c \
	%D%/elf.h %D%/elf.c
%C%_libfafloor_la_CFLAGS = $(AM_CFLAGS) -fPIC -fvisibility=hidden
