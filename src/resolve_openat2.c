/* SPDX-License-Identifier: Apache-2.0 */
/*
 * resolve_openat2.c - the kernel does the walk.
 *
 * RESOLVE_BENEATH makes the kernel refuse any step out of dirfd ('..' past
 * it, an absolute symlink, a symlink pointing outside); it answers EAGAIN
 * when a concurrent rename makes a '..' step unprovable. That is retried a
 * bounded number of times, then reported: never loop forever, never fall
 * back to an unchecked open.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

int fa__openat2_flags(int flags)
{
	const int known = O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND |
			  O_NONBLOCK | O_DSYNC | O_SYNC | O_ASYNC | O_DIRECT | O_LARGEFILE |
			  O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC | O_PATH | O_TMPFILE;

	return flags & known;
}

int fa__open_openat2(int dirfd, const char *path, int flags, mode_t mode, unsigned resolve)
{
	struct fa__open_how how;
	int i, r = -EAGAIN;

	memset(&how, 0, sizeof how);
	how.flags = (uint64_t)(unsigned)fa__openat2_flags(flags);
	/* openat2 refuses a mode that the flags do not use. */
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = mode & 07777;
	how.resolve = resolve;
	for (i = 0; i < FA__EAGAIN_RETRIES; i++) {
		r = fa__sys_openat2(dirfd, path, &how);
		if (r != -EAGAIN)
			break;
	}
	return r;
}
