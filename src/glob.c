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
 *
 * Most patterns never reach that walk: each is compiled when added to one
 * literal tested as a whole (a last component, its suffix, any component,
 * segments beneath the roots) where its form allows, and a judgement
 * tests all those from one pass over the path (fa__glob_find()).
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
	int k = 1;

	if (fa__glob_kind(pat) != FA__GLOB_ANY || !pat[2])
		return 0;
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

int fa__glob_tail_match(const char *pat, size_t plen, int tail, const char *path, size_t len)
{
	const char *s = path + len;

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

/* ---- compiled forms: most patterns are one literal, tested without the walk ---- */

_Static_assert(FA__MAX_GLOB <= 64, "a pattern is one bit of a uint64_t mask");

/* Segment [s, e) with no '*', '?' or '[' (escapes taken) into out: its length; else -1. */
static ssize_t literal(const char *s, const char *e, char *out)
{
	size_t n = 0;

	for (; s < e; s++) {
		if (*s == '*' || *s == '?' || *s == '[')
			return -1;
		if (*s == '\\')
			s++;	/* cleaned: a character follows, never a '/' */
		out[n++] = *s;
	}
	return (ssize_t)n;
}

size_t fa__glob_compile(struct fa__glob *g, const char *pat, char *lit)
{
	const char *end = pat + strlen(pat), *s, *q, *ps, *pe;
	size_t o = 0;
	ssize_t k;

	g->kind = fa__glob_kind(pat);
	g->tail = fa__glob_tail(pat);
	g->need = fa__glob_need(pat);
	g->form = FA__GLOB_GENERAL;
	if (g->kind == FA__GLOB_ANY) {
		/* "**" then one segment, or one segment and "**" */
		if (!pat[2])
			return 0;
		s = pat + 3;
		ps = seg_next(&s, end, &pe);
		if (s == end && *ps == '*')
			k = literal(ps + 1, pe, lit);
		else if (s == end || (end - s == 2 && is_globstar(s, end)))
			k = literal(ps, pe, lit);
		else
			return 0;
		if (k <= 0)
			return 0;	/* a wildcard, or "**" "/" "*" alone */
		g->form = s < end ? FA__GLOB_DIR : *ps == '*' ? FA__GLOB_SUFFIX : FA__GLOB_NAME;
		return (size_t)k;
	}
	/* ROOT, ABS: the literal segments it starts with, and what follows them */
	s = pat + (g->kind == FA__GLOB_ABS);
	while (s < end) {
		q = s;
		ps = seg_next(&q, end, &pe);
		k = literal(ps, pe, lit + o + !!o);
		if (k < 0)
			break;
		if (o)
			lit[o++] = '/';
		o += (size_t)k;
		s = q;
	}
	if (s == end)
		g->form = FA__GLOB_EXACT;
	else if (o && end - s == 2 && is_globstar(s, end))
		g->form = FA__GLOB_SUBTREE;
	return o;
}

/*
 * NAME and SUFFIX patterns among m that component [b, b + n) satisfies.
 * Out of line, as are the compares and walks below: most judgements call
 * none of them, and the path they take stays short.
 */
static __attribute__((noinline)) uint64_t name_hits(const fa_policy *p, uint64_t m,
						    const char *b, size_t n)
{
	uint64_t hit = 0;

	for (; m; m &= m - 1) {
		int i = __builtin_ctzll(m);
		const struct fa__glob *g = &p->globs[i];
		const char *l = p->pool + g->lit;
		size_t k = g->litlen;

		if (g->form == FA__GLOB_NAME ? k == n && fa__same(b, l, k)
					     : k <= n && fa__same(b + n - k, l, k))
			hit |= 1ull << i;
	}
	return hit;
}

/* A bit for a length: two lengths 64 apart share one, which a filter can bear. */
static inline uint64_t len_bit(size_t n)
{
	return 1ull << (n & 63);
}

/* A bit for a component (n > 0 bytes at s): of its length and its first byte. */
static inline uint64_t head_bit(const char *s, size_t n)
{
	return 1ull << ((n * 7 + (unsigned char)s[0]) & 63);
}

/* DIR patterns among m that a component of path satisfies. */
static __attribute__((noinline)) uint64_t dir_hits(const fa_policy *p, uint64_t m,
						   const char *path, size_t len)
{
	const char *s, *end = path + len, *c;
	uint64_t hit = 0, k;

	for (s = path; s < end;) {
		while (s < end && *s == '/')
			s++;
		c = s;
		while (s < end && *s != '/')
			s++;
		if (s == c || !(p->gset.dir_lens & len_bit((size_t)(s - c))))
			continue;
		for (k = m; k; k &= k - 1) {
			const struct fa__glob *g = &p->globs[__builtin_ctzll(k)];

			if (g->litlen == (size_t)(s - c) && fa__same(c, p->pool + g->lit, g->litlen))
				hit |= k & -k;
		}
	}
	return hit;
}

void fa__glob_seal(fa_policy *p)
{
	struct fa__glob_set *gs = &p->gset;
	int i, cwd = 0;

	memset(gs, 0, sizeof *gs);
	for (i = 0; i < p->nglob; i++) {
		const struct fa__glob *g = &p->globs[i];

		gs->of[g->read] |= 1ull << i;
		gs->form[g->form] |= 1ull << i;
		if (g->form == FA__GLOB_NAME || g->form == FA__GLOB_SUFFIX)
			gs->last |= 1ull << (p->pool[g->lit + g->litlen - 1] & 63);
		if (g->form == FA__GLOB_DIR)
			gs->dir_lens |= len_bit(g->litlen);
		if (g->kind != FA__GLOB_ANY) {
			const char *l = p->pool + g->lit;
			int abs = g->kind == FA__GLOB_ABS;
			size_t n = 0;

			*(abs ? &gs->absolute : &gs->rooted) |= 1ull << i;
			while (n < g->litlen && l[n] != '/')
				n++;
			if (n)
				*(abs ? &gs->abs_heads : &gs->heads) |= head_bit(l, n);
			else
				*(abs ? &gs->abs_headless : &gs->headless) |= 1ull << i;
		}
	}
	for (i = 0; i < p->nroots; i++)
		cwd |= p->roots[i].cwd;
	for (i = 0; i < p->nroots; i++) {
		const struct fa__ent *e = &p->roots[i];
		int j;

		/*
		 * The roots above this one hold all it holds: their first
		 * components beneath. Where the current directory is, and so
		 * which roots it is above, is known only when judging.
		 */
		if (cwd)
			gs->root_heads[i] = ~0ull;
		for (j = 0; j < p->nroots && !cwd; j++) {
			const struct fa__ent *up = &p->roots[j];
			const char *s = fa__str(p, e) + up->len, *h;

			if (up->len >= e->len ||
			    !fa__within(fa__str(p, e), e->len, fa__str(p, up), up->len))
				continue;
			while (*s == '/')
				s++;
			for (h = s; *h && *h != '/'; h++)
				;
			gs->root_heads[i] |= head_bit(s, (size_t)(h - s));
		}
		/* The current directory's are known only when judging. */
		p->root_have[i] = e->cwd ? 0 : fa__glob_have(fa__str(p, e), e->len);
		gs->root_dirs[i] = e->cwd ? 0 : dir_hits(p, gs->form[FA__GLOB_DIR], fa__str(p, e),
							 e->len);
	}
}

enum { LEAD_DIFFER, LEAD_EQUAL, LEAD_ABOVE, LEAD_BELOW };

/*
 * Literal segments lit (ll bytes, single '/') against path [s, s + n), by
 * components: path is them, a directory above them, beneath them, or none.
 */
static int lead_cmp(const char *lit, size_t ll, const char *s, size_t n)
{
	const char *e = s + n, *le = lit + ll;

	for (;;) {
		while (s < e && *s == '/')
			s++;
		if (s == e)
			return lit == le ? LEAD_EQUAL : LEAD_ABOVE;
		if (lit == le)
			return LEAD_BELOW;
		while (s < e && lit < le && *s == *lit && *s != '/')
			s++, lit++;
		if ((s < e && *s != '/') || (lit < le && *lit != '/'))
			return LEAD_DIFFER;
		if (lit < le)
			lit++;
	}
}

/* What is known of the judged path, found once whichever pattern asks first. */
struct facts {
	int root;	/* fa__find_root()'s, or FA__GLOB_ROOT_UNKNOWN */
	size_t rootlen;
	int known;	/* have is set */
	uint64_t have;
};

/* The bits fa__glob_have() gives the whole path, the root's taken as sealed. */
static uint64_t path_have(struct fa__jctx *c, struct facts *f, const char *path, size_t len)
{
	const fa_policy *p = c->p;

	if (f->known)
		return f->have;
	if (f->root == FA__GLOB_ROOT_UNKNOWN)
		f->root = fa__find_root(c, path, len, &f->rootlen);
	if (f->root < 0 || p->roots[f->root].cwd)
		f->have = fa__glob_have(path, len);
	else
		f->have = p->root_have[f->root] | fa__glob_have(path + f->rootlen, len - f->rootlen);
	f->known = 1;
	return f->have;
}

/* A ROOT or ABS pattern on the part [s, s + n) of path beneath its anchor. */
static int anchored(struct fa__jctx *c, const struct fa__glob *g, struct facts *f,
		    const char *path, size_t len, const char *s, size_t n, int prefix)
{
	const fa_policy *p = c->p;
	int r;

	r = g->litlen ? lead_cmp(p->pool + g->lit, g->litlen, s, n) : LEAD_BELOW;
	if (r == LEAD_DIFFER)
		return 0;
	/* Above the literal segments: what they name is beneath. */
	if (r == LEAD_ABOVE)
		return prefix ? 2 : 0;
	if (g->form == FA__GLOB_EXACT || g->form == FA__GLOB_SUBTREE)
		return r == LEAD_EQUAL || g->form == FA__GLOB_SUBTREE;
	/* A directory above a match need have none of its names: the filter is for whole ones. */
	if (g->kind == FA__GLOB_ROOT && !prefix && g->need && (g->need & ~path_have(c, f, path, len)))
		return 0;
	return fa__glob_match(p->pool + g->off + (g->kind == FA__GLOB_ABS),
			      g->len - (g->kind == FA__GLOB_ABS), s, n, prefix);
}

/* The patterns among m below the lowest of full, if any. */
static inline uint64_t before(uint64_t m, uint64_t full)
{
	return full ? m & ((full & -full) - 1) : m;
}

/* A GENERAL pattern with a leading "**". */
static int any_match(struct fa__jctx *c, const struct fa__glob *g, const char *path, size_t len,
		     int prefix)
{
	const char *pat = c->p->pool + g->off;
	/* "**" then one segment names no directory above what it names */
	int whole = !prefix || g->tail == 1;

	if (g->tail && whole)
		return fa__glob_tail_match(pat, g->len, g->tail, path + 1, len ? len - 1 : 0);
	return fa__glob_match(pat, g->len, path + 1, len ? len - 1 : 0, prefix);
}

/*
 * ROOT patterns among m on path beneath each root that holds it (the
 * root itself is nothing a pattern names): whole matches into *full, the
 * rest that name something beneath path into *part.
 */
static void rooted(struct fa__jctx *c, uint64_t m, struct facts *f, const char *path,
		   size_t len, int prefix, uint64_t *full, uint64_t *part)
{
	const fa_policy *p = c->p;
	int i;

	for (i = 0; i < p->nroots && (m = before(m, *full)); i++) {
		const struct fa__ent *e = &p->roots[i];
		const char *rs = fa__str(p, e), *s, *h;
		size_t rl = e->len;
		uint64_t k;

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
		/*
		 * The first component beneath the root: if no literal starts
		 * so, only patterns without one can match ("root/" itself,
		 * with none, is above them all).
		 */
		for (s = path + rl + 1; s < path + len && *s == '/'; s++)
			;
		for (h = s; h < path + len && *h != '/'; h++)
			;
		k = h == s || (p->gset.heads & head_bit(s, (size_t)(h - s))) ? m : m & p->gset.headless;
		for (; k; k &= k - 1) {
			int r = anchored(c, &p->globs[__builtin_ctzll(k)], f, path, len, path + rl + 1,
					 len - rl - 1, prefix);

			if (r == 1) {
				*full |= k & -k;
				break;
			}
			if (r == 2)
				*part |= k & -k;
		}
	}
}

/*
 * The patterns the literal forms leave, one by one: ROOT ones among mr,
 * then ABS and ANY ones among m, each while below the lowest whole match.
 */
static __attribute__((noinline)) void the_rest(struct fa__jctx *c, uint64_t mr, uint64_t m,
					       struct facts *f, const char *path, size_t len,
					       int prefix, uint64_t *full, uint64_t *part)
{
	const fa_policy *p = c->p;

	if (mr)
		rooted(c, mr, f, path, len, prefix, full, part);
	for (m = before(m, *full); m; m &= m - 1) {
		const struct fa__glob *g = &p->globs[__builtin_ctzll(m)];
		int r;

		/*
		 * A component it needs and the path lacks rules a whole match
		 * out (ABS patterns share "~/...": their last names differ).
		 * "**" then one segment names no directory above what it names.
		 */
		if ((!prefix || g->tail == 1) && g->need && (g->need & ~path_have(c, f, path, len)))
			continue;
		if (g->kind == FA__GLOB_ABS)
			r = anchored(c, g, f, path, len, path + 1, len ? len - 1 : 0, prefix);
		else
			r = any_match(c, g, path, len, prefix);
		if (r == 1) {
			*full |= m & -m;
			break;
		}
		if (r == 2)
			*part |= m & -m;
	}
}

/* Components of a part of a path, found in one pass from its end. */
struct comps {
	const char *last, *first;	/* NULL: none */
	size_t lastlen, firstlen;
	uint64_t lens;			/* len_bit() of each */
};

static inline void comps_of(const char *lo, const char *end, struct comps *k)
{
	const char *s, *ce = end;

	k->last = k->first = NULL;
	k->lastlen = k->firstlen = 0;
	k->lens = 0;
	for (s = end;; s--) {
		if (s > lo && s[-1] != '/')
			continue;
		if (ce > s) {
			k->lens |= len_bit((size_t)(ce - s));
			if (!k->last) {
				k->last = s;
				k->lastlen = (size_t)(ce - s);
			}
			k->first = s;
			k->firstlen = (size_t)(ce - s);
		}
		if (s == lo)
			return;
		ce = s - 1;
	}
}

int fa__glob_find(struct fa__jctx *c, const char *path, size_t len, int read, int prefix,
		  int root, size_t rootlen, int *how)
{
	const fa_policy *p = c->p;
	const struct fa__glob_set *gs = &p->gset;
	uint64_t mine = gs->of[read != 0], full = 0, part = 0, m, rest;
	uint64_t names = mine & (gs->form[FA__GLOB_NAME] | gs->form[FA__GLOB_SUFFIX]);
	uint64_t dirs = mine & gs->form[FA__GLOB_DIR], mr = mine & gs->rooted;
	struct facts f = {root, rootlen, 0, 0};
	struct comps k;
	int sealed;

	*how = 0;
	if ((names | dirs | mr) && f.root == FA__GLOB_ROOT_UNKNOWN)
		f.root = fa__find_root(c, path, len, &f.rootlen);
	/* No root holds path: no ROOT pattern names it. */
	if (f.root < 0)
		mr = 0;
	/*
	 * The literal forms, all from one pass over the part of path beneath
	 * its deepest root (the root's own components were looked at when it
	 * was sealed; the current directory's cannot be): they name a path
	 * as a whole or not at all.
	 */
	sealed = f.root >= 0 && !p->roots[f.root].cwd;
	if (names | dirs | (mr && sealed)) {
		const char *lo = sealed ? path + f.rootlen : path;

		comps_of(lo, path + len, &k);
		if (names && !k.last && lo > path) {
			struct comps whole;

			comps_of(path, path + len, &whole);	/* the root itself */
			k.last = whole.last;
			k.lastlen = whole.lastlen;
		}
		/* A last byte no literal ends with rules them all out. */
		if (names && k.last && (gs->last >> (k.last[k.lastlen - 1] & 63) & 1))
			full |= name_hits(p, names, k.last, k.lastlen);
		if (sealed)
			full |= gs->root_dirs[f.root] & dirs;
		/* Components none of whose lengths is a literal's need no compare. */
		if (dirs && (k.lens & gs->dir_lens))
			full |= dir_hits(p, dirs, lo, (size_t)(path + len - lo));
		/*
		 * A ROOT literal starts with the first component beneath a root
		 * that holds path, or names nothing here ("root/" itself, with
		 * none, is above them all).
		 */
		m = len <= f.rootlen ? 0 : k.first ? head_bit(k.first, k.firstlen) : ~0ull;
		if (mr && sealed && !((gs->root_heads[f.root] | m) & gs->heads))
			mr &= gs->headless;
	}
	rest = mine & ~(names | dirs | mr | gs->rooted);
	/* The same for ABS patterns and the path's first component. */
	if (rest & gs->absolute) {
		const char *s = path, *e = path + len, *h;

		while (s < e && *s == '/')
			s++;
		for (h = s; h < e && *h != '/'; h++)
			;
		if (h > s && !(head_bit(s, (size_t)(h - s)) & gs->abs_heads))
			rest &= ~gs->absolute | gs->abs_headless;
	}
	if (before(mr | rest, full))
		the_rest(c, mr, rest, &f, path, len, prefix, &full, &part);
	if (full) {
		*how = 1;
		return __builtin_ctzll(full);
	}
	if (part) {
		*how = 2;
		return __builtin_ctzll(part);
	}
	return -1;
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
