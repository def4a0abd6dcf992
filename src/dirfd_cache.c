/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dirfd_cache.c - what an open directory names, kept per thread so that a
 * call relative to a dirfd need not ask the kernel every time.
 *
 * A copy is read (one statx: a directory, still linked; one readlink of
 * /proc/self/fd/N) and stamped with two generations: the cwd cache's
 * (cwd_cache.c), which every rename and rmdir the engine's caller sees
 * moves, and the fd number's own, which moves whenever the caller sees the
 * number closed, replaced or handed out again (fa_fd_moved(): close,
 * close_range, closefrom, dup2/dup3 over it, closedir, fclose, an open
 * that returns it). The counters are a fixed table, one per fd number
 * below FDS, bumped with relaxed atomics: no allocation, no lock, safe in
 * a signal handler. It is on only while the cwd cache is: the shim under
 * a process policy, which reports those events.
 *
 * How far a copy is trusted is the caller's to say (enum fa__dirfd_trust):
 * a caller that acts on the name gets it from the kernel every time; one
 * that acts through the dirfd and judges by the name (use.c's routes from
 * a start) may take the copy without a system call; a pure check (whose
 * caller then makes the real call on the dirfd) takes it once a statx
 * shows the number is still the directory it was read for.
 *
 * What the caller cannot see: a number closed by an inline system call
 * (or by another process sharing the table of descriptors) and reused for
 * another directory where no wrapper sees it, and a directory renamed or
 * removed by a process outside the run (fa_cwd_share()). The copy then
 * keeps the old name, and a call relative to the number is judged on that
 * name: a stale judgement, never a wrong place, since the call acts
 * through the number itself. glibc's own walks (fts, nftw, scandir, glob)
 * open and close their descriptors inside libc, unseen, but never hand
 * them to the program, so they are never looked up here.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

enum { SLOTS = 2, FDS = 4096 };

/* Per fd number: how many times it may have stopped naming what it named. */
static unsigned fd_gens[FDS];

/* The thread's copies, in a block of its own as in cwd_cache.c. */
struct slot {
	unsigned long gen;	/* 0: empty, or being filled */
	unsigned fdgen;
	int fd;
	uint64_t mnt, ino;
	size_t len;
	char path[PATH_MAX];
};
struct slots {
	struct slot s[SLOTS];
	unsigned turn;
};
static struct fa__tblock blocks = FA__TBLOCK(struct slots);
static __thread void *my_slots;

void fa_fd_moved(int fd)
{
	if ((unsigned)fd < FDS)
		__atomic_add_fetch(&fd_gens[fd], 1, __ATOMIC_RELAXED);
}

void fa_fd_moved_range(unsigned first, unsigned last)
{
	unsigned fd;

	for (fd = first; fd <= last && fd < FDS; fd++)
		__atomic_add_fetch(&fd_gens[fd], 1, __ATOMIC_RELAXED);
}

unsigned fa__fd_gen(int fd)
{
	return (unsigned)fd < FDS ? __atomic_load_n(&fd_gens[fd], __ATOMIC_ACQUIRE) : 0;
}

/* The copy current for dirfd under g, or NULL; trusted: no identity to compare. */
static const struct slot *find(int dirfd, unsigned long g, unsigned fg, int trusted,
			       const struct statx *st, uint64_t mnt)
{
	const struct slots *mine = g ? fa__tblock(&blocks, &my_slots) : NULL;
	int i;

	for (i = 0; mine && i < SLOTS; i++) {
		const struct slot *s = &mine->s[i];

		if (s->gen != g || s->fd != dirfd)
			continue;
		if (trusted ? s->fdgen == fg : (s->ino == st->stx_ino && s->mnt == mnt))
			return s;
	}
	return NULL;
}

static ssize_t copy_out(const struct slot *s, char *out, size_t len, enum fa_why *why)
{
	if (s->len >= len) {
		*why = FA_WHY_TOO_LONG;
		return -ENAMETOOLONG;
	}
	memcpy(out, s->path, s->len + 1);
	return (ssize_t)s->len;
}

ssize_t fa__dirfd_path(int dirfd, char *out, size_t len, enum fa__dirfd_trust trust,
		       enum fa_why *why)
{
	struct statx st;
	const struct slot *hit;
	struct slots *mine;
	struct slot *s;
	unsigned long g = fa__cwd_generation();
	/* Read before the kernel is asked: a close meanwhile makes the copy stale. */
	unsigned fg = fa__fd_gen(dirfd);
	uint64_t mnt;
	ssize_t n;
	int r;

	if (trust == FA_DIRFD_KEPT && (unsigned)dirfd < FDS &&
	    (hit = find(dirfd, g, fg, 1, NULL, 0)))
		return copy_out(hit, out, len, why);
	r = fa__sys_statx(dirfd, "", AT_EMPTY_PATH | AT_NO_AUTOMOUNT,
			  STATX_TYPE | STATX_INO | STATX_NLINK | FA_STATX_MNT_ID, &st);
	if (r < 0 || (st.stx_mode & S_IFMT) != S_IFDIR) {
		*why = FA_WHY_BAD_FD;
		return r < 0 ? r : -ENOTDIR;
	}
	if (st.stx_nlink == 0) {
		*why = FA_WHY_BAD_FD;	/* a removed directory */
		return -ENOENT;
	}
	mnt = fa__statx_mount_id(&st);
	if (trust != FA_DIRFD_NOW && (hit = find(dirfd, g, fg, 0, &st, mnt)))
		return copy_out(hit, out, len, why);
	n = fa__fd_path(dirfd, out, len);
	if (n < 0) {
		*why = n == -ENAMETOOLONG ? FA_WHY_TOO_LONG : FA_WHY_BAD_FD;
		return n;
	}
	if (n > 10 && memcmp(out + n - 10, " (deleted)", 10) == 0) {
		struct statx now;

		/* Either removed since the statx, or really named "x (deleted)". */
		if (fa__sys_statx(dirfd, "", AT_EMPTY_PATH, STATX_NLINK, &now) < 0 ||
		    now.stx_nlink == 0) {
			*why = FA_WHY_BAD_FD;
			return -ENOENT;
		}
	}
	if (!g || out[0] != '/' || !(mine = fa__tblock(&blocks, &my_slots)))
		return n;
	/*
	 * Stamped with the generations read before the statx: a rename or a
	 * close meanwhile makes the next call read it again. A signal handler
	 * that lands while the slot is filled sees it empty.
	 */
	s = &mine->s[mine->turn++ % SLOTS];
	s->gen = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s->fd = dirfd;
	s->fdgen = fg;
	s->ino = st.stx_ino;
	s->mnt = mnt;
	s->len = (size_t)n;
	memcpy(s->path, out, (size_t)n + 1);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s->gen = g;
	return n;
}
