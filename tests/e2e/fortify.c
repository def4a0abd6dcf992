/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fortify.c - open() and openat() compiled the way a fortified program
 * compiles them: with non-constant flags and no mode, <bits/fcntl2.h>
 * turns them into calls to __open_2 and __openat_2, which a shim must
 * interpose separately. Fortification needs an optimising build; without
 * one the internal entry points are called by name instead.
 */
#include "config.h"

#if defined(__OPTIMIZE__)
# undef _FORTIFY_SOURCE
# define _FORTIFY_SOURCE 2
# define FA_FORTIFIED 1
#else
# define FA_FORTIFIED 0
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "../libc_compat.h"

#include "calltest.h"

int fortified_build(void)
{
	return FA_FORTIFIED;
}

#if FA_FORTIFIED
int fortified_open(const char *path, int flags)
{
	return open(path, flags);
}

int fortified_openat(int dirfd, const char *path, int flags)
{
	return openat(dirfd, path, flags);
}
#else
int fortified_open(const char *path, int flags)
{
	return __open_2(path, flags);
}

int fortified_openat(int dirfd, const char *path, int flags)
{
	return __openat_2(dirfd, path, flags);
}
#endif

const char *errno_name(int e)
{
	static char buf[16];
	const char *n = strerrorname_np(e);

	if (n)
		return n;
	snprintf(buf, sizeof buf, "E%d", e);
	return buf;
}
