/* SPDX-License-Identifier: Apache-2.0 */
/*
 * glob.c - deny patterns: which paths a gitignore-like pattern names.
 *
 * A pattern is a list of segments separated by '/'. A segment "**" stands
 * for any number of whole components (none included); any other segment
 * matches exactly one component, with '*' (any run of characters, never a
 * '/'), '?' (one character), '[...]' (one of a set, '!' or '^' negating it,
 * 'a-z' a range) and '\' (the next character as itself). A dot is an
 * ordinary character: '*' matches ".env" too, as in gitignore.
 *
 * Where a pattern is anchored depends on how it starts: "**" matches at any
 * depth, "/" from the file system's root (a "~/" of the user's has become
 * that when the pattern was added), anything else from each write root that
 * holds the path. The path is always the one the engine judged (resolved),
 * never the string a program gave.
 *
 * Matching walks the pattern once with a single point to come back to, the
 * last "**" met: every other segment takes exactly one component, so a
 * later "**" never needs an earlier one to take more (the classic wildcard
 * argument, with components for characters). No allocation, no I/O, no
 * recursion: the shim calls it from inside a wrapper.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

/* [lo-hi] or a single character at *p (escapes taken), p before end. */
static int class_match(const char **pp, const char *end, unsigned char ch, int *ok)
{
	const char *p = *pp + 1;
	int neg = 0, hit = 0, first = 1;

	if (p < end && (*p == '!' || *p == '^')) {
		neg = 1;
		p++;
	}
	while (p < end && (first || *p != ']')) {
		unsigned char lo, hi;

		first = 0;
		if (*p == '\\' && p + 1 < end)
			p++;
		lo = hi = (unsigned char)*p++;
		if (p + 1 < end && *p == '-' && p[1] != ']') {
			p++;
			if (*p == '\\' && p + 1 < end)
				p++;
			hi = (unsigned char)*p++;
		}
		if (ch >= lo && ch <= hi)
			hit = 1;
	}
	if (p >= end)
		return 0;	/* no closing ']': the '[' is literal */
	*pp = p + 1;
	*ok = hit != neg;
	return 1;
}

/* One segment [p, pe) against one component [s, se). */
static int seg_match(const char *p, const char *pe, const char *s, const char *se)
{
	const char *star_p = NULL, *star_s = NULL;

	while (s < se) {
		if (p < pe && *p == '*') {
			while (p < pe && *p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (p < pe) {
			const char *q = p;
			int ok = 0;

			if (*p == '[' && class_match(&q, pe, (unsigned char)*s, &ok)) {
				if (ok) {
					p = q;
					s++;
					continue;
				}
			} else if (*p == '?') {
				p++;
				s++;
				continue;
			} else {
				if (*p == '\\' && p + 1 < pe)
					q = p + 1;
				if (*q == *s) {
					p = q + 1;
					s++;
					continue;
				}
			}
		}
		if (!star_p)
			return 0;
		p = star_p;
		s = ++star_s;
	}
	while (p < pe && *p == '*')
		p++;
	return p == pe;
}

/* The segment at *p (no leading '/'): its end, *p moved past its '/'. */
static const char *seg_next(const char **p, const char *end, const char **se)
{
	const char *s = *p, *e = s;

	while (e < end && *e != '/')
		e++;
	*se = e;
	*p = e < end ? e + 1 : e;
	return s;
}

static int is_globstar(const char *s, const char *e)
{
	return e - s == 2 && s[0] == '*' && s[1] == '*';
}

int fa__glob_match(const char *pat, size_t plen, const char *path, size_t len, int prefix)
{
	const char *pend = pat + plen, *send = path + len;
	const char *p = pat, *s = path;
	const char *bt_p = NULL, *bt_s = NULL;	/* after the last "**", and where it stopped */
	/* A leading "**" taking the path's last component proves no ancestry. */
	const char *lead_end = NULL;
	int found = 0;

	if (p < pend && pend - p >= 2 && p[0] == '*' && p[1] == '*' &&
	    (pend - p == 2 || p[2] == '/'))
		lead_end = pend - p == 2 ? pend : p + 3;
	while (s < send && *s == '/')
		s++;
	for (;;) {
		const char *ps, *pe, *cs, *ce, *np = p;

		if (s >= send) {
			/* The path is used up: the rest of the pattern must be "**" only. */
			const char *q = p;
			int rest = 0;

			while (q < pend && !rest) {
				ps = seg_next(&q, pend, &pe);
				rest = !is_globstar(ps, pe);
			}
			if (!rest)
				return 1;
			/*
			 * Something is still to match beneath: path may hold a match,
			 * unless only the leading "**" got here (then any directory would).
			 */
			if (prefix && !(lead_end && (p == pat || p == lead_end)))
				found = 2;
			goto back;
		}
		if (p >= pend)
			goto back;
		ps = seg_next(&np, pend, &pe);
		if (is_globstar(ps, pe)) {
			p = np;
			bt_p = p;
			bt_s = s;
			continue;
		}
		cs = s;
		ce = s;
		while (ce < send && *ce != '/')
			ce++;
		if (seg_match(ps, pe, cs, ce)) {
			p = np;
			s = ce;
			while (s < send && *s == '/')
				s++;
			continue;
		}
back:
		if (!bt_p || bt_s >= send)
			return found;
		/* The last "**" takes one more component. */
		while (bt_s < send && *bt_s != '/')
			bt_s++;
		while (bt_s < send && *bt_s == '/')
			bt_s++;
		p = bt_p;
		s = bt_s;
	}
}

/* ---- the filter: components a path must have for a pattern to name it ---- */

#define SEED_NAME 0x6e616d65ull	/* a whole component */
#define SEED_EXT 0x65787420ull	/* a component's extension, from its last '.' */

/* A bit for the string: a function of its length and its first and last two bytes. */
static inline uint64_t comp_bit(const char *s, size_t n, uint64_t seed)
{
	uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ull);

	h ^= (uint64_t)(unsigned char)s[0] << 8 ^ (uint64_t)(unsigned char)s[n - 1] << 16;
	if (n > 1)
		h ^= (uint64_t)(unsigned char)s[1] << 24 ^ (uint64_t)(unsigned char)s[n - 2] << 32;
	h *= 0xff51afd7ed558ccdull;
	return 1ull << (h >> 58);
}

uint64_t fa__glob_need(const char *pat)
{
	const char *s = pat, *c;
	uint64_t need = 0;
	size_t n, i;

	while ((c = fa__next_comp(&s, &n))) {
		int plain = 1, dots = 0;

		for (i = 0; i < n; i++) {
			if (strchr("*?[\\", c[i]) && !(i == 0 && c[0] == '*'))
				plain = 0;
			dots += c[i] == '.';
		}
		if (c[0] != '*' && plain)
			need |= comp_bit(c, n, SEED_NAME);
		else if (plain && n > 2 && c[1] == '.' && dots == 1 && !*s)
			need |= comp_bit(c + 1, n - 1, SEED_EXT);	/* a final "*.pem" */
	}
	return need;
}

/* The bits of every component of path, and of the last one's extension. */
uint64_t fa__glob_have(const char *path, size_t len)
{
	const char *s = path, *end = path + len, *c = NULL, *e = NULL, *dot;
	uint64_t have = 0;

	while (s < end) {
		while (s < end && *s == '/')
			s++;
		if (s >= end)
			break;
		c = s;
		while (s < end && *s != '/')
			s++;
		e = s;
		have |= comp_bit(c, (size_t)(s - c), SEED_NAME);
	}
	if (!c)
		return have;
	for (dot = e; dot > c && dot[-1] != '.'; dot--)
		;
	if (dot > c)
		have |= comp_bit(dot - 1, (size_t)(e - dot + 1), SEED_EXT);
	return have;
}

int fa__glob_tail(const char *pat)
{
	const char *s = pat + 3;
	size_t n = strlen(pat);
	int k = 1;

	if (fa__glob_kind(pat) != FA__GLOB_ANY || !pat[2])
		return 0;
	/* "**" NAME "**": any component that is NAME, wherever it is */
	if (n > 6 && !strcmp(pat + n - 3, "/**") && !memchr(pat + 3, '/', n - 6)) {
		size_t i;

		for (i = 3; i < n - 3 && !strchr("*?[\\", pat[i]); i++)
			;
		if (i == n - 3)
			return -(int)(n - 6);
	}
	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			continue;
		}
		if (*s == '/')
			k++;
		/* another "**" segment: the general walk */
		if (*s == '*' && s[1] == '*' && (s[2] == '/' || !s[2]) && (s == pat + 3 || s[-1] == '/'))
			return 0;
	}
	return k;
}

/* "**" NAME "**" on path: 1 if a component is NAME (n bytes). */
static int has_component(const char *name, size_t n, const char *path, size_t len)
{
	const char *s = path, *end = path + len, *c;

	while (s < end) {
		while (s < end && *s == '/')
			s++;
		c = s;
		while (s < end && *s != '/')
			s++;
		if ((size_t)(s - c) == n && fa__same(c, name, n))
			return 1;
	}
	return 0;
}

int fa__glob_tail_match(const char *pat, size_t plen, int tail, const char *path, size_t len)
{
	const char *s = path + len;

	if (tail < 0)
		return has_component(pat + 3, (size_t)-tail, path, len);

	while (s > path && s[-1] == '/')
		s--;
	while (tail--) {
		while (s > path && s[-1] != '/')
			s--;
		if (tail) {
			if (s == path)
				return 0;
			while (s > path && s[-1] == '/')
				s--;
		}
	}
	return fa__glob_match(pat + 3, plen - 3, s, (size_t)(path + len - s), 0);
}

int fa__glob_kind(const char *pat)
{
	if (pat[0] == '/')
		return FA__GLOB_ABS;
	if (pat[0] == '*' && pat[1] == '*' && (pat[2] == '/' || !pat[2]))
		return FA__GLOB_ANY;
	return FA__GLOB_ROOT;
}

int fa_glob_is_pattern(const char *s)
{
	return s && strpbrk(s, "*?[") != NULL;
}

ssize_t fa__glob_clean(const char *in, char *out, size_t len, const char **err)
{
	const char *s = in, *c;
	size_t o = 0, n, i;
	int dirs = 0, abs = in[0] == '/';

	*err = NULL;
	if (!*in) {
		*err = "an empty pattern";
		return -EINVAL;
	}
	if (in[0] == '!') {
		*err = "'!' (negation) is not supported: a deny pattern only adds to what is denied";
		return -EINVAL;
	}
	if (strchr(in, '\n')) {
		*err = "a newline in a pattern";
		return -EINVAL;
	}
	n = strlen(in);
	if (n && in[n - 1] == '/')
		dirs = 1;	/* "dir/" is dir and all it holds, a final "**" */
	for (i = 0; i < n; i++)
		if (in[i] == '\\' && (++i >= n || in[i] == '/')) {
			*err = "a '\\' escapes nothing at the end of a pattern or before '/'";
			return -EINVAL;
		}
	if (abs) {
		if (len < 2)
			return -ENAMETOOLONG;
		out[o++] = '/';
	}
	while ((c = fa__next_comp(&s, &n))) {
		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			*err = "'..' in a pattern: patterns match resolved paths, which have none";
			return -EINVAL;
		}
		if (o + n + 2 > len)
			return -ENAMETOOLONG;
		if (o > (size_t)abs)
			out[o++] = '/';
		memcpy(out + o, c, n);
		o += n;
	}
	if (o == (size_t)abs) {
		*err = abs ? "'/' names everything: that is no write root at all"
			   : "a pattern of '.' alone names the roots themselves";
		return -EINVAL;
	}
	if (dirs && !(o >= 2 && out[o - 1] == '*' && out[o - 2] == '*' &&
		      (o == 2 || out[o - 3] == '/'))) {
		if (o + 4 > len)
			return -ENAMETOOLONG;
		memcpy(out + o, "/**", 3);
		o += 3;
	}
	/*
	 * "./~x" and "./!x" name "~x" and "!x" beneath a root: escaped, so
	 * that the text read back ("deny-glob" lines) means the same.
	 */
	if (out[0] == '~' || out[0] == '!') {
		if (o + 2 > len)
			return -ENAMETOOLONG;
		memmove(out + 1, out, o);
		out[0] = '\\';
		o++;
	}
	out[o] = 0;
	return (ssize_t)o;
}

/*
 * Against each root that holds path: the part of path beneath it.
 * ROOT patterns only; the root itself is nothing a pattern names.
 */
static int root_match(struct fa__jctx *c, const char *pat, size_t plen, const char *path,
		      size_t len, int prefix)
{
	const fa_policy *p = c->p;
	int i, r, best = 0;

	for (i = 0; i < p->nroots; i++) {
		const struct fa__ent *e = &p->roots[i];
		const char *rs = fa__str(p, e);
		size_t rl = e->len;

		if (e->cwd) {
			rs = fa__cwd(c);
			if (!rs)
				continue;
			rl = (size_t)c->cwdlen;
		}
		if (len <= rl || !fa__within(path, len, rs, rl))
			continue;
		if (rl == 1)
			rl = 0;	/* the root is "/": the path's own slash follows */
		r = fa__glob_match(pat, plen, path + rl + 1, len - rl - 1, prefix);
		if (r == 1)
			return 1;
		if (r > best)
			best = r;
	}
	return best;
}

int fa__glob_find(struct fa__jctx *c, const char *path, size_t len, int read, int prefix,
		  int root, size_t rootlen, int *how)
{
	const fa_policy *p = c->p;
	int i, r, best = -1;
	uint64_t have = 0;
	int known = 0;

	*how = 0;
	for (i = 0; i < p->nglob; i++) {
		const struct fa__glob *g = &p->globs[i];
		const char *pat = p->pool + g->off;
		/*
		 * "**" then one segment names no directory above what it names,
		 * nor does "**" NAME "**" name any but NAME and what it holds.
		 */
		int whole = !prefix || g->tail == 1 || g->tail < 0;

		if (g->read != read)
			continue;
		/*
		 * The filter is for a whole match alone (a directory above a
		 * match need have none of its names): the root's components were
		 * taken when it was sealed, the rest once here.
		 */
		if (whole && g->need) {
			if (!known) {
				if (root == FA__GLOB_ROOT_UNKNOWN)
					root = fa__find_root(c, path, len, &rootlen);
				if (root < 0 || p->roots[root].cwd)
					have = fa__glob_have(path, len);
				else
					have = p->root_have[root] |
					       fa__glob_have(path + rootlen, len - rootlen);
				known = 1;
			}
			if (g->need & ~have)
				continue;
		}
		if (g->kind == FA__GLOB_ROOT)
			r = root_match(c, pat, g->len, path, len, prefix);
		else if (g->tail && whole)
			r = fa__glob_tail_match(pat, g->len, g->tail, path + 1, len ? len - 1 : 0);
		else
			r = fa__glob_match(pat + (g->kind == FA__GLOB_ABS), g->len - (g->kind == FA__GLOB_ABS),
					   path + 1, len ? len - 1 : 0, prefix);
		if (r == 1) {
			*how = 1;
			return i;
		}
		if (r == 2 && best < 0) {
			best = i;
			*how = 2;
		}
	}
	return best;
}

int fa_policy_glob_for(const fa_policy *p, const char *path, int read, int prefix)
{
	struct fa__jctx c;
	int how;

	if (!p || p->magic != FA__POLICY_MAGIC || !path || path[0] != '/' ||
	    !(read ? p->rglobs : p->wglobs))
		return -1;
	fa__jctx_init(&c, p, 0);
	return fa__glob_find(&c, path, strlen(path), read != 0, prefix, FA__GLOB_ROOT_UNKNOWN, 0,
			     &how);
}

int fa_glob_match(const char *pattern, const char *path)
{
	char pat[PATH_MAX];
	const char *err;
	ssize_t n = fa__glob_clean(pattern, pat, sizeof pat, &err);

	if (n < 0 || !path)
		return n < 0 ? (int)n : -EINVAL;
	if (pat[0] == '/')
		return path[0] == '/' && fa__glob_match(pat + 1, (size_t)n - 1, path + 1,
							strlen(path + 1), 0) == 1;
	return fa__glob_match(pat, (size_t)n, path, strlen(path), 0) == 1;
}

/*
 * Files a program has no business reading unasked, by the user's own
 * tools' conventions: SSH and GnuPG private keys, cloud and registry
 * credentials, and the files projects keep their secrets in.
 */
const char *const fa_secret_patterns[] = {
	"~/.ssh/id_rsa", "~/.ssh/id_dsa", "~/.ssh/id_ecdsa", "~/.ssh/id_ed25519",
	"~/.ssh/id_ecdsa_sk", "~/.ssh/id_ed25519_sk", "~/.ssh/id_xmss",
	"~/.gnupg/private-keys-v1.d/**", "~/.gnupg/secring.gpg",
	"~/.aws/credentials", "~/.config/gcloud/**", "~/.azure/**",
	"~/.kube/config", "~/.docker/config.json", "~/.netrc", "~/.git-credentials",
	"~/.pgpass", "~/.pypirc", "~/.npmrc", "~/.config/gh/hosts.yml",
	"**/.env", "**/.env.local", "**/*.pem", "**/*.key", "**/*.p12", "**/*.pfx",
	NULL,
};

/*
 * The written files a common secret pattern names: what fa-run --learn
 * warns about. Project-relative patterns only: the home directory's are
 * outside every sensible root already.
 */
const char *const fa_secret_write_patterns[] = {
	"**/.env", "**/.env.*", "**/.envrc", "**/*.pem", "**/*.key", "**/.git/**",
	"**/id_rsa", "**/id_ed25519", "**/.netrc", "**/credentials",
	NULL,
};
