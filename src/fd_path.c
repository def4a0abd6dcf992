/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fd_path.c - the absolute path a descriptor names, read from /proc with
 * the engine's raw calls. Below every part of the engine that asks it
 * (the resolvers, the judge, the caches); it asks only sys.c and the
 * string helpers of match.c.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

ssize_t fa__fd_path(int fd, char *buf, size_t len)
{
	char link[32] = "/proc/self/fd/";
	ssize_t n;

	if (fd == AT_FDCWD) {
		int r = fa__sys_getcwd(buf, len);

		if (r < 0)
			return r;
		if (buf[0] != '/')
			return -ENOENT;
		return (ssize_t)strlen(buf);
	}
	if (fd < 0)
		return -EBADF;
	fa__utoa((unsigned long)fd, link + 14);
	n = fa__sys_readlinkat(AT_FDCWD, link, buf, len);
	if (n < 0)
		return n;
	if ((size_t)n >= len)
		return -ENAMETOOLONG;
	buf[n] = 0;
	/* Pipes, sockets and files outside our root have no usable path. */
	if (buf[0] != '/')
		return -ENOENT;
	return n;
}

ssize_t fa_fd_path(int fd, char *buf, size_t len)
{
	return fa__fd_path(fd, buf, len);
}
