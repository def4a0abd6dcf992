/* SPDX-License-Identifier: Apache-2.0 */
/*
 * chdir.c - changes of directory, told to the engine's cwd cache.
 *
 * With a process policy, a write-open by a path relative to the current
 * directory is judged on the engine's per-thread copy of the cwd's path,
 * and opened by the kernel beneath the real cwd: containment then rests on
 * that copy naming the real cwd. Every libc call that changes the cwd is
 * therefore wrapped here: the engine holds the cache off while the change
 * is under way and reads the directory again after it. Calls that change
 * it from inside libc without going through these names are covered by
 * the walks that make them (fts, nftw) and by daemon(); syscall(SYS_chdir)
 * and syscall(SYS_fchdir) by the syscall() wrapper. Inline system calls
 * and another process renaming an ancestor are not seen, like the rest of
 * what a preload cannot see. A child that shares the process's memory but
 * not its directory (vfork, CLONE_VM) never fills the parent's copy; the
 * child of a fork that runs no atfork handler (a raw system call, _Fork)
 * never refills it either, and pays a getcwd per relative call instead.
 *
 * Without a process policy the cache is off and these are plain calls.
 */
#include "config.h"

#include <errno.h>

#include "wrap.h"

/*
 * The engine's kept parent directory (parent_cache.c) sits above the
 * pinned roots, and is kept from the program's close, dup2 and
 * close_range like them (fd.c).
 */
static void keep_parent(void)
{
	const fa_policy *p = fa_proc.policy;
	unsigned lo, hi;
	int i, fd, top = -1;

	for (i = 0; i < fa_policy_nroots(p); i++)
		if ((fd = fa_policy_root_fd(p, i)) > top)
			top = fd;
	if (top < 0 || (fd = fa_parent_cache_enable(top)) < 0)
		return;
	lo = fa_proc.pin_lo;
	hi = fa_proc.pin_lo + fa_proc.pin_span;
	fa_proc.pin_lo = (unsigned)fd < lo ? (unsigned)fd : lo;
	fa_proc.pin_span = ((unsigned)fd > hi ? (unsigned)fd : hi) - fa_proc.pin_lo;
}

/*
 * Enabled after the process policy is read, in every process image. A
 * fork child takes the cache over; a child that shares the memory
 * (vfork, CLONE_VM) runs no atfork handler and leaves it alone.
 */
__attribute__((constructor)) static void fa_cwd_ctor(void)
{
	fa_init();
	if (fa_proc.policy) {
		/* fa-run's shared page: the run's moves of directories are seen by all. */
		if (fa_proc.counts)
			fa_cwd_share(&fa_proc.counts->moves);
		fa_cwd_cache_enable();
		keep_parent();
		pthread_atfork(NULL, NULL, fa_cwd_forked);
	}
}

/* No process policy, or a call made before the constructor: nothing to tell. */
static int untold(void)
{
	return FA_GATE_OPEN() || !fa_cwd_cache_enabled();
}

int FA_WRAPPER(chdir)(const char *path)
{
	int r;

	if (untold())
		return FA_REAL(chdir)(path);
	fa_cwd_hold();
	r = FA_REAL(chdir)(path);
	fa_cwd_release();
	return r;
}

int FA_WRAPPER(fchdir)(int fd)
{
	int r;

	if (untold())
		return FA_REAL(fchdir)(fd);
	fa_cwd_hold();
	r = FA_REAL(fchdir)(fd);
	fa_cwd_release();
	return r;
}

/* daemon() forks, and the child alone goes on, in "/" unless nochdir. */
int FA_WRAPPER(daemon)(int nochdir, int noclose)
{
	int r;

	if (untold() || nochdir)
		return FA_REAL(daemon)(nochdir, noclose);
	fa_cwd_hold();
	r = FA_REAL(daemon)(nochdir, noclose);
	fa_cwd_release();
	return r;
}

#ifdef HAVE_FTS_OPEN
/*
 * fts without FTS_NOCHDIR changes directory in fts_read() and returns to
 * the start in fts_close(): the cache stays off in between. A stream
 * never closed keeps it off, which costs a getcwd per relative call and
 * nothing else.
 */
FTS *FA_WRAPPER(fts_open)(char *const *argv, int options, int (*compar)(const FTSENT **, const FTSENT **))
{
	FTS *f;

	if (untold())
		return FA_REAL(fts_open)(argv, options, compar);
	fa_cwd_hold();
	f = FA_REAL(fts_open)(argv, options, compar);
	/* fts_open sets FTS_NOCHDIR itself when it cannot come back. */
	if (!f || (f->fts_options & FTS_NOCHDIR))
		fa_cwd_release();
	return f;
}

int FA_WRAPPER(fts_close)(FTS *f)
{
	int r, held;

	if (untold())
		return FA_REAL(fts_close)(f);
	held = f && !(f->fts_options & FTS_NOCHDIR);
	r = FA_REAL(fts_close)(f);
	if (held)
		fa_cwd_release();
	return r;
}
#endif

#ifdef HAVE_FTS64_OPEN
FTS64 *FA_WRAPPER(fts64_open)(char *const *argv, int options,
		  int (*compar)(const FTSENT64 **, const FTSENT64 **))
{
	FTS64 *f;

	if (untold())
		return FA_REAL(fts64_open)(argv, options, compar);
	fa_cwd_hold();
	f = FA_REAL(fts64_open)(argv, options, compar);
	if (!f || (f->fts_options & FTS_NOCHDIR))
		fa_cwd_release();
	return f;
}

int FA_WRAPPER(fts64_close)(FTS64 *f)
{
	int r, held;

	if (untold())
		return FA_REAL(fts64_close)(f);
	held = f && !(f->fts_options & FTS_NOCHDIR);
	r = FA_REAL(fts64_close)(f);
	if (held)
		fa_cwd_release();
	return r;
}
#endif

/* FTW_CHDIR: the callbacks run in the directory of each entry. */
int FA_WRAPPER(nftw)(const char *dir, fa_nftw_fn fn, int nfd, int flags)
{
	int r;

	if (untold() || !(flags & FTW_CHDIR))
		return FA_REAL(nftw)(dir, fn, nfd, flags);
	fa_cwd_hold();
	r = FA_REAL(nftw)(dir, fn, nfd, flags);
	fa_cwd_release();
	return r;
}

#ifdef HAVE_LFS64
int FA_WRAPPER(nftw64)(const char *dir, fa_nftw64_fn fn, int nfd, int flags)
{
	int r;

	if (untold() || !(flags & FTW_CHDIR))
		return FA_REAL(nftw64)(dir, fn, nfd, flags);
	fa_cwd_hold();
	r = FA_REAL(nftw64)(dir, fn, nfd, flags);
	fa_cwd_release();
	return r;
}
#endif
