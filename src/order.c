/* SPDX-License-Identifier: Apache-2.0 */
/*
 * order.c - the kernel's order of checks.
 *
 * The kernel looks a path up before it asks whether the caller may change
 * anything: mkdir of an entry that exists is EEXIST, unlink of one that
 * does not is ENOENT, a parent that is a file is ENOTDIR, whatever the
 * permissions. A call refused by the policy that the kernel would have
 * failed that way anyway gets the kernel's answer and no report: it was
 * never going to write, and a false denial sends people hunting for a
 * policy problem that is not there (mkdir -p, make install, HDF5's probe
 * of a file with O_RDWR).
 *
 * Asked only after a denial, so allowed calls pay nothing. The answer comes
 * from lookups of the caller's own (dirfd, path) (statx, readlinkat, an
 * O_PATH open), which create nothing and follow nothing the kernel would
 * not; and the refused call is not run whatever they find, so a
 * concurrent change can only alter which error is given, never let a
 * write through. EACCES from a lookup is left alone: the denial, with its
 * message, says more.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"
#include "linux_abi.h"	/* RENAME_NOREPLACE, RENAME_EXCHANGE, RENAME_WHITEOUT */

/*
 * Lookup errors the kernel gives before any permission check. EBADF comes
 * from a relative path's dirfd, the first thing the kernel looks at.
 */
static int lookup_error(int r)
{
	return r == -ENOENT || r == -ENOTDIR || r == -ELOOP || r == -ENAMETOOLONG ||
	       r == -EBADF ? -r : 0;
}

/* The directory part of path (its parent as the kernel walks to it): "." for a bare name. */
static int dir_part(const char *path, char *dir, size_t len)
{
	const char *name;
	size_t dlen, nlen;

	fa__split(path, &dlen, &name, &nlen);
	if (dlen == 0) {
		strcpy(dir, ".");
		return 0;
	}
	if (dlen >= len)
		return -ENAMETOOLONG;
	memcpy(dir, path, dlen);
	dir[dlen] = 0;
	return 0;
}

/*
 * The directory dirfd/dir, followed: *type its file type, *dead 1 when it
 * was removed (no links left: the kernel makes and finds no name in it),
 * *mnt its mount when asked for. 0 or -errno.
 */
static int dir_stat(int dirfd, const char *dir, int *type, int *dead, uint64_t *mnt)
{
	struct statx st;
	int r = fa__sys_statx(dirfd, dir, AT_NO_AUTOMOUNT,
			      STATX_TYPE | STATX_NLINK | (mnt ? FA_STATX_MNT_ID : 0), &st);

	if (r < 0)
		return r;
	*type = st.stx_mode & S_IFMT;
	*dead = *type == S_IFDIR && (st.stx_mask & STATX_NLINK) && st.stx_nlink == 0;
	if (mnt)
		*mnt = fa__statx_mount_id(&st);
	return 0;
}

/*
 * The walk to the parent of path, as the kernel makes it before it looks
 * at the final name: its lookup error, ENOTDIR when the parent is no
 * directory, or 0. The parent of a bare name is dirfd. *dead: the parent
 * was removed, which the kernel finds out only when it looks the final
 * name up (ENOENT then). *mnt, when asked for: the parent's mount.
 */
static int parent_walk(int dirfd, const char *path, int *dead, uint64_t *mnt)
{
	char dir[PATH_MAX];
	int t, r;

	*dead = 0;
	if (dir_part(path, dir, sizeof dir) < 0)
		return ENAMETOOLONG;
	r = dir_stat(dirfd, dir, &t, dead, mnt);
	if (r < 0)
		return lookup_error(r);
	return t == S_IFDIR ? 0 : ENOTDIR;
}

/* The parent walk, and a removed parent: ENOENT for any name in it. */
static int parent_error(int dirfd, const char *path)
{
	int dead, e = parent_walk(dirfd, path, &dead, NULL);

	return e ? e : dead ? ENOENT : 0;
}

/* The path without its trailing slashes (the kernel's name for a new entry). */
static int strip_slashes(const char *path, char *out, size_t len)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(out, path, n);
	out[n] = 0;
	return 0;
}

static int trailing_slash(const char *path)
{
	size_t n = strlen(path);

	return n > 1 && path[n - 1] == '/';
}

/* 1 when the final component is an ordinary name: not ".", "..", nor "/" itself. */
static int plain_last(const char *path)
{
	const char *name;
	size_t dlen, nlen;

	fa__split(path, &dlen, &name, &nlen);
	return nlen && !(name[0] == '.' && (nlen == 1 || (nlen == 2 && name[1] == '.')));
}

int fa__kernel_first(enum fa__must must, int dirfd, const char *path)
{
	char name[PATH_MAX];
	int t;

	switch (must) {
	case FA__MUST_BE_NEW:
	case FA__MUST_BE_NEW_FILE:
		/* mkdir, mknod, symlink, link: an existing entry, even a dangling link. */
		if (strip_slashes(path, name, sizeof name) < 0)
			return ENAMETOOLONG;
		t = fa__sys_type(dirfd, name, 0);
		if (t >= 0)
			return EEXIST;
		if (t != -ENOENT)
			return lookup_error(t);
		if ((t = parent_error(dirfd, path)))
			return t;
		/* Only mkdir makes "name/": the others find nothing by that name. */
		return must == FA__MUST_BE_NEW_FILE && trailing_slash(path) ? ENOENT : 0;
	case FA__MUST_EXIST_PLAIN:
		/* rmdir of "." is EINVAL, of ".." ENOTEMPTY, of "/" EBUSY (do_rmdir). */
		if (!plain_last(path)) {
			int dead;
			const char *nm;
			size_t dlen, nlen;

			if ((t = parent_walk(dirfd, path, &dead, NULL)))
				return t;
			fa__split(path, &dlen, &nm, &nlen);
			return nlen == 0 ? EBUSY : nlen == 1 ? EINVAL : ENOTEMPTY;
		}
		/* fall through */
	case FA__MUST_EXIST:
	case FA__MUST_EXIST_FOLLOWED:
		t = fa__sys_type(dirfd, path, must == FA__MUST_EXIST_FOLLOWED);
		return t < 0 ? lookup_error(t) : 0;
	case FA__MUST_BE_DIR:
		t = fa__sys_type(dirfd, path, 1);
		if (t < 0)
			return lookup_error(t);
		return t == S_IFDIR ? 0 : ENOTDIR;
	case FA__MUST_HAVE_PARENT:
		return parent_error(dirfd, path);
	}
	return 0;
}

/*
 * An open with O_CREAT of an existing final symlink creates what the link
 * names: the kernel follows it, link after link, and fails where the way
 * to the name it would create fails (a missing directory, a file, a loop).
 * dead: the path's own parent was removed.
 */
static int kernel_first_create(int dirfd, const char *path, int flags, int dead)
{
	char cur[PATH_MAX], text[PATH_MAX];
	size_t n = strlen(path);
	int t, e, links;

	if (n >= sizeof cur)
		return ENAMETOOLONG;
	memcpy(cur, path, n + 1);
	for (links = 0;; links++) {
		const char *name;
		size_t dlen, nlen;
		ssize_t k;

		t = fa__sys_type(dirfd, cur, 0);
		if (t == -ENOENT)
			return dead ? ENOENT : 0;	/* created, in a directory that exists */
		if (t < 0)
			return lookup_error(t);
		if (t == S_IFDIR)
			return EISDIR;	/* O_CREAT on a directory, whatever the access mode */
		if (t != S_IFLNK)
			return 0;	/* an existing file, opened: a real write */
		if (flags & O_NOFOLLOW)
			return ELOOP;
		if (links == FA__MAX_LINKS)
			return ELOOP;
		k = fa__sys_readlinkat(dirfd, cur, text, sizeof text - 1);
		if (k <= 0)
			return k < 0 ? lookup_error((int)k) : ENOENT;
		text[k] = 0;
		/* The text is read from the link's own directory, as the kernel walks it. */
		fa__split(cur, &dlen, &name, &nlen);
		if (text[0] == '/' || dlen == 0) {
			memcpy(cur, text, (size_t)k + 1);
		} else {
			if (dlen + 1 + (size_t)k >= sizeof cur)
				return ENAMETOOLONG;
			cur[dlen] = '/';
			memcpy(cur + dlen + 1, text, (size_t)k + 1);
		}
		if ((e = parent_walk(dirfd, cur, &dead, NULL)))
			return e;
	}
}

int fa__kernel_first_open(int dirfd, const char *path, int flags)
{
	size_t n;
	int t, e, dead;

	if ((flags & O_TMPFILE) == O_TMPFILE)
		return fa__kernel_first(FA__MUST_BE_DIR, dirfd, path);
	if (flags & O_CREAT) {
		if ((e = parent_walk(dirfd, path, &dead, NULL)))
			return e;
		/* "name/" with O_CREAT: refused as soon as the parent is found. */
		n = strlen(path);
		if (n && path[n - 1] == '/')
			return EISDIR;
		if (flags & O_EXCL) {
			t = fa__sys_type(dirfd, path, 0);
			return t >= 0 ? EEXIST : dead ? ENOENT : 0;
		}
		return kernel_first_create(dirfd, path, flags, dead);
	}
	t = fa__sys_type(dirfd, path, !(flags & O_NOFOLLOW));
	if (t < 0)
		return lookup_error(t);
	if (t == S_IFLNK && (flags & O_NOFOLLOW))
		return ELOOP;
	if (t != S_IFDIR && (flags & O_DIRECTORY))
		return ENOTDIR;
	if (t == S_IFDIR && (flags & O_ACCMODE) != O_RDONLY)
		return EISDIR;
	return 0;
}

enum fa__must fa__must_for(enum fa_op op)
{
	switch (op) {
	case FA_OP_CREATE:
		return FA__MUST_BE_NEW;
	case FA_OP_SYMLINK:
	case FA_OP_LINK:
		return FA__MUST_BE_NEW_FILE;
	case FA_OP_REMOVE:
		return FA__MUST_EXIST_PLAIN;
	case FA_OP_REPLACE:
		return FA__MUST_HAVE_PARENT;
	case FA_OP_WRITE:
	case FA_OP_ATTR:
		return FA__MUST_EXIST_FOLLOWED;
	case FA_OP_DIR:
	case FA_OP_CHDIR:
		return FA__MUST_BE_DIR;
	default:
		return FA__MUST_EXIST;
	}
}

int fa_kernel_first(enum fa_op op, int dirfd, const char *path)
{
	return fa__kernel_first(fa__must_for(op), dirfd, path);
}

int fa_kernel_first_open(int dirfd, const char *path, int flags)
{
	return fa__kernel_first_open(dirfd, path, flags);
}

/* The entry a path names, its trailing slashes aside (the kernel finds it so). */
static int entry_type(int dirfd, const char *path)
{
	char name[PATH_MAX];

	if (strip_slashes(path, name, sizeof name) < 0)
		return -ENAMETOOLONG;
	return fa__sys_type(dirfd, name, 0);
}

/*
 * The real path of the entry dirfd/path names (not followed), or of the
 * directory it lies in (followed, as the kernel walks to it): length, or
 * -errno. Opened O_PATH, which changes nothing.
 */
static ssize_t real_path(int dirfd, const char *path, int parent, char *out, size_t len)
{
	char name[PATH_MAX];
	ssize_t n;
	int fd;

	if ((parent ? dir_part(path, name, sizeof name) : strip_slashes(path, name, sizeof name)) < 0)
		return -ENAMETOOLONG;
	fd = fa__sys_openat(dirfd, name, O_PATH | O_CLOEXEC | (parent ? O_DIRECTORY : O_NOFOLLOW), 0);
	if (fd < 0)
		return fd;
	n = fa__fd_path(fd, out, len);
	fa__sys_close(fd);
	return n;
}

/* 1 when the entry a names holds the directory b (or is it), both looked up now. */
static int holds(int afd, const char *a, int bfd, const char *b)
{
	char pa[PATH_MAX], pb[PATH_MAX];
	ssize_t na = real_path(afd, a, 0, pa, sizeof pa);
	ssize_t nb = na < 0 ? na : real_path(bfd, b, 1, pb, sizeof pb);

	return na > 0 && nb > 0 && fa__within(pb, (size_t)nb, pa, (size_t)na);
}

/*
 * rename: the flags, then both parents are walked, they must lie on one
 * mount, neither final name may be "." or ".."; then the source is looked
 * up, then the destination; a file moved with a slash on either name is
 * ENOTDIR; a directory moved into itself is EINVAL, onto one of its own
 * ancestors ENOTEMPTY. Only then does the kernel ask to delete and create
 * (fs/namei.c, do_renameat2).
 */
int fa_kernel_first_rename(int fromfd, const char *from, int tofd, const char *to,
			   unsigned flags)
{
	uint64_t m1, m2;
	int e, ts, tt, dead1, dead2;

	if ((flags & ~(unsigned)(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT)) ||
	    ((flags & RENAME_EXCHANGE) && (flags & (RENAME_NOREPLACE | RENAME_WHITEOUT))))
		return EINVAL;
	if ((e = parent_walk(fromfd, from, &dead1, &m1)) || (e = parent_walk(tofd, to, &dead2, &m2)))
		return e;
	if (m1 != m2)
		return EXDEV;
	if (!plain_last(from))
		return EBUSY;
	if (!plain_last(to))
		return flags & RENAME_NOREPLACE ? EEXIST : EBUSY;
	ts = dead1 ? -ENOENT : entry_type(fromfd, from);
	if (ts < 0)
		return lookup_error(ts);
	tt = dead2 ? -ENOENT : entry_type(tofd, to);
	if (dead2 || (tt < 0 && tt != -ENOENT))
		return dead2 ? ENOENT : lookup_error(tt);
	if ((flags & RENAME_NOREPLACE) && tt >= 0)
		return EEXIST;
	if (flags & RENAME_EXCHANGE) {
		if (tt < 0)
			return ENOENT;
		if (tt != S_IFDIR && trailing_slash(to))
			return ENOTDIR;
	}
	if (ts != S_IFDIR &&
	    (trailing_slash(from) || (!(flags & RENAME_EXCHANGE) && trailing_slash(to))))
		return ENOTDIR;
	/* Only a directory can hold the other side's parent. */
	if (ts == S_IFDIR && holds(fromfd, from, tofd, to))
		return EINVAL;
	if (tt == S_IFDIR && holds(tofd, to, fromfd, from))
		return flags & RENAME_EXCHANGE ? EINVAL : ENOTEMPTY;
	return 0;
}

/*
 * link: the flags, then the source is looked up (followed with
 * AT_SYMLINK_FOLLOW), then the new name must be free; a missing new name
 * with a trailing slash is ENOENT; the two must lie on one mount
 * (fs/namei.c, do_linkat and filename_create).
 */
int fa_kernel_first_link(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	struct statx st;
	uint64_t m1, m2;
	int r, t, dead, empty = (flags & AT_EMPTY_PATH) && !*from;

	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return EINVAL;
	r = fa__sys_statx(fromfd, from, AT_NO_AUTOMOUNT | (empty ? AT_EMPTY_PATH : 0) |
			  (flags & AT_SYMLINK_FOLLOW ? 0 : AT_SYMLINK_NOFOLLOW),
			  STATX_TYPE | FA_STATX_MNT_ID, &st);
	if (r < 0)
		return lookup_error(r);
	m1 = fa__statx_mount_id(&st);
	t = fa__kernel_first(FA__MUST_BE_NEW_FILE, tofd, to);
	if (t)
		return t;
	if (parent_walk(tofd, to, &dead, &m2) == 0 && m1 != m2)
		return EXDEV;
	return 0;
}

/*
 * unlink: a name with a trailing slash is never removed (ENOENT when
 * missing, EISDIR for a directory, ENOTDIR otherwise), "." and ".." are
 * EISDIR; only a plain name reaches the permission check (fs/namei.c,
 * do_unlinkat). rmdir: "." is EINVAL, ".." ENOTEMPTY (do_rmdir); the
 * rest is the engine's own answer.
 */
int fa_kernel_first_unlink(int dirfd, const char *path, int flags)
{
	int e, t, dead;

	if (flags & ~AT_REMOVEDIR)
		return EINVAL;
	if ((e = parent_walk(dirfd, path, &dead, NULL)))
		return e;
	if (flags & AT_REMOVEDIR)
		return fa__kernel_first(FA__MUST_EXIST_PLAIN, dirfd, path);
	if (!plain_last(path))
		return EISDIR;
	if (dead)
		return ENOENT;
	t = entry_type(dirfd, path);
	if (t < 0)
		return lookup_error(t);
	if (!trailing_slash(path))
		return 0;
	return t == S_IFDIR ? EISDIR : ENOTDIR;
}
