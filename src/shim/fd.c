/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fd.c - the process policy's pinned root fds stay the shim's.
 *
 * The engine pins each root with an O_PATH fd placed high. A program that
 * closes every descriptor it does not know (daemons, subprocess children
 * before exec) would otherwise close them, and the next open could reuse
 * the number: the engine would then resolve beneath the wrong directory.
 * close/dup2/dup3 (KEEPFD lines of symbols.def) and close_range refuse
 * those fds (EBADF, as for a closed fd) or step around them; the test is
 * one compare on a range. fa-run's denial tally (FA_COUNTS) is kept the
 * same way, so that the children of such a program are still counted,
 * and so is the last directory the engine pinned, kept open above the
 * roots (parent_cache.c), which a dup2 onto its number would redirect.
 *
 * The marks: an fd the shim opened for writing under the process policy
 * was judged a writable object inside the roots, and fchmod, fchown,
 * futimens and the f*xattr calls on it are allowed without judging it
 * again (fa_fd_call), as write(2) on it is. The judgement holds for the
 * descriptor's life, even if another process renames the file out of the
 * roots meanwhile. A mark goes when the shim sees the number closed
 * (close, dup2/dup3 over it, close_range, closefrom), handed to stdio
 * (fopen's own descriptor, or fdopen: fclose closes it unseen), or handed out again by an open it sees; exec
 * starts with none, a fork child inherits them with the fds. A context's
 * policy always judges again: the marks are the process policy's alone.
 * What a preload cannot see: a raw close (syscall(SYS_close), inline)
 * followed by an unseen open that reuses the number keeps the old mark.
 *
 * The same events move the number's generation in the engine, which keeps
 * what a dirfd names (dirfd_cache.c says what that trusts): every close
 * the shim can see is told, after it is made, including the ones stdio
 * and directory streams make inside libc (fclose, closedir), whatever
 * opened the stream.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "sys.h"
#include "wrap.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

unsigned char fa_fd_marks[FA_FD_MARKS];

int fa_is_root_fd(int fd)
{
	const fa_policy *p = fa_proc.policy;
	int i;

	/* fa-run's tally, inherited by every child: kept like the roots */
	if (fa_proc.counts && fd == fa_proc.counts_fd)
		return 1;
	if (!p || fd < 0)
		return 0;
	/* the engine's kept parent directory (parent_cache.c) */
	if (fd == fa_parent_cache_fd())
		return 1;
	for (i = 0; i < fa_policy_nroots(p); i++)
		if (fa_policy_root_fd(p, i) == fd)
			return 1;
	return 0;
}

static void forget_range(unsigned int first, unsigned int last)
{
	unsigned int fd;

	for (fd = first; fd <= last && fd < FA_FD_MARKS; fd++)
		fa_fd_forget((int)fd);
}

/* libc's close_range, or the kernel's where libc has none (musl). */
static int real_close_range(unsigned int first, unsigned int last, int flags)
{
#if defined(HAVE_CLOSE_RANGE)
	return FA_REAL(close_range)(first, last, flags);
#elif defined(SYS_close_range)
	long r = fa__sys6(SYS_close_range, first, last, flags, 0, 0, 0);

	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (int)r;
#else
	errno = ENOSYS;	/* no such kernel call: close_range() is libc's, or nobody's */
	return -1;
#endif
}

/*
 * Close [first, last] except the root fds, in the pieces between them:
 * close_range() and syscall(SYS_close_range) alike.
 */
int fa_close_range(unsigned int first, unsigned int last, int flags)
{
	unsigned int lo = fa_proc.pin_lo, hi = fa_proc.pin_lo + fa_proc.pin_span, fd, from;
	int rc;

	if (!(flags & CLOSE_RANGE_CLOEXEC))
		forget_range(first, last);
	if (FA_LIKELY((!fa_proc.npinned && !fa_proc.counts) || last < lo || first > hi)) {
		rc = real_close_range(first, last, flags);
		goto out;
	}
	from = first;
	rc = 0;
	for (fd = first > lo ? first : lo; fd <= hi && fd <= last; fd++) {
		if (!fa_is_root_fd((int)fd))
			continue;
		if (fd > from && (rc = real_close_range(from, fd - 1, flags)) < 0)
			goto out;
		from = fd + 1;
	}
	if (from <= last)
		rc = real_close_range(from, last, flags);
out:
	/* Closed at exec only (CLOEXEC): the numbers still name what they named. */
	if (!(flags & CLOSE_RANGE_CLOEXEC))
		fa_fd_moved_range(first, last);
	return rc;
}

#ifdef HAVE_CLOSE_RANGE
int FA_WRAPPER(close_range)(unsigned int first, unsigned int last, int flags)
{
	return fa_close_range(first, last, flags);
}

void FA_WRAPPER(closefrom)(int lowfd)
{
	forget_range(lowfd < 0 ? 0u : (unsigned)lowfd, ~0u);
	if (FA_LIKELY(!fa_proc.npinned && !fa_proc.counts)) {
		FA_REAL(closefrom)(lowfd);
		fa_fd_moved_range(lowfd < 0 ? 0u : (unsigned)lowfd, ~0u);
		return;
	}
	fa_close_range(lowfd < 0 ? 0u : (unsigned)lowfd, ~0u, 0);
}
#endif

FILE *FA_WRAPPER(fdopen)(int fd, const char *mode)
{
	fa_fd_forget(fd);
	return FA_REAL(fdopen)(fd, mode);
}

/* stdio's close is libc's own: told here, whoever opened the stream. */
int FA_WRAPPER(fclose)(FILE *f)
{
	int saved = errno, fd = f ? fileno(f) : -1, rc;

	errno = saved;	/* a stream with no descriptor (fmemopen) says EBADF */
	rc = FA_REAL(fclose)(f);
	if (fd >= 0)
		fa_fd_forget(fd);
	return rc;
}

/* A directory stream's descriptor, closed inside libc (opendir or fdopendir). */
int FA_WRAPPER(closedir)(DIR *d)
{
	DIR *any = d;
	int fd, rc;

	/* libc's header says d is never NULL; libc's closedir answers EINVAL if it is. */
	__asm__("" : "+r"(any));
	fd = any ? dirfd(any) : -1;
	rc = FA_REAL(closedir)(d);
	if (fd >= 0)
		fa_fd_forget(fd);
	return rc;
}
