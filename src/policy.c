/* SPDX-License-Identifier: Apache-2.0 */
/*
 * policy.c - building, sealing, printing and parsing a policy.
 *
 * Building happens once, before any check, so it may format messages with
 * snprintf and read $HOME; it still opens nothing through libc. Sealing
 * resolves every root and deny subtree once (realpath semantics through the
 * engine's own resolver), pins each existing root with an O_PATH fd, and
 * makes the arena read-only.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "engine_internal.h"

/*
 * Every path may be stored twice: as given, then as resolved; every
 * pattern too: as cleaned, then the literal it is compiled to.
 */
#define POOL_SIZE ((size_t)(2 * (FA__MAX_ROOTS + FA__MAX_DENY + 1 + FA__MAX_GLOB)) * PATH_MAX)

static int fail(char *msg, size_t msglen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *msg, size_t msglen, int err, const char *fmt, ...)
{
	va_list ap;

	if (msg && msglen) {
		va_start(ap, fmt);
		vsnprintf(msg, msglen, fmt, ap);
		va_end(ap);
	}
	return err;
}

fa_policy *fa_policy_new(void)
{
	size_t size = sizeof(struct fa_policy) + POOL_SIZE;
	fa_policy *p;

	size = (size + 4095) & ~(size_t)4095;
	p = fa__sys_mmap(size, PROT_READ | PROT_WRITE);
	if (!p)
		return NULL;
	p->magic = FA__POLICY_MAGIC;
	p->mapsize = size;
	p->symlinks = FA_SYM_TRUST;
	p->used = 1;	/* offset 0 holds "" */
	return p;
}

void fa_policy_free(fa_policy *p)
{
	int i;

	if (!p || p->magic != FA__POLICY_MAGIC)
		return;
	for (i = 0; i < p->nroots; i++)
		if (p->roots[i].fd >= 0)
			fa__sys_close(p->roots[i].fd);
	fa__sys_munmap(p, p->mapsize);
}

int fa__policy_ok(const fa_policy *p)
{
	return p && p->magic == FA__POLICY_MAGIC && p->sealed;
}

static int pool_add(fa_policy *p, const char *s, size_t n, uint32_t *off)
{
	if (p->used + n + 1 > POOL_SIZE)
		return -ENOSPC;
	memcpy(p->pool + p->used, s, n);
	p->pool[p->used + n] = 0;
	*off = (uint32_t)p->used;
	p->used += n + 1;
	return 0;
}

/* "~" expansion and absolutisation of a path given by the user. */
static int absolute(const char *path, char *out, size_t len, char *msg, size_t msglen)
{
	size_t n;

	if (!path || !*path)
		return fail(msg, msglen, -EINVAL, "empty path");
	if (strchr(path, '\n'))
		return fail(msg, msglen, -EINVAL, "path contains a newline");
	if (path[0] == '~') {
		const char *home = getenv("HOME");

		if (path[1] && path[1] != '/')
			return fail(msg, msglen, -EINVAL, "%s: only ~ and ~/ are expanded", path);
		if (!home || home[0] != '/')
			return fail(msg, msglen, -EINVAL, "%s: $HOME is not an absolute path", path);
		n = strlen(home);
		if (n + strlen(path + 1) + 1 > len)
			return fail(msg, msglen, -ENAMETOOLONG, "%s: path too long", path);
		memcpy(out, home, n);
		strcpy(out + n, path + 1);
		return 0;
	}
	if (path[0] == '/') {
		if (strlen(path) + 1 > len)
			return fail(msg, msglen, -ENAMETOOLONG, "path too long");
		strcpy(out, path);
		return 0;
	}
	if (fa__sys_getcwd(out, len) < 0 || out[0] != '/')
		return fail(msg, msglen, -ENOENT, "%s: the current directory is unknown", path);
	if (fa__join(out, strlen(out), path, out, len) < 0)
		return fail(msg, msglen, -ENAMETOOLONG, "%s: path too long", path);
	return 0;
}

/*
 * 1 if abs resolves to the directory one of the n entries names: another
 * name for it ("d/", "./d", a link) is no new entry. Asked only when the
 * table is full (sealing drops such aliases anyway), so the realpaths cost
 * nothing in the usual case.
 */
static int named_already(const fa_policy *p, const struct fa__ent *tab, int n, const char *abs)
{
	char a[PATH_MAX], b[PATH_MAX];
	ssize_t la, lb;
	int i, missing;

	la = fa__realpath_prefix(abs, a, sizeof a, &missing);
	if (la < 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (tab[i].cwd)
			continue;
		lb = fa__realpath_prefix(fa__str(p, &tab[i]), b, sizeof b, &missing);
		if (lb == la && !memcmp(a, b, (size_t)la))
			return 1;
	}
	return 0;
}

static int add(fa_policy *p, struct fa__ent *tab, int *count, int max, const char *what,
	       const char *path, char *msg, size_t msglen)
{
	char abs[PATH_MAX];
	struct fa__ent *e;
	int r;

	if (!p || p->magic != FA__POLICY_MAGIC)
		return fail(msg, msglen, -EINVAL, "not a policy");
	if (p->sealed)
		return fail(msg, msglen, -EBUSY, "the policy is sealed");
	r = absolute(path, abs, sizeof abs, msg, msglen);
	if (r < 0)
		return r;
	/* The same directory named twice is one entry, and counts once. */
	for (r = 0; r < *count; r++)
		if (!tab[r].cwd && !strcmp(fa__str(p, &tab[r]), abs))
			return 0;
	if (*count >= max && !named_already(p, tab, *count, abs))
		return fail(msg, msglen, -ENOSPC, "too many %s (at most %d)", what, max);
	if (*count >= max)
		return 0;
	e = &tab[*count];
	memset(e, 0, sizeof *e);
	e->fd = -1;
	e->root = -1;
	e->len = (uint32_t)strlen(abs);
	if (pool_add(p, abs, e->len, &e->off) < 0)
		return fail(msg, msglen, -ENOSPC, "policy is full");
	(*count)++;
	return 0;
}

int fa_policy_add_root(fa_policy *p, const char *path, char *msg, size_t msglen)
{
	return add(p, p->roots, &p->nroots, FA__MAX_ROOTS, "roots", path, msg, msglen);
}

int fa_policy_add_deny(fa_policy *p, const char *path, char *msg, size_t msglen)
{
	return add(p, p->deny, &p->ndeny, FA__MAX_DENY, "deny subtrees", path, msg, msglen);
}

/* s with the glob characters of a path escaped, so that it names itself only. */
static int put_escaped(char *out, size_t len, size_t *o, const char *s)
{
	for (; *s; s++) {
		if (strchr("*?[]\\", *s)) {
			if (*o + 1 >= len)
				return -ENAMETOOLONG;
			out[(*o)++] = '\\';
		}
		if (*o + 1 >= len)
			return -ENAMETOOLONG;
		out[(*o)++] = *s;
	}
	out[*o] = 0;
	return 0;
}

static int add_glob(fa_policy *p, const char *pattern, int read, char *msg, size_t msglen)
{
	char home[PATH_MAX], clean[PATH_MAX], lit[PATH_MAX];
	const char *in = pattern, *err;
	struct fa__glob *g;
	ssize_t n;
	int i;

	if (!p || p->magic != FA__POLICY_MAGIC)
		return fail(msg, msglen, -EINVAL, "not a policy");
	if (p->sealed)
		return fail(msg, msglen, -EBUSY, "the policy is sealed");
	if (!pattern)
		return fail(msg, msglen, -EINVAL, "no pattern");
	if (read && !strcmp(pattern, "secrets")) {
		for (i = 0; fa_secret_patterns[i]; i++) {
			int r = add_glob(p, fa_secret_patterns[i], 1, msg, msglen);

			if (r < 0)
				return r;
		}
		return 0;
	}
	/* "~" is the user's home, as for roots ("~/.ssh/id_rsa"), a '[' in its name meaning itself. */
	if (pattern[0] == '~') {
		const char *h = getenv("HOME");
		size_t k = 0;

		if (pattern[1] && pattern[1] != '/')
			return fail(msg, msglen, -EINVAL, "%s: only ~ and ~/ are expanded", pattern);
		if (!h || h[0] != '/')
			return fail(msg, msglen, -EINVAL, "%s: $HOME is not an absolute path", pattern);
		if (put_escaped(home, sizeof home, &k, h) < 0 || k + strlen(pattern + 1) >= sizeof home)
			return fail(msg, msglen, -ENAMETOOLONG, "%s: path too long", pattern);
		strcpy(home + k, pattern + 1);
		in = home;
	}
	n = fa__glob_clean(in, clean, sizeof clean, &err);
	if (n < 0)
		return fail(msg, msglen, (int)n, "pattern '%s': %s", pattern,
			    err ? err : "too long");
	/* "./secrets" is a file of that name: kept escaped, so that it never reads back as the set */
	if (read && !strcmp(clean, "secrets")) {
		strcpy(clean, "\\secrets");
		n++;
	}
	for (i = 0; i < p->nglob; i++)
		if (p->globs[i].read == read && !strcmp(p->pool + p->globs[i].off, clean))
			return 0;
	if (p->nglob >= FA__MAX_GLOB)
		return fail(msg, msglen, -ENOSPC, "too many deny patterns (at most %d, reads and "
			    "writes together)", FA__MAX_GLOB);
	g = &p->globs[p->nglob];
	if (pool_add(p, clean, (size_t)n, &g->off) < 0)
		return fail(msg, msglen, -ENOSPC, "policy is full");
	g->len = (uint32_t)n;
	g->litlen = (uint32_t)fa__glob_compile(g, clean, lit);
	if (pool_add(p, lit, g->litlen, &g->lit) < 0)
		return fail(msg, msglen, -ENOSPC, "policy is full");
	g->read = read;
	p->nglob++;
	if (read)
		p->rglobs++;
	else
		p->wglobs++;
	return 0;
}

int fa_policy_add_deny_glob(fa_policy *p, const char *pattern, char *msg, size_t msglen)
{
	return add_glob(p, pattern, 0, msg, msglen);
}

int fa_policy_add_deny_read(fa_policy *p, const char *pattern, char *msg, size_t msglen)
{
	return add_glob(p, pattern, 1, msg, msglen);
}

int fa_policy_add_cwd_root(fa_policy *p)
{
	struct fa__ent *e;
	int i;

	if (!p || p->magic != FA__POLICY_MAGIC)
		return -EINVAL;
	if (p->sealed)
		return -EBUSY;
	for (i = 0; i < p->nroots; i++)
		if (p->roots[i].cwd)
			return 0;
	if (p->nroots >= FA__MAX_ROOTS)
		return -ENOSPC;
	e = &p->roots[p->nroots];
	memset(e, 0, sizeof *e);
	e->fd = -1;
	e->root = -1;
	e->cwd = 1;
	if (pool_add(p, ".", 1, &e->off) < 0)
		return -ENOSPC;
	e->len = 1;
	p->nroots++;
	return 0;
}

void fa_policy_set_symlinks(fa_policy *p, enum fa_symlinks mode)
{
	if (p && p->magic == FA__POLICY_MAGIC && !p->sealed && (unsigned)mode < FA_SYM_NMODES)
		p->symlinks = mode;
}

void fa_policy_set_outside_symlinks(fa_policy *p, int allow)
{
	if (p && p->magic == FA__POLICY_MAGIC && !p->sealed)
		p->outside_symlinks = allow != 0;
}

void fa_policy_set_unrestricted(fa_policy *p)
{
	if (p && p->magic == FA__POLICY_MAGIC && !p->sealed)
		p->unrestricted = 1;
}

void fa_policy_set_learning(fa_policy *p)
{
	if (p && p->magic == FA__POLICY_MAGIC && !p->sealed)
		p->learning = 1;
}

ssize_t fa__realpath_prefix(const char *abs, char *out, size_t len, int *missing)
{
	char head[PATH_MAX], tail[PATH_MAX];
	size_t hlen = strlen(abs), tlen = 0;
	ssize_t n;

	*missing = 0;
	if (hlen >= sizeof head)
		return -ENAMETOOLONG;
	memcpy(head, abs, hlen + 1);
	tail[0] = 0;
	for (;;) {
		int fd = fa__open(AT_FDCWD, head, O_PATH | O_CLOEXEC, 0, RESOLVE_NO_MAGICLINKS);
		size_t dlen, nlen;
		const char *name;

		if (fd >= 0) {
			n = fa__fd_path(fd, out, len);
			fa__sys_close(fd);
			if (n < 0)
				return n;
			break;
		}
		if (fd != -ENOENT && fd != -ENOTDIR)
			return fd;
		/* Keep what does not exist (yet) as it was written. */
		*missing = 1;
		fa__split(head, &dlen, &name, &nlen);
		if (nlen == 0) {
			out[0] = '/';
			out[1] = 0;
			n = 1;
			break;
		}
		if (tlen + nlen + 2 > sizeof tail)
			return -ENAMETOOLONG;
		memmove(tail + nlen + 1, tail, tlen + 1);
		memcpy(tail, name, nlen);
		tail[nlen] = tlen ? '/' : 0;
		tlen += nlen + (tlen ? 1 : 0);
		tail[tlen] = 0;
		head[dlen] = 0;
		if (dlen == 0) {
			head[0] = '.';
			head[1] = 0;
		}
	}
	if (tlen) {
		char joined[PATH_MAX];

		if (fa__join(out, (size_t)n, tail, joined, sizeof joined) < 0)
			return -ENAMETOOLONG;
		n = fa__fold_abs(joined, out, len);
	}
	return n;
}

/* Put the pinned fd out of the way of programs that close or dup2 onto low fds. */
static int high_fd(int fd)
{
	unsigned long soft = 0;
	long want = 1000;
	int nfd;

	if (fa__sys_nofile_limit(&soft) == 0 && soft < 1100)
		want = soft > 64 ? (long)soft - 32 : 10;
	nfd = fa__sys_fcntl(fd, F_DUPFD_CLOEXEC, want);
	if (nfd < 0)
		return fd;
	fa__sys_close(fd);
	return nfd;
}

static void unpin_all(fa_policy *p)
{
	int i;

	for (i = 0; i < p->nroots; i++)
		if (p->roots[i].fd >= 0) {
			fa__sys_close(p->roots[i].fd);
			p->roots[i].fd = -1;
		}
}

int fa_policy_seal(fa_policy *p, int require_existing, char *msg, size_t msglen)
{
	char real[PATH_MAX], cwd[PATH_MAX];
	int i, j, r, fd, missing, havecwd = 0;
	size_t glen;
	ssize_t n;

	if (!p || p->magic != FA__POLICY_MAGIC)
		return fail(msg, msglen, -EINVAL, "not a policy");
	if (p->sealed)
		return 0;
	if (p->unrestricted && p->ndeny)
		return fail(msg, msglen, -EINVAL,
			    "deny subtrees need write roots; an unrestricted policy has none");
	if (p->unrestricted && p->wglobs)
		return fail(msg, msglen, -EINVAL,
			    "deny patterns need write roots; an unrestricted policy has none");
	for (i = 0; i < p->nglob; i++)
		if (p->globs[i].kind == FA__GLOB_ROOT && !p->nroots)
			return fail(msg, msglen, -EINVAL,
				    "pattern '%s' is anchored to the write roots, and there are none "
				    "(start it with '**/' to match at any depth, or with '/')",
				    p->pool + p->globs[i].off);
	for (i = 0; i < p->nroots; i++) {
		struct fa__ent *e = &p->roots[i];
		const char *given = fa__str(p, e);

		if (e->cwd)
			continue;
		/*
		 * A path in folded form that opens with no symlink on the way is
		 * its own real path (fa-run hands its children such paths): one
		 * open, no readlink.
		 */
		fd = -1;
		if (given[0] == '/' && fa__scan_abs(given, &glen) == 0 && glen < sizeof real)
			fd = fa__open(AT_FDCWD, given, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
				      RESOLVE_NO_SYMLINKS);
		if (fd >= 0) {
			memcpy(real, given, glen + 1);
			n = (ssize_t)glen;
			missing = 0;
		} else {
			n = fa__realpath_prefix(given, real, sizeof real, &missing);
		}
		if (n < 0) {
			r = fail(msg, msglen, (int)n, "root %s: %s", given, strerror((int)-n));
			goto bad;
		}
		if (missing && require_existing) {
			r = fail(msg, msglen, -ENOENT, "root %s does not exist", given);
			goto bad;
		}
		if (!missing) {
			if (fd < 0)
				fd = fa__open(AT_FDCWD, real, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
					      RESOLVE_NO_SYMLINKS);
			if (fd < 0) {
				r = fail(msg, msglen, fd, "root %s: %s", given,
					 fd == -ENOTDIR ? "not a directory" : strerror(-fd));
				goto bad;
			}
			e->fd = high_fd(fd);
		}
		/* Two names for one directory (a link, "a/../a"): keep the first. */
		for (j = 0; j < i; j++)
			if (!p->roots[j].cwd && p->roots[j].len == (uint32_t)n &&
			    !memcmp(fa__str(p, &p->roots[j]), real, (size_t)n))
				break;
		if (j < i) {
			if (e->fd >= 0)
				fa__sys_close(e->fd);
			memmove(e, e + 1, (size_t)(p->nroots - i - 1) * sizeof *e);
			p->nroots--;
			i--;
			continue;
		}
		if (pool_add(p, real, (size_t)n, &e->off) < 0) {
			r = fail(msg, msglen, -ENOSPC, "policy is full");
			goto bad;
		}
		e->len = (uint32_t)n;
	}
	for (i = 0; i < p->ndeny; i++) {
		struct fa__ent *e = &p->deny[i];
		const char *given = fa__str(p, e);

		n = fa__realpath_prefix(given, real, sizeof real, &missing);
		if (n < 0) {
			r = fail(msg, msglen, (int)n, "deny %s: %s", given, strerror((int)-n));
			goto bad;
		}
		e->root = -1;
		for (j = 0; j < p->nroots && e->root < 0; j++) {
			const struct fa__ent *rt = &p->roots[j];
			const char *rs = fa__str(p, rt);
			size_t rl = rt->len;

			if (rt->cwd) {
				if (!havecwd) {
					if (fa__sys_getcwd(cwd, sizeof cwd) < 0 || cwd[0] != '/') {
						r = fail(msg, msglen, -ENOENT,
							 "the current directory is unknown");
						goto bad;
					}
					havecwd = 1;
				}
				rs = cwd;
				rl = strlen(cwd);
			}
			if ((size_t)n > rl && fa__within(real, (size_t)n, rs, rl))
				e->root = j;
		}
		if (e->root < 0) {
			r = fail(msg, msglen, -EINVAL,
				 "deny subtree %s is not inside any allowed root", given);
			goto bad;
		}
		if (pool_add(p, real, (size_t)n, &e->off) < 0) {
			r = fail(msg, msglen, -ENOSPC, "policy is full");
			goto bad;
		}
		e->len = (uint32_t)n;
	}
	fa__glob_seal(p);
	p->sealed = 1;
	/* From here on the policy is data nobody can change, not even by mistake. */
	fa__sys_mprotect(p, p->mapsize, PROT_READ);
	return 0;
bad:
	unpin_all(p);
	return r;
}

static int put(char *buf, size_t len, size_t *o, const char *a, const char *b)
{
	size_t la = strlen(a), lb = b ? strlen(b) : 0;

	/* No buffer: only count. */
	if (!buf) {
		*o += la + lb + 1;
		return 0;
	}
	if (*o + la + lb + 2 > len)
		return -ENAMETOOLONG;
	memcpy(buf + *o, a, la);
	*o += la;
	if (b) {
		memcpy(buf + *o, b, lb);
		*o += lb;
	}
	buf[(*o)++] = '\n';
	buf[*o] = 0;
	return 0;
}

ssize_t fa_policy_format(const fa_policy *p, char *buf, size_t len)
{
	size_t o = 0;
	int i;

	if (!p || p->magic != FA__POLICY_MAGIC)
		return -EINVAL;
	if (len)
		buf[0] = 0;
	if (put(buf, len, &o, "symlinks ", fa_symlinks_name(p->symlinks)) < 0)
		return -ENAMETOOLONG;
	if (p->outside_symlinks && put(buf, len, &o, "outside-symlinks allow", NULL) < 0)
		return -ENAMETOOLONG;
	if (p->unrestricted && put(buf, len, &o, "unrestricted", NULL) < 0)
		return -ENAMETOOLONG;
	for (i = 0; i < p->nroots; i++) {
		const struct fa__ent *e = &p->roots[i];
		int r = e->cwd ? put(buf, len, &o, "cwdroot", NULL)
			       : put(buf, len, &o, "root ", fa__str(p, e));

		if (r < 0)
			return -ENAMETOOLONG;
	}
	for (i = 0; i < p->ndeny; i++)
		if (put(buf, len, &o, "deny ", fa__str(p, &p->deny[i])) < 0)
			return -ENAMETOOLONG;
	for (i = 0; i < p->nglob; i++)
		if (put(buf, len, &o, p->globs[i].read ? "deny-read " : "deny-glob ",
			p->pool + p->globs[i].off) < 0)
			return -ENAMETOOLONG;
	return (ssize_t)o;
}

/*
 * A's pattern g in the meet: patterns that do not depend on the roots as
 * they are, one per root of a's otherwise (anchored there, from /), and as
 * it is for a's cwd root, which meets only a cwd root.
 */
/* g anchored at a's root i, as a pattern from / (PATH_MAX bytes). */
static int anchored_at(const fa_policy *a, int i, const struct fa__glob *g, char *out)
{
	size_t k = 0;

	if (put_escaped(out, PATH_MAX, &k, fa__str(a, &a->roots[i])) < 0 ||
	    k + 2 + g->len >= PATH_MAX)
		return -ENAMETOOLONG;
	if (k > 1)
		out[k++] = '/';
	memcpy(out + k, a->pool + g->off, g->len + 1);
	return 0;
}

static int put_glob_meet(char *buf, size_t len, size_t *o, const fa_policy *a,
			 const struct fa__glob *g)
{
	const char *key = g->read ? "deny-read " : "deny-glob ", *pat = a->pool + g->off;
	char one[PATH_MAX];
	int i, cwd = 0;

	if (g->kind != FA__GLOB_ROOT)
		return put(buf, len, o, key, pat);
	for (i = 0; i < a->nroots; i++) {
		if (a->roots[i].cwd) {
			cwd = 1;
			continue;
		}
		if (anchored_at(a, i, g, one) < 0 || put(buf, len, o, key, one) < 0)
			return -ENAMETOOLONG;
	}
	return cwd ? put(buf, len, o, key, pat) : 0;
}

int fa_policy_add_globs_of(fa_policy *p, const fa_policy *src, char *msg, size_t msglen)
{
	char one[PATH_MAX];
	int i, j, r;

	if (!src || src->magic != FA__POLICY_MAGIC)
		return fail(msg, msglen, -EINVAL, "not a policy");
	for (i = 0; i < src->nglob; i++) {
		const struct fa__glob *g = &src->globs[i];
		int (*add_one)(fa_policy *, const char *, char *, size_t) =
			g->read ? fa_policy_add_deny_read : fa_policy_add_deny_glob;

		if (g->kind != FA__GLOB_ROOT) {
			r = add_one(p, src->pool + g->off, msg, msglen);
			if (r < 0)
				return r;
			continue;
		}
		for (j = 0; j < src->nroots; j++) {
			if (src->roots[j].cwd)
				r = add_one(p, src->pool + g->off, msg, msglen);
			else if (anchored_at(src, j, g, one) < 0)
				r = fail(msg, msglen, -ENAMETOOLONG, "pattern too long");
			else
				r = add_one(p, one, msg, msglen);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* The root both a's root ra and b's root rb allow: the deeper one, or NULL. */
static const struct fa__ent *meet_root(const fa_policy *a, const struct fa__ent *ra,
				       const fa_policy *b, const struct fa__ent *rb,
				       const fa_policy **owner)
{
	/* "the current directory at each check" meets only itself */
	if (ra->cwd || rb->cwd) {
		*owner = a;
		return ra->cwd && rb->cwd ? ra : NULL;
	}
	if (fa__within(fa__str(a, ra), ra->len, fa__str(b, rb), rb->len)) {
		*owner = a;
		return ra;
	}
	if (fa__within(fa__str(b, rb), rb->len, fa__str(a, ra), ra->len)) {
		*owner = b;
		return rb;
	}
	return NULL;
}

/* A deny subtree of p is kept when it lies in a root of the meet. */
static int meet_holds(const fa_policy *a, const fa_policy *b, const char *path, size_t len)
{
	const fa_policy *owner;
	const struct fa__ent *r;
	int i, j;

	for (i = 0; i < a->nroots; i++)
		for (j = 0; j < b->nroots; j++) {
			r = meet_root(a, &a->roots[i], b, &b->roots[j], &owner);
			if (r && !r->cwd && fa__within(path, len, fa__str(owner, r), r->len))
				return 1;
		}
	return 0;
}

/* p, and the read patterns of the unrestricted policy u (NULL: none) it meets. */
static ssize_t format_plus_reads(const fa_policy *p, const fa_policy *u, char *buf, size_t len)
{
	ssize_t n = fa_policy_format(p, buf, len);
	size_t o;
	int i;

	if (n < 0 || !u || u->magic != FA__POLICY_MAGIC)
		return n;
	o = (size_t)n;
	for (i = 0; i < u->nglob; i++)
		if (u->globs[i].read && put_glob_meet(buf, len, &o, u, &u->globs[i]) < 0)
			return -ENAMETOOLONG;
	return (ssize_t)o;
}

ssize_t fa_policy_format_meet(const fa_policy *a, const fa_policy *b, char *buf, size_t len)
{
	const fa_policy *owner, *pols[2] = { a, b };
	const struct fa__ent *r;
	size_t o = 0;
	int i, j, k;

	if (!a || (a->magic == FA__POLICY_MAGIC && a->unrestricted))
		return format_plus_reads(b, a, buf, len);
	if (!b || (b->magic == FA__POLICY_MAGIC && b->unrestricted))
		return format_plus_reads(a, b, buf, len);
	if (a->magic != FA__POLICY_MAGIC || b->magic != FA__POLICY_MAGIC)
		return -EINVAL;
	if (buf && len)
		buf[0] = 0;
	if (put(buf, len, &o, "symlinks ",
		fa_symlinks_name(a->symlinks > b->symlinks ? a->symlinks : b->symlinks)) < 0)
		return -ENAMETOOLONG;
	if (a->outside_symlinks && b->outside_symlinks &&
	    put(buf, len, &o, "outside-symlinks allow", NULL) < 0)
		return -ENAMETOOLONG;
	for (i = 0; i < a->nroots; i++)
		for (j = 0; j < b->nroots; j++) {
			r = meet_root(a, &a->roots[i], b, &b->roots[j], &owner);
			if (!r)
				continue;
			if ((r->cwd ? put(buf, len, &o, "cwdroot", NULL)
				    : put(buf, len, &o, "root ", fa__str(owner, r))) < 0)
				return -ENAMETOOLONG;
		}
	for (k = 0; k < 2; k++)
		for (i = 0; i < pols[k]->ndeny; i++) {
			const struct fa__ent *d = &pols[k]->deny[i];

			if (meet_holds(a, b, fa__str(pols[k], d), d->len) &&
			    put(buf, len, &o, "deny ", fa__str(pols[k], d)) < 0)
				return -ENAMETOOLONG;
		}
	/* Every pattern of either side: each only takes away. */
	for (k = 0; k < 2; k++)
		for (i = 0; i < pols[k]->nglob; i++)
			if (put_glob_meet(buf, len, &o, pols[k], &pols[k]->globs[i]) < 0)
				return -ENAMETOOLONG;
	return (ssize_t)o;
}

int fa_policy_parse(fa_policy *p, const char *text, char *msg, size_t msglen)
{
	const char *s = text;
	int lineno = 0, r;

	if (!p || p->magic != FA__POLICY_MAGIC || !text)
		return fail(msg, msglen, -EINVAL, "no policy text");
	if (p->sealed)
		return fail(msg, msglen, -EBUSY, "the policy is sealed");
	while (*s) {
		char line[PATH_MAX + 32], sub[256];
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		lineno++;
		if (n >= sizeof line)
			return fail(msg, msglen, -EINVAL, "policy line %d: too long", lineno);
		memcpy(line, s, n);
		line[n] = 0;
		s += n + (e ? 1 : 0);
		if (n == 0 || line[0] == '#')
			continue;
		if (strncmp(line, "symlinks ", 9) == 0) {
			enum fa_symlinks m;

			if (fa_symlinks_parse(line + 9, &m) < 0)
				return fail(msg, msglen, -EINVAL,
					    "policy line %d: unknown symlink mode '%.64s'", lineno,
					    line + 9);
			p->symlinks = m;
		} else if (strcmp(line, "outside-symlinks allow") == 0) {
			p->outside_symlinks = 1;
		} else if (strcmp(line, "unrestricted") == 0) {
			p->unrestricted = 1;
		} else if (strcmp(line, "cwdroot") == 0) {
			if ((r = fa_policy_add_cwd_root(p)) < 0)
				return fail(msg, msglen, r, "policy line %d: %s", lineno,
					    strerror(-r));
		} else if (strncmp(line, "deny-glob ", 10) == 0 || strncmp(line, "deny-read ", 10) == 0) {
			r = line[5] == 'g' ? fa_policy_add_deny_glob(p, line + 10, sub, sizeof sub)
					   : fa_policy_add_deny_read(p, line + 10, sub, sizeof sub);
			if (r < 0)
				return fail(msg, msglen, r, "policy line %d: %s", lineno, sub);
		} else if (strncmp(line, "root /", 6) == 0 || strncmp(line, "deny /", 6) == 0) {
			r = line[0] == 'r' ? fa_policy_add_root(p, line + 5, sub, sizeof sub)
					   : fa_policy_add_deny(p, line + 5, sub, sizeof sub);
			if (r < 0)
				return fail(msg, msglen, r, "policy line %d: %s", lineno, sub);
		} else {
			return fail(msg, msglen, -EINVAL,
				    "policy line %d: not understood: '%.64s'", lineno, line);
		}
	}
	return 0;
}

int fa_policy_nroots(const fa_policy *p)
{
	return p && p->magic == FA__POLICY_MAGIC ? p->nroots : 0;
}

const char *fa_policy_root(const fa_policy *p, int i)
{
	if (!p || p->magic != FA__POLICY_MAGIC || i < 0 || i >= p->nroots)
		return NULL;
	return fa__str(p, &p->roots[i]);
}

int fa_policy_ndeny(const fa_policy *p)
{
	return p && p->magic == FA__POLICY_MAGIC ? p->ndeny : 0;
}

const char *fa_policy_deny(const fa_policy *p, int i)
{
	if (!p || p->magic != FA__POLICY_MAGIC || i < 0 || i >= p->ndeny)
		return NULL;
	return fa__str(p, &p->deny[i]);
}

int fa_policy_nglobs(const fa_policy *p)
{
	return p && p->magic == FA__POLICY_MAGIC ? p->nglob : 0;
}

const char *fa_policy_glob(const fa_policy *p, int i, int *read)
{
	if (!p || p->magic != FA__POLICY_MAGIC || i < 0 || i >= p->nglob)
		return NULL;
	if (read)
		*read = p->globs[i].read;
	return p->pool + p->globs[i].off;
}

int fa_policy_write_globs(const fa_policy *p)
{
	return p && p->magic == FA__POLICY_MAGIC ? p->wglobs : 0;
}

int fa_policy_read_globs(const fa_policy *p)
{
	return p && p->magic == FA__POLICY_MAGIC ? p->rglobs : 0;
}

enum fa_symlinks fa_policy_symlinks(const fa_policy *p)
{
	return p && p->magic == FA__POLICY_MAGIC ? (enum fa_symlinks)p->symlinks : FA_SYM_TRUST;
}

int fa_policy_outside_symlinks(const fa_policy *p)
{
	return p && p->magic == FA__POLICY_MAGIC && p->outside_symlinks;
}

int fa_policy_root_fd(const fa_policy *p, int i)
{
	if (!p || p->magic != FA__POLICY_MAGIC || i < 0 || i >= p->nroots)
		return -1;
	return p->roots[i].fd;
}

int fa_policy_unrestricted(const fa_policy *p)
{
	return p && p->magic == FA__POLICY_MAGIC && p->unrestricted;
}

int fa_policy_learning(const fa_policy *p)
{
	return p && p->magic == FA__POLICY_MAGIC && p->learning;
}
