/* SPDX-License-Identifier: Apache-2.0 */
/*
 * resolve_walk.c - openat2's answers without openat2.
 *
 * Each component is opened with openat(cur, name, O_PATH|O_NOFOLLOW), so
 * the kernel never follows a link on our behalf; links are read and their
 * text spliced into the rest of the path by hand, which lets the same
 * RESOLVE_* rules be applied: NO_SYMLINKS refuses any link (ELOOP),
 * NO_MAGICLINKS refuses procfs links whose text is not a plain relative
 * path (the fd/, cwd, exe, ns/ kind), BENEATH refuses absolute paths,
 * absolute links and '..' above the start (EXDEV).
 *
 * NO_XDEV compares the mount of every directory reached (and of the
 * final object, before it is opened) with the start's.
 *
 * The kernel follows a link whose name is written with a trailing slash
 * even under O_NOFOLLOW, and a link opened with O_DIRECTORY|O_NOFOLLOW
 * answers ENOTDIR, not ELOOP: so a name is never handed to the kernel with
 * its slash (O_DIRECTORY says the same), and both answers make the walk
 * look at what the name is.
 *
 * Under BENEATH, '..' is never opened: the walk restarts from the start fd
 * along the components it has already checked, minus the last one, so a
 * directory moved away mid-walk cannot carry the walk outside. Before the
 * final open (which may create), the parent's real path is compared with
 * the start's through /proc/self/fd; a mismatch means a concurrent rename
 * moved it, and the walk is retried (EAGAIN after the bounded retries).
 *
 * Threat model: accidents and ordinary races, as for the whole engine; a
 * rename racing between that last check and the final open is not caught
 * (the kernel's openat2 catches it; this route exists for kernels and
 * filters without it).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif

struct walk {
	int start;		/* the dirfd the walk is scoped to (not owned) */
	int cur;		/* current directory */
	int cur_owned;
	unsigned resolve;
	int links;
	uint64_t mnt;		/* the start's mount, under NO_XDEV */
	int abs_start;		/* the path itself began with '/' */
	char rem[PATH_MAX];	/* what is left to walk */
	char done[PATH_MAX];	/* components checked so far, relative to start */
	size_t donelen;
};

static void set_cur(struct walk *w, int fd, int owned)
{
	if (w->cur_owned)
		fa__sys_close(w->cur);
	w->cur = fd;
	w->cur_owned = owned;
}

/* 1 if only slashes and "." components are left in s. */
static int nothing_left(const char *s)
{
	const char *c;
	size_t n;

	while ((c = fa__next_comp(&s, &n)))
		if (!(n == 1 && c[0] == '.'))
			return 0;
	return 1;
}

/*
 * Take the next component off w->rem into name; 0 when nothing is left.
 * *last: no real component follows; *dir: a slash follows it, so the kernel
 * would require a directory there.
 */
static size_t next_comp(struct walk *w, char *name, int *last, int *dir)
{
	const char *s = w->rem, *c;
	size_t n, rest;

	do {
		c = fa__next_comp(&s, &n);
		if (!c) {
			w->rem[0] = 0;
			return 0;
		}
	} while (n == 1 && c[0] == '.');
	memcpy(name, c, n);
	name[n] = 0;
	rest = strlen(s);
	memmove(w->rem, s, rest + 1);
	*last = nothing_left(w->rem);
	*dir = w->rem[0] == '/';
	return n;
}

/* Re-walk the checked components from the start: the '..' of BENEATH. */
static int rewalk(struct walk *w)
{
	char *s = w->done;
	int fd = w->start, owned = 0;

	while (*s) {
		char name[NAME_MAX + 1];
		char *c = s;
		int nfd;
		size_t n;

		while (*s && *s != '/')
			s++;
		n = (size_t)(s - c);
		memcpy(name, c, n);
		name[n] = 0;
		if (*s)
			s++;
		nfd = fa__sys_openat(fd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC, 0);
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

static void done_push(struct walk *w, const char *name, size_t n)
{
	if (w->donelen)
		w->done[w->donelen++] = '/';
	memcpy(w->done + w->donelen, name, n);
	w->donelen += n;
	w->done[w->donelen] = 0;
}

static void done_pop(struct walk *w)
{
	while (w->donelen > 0 && w->done[w->donelen - 1] != '/')
		w->donelen--;
	if (w->donelen > 0)
		w->donelen--;
	w->done[w->donelen] = 0;
}

/* Under NO_XDEV: is dirfd/path on the start's mount? 0, or -errno. */
static int same_mount(struct walk *w, int dirfd, const char *path)
{
	uint64_t id;
	int r;

	if (!(w->resolve & RESOLVE_NO_XDEV))
		return 0;
	r = fa__sys_mount_id(dirfd, path, &id);
	if (r < 0)
		return r;
	return id == w->mnt ? 0 : -EXDEV;
}

/* Move to the directory fd (owned): refused if it lies on another mount. */
static int enter(struct walk *w, int fd)
{
	int r = same_mount(w, fd, "");

	set_cur(w, fd, 1);
	return r;
}

/*
 * Splice the text of the link 'fd' (found in w->cur) in front of w->rem.
 * Returns 0, or -errno to end the walk.
 */
static int follow(struct walk *w, int fd)
{
	char target[PATH_MAX];
	ssize_t n;
	size_t rest;

	if (w->resolve & RESOLVE_NO_SYMLINKS)
		return -ELOOP;
	if (++w->links > FA__MAX_LINKS)
		return -ELOOP;
	n = fa__sys_readlinkat(fd, "", target, sizeof target - 1);
	if (n < 0)
		return (int)n;
	if (n == 0)
		return -ENOENT;
	target[n] = 0;
	if (w->resolve & (RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH)) {
		long magic = 0;

		/* The kernel refuses a magic link with ELOOP if asked to, else as an escape. */
		if (fa__sys_fstatfs_magic(w->cur, &magic) == 0 && magic == PROC_SUPER_MAGIC &&
		    (target[0] == '/' || strchr(target, ':')))
			return w->resolve & RESOLVE_NO_MAGICLINKS ? -ELOOP : -EXDEV;
	}
	/* What follows the link's name still starts with its '/', if anything. */
	rest = strlen(w->rem);
	if ((size_t)n + rest + 1 > sizeof w->rem)
		return -ENAMETOOLONG;
	memmove(w->rem + n, w->rem, rest + 1);
	memcpy(w->rem, target, (size_t)n);
	if (target[0] == '/') {
		int root;

		if (w->resolve & RESOLVE_BENEATH)
			return -EXDEV;
		/* As the kernel: under NO_XDEV only a lookup that began at '/' may jump there. */
		if ((w->resolve & RESOLVE_NO_XDEV) && !w->abs_start)
			return -EXDEV;
		root = fa__sys_openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
		if (root < 0)
			return root;
		w->donelen = 0;
		w->done[0] = 0;
		return enter(w, root);
	}
	return 0;
}

/* Under BENEATH: is w->cur still below the start? */
static int still_beneath(struct walk *w, const char *startpath, size_t slen)
{
	char now[PATH_MAX];
	ssize_t n = fa__fd_path(w->cur, now, sizeof now);

	if (n < 0)
		return (int)n;
	return fa__within(now, (size_t)n, startpath, slen) ? 0 : -EAGAIN;
}

static int walk_once(struct walk *w, int dirfd, const char *path, int flags, mode_t mode)
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
	/* An absolute path starts at '/': that is the mount it may not leave. */
	if ((w->resolve & RESOLVE_NO_XDEV) &&
	    (r = fa__sys_mount_id(w->abs_start ? AT_FDCWD : dirfd, w->abs_start ? "/" : "",
				  &w->mnt)) < 0)
		return r;
	if (path[0] == '/') {
		int root;

		if (beneath)
			return -EXDEV;
		root = fa__sys_openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
		if (root < 0)
			return root;
		if ((r = enter(w, root)) < 0)
			goto out;
	}
	if (beneath) {
		slen = fa__fd_path(dirfd, startpath, sizeof startpath);
		if (slen < 0)
			return (int)slen;
	}

	for (;;) {
		char name[NAME_MAX + 2];
		int last, dir, fd, type;
		size_t n;

		if (strcspn(w->rem, "/") > NAME_MAX) {
			r = -ENAMETOOLONG;
			goto out;
		}
		n = next_comp(w, name, &last, &dir);
		if (n == 0)
			break;	/* the target is w->cur itself */
		if (n == 2 && name[0] == '.' && name[1] == '.') {
			if (beneath) {
				if (w->donelen == 0) {
					r = -EXDEV;
					goto out;
				}
				done_pop(w);
				r = rewalk(w);
				if (r < 0)
					goto out;
			} else {
				fd = fa__sys_openat(w->cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
				if (fd < 0) {
					r = fd;
					goto out;
				}
				if ((r = enter(w, fd)) < 0)
					goto out;
			}
			continue;
		}
		if (last && !(flags & O_PATH)) {
			int fl = flags | O_NOFOLLOW;

			/* The final open: may create, so check where we are first. */
			if (beneath && (r = still_beneath(w, startpath, (size_t)slen)) < 0)
				goto out;
			/* It may truncate, too: a mount point is refused before that. */
			if ((r = same_mount(w, w->cur, name)) < 0 && r != -ENOENT)
				goto out;
			if (dir && (flags & O_CREAT)) {
				/* "f/" with O_CREAT: the kernel answers EISDIR and looks nothing up. */
				name[n] = '/';
				name[n + 1] = 0;
			} else if (dir) {
				fl |= O_DIRECTORY;
			}
			r = fa__sys_openat(w->cur, name, fl, mode);
			name[n] = 0;
			if (r != -ELOOP && !(r == -ENOTDIR && (fl & O_DIRECTORY)))
				goto out;
			if ((flags & O_NOFOLLOW) && !dir)
				goto out;	/* the kernel's own answer for a final link */
			fd = fa__sys_openat(w->cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
			if (fd < 0) {
				r = fd;
				goto out;
			}
			if (fa__sys_type(fd, "", 0) != S_IFLNK) {
				fa__sys_close(fd);
				goto out;	/* ELOOP or ENOTDIR of a real object */
			}
			r = follow(w, fd);
			fa__sys_close(fd);
			if (r < 0)
				goto out;
			continue;
		}
		fd = fa__sys_openat(w->cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
		if (fd < 0) {
			r = fd;
			goto out;
		}
		type = fa__sys_type(fd, "", 0);
		if (type < 0) {
			fa__sys_close(fd);
			r = type;
			goto out;
		}
		if (type == S_IFLNK) {
			if (last && !dir && (flags & O_NOFOLLOW)) {
				/* O_PATH|O_NOFOLLOW names the link itself. */
				if (flags & O_DIRECTORY) {
					fa__sys_close(fd);
					r = -ENOTDIR;
				} else {
					r = fd;
				}
				goto out;
			}
			r = follow(w, fd);
			fa__sys_close(fd);
			if (r < 0)
				goto out;
			continue;
		}
		if (type != S_IFDIR && (!last || dir || (flags & O_DIRECTORY))) {
			fa__sys_close(fd);
			r = -ENOTDIR;
			goto out;
		}
		if ((r = same_mount(w, fd, "")) < 0) {
			fa__sys_close(fd);
			goto out;
		}
		if (last) {
			r = fd;
			if (beneath) {
				set_cur(w, fd, 1);
				r = still_beneath(w, startpath, (size_t)slen);
				if (r < 0)
					goto out;
				w->cur_owned = 0;
				r = fd;
			}
			goto out;
		}
		done_push(w, name, n);
		set_cur(w, fd, 1);
	}

	/* The path ended on a directory already reached ("", ".", "a/.."). */
	if (beneath && (r = still_beneath(w, startpath, (size_t)slen)) < 0)
		goto out;
	if (flags & O_PATH)
		r = fa__sys_openat(w->cur, ".", O_PATH | O_DIRECTORY | (flags & O_CLOEXEC), 0);
	else
		r = fa__sys_openat(w->cur, ".", flags, mode);
out:
	if (w->cur_owned)
		fa__sys_close(w->cur);
	w->cur_owned = 0;
	return r;
}

int fa__open_walk(int dirfd, const char *path, int flags, mode_t mode, unsigned resolve)
{
	struct walk w;
	int i, r = -EAGAIN;

	w.resolve = resolve;
	for (i = 0; i < FA__EAGAIN_RETRIES; i++) {
		r = walk_once(&w, dirfd, path, flags, mode);
		if (r != -EAGAIN)
			break;
	}
	return r;
}
