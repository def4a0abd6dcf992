/* SPDX-License-Identifier: Apache-2.0 */
/*
 * where.c - where a checked path is: its absolute form (from the cwd,
 * read once per check, or from a dirfd's path), the root that holds it,
 * and the decision a check fills. Below the judge (judge.c) and the
 * rules it calls (deep.c, resolve_mode.c), which all start from here.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

void fa__decide(struct fa_decision *d, enum fa_verdict v, enum fa_why why, int root, int err)
{
	d->verdict = v;
	d->why = why;
	d->root = root;
	d->err = err;
}

const char *fa__cwd(struct fa__jctx *c)
{
	if (c->cwdlen == 0) {
		struct fa__cwdv v;
		int r;

		if (c->cached && fa__cwd_cached(&v)) {
			c->cwd = v.path;
			c->cwdlen = (int)v.len;
			return c->cwd;
		}
		c->cwd = c->cwdbuf;
		r = fa__sys_getcwd(c->cwdbuf, sizeof c->cwdbuf);
		/* A removed or unreachable cwd holds nothing: no root there. */
		if (r == -ENAMETOOLONG || r == -ERANGE)
			c->cwdlen = -2;	/* deeper than PATH_MAX: deep.c judges it */
		else if (r <= 1 || c->cwdbuf[0] != '/')
			c->cwdlen = -1;
		else
			c->cwdlen = r - 1;
	}
	return c->cwdlen > 0 ? c->cwd : NULL;
}

ssize_t fa__absolute(struct fa__jctx *c, int dirfd, const char *path, char *out, size_t len,
		     enum fa_why *why)
{
	ssize_t n;

	*why = FA_WHY_NONE;
	if (path[0] == '/') {
		n = (ssize_t)strlen(path);
		if ((size_t)n >= len)
			return -ENAMETOOLONG;
		memcpy(out, path, (size_t)n + 1);
		return n;
	}
	if (dirfd == AT_FDCWD) {
		/* Read once per check: the cwd root needs the same answer. */
		const char *cwd = fa__cwd(c);

		if (!cwd && c->cwdlen == -2) {
			*why = FA_WHY_TOO_LONG;
			return -ENAMETOOLONG;
		}
		if (!cwd) {
			*why = FA_WHY_ERROR;
			return -ENOENT;
		}
		n = c->cwdlen;
		if ((size_t)n >= len)
			return -ENAMETOOLONG;
		memcpy(out, cwd, (size_t)n + 1);
	} else {
		n = fa__dirfd_path(dirfd, out, len, c->by_name ? FA_DIRFD_NOW : FA_DIRFD_SAME, why);
		if (n < 0)
			return n;
	}
	if (*path)
		n = fa__join(out, (size_t)n, path, out, len);
	if (n < 0)
		*why = FA_WHY_TOO_LONG;
	return n;
}

int fa__find_root(struct fa__jctx *c, const char *path, size_t plen, size_t *rootlen)
{
	const fa_policy *p = c->p;
	int i, best = -1;
	size_t bestlen = 0;

	for (i = 0; i < p->nroots; i++) {
		const struct fa__ent *e = &p->roots[i];
		const char *s = fa__str(p, e);
		size_t n = e->len;

		if (e->cwd) {
			s = fa__cwd(c);
			if (!s)
				continue;
			n = (size_t)c->cwdlen;
		}
		if ((best < 0 || n > bestlen) && fa__within(path, plen, s, n)) {
			best = i;
			bestlen = n;
		}
	}
	if (rootlen)
		*rootlen = bestlen;
	return best;
}
