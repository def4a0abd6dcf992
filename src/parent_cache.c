/*
 * parent_cache.c - the last directory pinned beneath a root, kept open, so
 * that a run of entry changes in one directory (tar and cp -a set the
 * owner, mode and times of each directory they make, one call each)
 * resolves it once instead of once per call.
 *
 * One entry for the process: an O_PATH descriptor at a number of its own,
 * placed high and kept by the caller like the pinned roots (the shim
 * refuses close and dup2 onto it and steps around it in close_range), and
 * the directory it was resolved for: the policy, the folded path, the
 * mount rule, and the cwd cache's generation (cwd_cache.c), which every
 * rename and rmdir the caller sees moves. A later resolution of the same
 * path under the same generation takes the descriptor instead of opening
 * the directory again: the same answer, for no system call. The first
 * resolution of another path takes the number over with dup3 (the old
 * directory is closed by it).
 *
 * The entry is used by one call at a time: taking it marks it busy, and
 * the caller gives it back when it would have closed the descriptor
 * (fa__parent_release()). A caller that finds it busy (another thread, a
 * signal handler, the second parent of a rename) resolves as before.
 * Only the process that enabled it (or a fork child, told by
 * fa_cwd_forked()) moves it to another directory: a vfork child has a
 * table of descriptors of its own, where the number names what it named
 * at the vfork. It is on only while the cwd cache is, in the shim under a
 * process policy.
 *
 * What it trusts: that nothing but this file changes what the number
 * names, as for the pinned roots (a raw close or dup2 onto it by the
 * program is a known bypass, which the kernel floor closes for writes),
 * and that a directory renamed or removed by a process outside the run
 * (the run's own processes share their count of moves, cwd_cache.c) may
 * be found by its old path, as the dirfd cache says: still beneath the
 * root, opened with no symlink on the way when it was resolved.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

enum { EMPTY, FULL, BUSY };

static int state = EMPTY;
static int held = -1;	/* the number, or -1 while off */
static struct {
	const fa_policy *p;
	unsigned long gen;
	unsigned xdev;
	size_t len;
	char path[PATH_MAX];
} kept;

int fa_parent_cache_enable(int fd)
{
	int h;

	if (held >= 0 || fd < 0 || !fa_cwd_cache_enabled())
		return held;
	/* A place of its own above fd, holding a directory until the first pin. */
	h = fa__sys_fcntl(fd, F_DUPFD_CLOEXEC, fd + 1);
	if (h < 0)
		return -1;
	__atomic_store_n(&held, h, __ATOMIC_RELEASE);
	return h;
}

int fa_parent_cache_fd(void)
{
	return __atomic_load_n(&held, __ATOMIC_ACQUIRE);
}

static int same(const fa_policy *p, const char *path, size_t len, unsigned xdev,
		unsigned long gen)
{
	return kept.p == p && kept.gen == gen && kept.xdev == xdev && kept.len == len &&
	       fa__same(kept.path, path, len);
}

int fa__parent_take(const fa_policy *p, const char *path, size_t len, unsigned xdev)
{
	unsigned long g = fa__cwd_generation();
	int expect = FULL;

	if (!g || held < 0 ||
	    !__atomic_compare_exchange_n(&state, &expect, BUSY, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return -1;
	if (same(p, path, len, xdev, g))
		return held;
	__atomic_store_n(&state, FULL, __ATOMIC_RELEASE);
	return -1;
}

int fa__parent_keep(int fd, const fa_policy *p, const char *path, size_t len, unsigned xdev,
		    unsigned long gen)
{
	int expect = FULL;

	if (!gen || held < 0 || len >= sizeof kept.path)
		return fd;
	if (!__atomic_compare_exchange_n(&state, &expect, BUSY, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		expect = EMPTY;
		if (!__atomic_compare_exchange_n(&state, &expect, BUSY, 0, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			return fd;
	}
	if (fa__sys_getpid() != fa__cwd_owner() || fa__sys_dup3(fd, held, O_CLOEXEC) < 0) {
		__atomic_store_n(&state, expect == FULL ? FULL : EMPTY, __ATOMIC_RELEASE);
		return fd;
	}
	fa__sys_close(fd);
	kept.p = p;
	kept.gen = gen;
	kept.xdev = xdev;
	kept.len = len;
	memcpy(kept.path, path, len);
	kept.path[len] = 0;
	/* Busy: the caller holds it until it gives it back. */
	return held;
}

void fa__parent_release(int fd)
{
	if (fd < 0)
		return;
	if (fd == __atomic_load_n(&held, __ATOMIC_RELAXED)) {
		__atomic_store_n(&state, FULL, __ATOMIC_RELEASE);
		return;
	}
	fa__sys_close(fd);
}
