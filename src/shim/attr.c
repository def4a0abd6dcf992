/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attr.c - mode, owner, extended attributes, timestamps, inode flags.
 *
 * Path and fd calls are generated (generated.c): a path call runs on the
 * pinned parent, a call on an fd is judged by what the fd names. xattr calls have no *at() form: they run on
 * /proc/self/fd/<pinned parent>/<name>, which walks from the pinned
 * directory, so the directory judged is still the directory used.
 */
#include "config.h"

#include <errno.h>
#include "linux_abi.h"
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#ifdef HAVE_SYS_XATTR_H
#include <sys/xattr.h>
#endif
#include <unistd.h>

#include "wrap.h"

#ifdef SYS_setxattr
int fa_xattr_at(int dirfd, const char *name, int follow, int set,
		const char *attr, const void *value, size_t size, int flags)
{
	char path[PATH_MAX + 64];
	struct fa_buf b = { path, 0, sizeof(path) };

	if (dirfd != AT_FDCWD && name[0] != '/') {
		fa_puts(&b, "/proc/self/fd/");
		fa_putu(&b, (unsigned)dirfd);
		fa_putc(&b, '/');
	}
	fa_puts(&b, name);
	if (b.len >= sizeof(path) - 1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (set)
		return (int)FA_REAL(syscall)(follow ? SYS_setxattr : SYS_lsetxattr, path, attr, value, size, flags);
	return (int)FA_REAL(syscall)(follow ? SYS_removexattr : SYS_lremovexattr, path, attr);
}
#endif

/* utimes() and lutimes() as the utimensat() the kernel has. */
int fa_utimes_at(int dirfd, const char *name, const struct timeval tv[2], int flags)
{
	struct timespec ts[2];

	if (!tv)
		return FA_REAL(utimensat)(dirfd, name, NULL, flags);
	ts[0].tv_sec = tv[0].tv_sec;
	ts[0].tv_nsec = tv[0].tv_usec * 1000;
	ts[1].tv_sec = tv[1].tv_sec;
	ts[1].tv_nsec = tv[1].tv_usec * 1000;
	if (tv[0].tv_usec < 0 || tv[0].tv_usec >= 1000000 || tv[1].tv_usec < 0 ||
	    tv[1].tv_usec >= 1000000) {
		errno = EINVAL;
		return -1;
	}
	return FA_REAL(utimensat)(dirfd, name, ts, flags);
}

int fa_utime_at(int dirfd, const char *name, const void *times)
{
	const struct utimbuf *u = times;
	struct timespec ts[2];

	if (!u)
		return FA_REAL(utimensat)(dirfd, name, NULL, 0);
	ts[0].tv_sec = u->actime;
	ts[0].tv_nsec = 0;
	ts[1].tv_sec = u->modtime;
	ts[1].tv_nsec = 0;
	return FA_REAL(utimensat)(dirfd, name, ts, 0);
}

/*
 * The inode flags (immutable, append-only, ...) and fsxattr change the
 * file an fd names whatever the fd's access mode: judged like fchmod.
 */
static int changes_inode(unsigned int request)
{
	/* The kernel reads the request as an unsigned int, whatever libc's type. */
	return request == (unsigned)FS_IOC_SETFLAGS || request == (unsigned)FS_IOC32_SETFLAGS ||
	       request == (unsigned)FS_IOC_FSSETXATTR;
}

int FA_WRAPPER(ioctl)(int fd, fa_ioctl_req request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (FA_GATE_OPEN() || !changes_inode((unsigned)request))
		return FA_REAL(ioctl)(fd, request, arg);
	if (fa_fd_call("ioctl", fd, FA_RA()))
		return -1;
	return FA_REAL(ioctl)(fd, request, arg);
}
