/* SPDX-License-Identifier: Apache-2.0 */
/*
 * resolve_darwin.c - openat2's answers on macOS, which has no openat2.
 *
 * The resolver strategy of a macOS build (resolve.c and resolve_openat2.c
 * are Linux's). Each component is looked at with fstatat(AT_SYMLINK_NOFOLLOW)
 * and a directory entered with openat(O_SEARCH | O_NOFOLLOW), whose fstat
 * must show the very file the look saw (device and inode): a name swapped
 * between the two is a race, retried a bounded number of times (EAGAIN).
 * A link is read with readlinkat(dir, name) and its text spliced into the
 * rest of the path, so the RESOLVE_* rules apply as on Linux:
 * NO_SYMLINKS refuses any link (ELOOP), BENEATH refuses absolute paths,
 * absolute links and '..' above the start (EXDEV), NO_XDEV compares every
 * directory's device with the start's (a volume is a device on macOS).
 * NO_MAGICLINKS has nothing to refuse: macOS has no /proc.
 *
 * Under BENEATH, '..' is never opened: the walk re-walks from the start
 * along the components already checked, and the final open (which may
 * create) first checks through fcntl(F_GETPATH) that the directory is still
 * below the start. A lookup with NO_SYMLINKS alone is one openat with
 * O_NOFOLLOW_ANY, where the kernel refuses every link on the way.
 *
 * Threat model: the walk on Linux without openat2 (resolve_walk.c).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

struct dwalk {
	int start;		/* the dirfd the walk is scoped to (not owned) */
	int cur;		/* current directory */
	int cur_owned;
	unsigned resolve;
	int links;
	int abs_start;		/* the path itself began with '/' */
	uint64_t dev;		/* the start's device, under NO_XDEV */
	char rem[PATH_MAX];	/* what is left to walk */
	char done[PATH_MAX];	/* components checked so far, relative to start */
	size_t donelen;
};

/* The one route there is: a forced fallback changes nothing. */
void fa_resolve_force_fallback(int on)
{
}

int fa_resolve_uses_openat2(void)
{
	return 0;
}

int fa__openat2_usable(void)
{
	return 0;
}

int fa__open_openat2(int dirfd, const char *path, int flags, mode_t mode, unsigned resolve)
{
	return -ENOSYS;
}

static void set_cur(struct dwalk *w, int fd, int owned)
{
	if (w->cur_owned)
		fa__sys_close(w->cur);
	w->cur = fd;
	w->cur_owned = owned;
}

/* The next component into name (NAME_MAX + 2 bytes); 0 when none is left. */
static size_t next_name(struct dwalk *w, char *name, int *last, int *dir)
{
	const char *s = w->rem, *c, *t;
	size_t n, tn, rest;

	do {
		c = fa__next_comp(&s, &n);
		if (!c) {
			w->rem[0] = 0;
			return 0;
		}
	} while (n == 1 && c[0] == '.');
	if (n > NAME_MAX)
		return (size_t)-1;
	memcpy(name, c, n);
	name[n] = 0;
	rest = strlen(s);
	memmove(w->rem, s, rest + 1);
	*dir = w->rem[0] == '/';
	*last = 1;
	for (t = w->rem; (c = fa__next_comp(&t, &tn));)
		if (!(tn == 1 && c[0] == '.'))
			*last = 0;
	return n;
}

/* Enter directory name of w->cur: the file fstatat saw, on the start's device. */
static int enter(struct dwalk *w, const char *name, const struct statx *seen)
{
	struct statx now;
	int fd = fa__sys_openat(w->cur, name, FA__O_SEARCH | O_NOFOLLOW | O_CLOEXEC, 0);

	if (fd < 0)
		return fd == -ELOOP ? -EAGAIN : fd;	/* became a link since the look */
	if (fa__sys_statx(fd, "", AT_EMPTY_PATH, STATX_INO, &now) < 0 ||
	    now.stx_ino != seen->stx_ino || fa__statx_mount_id(&now) != fa__statx_mount_id(seen)) {
		fa__sys_close(fd);
		return -EAGAIN;
	}
	if ((w->resolve & RESOLVE_NO_XDEV) && fa__statx_mount_id(&now) != w->dev) {
		fa__sys_close(fd);
		return -EXDEV;
	}
	set_cur(w, fd, 1);
	return 0;
}

/* Under BENEATH, '..': the checked components again from the start, minus the last. */
static int rewalk(struct dwalk *w)
{
	char *s = w->done, *cut = strrchr(w->done, '/');
	int fd = w->start, owned = 0;

	if (cut)
		*cut = 0;
	else
		w->done[0] = 0;
	w->donelen = strlen(w->done);
	while (*s) {
		char name[NAME_MAX + 1];
		char *c = s;
		size_t n;
		int nfd;

		while (*s && *s != '/')
			s++;
		n = (size_t)(s - c);
		memcpy(name, c, n);
		name[n] = 0;
		if (*s)
			s++;
		nfd = fa__sys_openat(fd, name, FA__O_SEARCH | O_NOFOLLOW | O_CLOEXEC, 0);
		if (owned)
			fa__sys_close(fd);
		if (nfd < 0)
			return -EAGAIN;	/* what was checked has changed under us */
		fd = nfd;
		owned = 1;
	}
	set_cur(w, fd, owned);
	return 0;
}

static void done_push(struct dwalk *w, const char *name, size_t n)
{
	if (w->donelen)
		w->done[w->donelen++] = '/';
	memcpy(w->done + w->donelen, name, n);
	w->donelen += n;
	w->done[w->donelen] = 0;
}

/* Splice the text of link name (in w->cur) into what is left to walk. */
static int follow(struct dwalk *w, const char *name)
{
	char target[PATH_MAX];
	ssize_t n;
	size_t rest;

	if (w->resolve & RESOLVE_NO_SYMLINKS)
		return -ELOOP;
	if (++w->links > FA__MAX_LINKS)
		return -ELOOP;
	n = fa__sys_readlinkat(w->cur, name, target, sizeof target - 1);
	if (n == -EINVAL)
		return -EAGAIN;	/* no longer a link */
	if (n < 0)
		return (int)n;
	if (n == 0)
		return -ENOENT;
	rest = strlen(w->rem);
	if ((size_t)n + rest + 1 > sizeof w->rem)
		return -ENAMETOOLONG;
	memmove(w->rem + n, w->rem, rest + 1);
	memcpy(w->rem, target, (size_t)n);
	if (target[0] == '/') {
		int root;

		if (w->resolve & RESOLVE_BENEATH)
			return -EXDEV;
		if ((w->resolve & RESOLVE_NO_XDEV) && !w->abs_start)
			return -EXDEV;
		root = fa__sys_openat(AT_FDCWD, "/", FA__O_SEARCH | O_CLOEXEC, 0);
		if (root < 0)
			return root;
		set_cur(w, root, 1);
		w->donelen = 0;
		w->done[0] = 0;
	}
	return 0;
}

/* Under BENEATH: is w->cur still below the start? */
static int still_beneath(struct dwalk *w, const char *startpath, size_t slen)
{
	char now[PATH_MAX];
	ssize_t n = fa__fd_path(w->cur, now, sizeof now);

	if (n < 0)
		return (int)n;
	return fa__within(now, (size_t)n, startpath, slen) ? 0 : -EAGAIN;
}

/* The last component: opened for the caller, never through a link. */
static int final_open(struct dwalk *w, const char *name, int dir, int flags, mode_t mode,
		      const struct statx *seen)
{
	char slashed[NAME_MAX + 2];
	struct statx now;
	int fd, fl = flags | O_NOFOLLOW;

	if (dir && (flags & O_CREAT)) {
		/* "f/" with O_CREAT: the kernel's own answer (EISDIR), nothing looked up. */
		size_t n = strlen(name);

		memcpy(slashed, name, n);
		slashed[n] = '/';
		slashed[n + 1] = 0;
		return fa__sys_openat(w->cur, slashed, fl, mode);
	}
	if (dir)
		fl |= O_DIRECTORY;
	fd = fa__sys_openat(w->cur, name, fl, mode);
	if (fd == -ELOOP && !(flags & O_NOFOLLOW))
		return -EAGAIN;	/* a link now, where the look saw none: look again */
	if (fd < 0 || !seen)
		return fd;
	/* What was looked at is what was opened, unless the open made it. */
	if (fa__sys_statx(fd, "", AT_EMPTY_PATH, STATX_INO, &now) < 0 ||
	    ((now.stx_ino != seen->stx_ino || fa__statx_mount_id(&now) != fa__statx_mount_id(seen)) &&
	     !(flags & O_CREAT))) {
		fa__sys_close(fd);
		return -EAGAIN;
	}
	return fd;
}

static int walk_once(struct dwalk *w, int dirfd, const char *path, int flags, mode_t mode)
{
	char startpath[PATH_MAX];
	ssize_t slen = 0;
	/* cppcheck-suppress ctuuninitvar ; the caller sets resolve, the one field read before this sets the rest */
	int beneath = (w->resolve & RESOLVE_BENEATH) != 0;
	int r;

	w->links = 0;
	w->cur = dirfd;
	w->cur_owned = 0;
	w->start = dirfd;
	w->donelen = 0;
	w->done[0] = 0;
	if (!*path)
		return -ENOENT;
	if (strlen(path) >= sizeof w->rem)
		return -ENAMETOOLONG;
	strcpy(w->rem, path);
	w->abs_start = path[0] == '/';
	if ((w->resolve & RESOLVE_NO_XDEV) &&
	    (r = fa__sys_mount_id(w->abs_start ? AT_FDCWD : dirfd, w->abs_start ? "/" : "", &w->dev)) < 0)
		return r;
	if (w->abs_start) {
		int root;

		if (beneath)
			return -EXDEV;
		root = fa__sys_openat(AT_FDCWD, "/", FA__O_SEARCH | O_CLOEXEC, 0);
		if (root < 0)
			return root;
		set_cur(w, root, 1);
	}
	if (beneath) {
		slen = fa__fd_path(dirfd, startpath, sizeof startpath);
		if (slen < 0)
			return (int)slen;
	}

	for (;;) {
		char name[NAME_MAX + 2];
		struct statx st;
		int last, dir, type;
		size_t n = next_name(w, name, &last, &dir);

		if (n == (size_t)-1) {
			r = -ENAMETOOLONG;
			goto out;
		}
		if (n == 0)
			break;	/* the target is w->cur itself */
		if (n == 2 && name[0] == '.' && name[1] == '.') {
			if (beneath) {
				if (w->donelen == 0) {
					r = -EXDEV;
					goto out;
				}
				if ((r = rewalk(w)) < 0)
					goto out;
				continue;
			}
			r = fa__sys_statx(w->cur, "..", AT_SYMLINK_NOFOLLOW, STATX_INO, &st);
			if (r < 0 || (r = enter(w, "..", &st)) < 0)
				goto out;
			continue;
		}
		r = fa__sys_statx(w->cur, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_INO, &st);
		if (r == -ENOENT && last) {
			/* Nothing there yet: the open decides (and may create), below the start. */
			if (beneath && (r = still_beneath(w, startpath, (size_t)slen)) < 0)
				goto out;
			r = final_open(w, name, dir, flags, mode, NULL);
			goto out;
		}
		if (r < 0)
			goto out;
		type = st.stx_mode & S_IFMT;
		if (type == S_IFLNK && !(last && !dir && (flags & O_NOFOLLOW))) {
			if ((r = follow(w, name)) < 0)
				goto out;
			continue;
		}
		if ((w->resolve & RESOLVE_NO_XDEV) && fa__statx_mount_id(&st) != w->dev) {
			r = -EXDEV;
			goto out;
		}
		if (last) {
			if (beneath && (r = still_beneath(w, startpath, (size_t)slen)) < 0)
				goto out;
			r = final_open(w, name, dir, flags, mode, &st);
			goto out;
		}
		if (type != S_IFDIR) {
			r = -ENOTDIR;
			goto out;
		}
		if ((r = enter(w, name, &st)) < 0)
			goto out;
		done_push(w, name, n);
	}

	/* The path ended on a directory already reached ("", ".", "a/.."). */
	if (beneath && (r = still_beneath(w, startpath, (size_t)slen)) < 0)
		goto out;
	r = fa__sys_openat(w->cur, ".", flags, mode);
out:
	if (w->cur_owned)
		fa__sys_close(w->cur);
	w->cur_owned = 0;
	return r;
}

int fa__open_walk(int dirfd, const char *path, int flags, mode_t mode, unsigned resolve)
{
	struct dwalk w;
	int i, r = -EAGAIN;

#if defined(O_NOFOLLOW_ANY) && defined(__ENVIRONMENT_MAC_OS_X_VERSION_MIN_REQUIRED__) && \
	__ENVIRONMENT_MAC_OS_X_VERSION_MIN_REQUIRED__ >= 110000
	/* Links refused everywhere, nothing else to check: the kernel (macOS 11+) does it in one call. */
	if ((resolve & ~(unsigned)RESOLVE_NO_MAGICLINKS) == RESOLVE_NO_SYMLINKS && *path) {
		r = fa__sys_openat(dirfd, path, flags | O_NOFOLLOW_ANY, mode);
		if (r != -EINVAL)
			return r;
	}
#endif
	w.resolve = resolve;
	for (i = 0; i < FA__EAGAIN_RETRIES; i++) {
		r = walk_once(&w, dirfd, path, flags, mode);
		if (r != -EAGAIN)
			break;
	}
	return r;
}

int fa__open(int dirfd, const char *path, int flags, mode_t mode, unsigned resolve)
{
	return fa__open_walk(dirfd, path, flags, mode, resolve);
}
