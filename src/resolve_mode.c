/* SPDX-License-Identifier: Apache-2.0 */
/*
 * resolve_mode.c - where a directory really lies, under the symlink mode.
 *
 * The fast path opens the directory beneath its root's pinned fd with
 * RESOLVE_NO_SYMLINKS: if that works no symlink lies on the way and the
 * lexical path is the real one. Only a symlink or a '..' after one takes
 * the mode's slow path: trust resolves like realpath, beneath lets the
 * kernel keep the walk under the root, nofollow refuses.
 *
 * Pure code and raw system calls into caller-provided (stack) buffers:
 * async-signal-safe, no locks, no allocation.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

void fa__res_close(struct fa__res *r)
{
	if (r->pfd_owned && r->pfd >= 0)
		fa__parent_release(r->pfd);
	r->pfd = -1;
	r->pfd_owned = 0;
}

/* The base fd and relative path for opening path beneath its root. */
int fa__root_base(struct fa__jctx *c, int root, const char *path, size_t rootlen,
		     const char **rel)
{
	*rel = path + rootlen;
	if (rootlen == 1)
		*rel = path + 1;	/* the root is "/" */
	while (**rel == '/')
		(*rel)++;
	if (!**rel)
		*rel = ".";
	return fa__root_fd(c->p, root);
}

/* Copy path without '.' and empty components (keeping '..'). */
ssize_t fa__clean(const char *in, char *out, size_t len)
{
	const char *s = in, *b;
	size_t o = 0, n;

	out[o++] = '/';
	while ((b = fa__next_comp(&s, &n))) {
		if (n == 1 && b[0] == '.')
			continue;
		if (o > 1)
			out[o++] = '/';
		if (o + n + 1 >= len)
			return -ENAMETOOLONG;
		memcpy(out + o, b, n);
		o += n;
	}
	out[o] = 0;
	return (ssize_t)o;
}

static void res_init(struct fa__res *r)
{
	r->pfd = -1;
	r->pfd_owned = 0;
	r->root = -1;
	r->err = 0;
	r->why = FA_WHY_NONE;
}

static void res_fd(struct fa__res *r, int fd, int owned)
{
	fa__res_close(r);
	r->pfd = fd;
	r->pfd_owned = owned;
}

/* Errors that say "this does not exist (yet)": judge the string. */
static int absent(int e)
{
	return e == -ENOENT || e == -ENOTDIR || e == -EACCES || e == -ENAMETOOLONG;
}

int fa__crossed_mount(int base, const char *rel, unsigned resolve)
{
	int fd;

	if (!(resolve & RESOLVE_NO_XDEV))
		return 0;
	fd = fa__open(base, rel, O_PATH | O_CLOEXEC, 0, resolve & ~(unsigned)RESOLVE_NO_XDEV);
	if (fd >= 0)
		fa__sys_close(fd);
	return fd != -EXDEV;
}

/*
 * Routes that do not resolve beneath the root's fd (trust, a climb by
 * '..'): under NO_XDEV, the directory reached must lie on its root's mount.
 */
static void xdev_after(struct fa__jctx *c, struct fa__res *r)
{
	uint64_t a, b;
	size_t rootlen;
	int root, rfd;

	if (!(c->how & FA_HOW_NO_XDEV) || r->pfd < 0 || r->why != FA_WHY_NONE)
		return;
	root = fa__find_root(c, r->path, strlen(r->path), &rootlen);
	if (root < 0)
		return;	/* outside: refused for that */
	rfd = c->p->roots[root].cwd ? AT_FDCWD : c->p->roots[root].fd;
	if (rfd < 0 && rfd != AT_FDCWD)
		return;
	if (fa__sys_mount_id(rfd, rfd == AT_FDCWD ? "." : "", &a) < 0 ||
	    fa__sys_mount_id(r->pfd, "", &b) < 0 || a != b)
		r->why = FA_WHY_XDEV;
}

/* trust, a symlink on the way: where does the directory really lie? */
static void resolve_trust(struct fa__jctx *c, const char *path, struct fa__res *r)
{
	char real[PATH_MAX];
	int missing, fd;
	ssize_t n = fa__realpath_prefix(path, real, sizeof real, &missing);

	if (n < 0) {
		r->err = (int)-n;
		r->why = n == -ELOOP ? FA_WHY_MAGICLINK : FA_WHY_ERROR;
		return;
	}
	memcpy(r->path, real, (size_t)n + 1);
	if (missing) {
		r->err = ENOENT;
		return;
	}
	/* Pin exactly what was judged: the real path has no link left in it. */
	fd = fa__open(AT_FDCWD, real, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
		      RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd >= 0)
		res_fd(r, fd, 1);
	else if (fd == -ELOOP)
		r->err = EAGAIN, r->why = FA_WHY_ERROR;	/* swapped for a link just now */
	else
		r->err = -fd;
	xdev_after(c, r);
}

/* beneath, a symlink on the way: let the kernel keep it under the root. */
static void resolve_beneath(struct fa__jctx *c, int base, const char *rel, struct fa__res *r)
{
	char real[PATH_MAX];
	unsigned how = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | fa__xdev(c);
	int fd = fa__open(base, rel, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, how);
	ssize_t n;

	if (fd == -EXDEV) {
		/* Lexically beneath (no '..' above the root): a link led out, or a mount. */
		r->why = fa__crossed_mount(base, rel, how) ? FA_WHY_XDEV : FA_WHY_SYMLINK;
		return;
	}
	if (fd == -ELOOP) {
		r->why = FA_WHY_MAGICLINK;
		return;
	}
	if (fd < 0) {
		r->err = -fd;
		if (!absent(fd))
			r->why = FA_WHY_ERROR;
		return;
	}
	n = fa__fd_path(fd, real, sizeof real);
	if (n < 0) {
		fa__sys_close(fd);
		r->err = (int)-n;
		r->why = FA_WHY_ERROR;
		return;
	}
	memcpy(r->path, real, (size_t)n + 1);
	res_fd(r, fd, 1);
}

/*
 * Resolve a directory path that contains no '..' (r->path holds it,
 * cleaned): the fast path, then the mode's slow path on a symlink.
 */
static void resolve_plain(struct fa__jctx *c, struct fa__res *r)
{
	int mode = c->p->symlinks, root, base, fd, rbase = -1;
	size_t plen = strlen(r->path), rootlen;
	const char *rel, *rrel = NULL;
	unsigned how = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	unsigned long gen = 0;
	int kept = 0;	/* a directory below a root: the parent cache may serve */

	root = fa__find_root(c, r->path, plen, &rootlen);
	if (root < 0 && mode != FA_SYM_TRUST)
		return;	/* outside; nothing to resolve */
	if (root >= 0) {
		base = fa__root_base(c, root, r->path, rootlen, &rel);
		if (base == -1) {
			base = AT_FDCWD;
			rel = r->path;
		} else if (rel[0] == '.' && !rel[1]) {
			res_fd(r, base, 0);
			return;
		} else if (fa__by_string(c, root)) {
			/* By its string from "/", with no link: where it is now. */
			rbase = base;
			rrel = rel;
			base = AT_FDCWD;
			rel = r->path;
			kept = 1;
		} else {
			how |= RESOLVE_BENEATH | fa__xdev(c);
			kept = 1;
		}
	} else {
		base = AT_FDCWD;
		rel = r->path;
	}
	if (kept) {
		/* The last directory pinned, when it is this one (parent_cache.c). */
		gen = fa__cwd_generation();
		fd = fa__parent_take(c->p, r->path, plen, how, base, rel);
		if (fd >= 0) {
			res_fd(r, fd, 1);
			return;
		}
	}
	fd = fa__open(base, rel, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, how);
	if (fd == -EBADF && base != AT_FDCWD) {
		/* The pinned root fd was closed by the program: go by the string. */
		base = AT_FDCWD;
		rel = r->path;
		how &= ~(unsigned)(RESOLVE_BENEATH | RESOLVE_NO_XDEV);
		fd = fa__open(base, rel, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, how);
		if (fd >= 0) {
			res_fd(r, fd, 1);
			xdev_after(c, r);
			return;
		}
	}
	if (fd >= 0) {
		if (kept)
			fd = fa__parent_keep(fd, c->p, r->path, plen, how, gen);
		res_fd(r, fd, 1);
		return;
	}
	if (fd == -EXDEV && fa__crossed_mount(base, rel, how)) {
		r->why = FA_WHY_XDEV;
		return;
	}
	if (fd != -ELOOP && fd != -EXDEV) {
		r->err = -fd;
		if (!absent(fd))
			r->why = FA_WHY_ERROR;
		return;
	}
	switch (mode) {
	case FA_SYM_NOFOLLOW:
		r->why = FA_WHY_SYMLINK;
		return;
	case FA_SYM_BENEATH:
		if (rbase >= 0) {
			/* A link on the way: the mode keeps the walk beneath the root. */
			resolve_beneath(c, rbase, rrel, r);
			return;
		}
		if (!(how & RESOLVE_BENEATH)) {
			r->why = FA_WHY_SYMLINK;	/* no pinned root to stay beneath */
			return;
		}
		resolve_beneath(c, base, rel, r);
		return;
	default:
		resolve_trust(c, r->path, r);
		return;
	}
}

void fa__resolve_dir(struct fa__jctx *c, const char *raw, struct fa__res *r)
{
	char buf[PATH_MAX];
	int mode = c->p->symlinks;
	ssize_t n;

	res_init(r);
	if (!fa__has_dotdot(raw)) {
		if (fa__clean(raw, r->path, PATH_MAX) < 0)
			goto toolong;
		resolve_plain(c, r);
		return;
	}
	/* A '..' after a symlink climbs from the link's target, not lexically. */
	n = fa__fold_abs(raw, r->path, PATH_MAX);
	if (n < 0)
		goto toolong;
	if (mode == FA_SYM_NOFOLLOW) {
		int fd = fa__open(AT_FDCWD, raw, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
				  RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);

		if (fd >= 0) {
			res_fd(r, fd, 1);	/* no link anywhere: the fold is exact */
			xdev_after(c, r);
		} else if (fd == -ELOOP)
			r->why = FA_WHY_SYMLINK;
		else
			r->err = -fd;
		return;
	}
	if (mode == FA_SYM_BENEATH) {
		size_t rootlen;
		int root = fa__find_root(c, r->path, (size_t)n, &rootlen);
		const char *rel;
		int base;

		if (root < 0)
			return;	/* outside even lexically */
		if (fa__clean(raw, buf, sizeof buf) < 0)
			goto toolong;
		base = fa__root_base(c, root, buf, rootlen, &rel);
		if (base != -1 && fa__within(buf, strlen(buf), c->p->roots[root].cwd ?
					     c->cwd : fa__str(c->p, &c->p->roots[root]), rootlen)) {
			resolve_beneath(c, base, rel, r);
			return;
		}
		/* Climbs in from outside the root: resolve the climb like trust. */
	}
	{
		/* Resolve up to the last '..' for real, then append the rest. */
		char head[PATH_MAX];
		const char *s = raw, *cut = raw, *b;
		size_t bl;
		int missing;

		while ((b = fa__next_comp(&s, &bl)))
			if (bl == 2 && b[0] == '.' && b[1] == '.')
				cut = s;
		if ((size_t)(cut - raw) >= sizeof head)
			goto toolong;
		memcpy(head, raw, (size_t)(cut - raw));
		head[cut - raw] = 0;
		n = fa__realpath_prefix(head, buf, sizeof buf, &missing);
		if (n < 0) {
			r->err = (int)-n;
			r->why = n == -ELOOP ? FA_WHY_MAGICLINK : FA_WHY_ERROR;
			return;
		}
		if (*cut && fa__join(buf, (size_t)n, cut, buf, sizeof buf) < 0)
			goto toolong;
		if (fa__clean(buf, r->path, PATH_MAX) < 0)
			goto toolong;
		if (missing) {
			/*
			 * Everything before a '..' must exist and be a directory for
			 * the kernel ("file/../x" is ENOTDIR): give its answer.
			 */
			int t = fa__sys_type(AT_FDCWD, head, 1);

			r->err = t == -ENOTDIR || t == -ELOOP ? -t : ENOENT;
			return;
		}
		resolve_plain(c, r);
		return;
	}
toolong:
	r->err = ENAMETOOLONG;
	r->why = FA_WHY_TOO_LONG;
}

/*
 * Resolve the parent of raw and name its final component. name/nlen point
 * into raw; "/" has the name "." (it is its own parent).
 */
void fa__resolve_parent(struct fa__jctx *c, const char *raw, struct fa__res *r,
			const char **name, size_t *nlen)
{
	char dir[PATH_MAX];
	size_t dlen;

	fa__split(raw, &dlen, name, nlen);
	if (*nlen == 0) {
		*name = ".";
		*nlen = 1;
	}
	memcpy(dir, raw, dlen);
	dir[dlen] = 0;
	if (dlen == 0)
		strcpy(dir, "/");
	fa__resolve_dir(c, dir, r);
}
