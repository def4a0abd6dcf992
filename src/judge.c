/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge.c - which path is checked for an operation, and the verdict.
 *
 * The common case costs one system call. The path is made absolute
 * (getcwd, or the real path of a dirfd), its root is found by comparing
 * strings component-wise (both in where.c), and the parent is resolved (resolve_mode.c)
 * beneath the root's pinned fd. With no symlink on the way the lexical
 * path is the real one and deny subtrees are judged on the string.
 *
 * Everything here is pure code and raw system calls into caller-provided
 * (stack) buffers: async-signal-safe, no locks, no allocation.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

static void set_path_n(struct fa_decision *d, const char *s, size_t n)
{
	if (n >= sizeof d->path)
		n = sizeof d->path - 1;
	memcpy(d->path, s, n);
	d->path[n] = 0;
}

static void set_path(struct fa_decision *d, const char *s)
{
	set_path_n(d, s, strlen(s));
}

/* Reject what no resolution can help: bad policy, empty, overlong. */
int fa__precheck(const fa_policy *p, const char *path, struct fa_decision *d, size_t *len)
{
	size_t n;

	fa__decide(d, FA_ALLOW, FA_WHY_NONE, -1, 0);
	d->path[0] = 0;
	if (!fa__policy_ok(p)) {
		fa__decide(d, FA_REJECT, FA_WHY_ERROR, -1, EINVAL);
		return -EINVAL;
	}
	if (!path || !*path) {
		fa__decide(d, FA_REJECT, FA_WHY_EMPTY, -1, ENOENT);
		return -ENOENT;
	}
	n = strnlen(path, PATH_MAX);
	if (n >= PATH_MAX) {
		fa__decide(d, FA_REJECT, FA_WHY_TOO_LONG, -1, ENAMETOOLONG);
		memcpy(d->path, path, 64);
		strcpy(d->path + 64, "...");
		return -ENAMETOOLONG;
	}
	if (p->unrestricted) {
		set_path(d, path);
		return 1;
	}
	if (len)
		*len = n;
	return 0;
}

/* path = dir + "/" + name, folded when name is "." or "..". */
static int target_path(const char *dir, const char *name, size_t nlen, char *out, size_t len)
{
	char tmp[NAME_MAX + 1];
	size_t dl = strlen(dir);

	if (nlen > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(tmp, name, nlen);
	tmp[nlen] = 0;
	if (fa__join(dir, dl, tmp, out, len) < 0)
		return -ENAMETOOLONG;
	if ((nlen == 1 && name[0] == '.') || (nlen == 2 && name[0] == '.' && name[1] == '.')) {
		char f[PATH_MAX];

		if (fa__fold_abs(out, f, sizeof f) < 0)
			return -ENAMETOOLONG;
		strcpy(out, f);
	}
	return 0;
}

/*
 * The verdict on a resolved target. judged: the real directory holding it
 * (rule "parent"), or the target itself (rule "self"), jlen bytes of it.
 */
static enum fa_verdict verdict(struct fa__jctx *c, const char *judged, size_t jlen,
			       const char *target, size_t tlen, int protect, enum fa_why outside,
			       struct fa_decision *d)
{
	const fa_policy *p = c->p;
	int i, root = fa__find_root(c, judged, jlen, NULL);

	set_path_n(d, target, tlen);
	if (root < 0) {
		fa__decide(d, FA_DENY, p->nroots ? outside : FA_WHY_NO_ROOTS, -1, d->err);
		return FA_DENY;
	}
	for (i = 0; protect && i < p->ndeny; i++) {
		const struct fa__ent *e = &p->deny[i];

		if (fa__within(fa__str(p, e), e->len, target, tlen) &&
		    fa__find_root(c, target, tlen, NULL) >= 0) {
			fa__decide(d, FA_DENY, FA_WHY_PROTECTS_DENY, root, d->err);
			return FA_DENY;
		}
	}
	for (i = 0; i < p->ndeny; i++) {
		const struct fa__ent *e = &p->deny[i];

		if (fa__within(target, tlen, fa__str(p, e), e->len)) {
			fa__decide(d, FA_DENY, FA_WHY_DENY_SUBTREE, root, d->err);
			return FA_DENY;
		}
	}
	/*
	 * A pattern names the target, or (moving or removing it) something
	 * beneath it: like a deny subtree, judged on the real path.
	 */
	if (p->wglobs &&
	    fa__glob_find(c, target, tlen, 0, protect, FA__GLOB_ROOT_UNKNOWN, 0, &i) >= 0) {
		fa__decide(d, FA_DENY, FA_WHY_DENY_PATTERN, root, d->err);
		return FA_DENY;
	}
	fa__decide(d, FA_ALLOW, FA_WHY_NONE, root, d->err);
	return FA_ALLOW;
}

/* The verdict under rule: on the real parent, or on the target itself. */
static enum fa_verdict rule_verdict(struct fa__jctx *c, const struct fa__rule *rule,
				    const char *parent, const char *target, struct fa_decision *d)
{
	const char *judged = rule->self ? target : parent;

	return verdict(c, judged, strlen(judged), target, strlen(target), rule->protect,
		       rule->outside, d);
}

/*
 * Link text that names a procfs magic link: a descriptor alias
 * (/dev/fd/N, /proc/self/fd/N, ...) or /proc/<self|thread-self|pid>/ cwd,
 * root or exe. Lexical: the text is never resolved to find out.
 */
static int magic_text(const char *t)
{
	const char *s;

	if (fa__fd_alias(t, fa__alias_pid(t)) >= 0)
		return 1;
	if (strncmp(t, "/proc/", 6) != 0)
		return 0;
	s = t + 6;
	if (!strncmp(s, "self/", 5))
		s += 5;
	else if (!strncmp(s, "thread-self/", 12))
		s += 12;
	else if (*s >= '0' && *s <= '9') {
		while (*s >= '0' && *s <= '9')
			s++;
		if (*s++ != '/')
			return 0;
	} else {
		return 0;
	}
	return !strncmp(s, "cwd", 3) || !strncmp(s, "root", 4) || !strncmp(s, "exe", 3) ||
	       !strncmp(s, "fd/", 3) || !strncmp(s, "task/", 5);
}

/*
 * For a verdict: rel, beneath base, has no link on the way nor at its end,
 * or stops at something that is no link, where the call fails by itself
 * (1); or it meets a link, a mount, no access (0). One system call
 * answers: readlinkat for a name in the root itself (only a rule that
 * follows a final link asks), else one openat2.
 *
 * A caller that trusts a count of moves (linkfree_cache.c) keeps the
 * answer 1 for the path, and for its directory, and takes them from there
 * while the count stays put: a new name in a directory proved needs only
 * a readlinkat of its final component (the way down is known to hold no
 * link to follow), and none where the rule does not follow it.
 */
static int linkfree_way(struct fa__jctx *c, int base, const char *abs, size_t len,
			size_t dlen, size_t rootlen, const char *rel, const char *name,
			int follow, unsigned how)
{
	uint64_t gen = fa__linkfree_gen();
	char one;
	ssize_t n;
	int fd;

	if (gen && fa__linkfree_known(FA_KEPT_PATH, c->p, abs, len, rootlen, how, gen))
		return 1;
	if (rel == name) {
		if (!follow)
			return 1;
		n = fa__sys_readlinkat(base, rel, &one, 1);
		if (n != -EINVAL && n != -ENOENT)
			return 0;	/* a link to follow, or trouble */
	} else if (gen && fa__linkfree_known(FA_KEPT_DIR, c->p, abs, dlen, rootlen, how, gen)) {
		n = follow ? fa__sys_readlinkat(base, rel, &one, 1) : -EINVAL;
		if (n != -EINVAL && n != -ENOENT)
			return 0;
	} else {
		fd = fa__open_openat2(base, rel, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, how);
		if (fd >= 0)
			fa__sys_close(fd);	/* a directory, with no link on the way */
		else if (fd != -ENOTDIR && fd != -ENOENT)
			return 0;
		fa__linkfree_keep(FA_KEPT_DIR, c->p, abs, dlen, rootlen, how, gen);
	}
	fa__linkfree_keep(FA_KEPT_PATH, c->p, abs, len, rootlen, how, gen);
	return 1;
}

/*
 * The common pure check, settled by at most one system call and no copy
 * of the path: a path already in folded form (no '.', '..' or '//') whose
 * parent lies beneath a root.
 *
 * In the root itself the parent is the root, resolved when the policy was
 * built; only a final component the rule follows is looked at, by one
 * readlinkat (EINVAL: no link; ENOENT: nothing there).
 *
 * Deeper, one openat2 of the whole path with no symlink allowed anywhere.
 * RESOLVE_BENEATH would add nothing: the path is relative to the root's
 * fd, with no '..' and no link to climb by. For a caller that wants the
 * verdict alone (fa_check_verdict()), the whole path is opened as a
 * directory: no descriptor is made when the final component is no
 * directory (ENOTDIR) or is not there (ENOENT), and either error means
 * the walk met no link up to where it stopped. A file standing in for a
 * directory, or a missing component, stops it, and the operation that
 * follows fails at that very place, so the lexical parent is the only one
 * it could use; whether it was the final component that stopped it, which
 * d->err would say, is left unasked. Otherwise, for a rule that follows a
 * final link, the path is opened as it is (no link on the way nor at the
 * end), and for ENOENT its parent is looked at once more, to tell a
 * missing parent (d->err ENOENT) from a missing final component.
 *
 * Only an allow is taken from here (1, d filled); anything else, a
 * refusal included, takes the ordinary route (0).
 */
static int straight_path(struct fa__jctx *c, const char *abs, const struct fa__rule *rule,
			 struct fa_decision *d)
{
	const char *name, *rel;
	size_t len, dlen, nlen, rootlen;
	int root, base, fd;
	unsigned how = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;

	if (fa__scan_abs(abs, &len) != 0)
		return 0;
	fa__split(abs, &dlen, &name, &nlen);
	if (nlen == 0 || nlen > NAME_MAX)
		return 0;
	root = fa__find_root(c, abs, dlen, &rootlen);
	if (root < 0)
		return 0;
	base = fa__root_base(c, root, abs, rootlen, &rel);
	if (base == -1)
		return 0;
	d->err = 0;
	if (c->verdict_only) {
		if ((rel != name && !fa__openat2_usable()) ||
		    !linkfree_way(c, base, abs, len, dlen, rootlen, rel, name, rule->follow,
				  how | fa__xdev(c)))
			return 0;
	} else if (rel == name) {
		char one;
		ssize_t n = rule->follow ? fa__sys_readlinkat(base, name, &one, 1) : -EINVAL;

		if (n != -EINVAL && n != -ENOENT)
			return 0;	/* a link to follow, or trouble */
	} else if (!fa__openat2_usable()) {
		return 0;
	} else if (rule->follow) {
		char parent[PATH_MAX];
		size_t plen = dlen - (size_t)(rel - abs);
		int type;

		fd = fa__open_openat2(base, rel, O_PATH | O_CLOEXEC, 0, how | fa__xdev(c));
		if (fd >= 0) {
			fa__sys_close(fd);
		} else if (fd == -ENOENT) {
			memcpy(parent, rel, plen);
			parent[plen] = 0;
			type = fa__sys_type(base, parent, 0);
			if (type == -ENOENT)
				d->err = ENOENT;
			else if (type != S_IFDIR)
				return 0;
		} else {
			return 0;
		}
	} else {
		return 0;
	}
	return verdict(c, abs, rule->self ? len : dlen, abs, len, rule->protect, rule->outside,
		       d) == FA_ALLOW;
}

/*
 * A refusal for a symlink names the link itself: the first component of
 * d->path that is one (looked up without following), when there is one.
 * Only on the way to a denial, so it may cost a lookup per component.
 */
static void name_link(struct fa_decision *d)
{
	size_t i;

	for (i = 1; d->path[i - 1]; i++) {
		char c = d->path[i];

		if (c != '/' && c != 0)
			continue;
		d->path[i] = 0;
		if (fa__sys_type(AT_FDCWD, d->path, 0) == S_IFLNK)
			return;
		d->path[i] = c;
		if (!c)
			return;
	}
}

enum fa_verdict fa__judge_abs(struct fa__jctx *c, const char *abs, const struct fa__rule *rule,
			      struct fa_decision *d, struct fa__pinned *keep)
{
	char cur[PATH_MAX], target[PATH_MAX];
	char pbuf[PATH_MAX];
	struct fa__res r;
	const char *name;
	size_t nlen;
	int links = 0, first = 1, hop_refused = 0;
	enum fa_verdict v;

	r.path = pbuf;
	d->err = 0;
	d->found = -1;
	if (keep) {
		keep->fd = -1;
		keep->owned = 0;
		keep->followed = 0;
	}
	if (!keep && straight_path(c, abs, rule, d))
		return FA_ALLOW;
	d->err = 0;
	if (strlen(abs) >= sizeof cur) {
		fa__decide(d, FA_REJECT, FA_WHY_TOO_LONG, -1, ENAMETOOLONG);
		return FA_REJECT;
	}
	strcpy(cur, abs);
	for (;;) {
		fa__resolve_parent(c, cur, &r, &name, &nlen);
		if (r.why != FA_WHY_NONE) {
			/* Name the path that was asked for, as far as it is known. */
			if (target_path(r.path, name, nlen, target, sizeof target) == 0)
				set_path(d, target);
			else
				set_path(d, r.path);
			fa__decide(d, r.why == FA_WHY_TOO_LONG ? FA_REJECT : FA_DENY, r.why, -1, r.err);
			fa__res_close(&r);
			if (r.why == FA_WHY_SYMLINK)
				name_link(d);
			return d->verdict;
		}
		if (target_path(r.path, name, nlen, target, sizeof target) < 0) {
			fa__res_close(&r);
			fa__decide(d, FA_REJECT, FA_WHY_TOO_LONG, -1, ENAMETOOLONG);
			return FA_REJECT;
		}
		if (first && keep) {
			/* The caller acts on the original name in its checked parent. */
			keep->fd = r.pfd;
			keep->owned = r.pfd_owned;
			keep->err = r.err;
			r.pfd_owned = 0;
		}
		first = 0;
		if (!rule->follow || r.pfd < 0 || (nlen <= 2 && name[0] == '.' &&
						   (nlen == 1 || name[1] == '.')))
			break;
		{
			char nm[NAME_MAX + 1], link[PATH_MAX];
			ssize_t n;

			memcpy(nm, name, nlen);
			nm[nlen] = 0;
			/*
			 * One call asks whether the final component is a link
			 * and reads it: an error (EINVAL for anything else,
			 * ENOENT for nothing there) ends the walk, as a type
			 * that is no link did.
			 */
			n = fa__sys_readlinkat(r.pfd, nm, link, sizeof link - 1);
			d->found = n == -ENOENT ? 0 : n == -EINVAL ? 1 : -1;
			if (n < 0)
				break;
			if (c->p->symlinks == FA_SYM_NOFOLLOW) {
				set_path(d, target);
				fa__decide(d, FA_DENY, FA_WHY_SYMLINK, -1, 0);
				fa__res_close(&r);
				return FA_DENY;
			}
			/*
			 * A link's target: each link on the chain is judged where
			 * it lies, for a chain that turns out to have no end.
			 */
			if (rule->loops && !hop_refused &&
			    verdict(c, target, strlen(target), target, strlen(target), rule->protect,
				    rule->outside, d) != FA_ALLOW)
				hop_refused = 1;
			if (n > 0 && links == FA__MAX_LINKS && rule->loops) {
				/*
				 * It never ends (the kernel's ELOOP): a link made to it
				 * reaches nothing but these places, allowed or not as
				 * they are. Followed, the kernel fails it itself.
				 */
				fa__res_close(&r);
				return d->verdict;
			}
			if (n == 0 || ++links > FA__MAX_LINKS) {
				set_path(d, target);
				fa__decide(d, FA_DENY, FA_WHY_ERROR, -1, n < 0 ? (int)-n : ELOOP);
				fa__res_close(&r);
				return FA_DENY;
			}
			link[n] = 0;
			if (link[0] == '/' && c->p->symlinks == FA_SYM_BENEATH) {
				set_path(d, target);
				fa__decide(d, FA_DENY, magic_text(link) ? FA_WHY_MAGICLINK :
					   FA_WHY_SYMLINK, -1, 0);
				fa__res_close(&r);
				return FA_DENY;
			}
			if (link[0] == '/') {
				strcpy(cur, link);
			} else if (fa__join(r.path, strlen(r.path), link, cur, sizeof cur) < 0) {
				fa__res_close(&r);
				fa__decide(d, FA_REJECT, FA_WHY_TOO_LONG, -1, ENAMETOOLONG);
				return FA_REJECT;
			}
			if (keep)
				keep->followed = 1;
			fa__res_close(&r);
		}
	}
	d->err = r.err;
	v = rule_verdict(c, rule, r.path, target, d);
	fa__res_close(&r);
	/* Under beneath, a link that leads out is what the mode refuses: say so. */
	if (v == FA_DENY && d->why == FA_WHY_OUTSIDE && links > 0 &&
	    c->p->symlinks == FA_SYM_BENEATH) {
		d->why = FA_WHY_SYMLINK;
		d->found = -1;
		set_path(d, abs);
		name_link(d);
	}
	return v;
}

/* Write-class exceptions: already-open writable fds, devices and FIFOs. */
static int write_exception(struct fa__jctx *c, int dirfd, const char *path, const char *abs,
			   struct fa_decision *d)
{
	int n = fa__fd_alias(abs, fa__alias_pid(abs));
	int type;

	if (n >= 0) {
		int fl = fa__sys_fcntl(n, F_GETFL, 0);

		if (fl >= 0 && (fl & O_ACCMODE) != O_RDONLY && !(fl & O_PATH)) {
			fa__decide(d, FA_ALLOW, FA_WHY_NONE, -1, 0);
			return 1;
		}
		return 0;
	}
	/* nothing there: neither a device nor a FIFO */
	type = d->found == 0 ? -ENOENT : fa__sys_type(dirfd, path, 1);
	if (type == S_IFCHR || type == S_IFIFO) {
		fa__decide(d, FA_ALLOW, FA_WHY_NONE, -1, 0);
		return 1;
	}
	return 0;
}

void fa__rule_for(enum fa_op op, struct fa__rule *rule)
{
	memset(rule, 0, sizeof *rule);
	rule->outside = FA_WHY_OUTSIDE;
	switch (op) {
	case FA_OP_WRITE:
		rule->follow = 1;
		break;
	case FA_OP_ATTR:
		/* chmod, chown and setxattr act on a link's target. */
		rule->follow = 1;
		rule->protect = 1;
		break;
	case FA_OP_LATTR:
		/* lchown and friends change the link itself: its parent, not followed. */
		rule->protect = 1;
		break;
	case FA_OP_REMOVE:
	case FA_OP_RENAME:
	case FA_OP_EXCHANGE:
		rule->protect = 1;
		break;
	case FA_OP_DIR:
	case FA_OP_CHDIR:
		rule->self = 1;
		rule->follow = 1;
		break;
	case FA_OP_LINK:
		/*
		 * A hard link's source, a symlink's target: where it leads must
		 * lie inside. A hard link to a symlink is that symlink once
		 * more, and leads where its chain does: a chain with no end
		 * leads nowhere, and is judged by the places it names.
		 */
		rule->self = 1;
		rule->follow = 1;
		rule->loops = 1;
		rule->outside = FA_WHY_LINK_TARGET;
		break;
	default:
		break;
	}
}

enum fa_verdict fa__check_one(struct fa__jctx *c, const struct fa__rule *rule, int write,
			      int dirfd, const char *path, struct fa_decision *d)
{
	char abs[PATH_MAX];
	enum fa_why why;
	ssize_t n = fa__absolute(c, dirfd, path, abs, sizeof abs, &why);
	enum fa_verdict v;

	if (n == -ENAMETOOLONG && path[0] != '/') {
		const char *name;
		int fd = fa__deep_pin(c, rule, dirfd, path, d, &name);

		if (fd >= 0)
			fa__sys_close(fd);
		return d->verdict;
	}
	if (n < 0) {
		set_path(d, path);
		fa__decide(d, why == FA_WHY_TOO_LONG ? FA_REJECT : FA_REJECT, why, -1, (int)-n);
		return FA_REJECT;
	}
	v = fa__judge_abs(c, abs, rule, d, NULL);
	if (v == FA_DENY && write && write_exception(c, dirfd, path, abs, d))
		return FA_ALLOW;
	return v;
}

static enum fa_verdict check(const fa_policy *p, enum fa_op op, int dirfd, const char *path,
			     struct fa_decision *d, int verdict_only)
{
	struct fa__jctx c;
	struct fa__rule rule;
	int r;

	d->found = -1;
	if (op == FA_OP_READ)
		return fa_check_read(p, dirfd, path, 0, d);
	r = fa__precheck(p, path, d, NULL);

	if (op == FA_OP_RENAME || op == FA_OP_EXCHANGE)
		fa_cwd_changed();	/* the entry may be the cwd or hold it */
	if (r != 0)
		return d->verdict;
	fa__jctx_init(&c, p, 0);
	c.cached = 1;
	c.verdict_only = verdict_only;
	if (op == FA_OP_SYMLINK)
		op = FA_OP_CREATE;
	fa__rule_for(op, &rule);
	return fa__check_one(&c, &rule, op == FA_OP_WRITE, dirfd, path, d);
}

enum fa_verdict fa_check(const fa_policy *p, enum fa_op op, int dirfd, const char *path,
			 struct fa_decision *d)
{
	return check(p, op, dirfd, path, d, 0);
}

enum fa_verdict fa_check_verdict(const fa_policy *p, enum fa_op op, int dirfd, const char *path,
				 struct fa_decision *d)
{
	return check(p, op, dirfd, path, d, 1);
}

/* The path an fd names, for hard-link sources given as an fd. */
static int fd_source(int dirfd, const char *path, char *out, size_t len)
{
	int n;
	ssize_t r;

	if (!*path)
		n = dirfd;
	else
		n = fa__fd_alias(path, fa__alias_pid(path));
	if (n < 0 && n != AT_FDCWD)
		return 0;
	r = fa__fd_path(n, out, len);
	return r < 0 ? (int)r : 1;
}

enum fa_verdict fa_check2(const fa_policy *p, enum fa_op op, int dirfd1, const char *path1,
			  int dirfd2, const char *path2, struct fa_decision *d1,
			  struct fa_decision *d2)
{
	struct fa__jctx c;
	struct fa__rule r1, r2;
	enum fa_verdict v1, v2;
	int pre;

	d1->found = d2->found = -1;
	fa__jctx_init(&c, p, 0);
	c.cached = 1;
	if (op == FA_OP_RENAME || op == FA_OP_EXCHANGE)
		fa_cwd_changed();	/* the entry may be the cwd or hold it */
	switch (op) {
	case FA_OP_RENAME:
		fa__rule_for(FA_OP_RENAME, &r1);
		fa__rule_for(FA_OP_CREATE, &r2);
		break;
	case FA_OP_EXCHANGE:
		fa__rule_for(FA_OP_EXCHANGE, &r1);
		r2 = r1;
		break;
	case FA_OP_LINK:
		fa__rule_for(FA_OP_LINK, &r1);
		fa__rule_for(FA_OP_CREATE, &r2);
		break;
	case FA_OP_SYMLINK:
		fa__rule_for(FA_OP_CREATE, &r1);
		fa__rule_for(FA_OP_LINK, &r2);
		break;
	default:
		v1 = fa_check(p, op, dirfd1, path1, d1);
		v2 = fa_check(p, op, dirfd2, path2, d2);
		return v1 > v2 ? v1 : v2;
	}

	/* First path. A hard-link source may be the fd itself (AT_EMPTY_PATH). */
	if (op == FA_OP_LINK && path1 && (!*path1 || fa__fd_alias(path1, fa__alias_pid(path1)) >= 0)) {
		char src[PATH_MAX];
		int k;

		pre = fa__precheck(p, "fd", d1, NULL);
		if (pre < 0) {
			v1 = d1->verdict;
		} else if (pre > 0) {
			v1 = FA_ALLOW;
		} else if ((k = fd_source(dirfd1, path1, src, sizeof src)) <= 0) {
			fa__decide(d1, FA_REJECT, FA_WHY_BAD_FD, -1, k < 0 ? -k : EBADF);
			v1 = FA_REJECT;
		} else {
			v1 = fa__judge_abs(&c, src, &r1, d1, NULL);
		}
	} else {
		pre = fa__precheck(p, path1, d1, NULL);
		v1 = pre ? d1->verdict : fa__check_one(&c, &r1, 0, dirfd1, path1, d1);
	}

	/* Second path: a symlink's target is read relative to the new link. */
	if (op == FA_OP_SYMLINK) {
		char base[PATH_MAX], abs[PATH_MAX];
		enum fa_why why;
		ssize_t n;

		pre = fa__precheck(p, path2, d2, NULL);
		if (pre)
			return v1 > d2->verdict ? v1 : d2->verdict;
		if (p->outside_symlinks) {
			v2 = FA_ALLOW;
		} else if (path2[0] == '/') {
			v2 = fa__judge_abs(&c, path2, &r2, d2, NULL);
		} else {
			size_t dlen, nlen;
			const char *nm;

			n = fa__absolute(&c, dirfd1, path1, base, sizeof base, &why);
			if (n < 0) {
				fa__decide(d2, FA_REJECT, why, -1, (int)-n);
				v2 = FA_REJECT;
			} else {
				fa__split(base, &dlen, &nm, &nlen);
				base[dlen ? dlen : 1] = 0;
				if (fa__join(base, strlen(base), path2, abs, sizeof abs) < 0) {
					fa__decide(d2, FA_REJECT, FA_WHY_TOO_LONG, -1, ENAMETOOLONG);
					v2 = FA_REJECT;
				} else {
					v2 = fa__judge_abs(&c, abs, &r2, d2, NULL);
				}
			}
		}
	} else {
		pre = fa__precheck(p, path2, d2, NULL);
		v2 = pre ? d2->verdict : fa__check_one(&c, &r2, 0, dirfd2, path2, d2);
	}
	return v1 > v2 ? v1 : v2;
}

enum fa_verdict fa_check_path(const fa_policy *p, const char *path, struct fa_decision *d)
{
	char abs[PATH_MAX], norm[PATH_MAX];
	struct fa__jctx c;
	struct fa__rule rule;
	int r = fa__precheck(p, path, d, NULL);

	if (r != 0)
		return d->verdict;
	fa__jctx_init(&c, p, 0);
	c.cached = 1;
	if (p->nroots == 0) {
		set_path(d, path);
		fa__decide(d, FA_DENY, FA_WHY_NO_ROOTS, -1, 0);
		return FA_DENY;
	}
	if (path[0] == '/') {
		if (fa__fold_abs(path, abs, sizeof abs) < 0) {
			fa__decide(d, FA_REJECT, FA_WHY_TOO_LONG, -1, ENAMETOOLONG);
			return FA_REJECT;
		}
	} else {
		const struct fa__ent *e = &p->roots[0];
		const char *base = e->cwd ? fa__cwd(&c) : fa__str(p, e);
		ssize_t n = fa_lex_normalize(path, norm, sizeof norm);

		if (n == -EXDEV) {
			set_path(d, path);
			fa__decide(d, FA_REJECT, FA_WHY_ESCAPES, -1, 0);
			return FA_REJECT;
		}
		if (n < 0 || !base || fa__join(base, strlen(base), norm, abs, sizeof abs) < 0) {
			set_path(d, path);
			fa__decide(d, FA_REJECT, base ? FA_WHY_TOO_LONG : FA_WHY_ERROR, -1,
				   base ? ENAMETOOLONG : ENOENT);
			return FA_REJECT;
		}
		if (!*norm)
			strcpy(abs, base);
	}
	fa__rule_for(FA_OP_DIR, &rule);
	return fa__judge_abs(&c, abs, &rule, d, NULL);
}
