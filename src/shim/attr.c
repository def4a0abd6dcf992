/*
 * attr.c - mode, owner and extended attributes.
 *
 * Path calls are generated (generated.c). Calls on an fd are judged by
 * what the fd names. xattr calls have no *at() form: they run on
 * /proc/self/fd/<pinned parent>/<name>, which walks from the pinned
 * directory, so the directory judged is still the directory used.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "wrap.h"

ssize_t fa_fd_path(int fd, char *buf, size_t len)
{
	char link[40];
	struct fa_buf b = { link, 0, sizeof(link) };
	ssize_t n;

	fa_puts(&b, "/proc/self/fd/");
	fa_putu(&b, (unsigned)fd);
	n = readlink(link, buf, len - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

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

/* 0 to go ahead, -1 with errno set for a denial. */
int fa_do_fdattr(void *ra, const char *call, int fd)
{
	int saved = errno, rc;

	if (FA_GUARDED())
		return 0;
	rc = fa_fd_call(call, fd, ra);
	if (rc < 0 && rc != FA_PASS) {
		errno = -rc;
		return -1;
	}
	errno = saved;
	return 0;
}

int fchmod(int fd, mode_t mode)
{
	if (FA_GATE_OPEN())
		return fa_real_fchmod(fd, mode);
	if (fa_do_fdattr(FA_RA(), "fchmod", fd) < 0)
		return -1;
	return FA_REAL(fchmod)(fd, mode);
}

int fchown(int fd, uid_t uid, gid_t gid)
{
	if (FA_GATE_OPEN())
		return fa_real_fchown(fd, uid, gid);
	if (fa_do_fdattr(FA_RA(), "fchown", fd) < 0)
		return -1;
	return FA_REAL(fchown)(fd, uid, gid);
}

int fsetxattr(int fd, const char *name, const void *value, size_t size, int flags)
{
	if (FA_GATE_OPEN())
		return fa_real_fsetxattr(fd, name, value, size, flags);
	if (fa_do_fdattr(FA_RA(), "fsetxattr", fd) < 0)
		return -1;
	return FA_REAL(fsetxattr)(fd, name, value, size, flags);
}

int fremovexattr(int fd, const char *name)
{
	if (FA_GATE_OPEN())
		return fa_real_fremovexattr(fd, name);
	if (fa_do_fdattr(FA_RA(), "fremovexattr", fd) < 0)
		return -1;
	return FA_REAL(fremovexattr)(fd, name);
}

/* fchownat with AT_EMPTY_PATH acts on dirfd itself, like fchown. */
int fa_do_fchownat(void *ra, const char *call, int dirfd, const char *path,
		   uid_t uid, gid_t gid, int flags)
{
	struct fa_spin s;
	int saved = errno, rc, v;

	if (FA_GUARDED())
		return FA_REAL(fchownat)(dirfd, path, uid, gid, flags);
	if ((flags & AT_EMPTY_PATH) && path && !*path) {
		if (fa_do_fdattr(ra, call, dirfd) < 0)
			return -1;
		return FA_REAL(fchownat)(dirfd, path, uid, gid, flags);
	}
	rc = fa_pin_call(call, flags & AT_SYMLINK_NOFOLLOW ? FA_OP_LATTR : FA_OP_ATTR, dirfd, path,
			 NULL, &s, ra);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	errno = saved;
	v = FA_REAL(fchownat)(s.fd, s.name, uid, gid, flags);
	saved = errno;
	fa_unpin_call(&s);
	errno = saved;
	return v;
}

int fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
	if (FA_GATE_OPEN())
		return fa_real_fchownat(dirfd, path, uid, gid, flags);
	return fa_do_fchownat(FA_RA(), "fchownat", dirfd, path, uid, gid, flags);
}
