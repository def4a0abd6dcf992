/* SPDX-License-Identifier: Apache-2.0 */
/*
 * use.c - check = use: the operation runs on exactly what was judged.
 *
 * A write-open is one openat2 beneath the pinned root in the common case:
 * the kernel refuses symlinks, magic links and escapes while it opens, so
 * there is no window between the check and the open. Entry-changing calls
 * get the pinned parent fd and run as op(pin.fd, pin.name). A denial
 * returns -EACCES before anything touches the file system.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

static int write_class(int flags)
{
	/* O_PATH ignores the access mode and O_CREAT: nothing is written. */
	if (flags & O_PATH)
		return 0;
	return (flags & O_ACCMODE) != O_RDONLY ||
	       (flags & (O_CREAT | O_TRUNC | O_APPEND)) ||
	       (flags & O_TMPFILE) == O_TMPFILE;
}

/*
 * Deny-subtree and deny-pattern test on a lexical path (no symlinks on it)
 * that root holds (rootlen bytes of it): 1 if inside one, or (protect)
 * holding what one names.
 */
static int in_deny(struct fa__jctx *c, const char *path, size_t len, int protect, int root,
		   size_t rootlen)
{
	const fa_policy *p = c->p;
	int i;

	for (i = 0; i < p->ndeny; i++)
		if (fa__within(path, len, fa__str(p, &p->deny[i]), p->deny[i].len) ||
		    (protect && fa__within(fa__str(p, &p->deny[i]), p->deny[i].len, path, len)))
			return 1;
	return p->wglobs && fa__glob_find(c, path, len, 0, protect, root, rootlen, &i) >= 0;
}

/*
 * The one-syscall route: no '..', a pinned root holds the path, no deny
 * subtree on the string. Returns the fd or -errno, or 1 to take the slow
 * route (a symlink or an escape on the way, or nothing pinned).
 */
static int open_fast(struct fa__jctx *c, const char *abs, size_t alen, int flags, mode_t mode,
		     struct fa_decision *d)
{
	const fa_policy *p = c->p;
	size_t plen, rootlen, off;
	const char *rel;
	int root, base, fd, folded, bypath, tmpfile = (flags & O_TMPFILE) == O_TMPFILE;
	unsigned how = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | fa__xdev(c);
	int st = fa__scan_abs_len(abs, alen);

	if (st & FA__SCAN_DOTDOT)
		return 1;
	plen = alen;
	folded = st != 0;
	if (!folded) {
		/* Already in folded form: judged as it is, opened as it is. */
		if (plen >= sizeof d->path)
			return 1;
		memcpy(d->path, abs, plen + 1);
	} else {
		ssize_t n = fa__fold_abs(abs, d->path, sizeof d->path);

		if (n < 0)
			return 1;
		plen = (size_t)n;
	}
	root = fa__find_root(c, d->path, plen, &rootlen);
	if (root < 0 || in_deny(c, d->path, plen, 0, root, rootlen))
		return 1;
	if ((c->how & FA_HOW_BY_PATH) && (c->how & FA_HOW_NO_XDEV))
		return -EAGAIN;	/* '/' to the root may cross mounts: not by path */
	bypath = fa__by_string(c, root);
	base = bypath ? AT_FDCWD : fa__root_fd(p, root);
	if (base == -1)
		return 1;
	if (bypath)
		how &= ~(unsigned)RESOLVE_BENEATH;
	off = rootlen == 1 ? 1 : rootlen;
	while (d->path[off] == '/')
		off++;
	if (!d->path[off]) {
		/* The root itself: a write would change its parent, which is outside. */
		if (!tmpfile && write_class(flags))
			return 1;
		rel = ".";
	} else {
		rel = (folded ? d->path : abs) + off;
	}
	if (folded && abs[alen - 1] == '/') {
		/* "f/" keeps the kernel's answer (EISDIR, ENOTDIR), never a new "f". */
		if (plen + 2 > sizeof d->path)
			return 1;
		d->path[plen] = '/';
		d->path[plen + 1] = 0;
	}
	/* By path: the whole folded path, which has no '..' and no link if this works. */
	if (bypath)
		rel = folded ? d->path : abs;
	fd = fa__open(base, rel, flags, mode, how);
	d->path[plen] = 0;
	if ((c->how & FA_HOW_BY_PATH) && (fd == -ELOOP || fd == -EXDEV || fd == -EBADF))
		return -EAGAIN;
	if (fd == -ELOOP || fd == -EXDEV || fd == -EBADF)
		return 1;
	fa__decide(d, FA_ALLOW, FA_WHY_NONE, root, fd < 0 ? -fd : 0);
	return fd;
}

/*
 * After a relative open whose cwd may have changed under it (another
 * thread's chdir between the judgement and the kernel's lookup): judge the
 * file by what the fd names. Returns fd, or -EACCES with the fd closed.
 */
static int judge_opened(struct fa__jctx *c, int fd, struct fa_decision *d)
{
	char named[PATH_MAX];
	struct fa__rule rule;
	ssize_t n = fa__fd_path(fd, named, sizeof named);

	c->cached = 0;
	c->cwdlen = 0;
	c->cwd = c->cwdbuf;
	fa__rule_for(FA_OP_WRITE, &rule);
	if (n < 0) {
		fa__decide(d, FA_DENY, FA_WHY_ERROR, -1, (int)-n);
	} else if (fa__judge_abs(c, named, &rule, d, NULL) == FA_ALLOW) {
		return fd;
	}
	fa__sys_close(fd);
	return -EACCES;
}

/*
 * A directory a relative path starts from, with the name it is judged by:
 * the cwd (the thread's copy of its path) or a dirfd (the dirfd cache's).
 * The call acts through the directory itself, never by that name, so a
 * name gone stale (the directory moved by a process out of sight) can
 * only make the judgement stale, never the place the call acts in.
 */
struct start {
	int fd;				/* AT_FDCWD or the dirfd */
	const char *path;		/* its name */
	size_t len;
	const struct fa__cwdv *cwd;	/* the cwd's copy, or NULL for a dirfd */
	unsigned fdgen;			/* the dirfd's number's history when named */
	unsigned long gen;		/* the cwd cache's generation when named */
};

/* The cwd with the thread's copy of its name: 1, or 0 when there is none. */
static int start_cwd(struct start *s, struct fa__cwdv *v)
{
	if (!fa__cwd_cached(v))
		return 0;
	s->fd = AT_FDCWD;
	s->path = v->path;
	s->len = v->len;
	s->cwd = v;
	s->fdgen = 0;
	s->gen = v->gen;
	return 1;
}

/* dirfd with its kept name (into buf): 1, or 0 when it has none. */
static int start_dirfd(struct start *s, int dirfd, char *buf, size_t len)
{
	enum fa_why why;
	ssize_t n;

	/* Read before the name: a close or a move meanwhile shows later. */
	s->fdgen = fa__fd_gen(dirfd);
	s->gen = fa__cwd_generation();
	n = fa__dirfd_path(dirfd, buf, len, FA_DIRFD_KEPT, &why);
	if (n <= 0 || buf[0] != '/')
		return 0;
	s->fd = dirfd;
	s->path = buf;
	s->len = (size_t)n;
	s->cwd = NULL;
	return 1;
}

/* 1 if the directory may have been changed under the call (a chdir, a dup2). */
static int start_moved(const struct start *s)
{
	return s->cwd ? fa__cwd_moved(s->cwd) : fa__fd_gen(s->fd) != s->fdgen;
}

/* The root holding path (n bytes), a live cwd root read from s when s is the cwd. */
static int start_root(struct fa__jctx *c, const struct start *s, const char *path, size_t n,
		      size_t *rootlen)
{
	int root;

	if (!s->cwd)
		return fa__find_root(c, path, n, rootlen);
	c->cwd = s->path;
	c->cwdlen = (int)s->len;
	root = fa__find_root(c, path, n, rootlen);
	c->cwdlen = 0;
	c->cwd = c->cwdbuf;
	return root;
}

/*
 * A path relative to a start: judged on the start's name joined with
 * rel, opened as the caller named it, from the start itself, beneath it
 * and with no link on the way, so the file judged is the file opened.
 * One syscall. Returns fd, -errno, or 1 to take the slow route.
 */
static int open_start(struct fa__jctx *c, const struct start *s, const char *rel, int flags,
		      mode_t mode, struct fa_decision *d)
{
	int root, fd, tmpfile = (flags & O_TMPFILE) == O_TMPFILE;
	size_t rootlen;
	ssize_t n = fa__join_clean(s->path, s->len, rel, d->path, sizeof d->path);

	if (n < 0)
		return 1;
	root = start_root(c, s, d->path, (size_t)n, &rootlen);
	/* The start itself, or a root itself: their parents decide. */
	if (root < 0 || ((size_t)n == s->len && !tmpfile) || (rootlen == (size_t)n && !tmpfile) ||
	    in_deny(c, d->path, (size_t)n, 0, FA__GLOB_ROOT_UNKNOWN, 0))
		return 1;
	fd = fa__open(s->fd, rel, flags, mode,
		      RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (start_moved(s)) {
		if (fd < 0)
			return 1;
		return judge_opened(c, fd, d);
	}
	if (fd == -ELOOP || fd == -EXDEV || fd == -EAGAIN || fd == -EBADF)
		return 1;
	fa__decide(d, FA_ALLOW, FA_WHY_NONE, root, fd < 0 ? -fd : 0);
	return fd;
}

/*
 * Devices and FIFOs change no directory entry: open them, never create.
 * Once one is found the policy allows it, so an EACCES from the open is
 * the kernel's own (a Landlock floor), never reported as the policy's.
 */
static int open_device(int dirfd, const char *path, int flags, struct fa_decision *d)
{
	int type = fa__sys_type(dirfd, path, !(flags & O_NOFOLLOW));
	struct fa_decision denied = *d;
	int fd;

	if (type != S_IFCHR && type != S_IFIFO)
		return -EACCES;
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		return -EEXIST;
	fa__decide(d, FA_ALLOW, FA_WHY_NONE, -1, 0);
	fd = fa__sys_openat(dirfd, path, flags & ~(O_CREAT | O_EXCL | O_TRUNC), 0);
	if (fd < 0)
		return fd;
	type = fa__sys_type(fd, "", 0);
	if (type != S_IFCHR && type != S_IFIFO) {
		/* Swapped for a file between the look and the open. */
		fa__sys_close(fd);
		*d = denied;
		return -EACCES;
	}
	return fd;
}

/*
 * /dev/fd/N and friends naming a descriptor of this process that is no
 * file in a directory (a pipe, a socket, an anonymous inode): writing it,
 * or changing its times or mode, changes no directory entry. n: the
 * descriptor, when the caller has it (-1: from abs).
 */
static int alias_of_unnamed(const char *abs, int n)
{
	char link[32] = "/proc/self/fd/", named[16];

	if (n < 0)
		n = fa__fd_alias(abs, fa__alias_pid(abs));
	if (n < 0)
		return 0;
	fa__utoa((unsigned long)n, link + 14);
	/* "pipe:[N]", "socket:[N]", "anon_inode:..."; the start is enough. */
	return fa__sys_readlinkat(AT_FDCWD, link, named, sizeof named) > 0 && named[0] != '/';
}

/*
 * /dev/fd/N and friends: a descriptor already open for writing may be
 * reopened, and so may one that names no file in a directory (a pipe's
 * read end: /dev/stdin in a pipeline); another read-only one is judged as
 * a write to what it names. Returns an fd, -errno, or 1 when path is no
 * such alias.
 */
static int open_alias(struct fa__jctx *c, int dirfd, const char *path, const char *abs,
		      int flags, mode_t mode, struct fa_decision *d)
{
	char named[PATH_MAX];
	struct fa__rule rule;
	int n = fa__fd_alias(abs, fa__alias_pid(abs)), fl;
	ssize_t len;

	if (n < 0)
		return 1;
	fl = fa__sys_fcntl(n, F_GETFL, 0);
	if (fl < 0) {
		fa__decide(d, FA_REJECT, FA_WHY_BAD_FD, -1, ENOENT);
		return -ENOENT;
	}
	if (((fl & O_ACCMODE) != O_RDONLY && !(fl & O_PATH)) || alias_of_unnamed(abs, n)) {
		fa__decide(d, FA_ALLOW, FA_WHY_NONE, -1, 0);
		return fa__sys_openat(dirfd, path, flags, mode);
	}
	len = fa__fd_path(n, named, sizeof named);
	if (len < 0) {
		fa__decide(d, FA_DENY, FA_WHY_MAGICLINK, -1, 0);
		return -EACCES;
	}
	fa__rule_for(FA_OP_WRITE, &rule);
	if (fa__judge_abs(c, named, &rule, d, NULL) != FA_ALLOW)
		return -EACCES;
	return fa__sys_openat(dirfd, path, flags, mode);
}

/* The object judged lies on another mount than its root. */
static int xdev_denied(struct fa_decision *d)
{
	fa__decide(d, FA_DENY, FA_WHY_XDEV, d->root, 0);
	return -EACCES;
}

/*
 * The slow route: judge with the mode's symlink rules, then open what was
 * judged. -EAGAIN when the layout changed between the two (the caller
 * judges again).
 */
static int open_judged(struct fa__jctx *c, int dirfd, const char *path, const char *abs,
		       int flags, mode_t mode, struct fa_decision *d)
{
	const fa_policy *p = c->p;
	struct fa__rule rule;
	struct fa__pinned pin;
	const char *name;
	char nm[NAME_MAX + 2];
	size_t dlen, nlen;
	int r, tmpfile = (flags & O_TMPFILE) == O_TMPFILE, reads = !write_class(flags);
	/* With these the kernel does not follow a final link: neither do we. */
	int nofollow_final = (flags & O_NOFOLLOW) || (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
	unsigned xdev = fa__xdev(c);

	/* A read (FA_HOW_READS) is judged on the object itself, like a directory written into. */
	fa__rule_for(tmpfile || reads ? FA_OP_DIR : FA_OP_WRITE, &rule);
	if (reads && (flags & O_NOFOLLOW))
		rule.follow = 0;
	if (fa__judge_abs(c, abs, &rule, d, &pin) != FA_ALLOW) {
		if (pin.owned)
			fa__parent_release(pin.fd);
		if (d->verdict == FA_REJECT)
			return d->err ? -d->err : -EACCES;
		if (c->how & FA_HOW_STRICT)
			return -EACCES;
		return open_device(dirfd, path, flags, d);
	}
	if (pin.fd < 0 && pin.fd != AT_FDCWD)
		return pin.err ? -pin.err : -ENOENT;

	if (pin.followed && !nofollow_final && d->root >= 0) {
		/*
		 * A final symlink was followed while judging: open exactly the
		 * target that was judged, beneath its root and with no link left
		 * on the way, so a link retargeted meanwhile cannot redirect it.
		 */
		const struct fa__ent *e = &p->roots[d->root];
		size_t rootlen = e->cwd ? (size_t)c->cwdlen : e->len;
		const char *rel = d->path + (rootlen == 1 ? 1 : rootlen);
		unsigned how = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH | xdev;
		int base = e->cwd ? AT_FDCWD : e->fd;

		while (*rel == '/')
			rel++;
		if (!*rel)
			rel = ".";
		if (base == -1 || fa__by_string(c, d->root)) {
			base = AT_FDCWD;
			rel = d->path;
			how &= ~(unsigned)(RESOLVE_BENEATH | RESOLVE_NO_XDEV);
		}
		r = fa__open(base, rel, flags, mode, how);
		if (r == -EXDEV && fa__crossed_mount(base, rel, how))
			r = xdev_denied(d);
		else if (r == -ELOOP || r == -EXDEV)
			r = -EAGAIN;
		goto out;
	}

	/* Open the original name in the directory that was judged. */
	fa__split(abs, &dlen, &name, &nlen);
	if (nlen == 0 || nlen > NAME_MAX) {
		r = nlen ? -ENAMETOOLONG : -EISDIR;
		goto out;
	}
	memcpy(nm, name, nlen);
	nm[nlen] = 0;
	if (name[nlen] == '/')
		strcpy(nm + nlen, "/");	/* keep the kernel's answer for "f/" */
	/* The final name was no link when judged: it may not have become one. */
	r = fa__open(pin.fd, nm, flags | (nofollow_final ? 0 : O_NOFOLLOW), mode,
		     RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | xdev);
	if (r == -EXDEV && xdev)
		r = xdev_denied(d);	/* one name, no '..': only a mount point says EXDEV */
	else if (r == -ELOOP && !nofollow_final)
		r = -EAGAIN;
out:
	if (pin.owned)
		fa__parent_release(pin.fd);
	return r;
}

/*
 * A denied call that the kernel would have failed first: its errno, with
 * nothing to report (order.c). err 0 keeps the denial.
 */
static int kernel_answer(struct fa_decision *d, int err)
{
	if (!err)
		return -EACCES;
	fa__decide(d, FA_REJECT, FA_WHY_ERROR, -1, err);
	return -err;
}

int fa_openat(const fa_policy *p, int dirfd, const char *path, int flags, mode_t mode,
	      struct fa_decision *d)
{
	return fa_openat_how(p, dirfd, path, flags, mode, 0, d);
}

/* Everything after the fast route's refusal: aliases, then the judged route. */
static int open_slow(struct fa__jctx *c, int dirfd, const char *path, const char *abs, int flags,
		     mode_t mode, struct fa_decision *d)
{
	int r, tries;

	if (c->how & FA_HOW_BY_PATH)
		return -EAGAIN;
	if (!(c->how & FA_HOW_STRICT)) {
		r = open_alias(c, dirfd, path, abs, flags, mode, d);
		if (r != 1)
			return r;
	}
	for (tries = 0; tries < 8; tries++) {
		r = open_judged(c, dirfd, path, abs, flags, mode, d);
		if (r != -EAGAIN)
			break;
	}
	return r;
}

/*
 * What the identity route of deep.c does not keep: the Workspace's reads,
 * mount and by-path rules, which are judged on a path.
 */
#define FA_HOW_NOT_DEEP (FA_HOW_READS | FA_HOW_NO_XDEV | FA_HOW_BY_PATH)

/*
 * Below PATH_MAX's depth: the directory judged by identity (deep.c), then
 * the name opened in it with no link on the way, as the judged route does.
 */
static int open_deep(struct fa__jctx *c, int dirfd, const char *path, int flags, mode_t mode,
		     struct fa_decision *d)
{
	struct fa__rule rule;
	const char *name;
	char nm[NAME_MAX + 2];
	size_t n;
	int pfd, r, tmpfile = (flags & O_TMPFILE) == O_TMPFILE;
	int nofollow_final = (flags & O_NOFOLLOW) || (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);

	fa__rule_for(tmpfile || !write_class(flags) ? FA_OP_DIR : FA_OP_WRITE, &rule);
	pfd = fa__deep_pin(c, &rule, dirfd, path, d, &name);
	if (pfd < 0)
		return pfd;
	n = strcspn(name, "/");
	if (n > NAME_MAX) {
		fa__sys_close(pfd);
		return -ENAMETOOLONG;
	}
	memcpy(nm, name, n);
	nm[n] = 0;
	if (name[n] == '/')
		strcpy(nm + n, "/");	/* keep the kernel's answer for "f/" */
	/* The final name was no link when judged: it may not have become one. */
	r = fa__open(pfd, nm, flags | (nofollow_final ? 0 : O_NOFOLLOW), mode,
		     RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	fa__sys_close(pfd);
	return r;
}

/*
 * A removed directory has no name to judge by, but its ".." is still
 * where it was: "../x" from a removed cwd or dirfd is "x" in that parent,
 * for the kernel as for the judge. The parent is opened (it names itself)
 * and the rest of the path goes from there. Returns its fd with *rest, or
 * -1 when path does not climb out first.
 */
static int climb_out(int dirfd, const char *path, const char **rest)
{
	const char *s = path;
	int fd;

	if (s[0] != '.' || s[1] != '.' || s[2] != '/')
		return -1;
	for (s += 2; *s == '/'; s++)
		;
	if (!*s)
		return -1;
	fd = fa__sys_openat(dirfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	fa_fd_moved(fd);	/* a number of ours: what it named before is gone */
	*rest = s;
	return fd;
}

/*
 * A relative path: made absolute in a PATH_MAX buffer of its own, so the
 * frame of an absolute open stays small.
 */
static __attribute__((noinline)) int open_rel(struct fa__jctx *c, int dirfd, const char *path,
					      int flags, mode_t mode, struct fa_decision *d)
{
	char buf[PATH_MAX];
	struct fa__cwdv v;
	struct start s;
	enum fa_why why;
	ssize_t n;
	int r;

	if (!(c->how & (FA_HOW_BY_PATH | FA_HOW_NO_XDEV)) && write_class(flags) &&
	    (dirfd == AT_FDCWD ? start_cwd(&s, &v) : start_dirfd(&s, dirfd, buf, sizeof buf))) {
		r = open_start(c, &s, path, flags, mode, d);
		if (r != 1)
			return r;
	}
	n = fa__absolute(c, dirfd, path, buf, sizeof buf, &why);
	if (n == -ENAMETOOLONG && !(c->how & FA_HOW_NOT_DEEP))
		return open_deep(c, dirfd, path, flags, mode, d);
	if (n == -ENOENT && !(c->how & FA_HOW_BY_PATH)) {
		const char *rest;
		int up = climb_out(dirfd, path, &rest);

		if (up >= 0) {
			r = open_rel(c, up, rest, flags, mode, d);
			fa__sys_close(up);
			return r;
		}
	}
	if (n < 0) {
		fa__decide(d, FA_REJECT, why, -1, (int)-n);
		return (int)n;
	}
	/* The slow routes act on the name, read from the kernel just now. */
	r = open_fast(c, buf, (size_t)n, flags, mode, d);
	if (r != 1)
		return r;
	return open_slow(c, dirfd, path, buf, flags, mode, d);
}

int fa_openat_how(const fa_policy *p, int dirfd, const char *path, int flags, mode_t mode,
		  unsigned how, struct fa_decision *d)
{
	struct fa__jctx c;
	size_t len;
	int r;

	if (!(how & FA_HOW_READS) && !write_class(flags)) {
		fa__decide(d, FA_ALLOW, FA_WHY_NONE, -1, 0);
		d->path[0] = 0;
		return fa__sys_openat(dirfd, path, flags, mode);
	}
	r = fa__precheck(p, path, d, &len);
	if (r < 0)
		return d->verdict == FA_REJECT && d->why == FA_WHY_ERROR ? -EACCES : r;
	if (r > 0)
		return fa__sys_openat(dirfd, path, flags, mode);
	fa__jctx_init(&c, p, how);
	c.by_name = 1;	/* every route opens the judged name beneath its root */
	if (path[0] != '/') {
		r = open_rel(&c, dirfd, path, flags, mode, d);
	} else {
		r = open_fast(&c, path, len, flags, mode, d);
		if (r == 1)
			r = open_slow(&c, dirfd, path, path, flags, mode, d);
	}
	if (__builtin_expect(r == -EACCES && d->verdict == FA_DENY, 0) && !(how & FA_HOW_STRICT))
		r = kernel_answer(d, fa__kernel_first_open(dirfd, path, flags));
	return r;
}

/* 1 if path[0..len) names the directory it starts from ("", ".", "./."). */
static int names_start(const char *path, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (path[i] != '.' && path[i] != '/')
			return 0;
	return 1;	/* no '..': fa__join_clean refused it */
}

/*
 * The parent of a path relative to a start (the cwd, a dirfd): judged on
 * the start's name, pinned from the start itself. A bare name's parent is
 * the start: no syscall at all; a deeper parent is one O_PATH openat2
 * beneath the start with no link on the way, or a statx that shows the
 * directory kept from the last call (parent_cache.c) is the one the path
 * names now. Only for rules that do not look past the final name. Returns 0
 * (pinned, allowed), or 1 to take the slow route.
 */
static int pin_start(struct fa__jctx *c, const struct start *s, const struct fa__rule *rule,
		     const char *path, struct fa_pin *pin, struct fa_decision *d)
{
	const fa_policy *p = c->p;
	char dir[PATH_MAX];
	const char *name;
	size_t dlen, nlen, parent, rootlen;
	ssize_t n;
	int root, fd;
	/* Downward only (no '..'): the same walk as beneath the root, for the parent cache. */
	unsigned how = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;

	if (rule->self)
		return 1;
	fa__split(path, &dlen, &name, &nlen);
	if (nlen == 0 || nlen > NAME_MAX || (name[0] == '.' && (nlen == 1 ||
							       (nlen == 2 && name[1] == '.'))))
		return 1;
	n = fa__join_clean(s->path, s->len, path, d->path, sizeof d->path);
	if (n < 0)
		return 1;
	parent = (size_t)n - nlen - 1;
	if (parent == 0)
		parent = 1;	/* the start is "/" */
	root = start_root(c, s, d->path, parent, &rootlen);
	if (root < 0 || in_deny(c, d->path, (size_t)n, rule->protect, FA__GLOB_ROOT_UNKNOWN, 0))
		return 1;
	memcpy(dir, path, dlen);
	dir[dlen] = 0;
	if (names_start(path, dlen)) {
		fd = s->fd;
	} else if ((fd = fa__parent_take(p, d->path, parent, how, s->fd, dir)) < 0) {
		/* Not the directory kept from the last call (parent_cache.c): open it. */
		fd = fa__open(s->fd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, how);
		if (fd < 0)
			return 1;
		fd = fa__parent_keep(fd, p, d->path, parent, how, s->gen);
	}
	/* A final link is followed by these calls: that needs the slow route. */
	if (rule->follow) {
		char nm[NAME_MAX + 1];

		memcpy(nm, name, nlen);
		nm[nlen] = 0;
		if (fa__sys_type(fd, nm, 0) == S_IFLNK) {
			if (fd != s->fd)
				fa__parent_release(fd);
			return 1;
		}
	}
	if (start_moved(s)) {
		if (fd != s->fd)
			fa__parent_release(fd);
		return 1;
	}
	pin->fd = fd;
	pin->owned = fd != s->fd;
	pin->name = name;
	fa__decide(d, FA_ALLOW, FA_WHY_NONE, root, 0);
	return 0;
}

int fa_pin_parent(const fa_policy *p, enum fa_op op, int dirfd, const char *path,
		  struct fa_pin *pin, struct fa_decision *d)
{
	return fa_pin_parent_how(p, op, dirfd, path, 0, pin, d);
}

int fa_pin_parent_how(const fa_policy *p, enum fa_op op, int dirfd, const char *path,
		      unsigned how, struct fa_pin *pin, struct fa_decision *d)
{
	char abs[PATH_MAX];
	struct fa__jctx c;
	struct fa__rule rule;
	struct fa__pinned kept;
	struct fa__cwdv v;
	struct start s;
	enum fa_why why;
	size_t dlen, nlen;
	const char *name;
	ssize_t n;
	int r;

	pin->fd = -1;
	pin->owned = 0;
	pin->name = path;
	pin->buf[0] = 0;
	/* A rename may move the cwd or one of its ancestors: before and after. */
	pin->moves = op == FA_OP_RENAME || op == FA_OP_EXCHANGE;
	if (pin->moves)
		fa_cwd_changed();
	r = fa__precheck(p, path, d, NULL);
	if (r < 0)
		return d->verdict == FA_REJECT && d->why == FA_WHY_ERROR ? -EACCES : r;
	if (r > 0) {
		pin->fd = dirfd;
		return 0;
	}
	fa__jctx_init(&c, p, how);
	c.by_name = 1;	/* the parent is pinned by its judged name beneath its root */
	/* The new name of a link is created like any other entry. */
	if (op == FA_OP_SYMLINK || op == FA_OP_LINK)
		op = FA_OP_CREATE;
	fa__rule_for(op, &rule);
	if (path[0] != '/' && !(how & (FA_HOW_BY_PATH | FA_HOW_NO_XDEV)) &&
	    (dirfd == AT_FDCWD ? start_cwd(&s, &v) : start_dirfd(&s, dirfd, abs, sizeof abs)) &&
	    pin_start(&c, &s, &rule, path, pin, d) == 0)
		return 0;
	n = fa__absolute(&c, dirfd, path, abs, sizeof abs, &why);
	if (n == -ENAMETOOLONG && path[0] != '/' && !(how & FA_HOW_NOT_DEEP)) {
		int fd = fa__deep_pin(&c, &rule, dirfd, path, d, &name);

		if (fd >= 0) {
			pin->fd = fd;
			pin->owned = 1;
			pin->name = name;
			return 0;
		}
		if (fd == -EACCES && d->verdict == FA_DENY && !(how & FA_HOW_STRICT))
			return kernel_answer(d, fa__kernel_first(fa__must_for(op), dirfd, path));
		return fd;
	}
	if (n == -ENOENT && path[0] != '/' && !(how & FA_HOW_BY_PATH)) {
		const char *rest;
		int up = climb_out(dirfd, path, &rest);

		if (up >= 0) {
			r = fa_pin_parent_how(p, op, up, rest, how, pin, d);
			if (r == 0 && pin->fd == up)
				pin->owned = 1;	/* fa_unpin() closes it */
			else
				fa__sys_close(up);
			return r;
		}
	}
	if (n < 0) {
		fa__decide(d, FA_REJECT, why, -1, (int)-n);
		return (int)n;
	}
	if (fa__judge_abs(&c, abs, &rule, d, &kept) != FA_ALLOW) {
		if (kept.owned)
			fa__parent_release(kept.fd);
		if (d->verdict == FA_DENY && rule.follow && !(how & FA_HOW_STRICT) &&
		    alias_of_unnamed(abs, -1)) {
			/* utimensat("/dev/stdin") in a pipeline: the pipe itself. */
			fa__decide(d, FA_ALLOW, FA_WHY_NONE, -1, 0);
			pin->fd = dirfd;
			return 0;
		}
		if (d->verdict == FA_DENY && op == FA_OP_WRITE && !(how & FA_HOW_STRICT)) {
			/* truncate("/dev/null") and the like: devices and writable fds. */
			struct fa_decision alt;

			c.by_name = 0;	/* the call then runs through dirfd itself */
			if (fa__check_one(&c, &rule, 1, dirfd, path, &alt) == FA_ALLOW) {
				*d = alt;
				pin->fd = dirfd;
				return 0;
			}
		}
		if (d->verdict == FA_DENY && !(how & FA_HOW_STRICT))
			return kernel_answer(d, fa__kernel_first(fa__must_for(op), dirfd, path));
		return d->verdict == FA_REJECT && d->err ? -d->err : -EACCES;
	}
	if (kept.fd < 0 && kept.fd != AT_FDCWD)
		return kept.err ? -kept.err : -ENOENT;
	if (!kept.owned && path[0] == '/' && d->root >= 0 && kept.fd == p->roots[d->root].fd &&
	    fa__by_string(&c, d->root) && !fa__has_dotdot(path)) {
		/*
		 * An entry of a root itself, whose fd is the directory pinned
		 * when the policy was built: the call goes by the caller's own
		 * string, which names the root by its path, where it is now.
		 */
		pin->fd = AT_FDCWD;
		return 0;
	}
	pin->fd = kept.fd;
	pin->owned = kept.owned;
	fa__split(path, &dlen, &name, &nlen);
	if (nlen == 0) {
		strcpy(pin->buf, ".");
		pin->name = pin->buf;
	} else {
		/* The final component with its trailing slashes, as the caller wrote it. */
		pin->name = name;
	}
	return 0;
}

void fa_unpin(struct fa_pin *pin)
{
	if (pin->owned && pin->fd >= 0)
		fa__parent_release(pin->fd);
	if (pin->moves)
		fa_cwd_changed();
	pin->fd = -1;
	pin->owned = 0;
	pin->moves = 0;
}

enum fa_verdict fa_check_symlink_target(const fa_policy *p, const struct fa_pin *pin,
					const char *target, struct fa_decision *d)
{
	char base[PATH_MAX], abs[PATH_MAX];
	struct fa__jctx c;
	struct fa__rule rule;
	ssize_t n;
	int r = fa__precheck(p, target, d, NULL);

	if (r != 0)
		return d->verdict;
	if (p->outside_symlinks)
		return FA_ALLOW;	/* the text is never followed to decide */
	fa__jctx_init(&c, p, 0);
	fa__rule_for(FA_OP_LINK, &rule);
	if (target[0] == '/')
		return fa__judge_abs(&c, target, &rule, d, NULL);
	if (pin->name[0] == '/') {
		/* Pinned by the caller's own absolute string: its directory part. */
		size_t dlen, nlen;
		const char *nm;

		fa__split(pin->name, &dlen, &nm, &nlen);
		n = (ssize_t)(dlen ? dlen : 1);
		if ((size_t)n >= sizeof base)
			n = -ENAMETOOLONG;
		else
			memcpy(base, pin->name, (size_t)n);
		if (n > 0)
			base[n] = 0;
	} else {
		n = fa__fd_path(pin->fd, base, sizeof base);
	}
	if (n < 0 || fa__join(base, (size_t)n, target, abs, sizeof abs) < 0) {
		fa__decide(d, FA_REJECT, n < 0 ? FA_WHY_BAD_FD : FA_WHY_TOO_LONG, -1,
			   n < 0 ? (int)-n : ENAMETOOLONG);
		return FA_REJECT;
	}
	return fa__judge_abs(&c, abs, &rule, d, NULL);
}
