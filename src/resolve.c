/* SPDX-License-Identifier: Apache-2.0 */
/*
 * resolve.c - choose how a path is opened beneath a directory fd.
 *
 * openat2 is the normal route. When the kernel lacks it (ENOSYS), refuses
 * the struct (E2BIG) or a seccomp filter forbids it (EPERM), the O_PATH
 * walk of resolve_walk.c gives the same answers. An EPERM can also be the
 * file's own answer, so a trivial probe decides which it was. Only the
 * failure is cached: a later seccomp filter can take openat2 away, but
 * nothing gives it back. Tests force the walk to run both routes.
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "engine_internal.h"

static atomic_int openat2_broken;
static atomic_int force_walk;

void fa_resolve_force_fallback(int on)
{
	atomic_store_explicit(&force_walk, on != 0, memory_order_relaxed);
}

int fa__openat2_usable(void)
{
	return !atomic_load_explicit(&force_walk, memory_order_relaxed) &&
	       !atomic_load_explicit(&openat2_broken, memory_order_relaxed);
}

static int probe_openat2(void)
{
	struct fa__open_how how;
	int fd;

	memset(&how, 0, sizeof how);
	how.flags = O_PATH | O_CLOEXEC;
	fd = fa__sys_openat2(AT_FDCWD, "/", &how);
	if (fd >= 0) {
		fa__sys_close(fd);
		return 1;
	}
	return 0;
}

int fa_resolve_uses_openat2(void)
{
	if (!fa__openat2_usable())
		return 0;
	if (!probe_openat2()) {
		atomic_store_explicit(&openat2_broken, 1, memory_order_relaxed);
		return 0;
	}
	return 1;
}

int fa__open(int dirfd, const char *path, int flags, mode_t mode, unsigned resolve)
{
	if (fa__openat2_usable()) {
		int r = fa__open_openat2(dirfd, path, flags, mode, resolve);

		if (r != -ENOSYS && r != -EPERM && r != -E2BIG)
			return r;
		if (probe_openat2())
			return r;
		atomic_store_explicit(&openat2_broken, 1, memory_order_relaxed);
	}
	return fa__open_walk(dirfd, path, flags, mode, resolve);
}
