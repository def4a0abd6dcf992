/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libc_compat.h - what the test programs call that not every libc has:
 * glibc's renameat2, close_range, closefrom and strerrorname_np. On a
 * libc without them (musl) the first three are the kernel's own calls and
 * the names of errors come from the table below. Included after config.h.
 */
#ifndef FA_TESTS_LIBC_COMPAT_H
#define FA_TESTS_LIBC_COMPAT_H

#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux_abi.h"	/* RENAME_NOREPLACE, RENAME_EXCHANGE */

#ifndef HAVE_RENAMEAT2
static inline int fa_t_renameat2(int ofd, const char *from, int nfd, const char *to, unsigned flags)
{
	return (int)syscall(SYS_renameat2, ofd, from, nfd, to, flags);
}
#define renameat2 fa_t_renameat2
#endif

#ifndef HAVE_CLOSE_RANGE
static inline int fa_t_close_range(unsigned first, unsigned last, int flags)
{
	return (int)syscall(SYS_close_range, first, last, flags);
}
#define close_range fa_t_close_range
#endif

#ifndef HAVE_CLOSEFROM
static inline void fa_t_closefrom(int lowfd)
{
	(void)syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0);
}
#define closefrom fa_t_closefrom
#endif

#if !defined(__GLIBC__) || __GLIBC__ < 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ < 32)
/* The names the suites' expected outputs hold; NULL for any other. */
static inline const char *fa_t_errname(int e)
{
#define FA_T_E(n) \
	case n: \
		return #n;
	switch (e) {
		FA_T_E(EPERM) FA_T_E(ENOENT) FA_T_E(ESRCH) FA_T_E(EINTR) FA_T_E(EIO) FA_T_E(ENXIO)
		FA_T_E(E2BIG) FA_T_E(ENOEXEC) FA_T_E(EBADF) FA_T_E(ECHILD) FA_T_E(EAGAIN)
		FA_T_E(ENOMEM) FA_T_E(EACCES) FA_T_E(EFAULT) FA_T_E(EBUSY) FA_T_E(EEXIST)
		FA_T_E(EXDEV) FA_T_E(ENODEV) FA_T_E(ENOTDIR) FA_T_E(EISDIR) FA_T_E(EINVAL)
		FA_T_E(ENFILE) FA_T_E(EMFILE) FA_T_E(ENOTTY) FA_T_E(ETXTBSY) FA_T_E(EFBIG)
		FA_T_E(ENOSPC) FA_T_E(ESPIPE) FA_T_E(EROFS) FA_T_E(EMLINK) FA_T_E(ERANGE)
		FA_T_E(ENAMETOOLONG) FA_T_E(ENOSYS) FA_T_E(ENOTEMPTY) FA_T_E(ELOOP)
		FA_T_E(EOPNOTSUPP) FA_T_E(EADDRINUSE) FA_T_E(ENOTSOCK) FA_T_E(ECONNREFUSED)
		FA_T_E(EOVERFLOW) FA_T_E(ESTALE) FA_T_E(ENODATA)
	}
#undef FA_T_E
	return NULL;
}
#define strerrorname_np fa_t_errname
#endif

#endif
