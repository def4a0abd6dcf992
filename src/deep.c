/* SPDX-License-Identifier: Apache-2.0 */
/*
 * deep.c - directories whose path is longer than PATH_MAX.
 *
 * The kernel lets a program work below PATH_MAX's depth through relative
 * paths (rm -rf walks a deep tree with openat/unlinkat on directory fds),
 * but neither getcwd nor /proc/self/fd can name such a directory, so the
 * string route of judge.c has nothing to match. Here the directory is
 * judged by what it is: it is opened (O_PATH), and its ancestors are
 * climbed by ".." until one has a path that can be read. That ancestor's
 * path says which root holds it, by the usual string match; the levels
 * climbed are compared by device and inode with the pinned roots and the
 * deny subtrees, which may lie between it and the directory. The caller
 * then acts on the opened directory, so what was judged is what is used.
 *
 * Only taken when the path cannot be made absolute: a call that fits in
 * PATH_MAX never comes here, and pays nothing for it.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

/* Far more levels than PATH_MAX of one-letter names could need to climb. */
#define CLIMB_MAX 4096

struct ident {
	uint64_t dev, ino;
};

static int ident_of(int dirfd, const char *path, struct ident *id)
{
	struct statx st;
	int r = fa__sys_statx(dirfd, path, *path ? AT_NO_AUTOMOUNT : AT_EMPTY_PATH | AT_NO_AUTOMOUNT,
			      STATX_INO, &st);

	if (r < 0)
		return r;
	id->dev = ((uint64_t)st.stx_dev_major << 32) | st.stx_dev_minor;
	id->ino = st.stx_ino;
	return 0;
}

static int same(const struct ident *a, const struct ident *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

/*
 * Judge the directory open on fd: FA_ALLOW with d->root set, or FA_DENY
 * with d->why ('outside' when no root holds it); d->path gets the best
 * name known ("ancestor/.../name").
 */
static enum fa_verdict judge_fd(struct fa__jctx *c, int fd, const char *name,
				enum fa_why outside, struct fa_decision *d)
{
	const fa_policy *p = c->p;
	struct ident roots[FA__MAX_ROOTS], deny[FA__MAX_DENY], here;
	char top[PATH_MAX];
	int i, level, cur = fd, root = -1, denied = 0, nr = p->nroots, nd = p->ndeny;
	ssize_t n = -ENAMETOOLONG;

	for (i = 0; i < nr; i++) {
		const struct fa__ent *e = &p->roots[i];
		int r = e->cwd ? ident_of(AT_FDCWD, ".", &roots[i])
			       : e->fd >= 0 ? ident_of(e->fd, "", &roots[i]) : -ENOENT;

		if (r < 0)
			roots[i].dev = roots[i].ino = UINT64_MAX;
	}
	for (i = 0; i < nd; i++)
		if (ident_of(AT_FDCWD, fa__str(p, &p->deny[i]), &deny[i]) < 0)
			deny[i].dev = deny[i].ino = UINT64_MAX;
	for (level = 0; level < CLIMB_MAX; level++) {
		int up;

		/*
		 * Reading a path costs the kernel the whole depth, so it is tried
		 * at levels 0, 1, 2, 4, 8...: climbing past the first ancestor
		 * that has one only means more levels compared, never a wrong one.
		 */
		if (!(level & (level - 1))) {
			n = fa__fd_path(cur, top, sizeof top);
			if (n != -ENAMETOOLONG)
				break;
		}
		if (ident_of(cur, "", &here) < 0)
			break;
		/* The nearest root and any deny subtree between here and 'top'. */
		for (i = 0; root < 0 && i < nr; i++)
			if (same(&here, &roots[i]))
				root = i;
		for (i = 0; i < nd; i++)
			if (same(&here, &deny[i]))
				denied = 1;
		up = fa__sys_openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
		if (cur != fd)
			fa__sys_close(cur);
		cur = up;
		if (cur < 0)
			break;
	}
	if (cur >= 0 && cur != fd)
		fa__sys_close(cur);
	if (n < 0) {
		fa__decide(d, FA_DENY, FA_WHY_ERROR, -1, n == -ENAMETOOLONG ? ENAMETOOLONG : (int)-n);
		strcpy(d->path, "...");
		return FA_DENY;
	}
	/* The name shown: the ancestor that has a path, then the rest elided. */
	if ((size_t)n + 6 + strlen(name) < sizeof d->path) {
		memcpy(d->path, top, (size_t)n);
		strcpy(d->path + n, "/.../");
		strcat(d->path, name);
	} else {
		strcpy(d->path, ".../");
		strncat(d->path, name, NAME_MAX);
	}
	if (root < 0)
		root = fa__find_root(c, top, (size_t)n, NULL);
	for (i = 0; !denied && i < nd; i++)
		if (fa__within(top, (size_t)n, fa__str(p, &p->deny[i]), p->deny[i].len))
			denied = 1;
	if (root < 0) {
		fa__decide(d, FA_DENY, nr ? outside : FA_WHY_NO_ROOTS, -1, 0);
		return FA_DENY;
	}
	if (denied) {
		fa__decide(d, FA_DENY, FA_WHY_DENY_SUBTREE, root, 0);
		return FA_DENY;
	}
	/* A pattern is matched on a path, and this one has none to match: refused. */
	if (p->wglobs) {
		fa__decide(d, FA_DENY, FA_WHY_DENY_PATTERN, root, 0);
		return FA_DENY;
	}
	fa__decide(d, FA_ALLOW, FA_WHY_NONE, root, 0);
	return FA_ALLOW;
}

int fa__deep_pin(struct fa__jctx *c, const struct fa__rule *rule, int dirfd, const char *path,
		 struct fa_decision *d, const char **name)
{
	char dir[PATH_MAX];
	const char *nm;
	size_t dlen, nlen;
	unsigned resolve = RESOLVE_NO_MAGICLINKS;
	int fd, named, whole;

	/* Below PATH_MAX's depth no link is judged by where it leads: none is followed. */
	if (c->p->symlinks != FA_SYM_TRUST)
		resolve |= RESOLVE_NO_SYMLINKS;
	fa__split(path, &dlen, &nm, &nlen);
	named = nlen > 0 && nlen <= NAME_MAX && !(nm[0] == '.' && (nlen == 1 ||
							       (nlen == 2 && nm[1] == '.')));
	whole = rule->self || !named;
	if (whole) {
		/* The object itself is judged: open it whole. */
		fd = fa__open(dirfd, path, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, resolve);
		/* A file judged by itself (a hard link's source) lies where its directory does. */
		if (fd == -ENOTDIR && named)
			whole = 0;
	}
	if (whole) {
		nm = ".";
		nlen = 1;
	} else {
		if (dlen >= sizeof dir)
			return -ENAMETOOLONG;
		memcpy(dir, path, dlen);
		dir[dlen] = 0;
		fd = fa__open(dirfd, dlen ? dir : ".", O_PATH | O_DIRECTORY | O_CLOEXEC, 0, resolve);
	}
	if (fd == -ELOOP && (resolve & RESOLVE_NO_SYMLINKS)) {
		fa__decide(d, FA_DENY, FA_WHY_SYMLINK, -1, 0);
		strcpy(d->path, ".../");
		strncat(d->path, nm, nlen > NAME_MAX ? NAME_MAX : nlen);
		return -EACCES;
	}
	if (fd < 0) {
		fa__decide(d, FA_REJECT, FA_WHY_ERROR, -1, -fd);
		return fd;
	}
	{
		char shown[NAME_MAX + 1];

		memcpy(shown, nm, nlen);
		shown[nlen] = 0;
		if (judge_fd(c, fd, shown, rule->outside, d) != FA_ALLOW) {
			fa__sys_close(fd);
			return -EACCES;
		}
		/* A final link is judged where it leads, which this route cannot name. */
		if (rule->follow && !whole && fa__sys_type(fd, shown, 0) == S_IFLNK) {
			fa__sys_close(fd);
			fa__decide(d, FA_REJECT, FA_WHY_TOO_LONG, -1, ENAMETOOLONG);
			return -ENAMETOOLONG;
		}
	}
	*name = nm;
	return fd;
}
