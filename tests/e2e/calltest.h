/* SPDX-License-Identifier: Apache-2.0 */
/* calltest.h - declarations shared by the end-to-end test programs. */
#ifndef FA_CALLTEST_H
#define FA_CALLTEST_H

#include <stdio.h>

/* glibc's fortified entry points; declared here because only fortified builds see them. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

/* glibc's exported aliases of open(). */
int __open(const char *path, int flags, ...);
int __open64(const char *path, int flags, ...);

/* old exported aliases of fopen() and setmntent() */
FILE *_IO_fopen(const char *path, const char *mode);
FILE *__setmntent(const char *file, const char *mode);

/* open()/openat() as a -D_FORTIFY_SOURCE=2 -O2 build compiles them. */
int fortified_open(const char *path, int flags);
int fortified_openat(int dirfd, const char *path, int flags);
/* 1 when fortified_open() really went through the fortified header. */
int fortified_build(void);

const char *errno_name(int e);
int parse_flags(const char *s);

#endif
