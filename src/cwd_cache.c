/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cwd_cache.c - the current directory, kept per thread so that a relative call
 * need not ask the kernel for it every time.
 *
 * Off unless a caller that sees every change of directory in the process
 * turns it on (the shim, whose chdir and fchdir wrappers report each one).
 * A global generation counts the changes; each thread keeps its own copy
 * of the path, stamped with the generation it was read under, and reads
 * it again (one getcwd) when the generation has moved. The hot path thus
 * writes nothing shared and takes no lock.
 *
 * What the copy is trusted for: that the directory the kernel resolves a
 * relative path from is the one the string names. That holds as long as
 * every change goes through the process's libc wrappers: chdir, fchdir,
 * the libc walks that change directory on their own (held for as long as
 * they run), and renames judged by the engine (a rename may move the cwd
 * or one of its ancestors, so it counts as a change). Raw system calls
 * and other processes that rename the directory's ancestors bypass it, as
 * they bypass the rest of the guard; a chdir in another thread that lands
 * between the judgement and the kernel's lookup is caught after the fact
 * (the generation moved) and the opened file judged by what it really is.
 *
 * Under fa-run the renames and removals of every process of the run count
 * too (fa_cwd_share()): the generation is this process's own counter plus
 * the run's shared one. Both only grow, so the sum is unchanged only when
 * neither moved.
 */
#include "config.h"

#include <string.h>

#include "engine_internal.h"

static int cache_on;
/*
 * The process whose memory holds the copies. A vfork or CLONE_VM child
 * runs on its parent's memory, this thread's copy included, but has a
 * working directory of its own: it reads the copy while the generation
 * says it is current (its directory is still the parent's then), and
 * never fills it, or the parent would later take the child's directory
 * for its own. A fork child gets a copy of everything and takes over.
 */
static int owner;
/* Starts above 0 so that a thread's zeroed copy is never current. */
static unsigned long generation = 2;
/* Changes under way (a chdir between its two bumps, a walk): no cache. */
static int holds;
/* The run's count of moves (fa_cwd_share()), or NULL. */
static uint64_t *shared;

/*
 * The thread's copy, in a block of its own (thread_block.c). Modules that
 * are dlopen'd never turn the cache on, so they never make one.
 */
struct copy {
	unsigned long gen;	/* 0 while being filled */
	size_t len;
	char path[PATH_MAX];
};
static struct fa__tblock copies = FA__TBLOCK(struct copy);
static __thread void *my_copy;

void fa_cwd_cache_enable(void)
{
	struct fa__cwdv v;

	__atomic_store_n(&owner, fa__sys_getpid(), __ATOMIC_SEQ_CST);
	__atomic_store_n(&cache_on, 1, __ATOMIC_SEQ_CST);
	/* Read now, at start-up, so the first relative call costs nothing extra. */
	fa__cwd_cached(&v);
}

int fa_cwd_cache_enabled(void)
{
	return __atomic_load_n(&cache_on, __ATOMIC_RELAXED);
}

void fa_cwd_forked(void)
{
	__atomic_store_n(&owner, fa__sys_getpid(), __ATOMIC_SEQ_CST);
}

void fa_cwd_share(uint64_t *moves)
{
	__atomic_store_n(&shared, moves, __ATOMIC_SEQ_CST);
}

/* Renames and removals of directories: seen by the whole run, when shared. */
void fa_cwd_changed(void)
{
	uint64_t *s = __atomic_load_n(&shared, __ATOMIC_ACQUIRE);

	if (s)
		__atomic_add_fetch(s, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&generation, 1, __ATOMIC_SEQ_CST);
}

static unsigned long generation_now(void)
{
	uint64_t *s = __atomic_load_n(&shared, __ATOMIC_ACQUIRE);
	unsigned long g = __atomic_load_n(&generation, __ATOMIC_SEQ_CST);

	return s ? g + (unsigned long)__atomic_load_n(s, __ATOMIC_SEQ_CST) : g;
}

/* Links made: kept apart, since a new link moves no directory a copy names. */
static uint64_t links;

void fa_link_made(void)
{
	__atomic_add_fetch(&links, 1, __ATOMIC_SEQ_CST);
}

uint64_t fa_moves(void)
{
	return generation_now() + __atomic_load_n(&links, __ATOMIC_SEQ_CST);
}

void fa_cwd_hold(void)
{
	__atomic_add_fetch(&holds, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&generation, 1, __ATOMIC_SEQ_CST);
}

void fa_cwd_release(void)
{
	__atomic_add_fetch(&generation, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&holds, 1, __ATOMIC_SEQ_CST);
}

int fa__cwd_cached(struct fa__cwdv *v)
{
	struct copy *mine;
	unsigned long g;
	int r;

	if (!__atomic_load_n(&cache_on, __ATOMIC_RELAXED))
		return 0;
	g = generation_now();
	if (__atomic_load_n(&holds, __ATOMIC_SEQ_CST))
		return 0;
	mine = fa__tblock(&copies, &my_copy);
	if (!mine)
		return 0;
	if (mine->gen != g) {
		/* One more system call on a refill only, never on the hot path. */
		if (fa__sys_getpid() != __atomic_load_n(&owner, __ATOMIC_RELAXED))
			return 0;
		/*
		 * A signal handler that lands while the copy is filled sees it
		 * as stale and fills it itself; the stamp is the generation
		 * read before getcwd, so a change meanwhile makes the next use
		 * read it again.
		 */
		mine->gen = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		r = fa__sys_getcwd(mine->path, sizeof mine->path);
		/* A removed or unreachable directory: the caller asks itself. */
		if (r <= 1 || mine->path[0] != '/')
			return 0;
		mine->len = (size_t)r - 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		mine->gen = g;
	}
	v->path = mine->path;
	v->len = mine->len;
	v->gen = g;
	return 1;
}

int fa__cwd_owner(void)
{
	return __atomic_load_n(&owner, __ATOMIC_RELAXED);
}

unsigned long fa__cwd_generation(void)
{
	unsigned long g;

	if (!__atomic_load_n(&cache_on, __ATOMIC_RELAXED))
		return 0;
	g = generation_now();
	return __atomic_load_n(&holds, __ATOMIC_SEQ_CST) ? 0 : g;
}

int fa__cwd_moved(const struct fa__cwdv *v)
{
	return generation_now() != v->gen ||
	       __atomic_load_n(&holds, __ATOMIC_SEQ_CST) != 0;
}
