/* SPDX-License-Identifier: Apache-2.0 */
/*
 * net.c - bind() on a filesystem AF_UNIX address creates a socket file.
 *
 * The address is judged as a creation in its parent directory, then the
 * real bind() runs on the caller's address unchanged. Binding through the
 * pinned directory (/proc/self/fd/N/name) would make the check the use,
 * but the kernel keeps the address as given: getsockname() would then
 * name a link that dies with the pin, and servers hand that name to their
 * clients. So a rename or symlink swap of the parent between the check
 * and the bind can still place the socket elsewhere (the README lists
 * it). Abstract and autobind addresses create nothing and pass.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/un.h>

#include "wrap.h"

int fa_do_bind(void *ra, const char *call, int fd, fa_sockaddr_arg addr, socklen_t len)
{
	const struct sockaddr_un *un = FA_SOCKADDR_UN(addr);
	char path[sizeof(un->sun_path) + 1];
	size_t n;

	if (un && un->sun_family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path) &&
	    un->sun_path[0] != '\0') {
		n = len - offsetof(struct sockaddr_un, sun_path);
		if (n > sizeof(un->sun_path))
			n = sizeof(un->sun_path);
		memcpy(path, un->sun_path, n);
		path[n] = '\0';
		if (fa_check_call(call, FA_OP_CREATE, AT_FDCWD, path, -1, ra)) {
			/* A name already taken: the kernel's mknod says EEXIST, bind EADDRINUSE. */
			if (errno == EEXIST)
				errno = EADDRINUSE;
			return -1;
		}
	}
	return FA_REAL(bind)(fd, addr, len);
}
