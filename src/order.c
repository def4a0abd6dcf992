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
 * from statx lookups of the caller's own (dirfd, path), which create and
 * follow nothing the kernel would not; and the refused call is not run
 * whatever they find, so a concurrent change can only alter which error is
 * given, never let a write through. EACCES from a lookup is left alone:
 * the denial, with its message, says more.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>	/* RENAME_NOREPLACE, RENAME_EXCHANGE */
#include <string.h>

#include "engine_internal.h"

/* Lookup errors the kernel gives before any permission check. */
static int lookup_error(int r)
{
	return r == -ENOENT || r == -ENOTDIR || r == -ELOOP || r == -ENAMETOOLONG ? -r : 0;
}

/*
 * The parent of path, as the kernel walks it: its lookup error, ENOTDIR
 * when it is no directory, or 0. The parent of a bare name is dirfd.
 */
static int parent_error(int dirfd, const char *path)
{
	char dir[PATH_MAX];
	const char *name;
	size_t dlen, nlen;
	int t;

	fa__split(path, &dlen, &name, &nlen);
	if (dlen == 0)
		return 0;	/* dirfd itself, judged by the caller as it is */
	if (dlen >= sizeof dir)
		return ENAMETOOLONG;
	memcpy(dir, path, dlen);
	dir[dlen] = 0;
	t = fa__sys_type(dirfd, dir, 1);
	if (t < 0)
		return lookup_error(t);
	return t == S_IFDIR ? 0 : ENOTDIR;
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

int fa__kernel_first(enum fa__must must, int dirfd, const char *path)
{
	char name[PATH_MAX];
	int t;

	switch (must) {
	case FA__MUST_BE_NEW:
		/* mkdir, mknod, symlink, link: an existing entry, even a dangling link. */
		if (strip_slashes(path, name, sizeof name) < 0)
			return ENAMETOOLONG;
		t = fa__sys_type(dirfd, name, 0);
		if (t >= 0)
			return EEXIST;
		if (t != -ENOENT)
			return lookup_error(t);
		return parent_error(dirfd, path);
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

int fa__kernel_first_open(int dirfd, const char *path, int flags)
{
	size_t n = strlen(path);
	int t, e;

	if ((flags & O_TMPFILE) == O_TMPFILE)
		return fa__kernel_first(FA__MUST_BE_DIR, dirfd, path);
	if (flags & O_CREAT) {
		if ((e = parent_error(dirfd, path)))
			return e;
		/* "name/" with O_CREAT: refused as soon as the parent is found. */
		if (n && path[n - 1] == '/')
			return EISDIR;
		t = fa__sys_type(dirfd, path, !(flags & (O_NOFOLLOW | O_EXCL)));
		if (flags & O_EXCL)
			return t >= 0 ? EEXIST : 0;
		if (t == S_IFDIR)
			return EISDIR;	/* O_CREAT on a directory, whatever the access mode */
		if (t == S_IFLNK && (flags & O_NOFOLLOW))
			return ELOOP;
		return 0;	/* missing (created) or existing (opened): a real write */
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
	case FA_OP_SYMLINK:
	case FA_OP_LINK:
		return FA__MUST_BE_NEW;
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

static int trailing_slash(const char *path)
{
	size_t n = strlen(path);

	return n > 1 && path[n - 1] == '/';
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
 * rename: both parents are walked, then the source looked up, then the
 * destination; a file moved with a slash on either name is ENOTDIR. Only
 * then does the kernel ask to delete and create (fs/namei.c, do_renameat2).
 */
int fa_kernel_first_rename(int fromfd, const char *from, int tofd, const char *to,
			   unsigned flags)
{
	int e, ts, tt;

	if ((e = parent_error(fromfd, from)) || (e = parent_error(tofd, to)))
		return e;
	ts = entry_type(fromfd, from);
	if (ts < 0)
		return lookup_error(ts);
	tt = entry_type(tofd, to);
	if (tt < 0 && tt != -ENOENT)
		return lookup_error(tt);
	if ((flags & RENAME_NOREPLACE) && tt >= 0)
		return EEXIST;
	if (flags & RENAME_EXCHANGE) {
		if (tt < 0)
			return ENOENT;
		if ((ts != S_IFDIR && trailing_slash(from)) || (tt != S_IFDIR && trailing_slash(to)))
			return ENOTDIR;
		return 0;
	}
	if (ts != S_IFDIR && (trailing_slash(from) || trailing_slash(to)))
		return ENOTDIR;
	return 0;
}

/*
 * link: the source is looked up (followed with AT_SYMLINK_FOLLOW), then
 * the new name must be free; a missing new name with a trailing slash is
 * ENOENT (fs/namei.c, do_linkat and filename_create).
 */
int fa_kernel_first_link(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	int t;

	if (!(flags & AT_EMPTY_PATH) || *from) {
		t = fa__sys_type(fromfd, from, !!(flags & AT_SYMLINK_FOLLOW));
		if (t < 0)
			return lookup_error(t);
	}
	t = fa__kernel_first(FA__MUST_BE_NEW, tofd, to);
	if (t)
		return t;
	return trailing_slash(to) ? ENOENT : 0;
}

/*
 * unlink: a name with a trailing slash is never removed (ENOENT when
 * missing, EISDIR for a directory, ENOTDIR otherwise), "." and ".." are
 * EISDIR; only a plain name reaches the permission check (fs/namei.c,
 * do_unlinkat). rmdir is the engine's own answer.
 */
int fa_kernel_first_unlink(int dirfd, const char *path, int flags)
{
	const char *name;
	size_t dlen, nlen;
	int e, t;

	if (flags & AT_REMOVEDIR)
		return fa__kernel_first(FA__MUST_EXIST, dirfd, path);
	if ((e = parent_error(dirfd, path)))
		return e;
	fa__split(path, &dlen, &name, &nlen);
	if ((nlen == 1 && name[0] == '.') || (nlen == 2 && name[0] == '.' && name[1] == '.'))
		return EISDIR;
	t = entry_type(dirfd, path);
	if (t < 0)
		return lookup_error(t);
	if (!trailing_slash(path))
		return 0;
	return t == S_IFDIR ? EISDIR : ENOTDIR;
}
