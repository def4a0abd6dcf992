/*
 * net.c - bind() on a filesystem AF_UNIX address creates a socket file.
 *
 * The address is judged as a creation in its parent directory, then the
 * real bind() runs on the caller's address unchanged: binding through
 * the pinned directory would change what getsockname() reports. Abstract
 * and autobind addresses create nothing and pass.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/un.h>

#include "wrap.h"

int bind(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)addr.__sockaddr_un__;
	char path[sizeof(un->sun_path) + 1];
	size_t n;
	int rc;

	if (FA_GATE_OPEN())
		return fa_real_bind(fd, addr, len);
	if (FA_GUARDED() || !un || un->sun_family != AF_UNIX ||
	    len <= offsetof(struct sockaddr_un, sun_path) || un->sun_path[0] == '\0')
		return FA_REAL(bind)(fd, addr, len);
	n = len - offsetof(struct sockaddr_un, sun_path);
	if (n > sizeof(un->sun_path))
		n = sizeof(un->sun_path);
	memcpy(path, un->sun_path, n);
	path[n] = '\0';
	rc = fa_check_call("bind", FA_OP_CREATE, AT_FDCWD, path, -1, FA_RA());
	if (rc < 0 && rc != FA_PASS) {
		errno = -rc;
		return -1;
	}
	return FA_REAL(bind)(fd, addr, len);
}
