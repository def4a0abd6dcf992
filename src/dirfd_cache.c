/*
 * dirfd_cache.c - what an open directory names, kept per thread so that a
 * call relative to a dirfd need not read /proc/self/fd/N every time.
 *
 * Each call still asks the kernel what the fd is (one statx: it must be a
 * directory, as before). The thread's copy serves when it was read for the
 * same fd number and the same directory (mount, inode, still linked) under
 * the same generation of the cwd cache (cwd_cache.c), which every rename
 * the engine judges moves. It is on only while that cache is: the shim
 * under a process policy, where every rename goes through the engine.
 *
 * The rule for a directory renamed after its name was read: a rename in
 * this process is seen (the generation moves) and the name read again. One
 * made by another process or by an inline system call is not, until the
 * next rename here; the call is then judged on the old name, and use.c
 * opens what it judged, by that name beneath the root and never through
 * the dirfd, so nothing is reached that was not judged: the program sees
 * the directory as gone from where it was. A dirfd closed and its number
 * reused is told apart by the directory's identity.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

enum { SLOTS = 2 };

/* The default TLS model, as in cwd_cache.c: the engine is dlopen'd too. */
static __thread struct slot {
	unsigned long gen;	/* 0: empty, or being filled */
	int fd;
	uint64_t mnt, ino;
	size_t len;
	char path[PATH_MAX];
} mine[SLOTS];
static __thread unsigned turn;

ssize_t fa__dirfd_path(int dirfd, char *out, size_t len, enum fa_why *why)
{
	struct statx st;
	struct slot *s;
	unsigned long g;
	uint64_t mnt;
	ssize_t n;
	int i, r;

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
	g = fa__cwd_generation();
	for (i = 0; g && i < SLOTS; i++) {
		s = &mine[i];
		if (s->gen == g && s->fd == dirfd && s->ino == st.stx_ino && s->mnt == mnt) {
			if (s->len >= len) {
				*why = FA_WHY_TOO_LONG;
				return -ENAMETOOLONG;
			}
			memcpy(out, s->path, s->len + 1);
			return (ssize_t)s->len;
		}
	}
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
	if (!g || out[0] != '/')
		return n;
	/*
	 * Stamped with the generation read before the readlink: a rename
	 * meanwhile makes the next call read it again. A signal handler that
	 * lands while the slot is filled sees it empty.
	 */
	s = &mine[turn++ % SLOTS];
	s->gen = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s->fd = dirfd;
	s->ino = st.stx_ino;
	s->mnt = mnt;
	s->len = (size_t)n;
	memcpy(s->path, out, (size_t)n + 1);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s->gen = g;
	return n;
}
