/* SPDX-License-Identifier: Apache-2.0 */
/*
 * parent_cache.c - the last directory pinned beneath a root, kept open, so
 * that a run of entry changes in one directory (tar and cp -a set the
 * owner, mode and times of each directory they make, one call each)
 * walks to it with one statx instead of opening it again each call.
 *
 * One entry for the process: an O_PATH descriptor at a number of its own,
 * placed high and kept by the caller like the pinned roots (the shim
 * refuses close and dup2 onto it and steps around it in close_range), and
 * the directory it was resolved for: the policy, the folded path, the
 * mount rule, the cwd cache's generation (cwd_cache.c), which every rename
 * and rmdir the caller sees moves, and the directory's identity (mount and
 * inode).
 *
 * A kept descriptor is a name kept between calls, and a name may go stale:
 * a process out of sight (log rotation, a sync tool, another run) can move
 * the directory and put another in its place. So a later resolution of
 * the same path under the same generation takes the descriptor only after
 * a statx of the path, as the kernel resolves it now, finds the very
 * directory held (no link followed at the end; a link on the way that
 * leads to that same directory is where the path leads, so the call acts
 * exactly where its arguments name). Anything else, and the directory is
 * opened again. The first resolution of another path takes the number over
 * with dup3 (the old directory is closed by it).
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
 * program is a known bypass, which the kernel floor closes for writes).
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
	uint64_t mnt, ino;	/* the directory held */
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
	return kept.p == p && kept.gen == gen && kept.xdev == (xdev & RESOLVE_NO_XDEV) &&
	       kept.len == len &&
	       fa__same(kept.path, path, len);
}

/* 1 if rel beneath base names the directory held, as the kernel resolves it now. */
static int still_held(int base, const char *rel)
{
	struct statx st;

	if (fa__sys_statx(base, rel, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
			  STATX_TYPE | STATX_INO | FA_STATX_MNT_ID, &st) < 0)
		return 0;
	return (st.stx_mode & S_IFMT) == S_IFDIR && st.stx_ino == kept.ino &&
	       fa__statx_mount_id(&st) == kept.mnt;
}

int fa__parent_take(const fa_policy *p, const char *path, size_t len, unsigned xdev, int base,
		    const char *rel)
{
	unsigned long g = fa__cwd_generation();
	int expect = FULL;

	if (!g || held < 0 ||
	    !__atomic_compare_exchange_n(&state, &expect, BUSY, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return -1;
	if (same(p, path, len, xdev, g) && still_held(base, rel))
		return held;
	__atomic_store_n(&state, FULL, __ATOMIC_RELEASE);
	return -1;
}

int fa__parent_keep(int fd, const fa_policy *p, const char *path, size_t len, unsigned xdev,
		    unsigned long gen)
{
	struct statx st;
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
	if (fa__sys_getpid() != fa__cwd_owner() ||
	    fa__sys_statx(fd, "", AT_EMPTY_PATH, STATX_INO | FA_STATX_MNT_ID, &st) < 0 ||
	    fa__sys_dup3(fd, held, O_CLOEXEC) < 0) {
		__atomic_store_n(&state, expect == FULL ? FULL : EMPTY, __ATOMIC_RELEASE);
		return fd;
	}
	fa__sys_close(fd);
	kept.ino = st.stx_ino;
	kept.mnt = fa__statx_mount_id(&st);
	kept.p = p;
	kept.gen = gen;
	kept.xdev = xdev & RESOLVE_NO_XDEV;	/* the one rule a use must match */
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
