/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_policy.c - the policy text parser (FA_POLICY, the policy children
 * inherit) against a model of its grammar, and the format -> parse round
 * trip.
 *
 * The grammar, one item per line: blank lines and '#' comments;
 * "symlinks trust|beneath|nofollow"; "outside-symlinks allow";
 * "unrestricted"; "cwdroot"; "root /ABS"; "deny /ABS"; "deny-glob PATTERN"
 * and "deny-read PATTERN" (model_pattern(); "deny-read secrets" the
 * built-in set). A root or deny
 * subtree given again is the same one and counts once; once the table is
 * full, so is another name that resolves to a listed one (the engine's
 * realpath is the oracle for that: resolving is not what is fuzzed here). Anything else, a
 * line of PATH_MAX + 32 bytes or more, a path of PATH_MAX bytes or more,
 * or more than the engine's limit of roots or deny subtrees, is an error. Paths are kept as given until
 * the policy is sealed (sealing is I/O and is not fuzzed here).
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "model.h"

struct model {
	int ok;
	int symlinks;
	int unrestricted;
	int outside_symlinks;
	int nroots, ndeny;
	const char *roots[FA__MAX_ROOTS];   /* "." for cwdroot */
	size_t rlen[FA__MAX_ROOTS];
	const char *deny[FA__MAX_DENY];
	size_t dlen[FA__MAX_DENY];
	int nglob;
	int gread[FA__MAX_GLOB];
	char glob[FA__MAX_GLOB][PATH_MAX];
};

/* A pattern line: kept once per kind, cleaned; the built-in set for "deny-read secrets". */
static int model_glob(struct model *m, const char *v, size_t n, int read)
{
	char in[PATH_MAX + 32], c[PATH_MAX];
	int i;

	if (n >= sizeof in)
		return -1;
	memcpy(in, v, n);
	in[n] = 0;
	if (read && !strcmp(in, "secrets")) {
		for (i = 0; fa_secret_patterns[i]; i++)
			if (model_glob(m, fa_secret_patterns[i], strlen(fa_secret_patterns[i]), 1) < 0)
				return -1;
		return 0;
	}
	if (model_pattern(in, c, sizeof c) < 0)
		return -1;
	if (read && !strcmp(c, "secrets"))
		strcpy(c, "\\secrets");	/* a file of that name, not the set */
	for (i = 0; i < m->nglob; i++)
		if (m->gread[i] == read && !strcmp(m->glob[i], c))
			return 0;
	if (m->nglob == FA__MAX_GLOB)
		return -1;
	m->gread[m->nglob] = read;
	strcpy(m->glob[m->nglob++], c);
	return 0;
}

static char text[1 << 16];
static char out[(FA__MAX_ROOTS + FA__MAX_DENY + 4) * (PATH_MAX + 16)];

static int line_is(const char *l, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(l, word, n) == 0;
}

static int has_prefix(const char *l, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && memcmp(l, pre, k) == 0;
}

/* 1 if the n bytes at l are already one of the k entries. */
static int listed(const char *const *tab, const size_t *lens, int k, const char *l, size_t n)
{
	int i;

	for (i = 0; i < k; i++)
		if (lens[i] == n && memcmp(tab[i], l, n) == 0)
			return 1;
	return 0;
}

/* Full table: does the path (n bytes at l) resolve to a listed entry? */
static int resolves_listed(const char *const *tab, const size_t *lens, int k, const char *l,
			   size_t n)
{
	char a[PATH_MAX], b[PATH_MAX], x[PATH_MAX];
	ssize_t la, lb;
	int i, missing;

	memcpy(x, l, n);
	x[n] = 0;
	la = fa__realpath_prefix(x, a, sizeof a, &missing);
	for (i = 0; la >= 0 && i < k; i++) {
		if (lens[i] == 1 && tab[i][0] == '.')
			continue;	/* cwdroot */
		memcpy(x, tab[i], lens[i]);
		x[lens[i]] = 0;
		lb = fa__realpath_prefix(x, b, sizeof b, &missing);
		if (lb == la && !memcmp(a, b, (size_t)la))
			return 1;
	}
	return 0;
}

static void model_parse(const char *s, struct model *m)
{
	m->nroots = m->ndeny = m->nglob = 0;
	m->symlinks = m->unrestricted = m->outside_symlinks = 0;
	m->ok = 1;
	while (*s) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		const char *l = s;

		s += n + (e ? 1 : 0);
		if (n >= PATH_MAX + 32)
			goto bad;
		if (n == 0 || l[0] == '#')
			continue;
		if (line_is(l, n, "symlinks trust"))
			m->symlinks = FA_SYM_TRUST;
		else if (line_is(l, n, "symlinks beneath"))
			m->symlinks = FA_SYM_BENEATH;
		else if (line_is(l, n, "symlinks nofollow"))
			m->symlinks = FA_SYM_NOFOLLOW;
		else if (line_is(l, n, "outside-symlinks allow"))
			m->outside_symlinks = 1;
		else if (line_is(l, n, "unrestricted"))
			m->unrestricted = 1;
		else if (line_is(l, n, "cwdroot")) {
			if (listed(m->roots, m->rlen, m->nroots, ".", 1))
				continue;
			if (m->nroots == FA__MAX_ROOTS)
				goto bad;
			m->roots[m->nroots] = ".";
			m->rlen[m->nroots++] = 1;
		} else if (has_prefix(l, n, "root /")) {
			if (n - 5 >= PATH_MAX)
				goto bad;
			if (listed(m->roots, m->rlen, m->nroots, l + 5, n - 5))
				continue;
			if (m->nroots == FA__MAX_ROOTS &&
			    resolves_listed(m->roots, m->rlen, m->nroots, l + 5, n - 5))
				continue;
			if (m->nroots == FA__MAX_ROOTS)
				goto bad;
			m->roots[m->nroots] = l + 5;
			m->rlen[m->nroots++] = n - 5;
		} else if (has_prefix(l, n, "deny-glob ") || has_prefix(l, n, "deny-read ")) {
			if (model_glob(m, l + 10, n - 10, l[5] == 'r') < 0)
				goto bad;
		} else if (has_prefix(l, n, "deny /")) {
			if (n - 5 >= PATH_MAX)
				goto bad;
			if (listed(m->deny, m->dlen, m->ndeny, l + 5, n - 5))
				continue;
			if (m->ndeny == FA__MAX_DENY &&
			    resolves_listed(m->deny, m->dlen, m->ndeny, l + 5, n - 5))
				continue;
			if (m->ndeny == FA__MAX_DENY)
				goto bad;
			m->deny[m->ndeny] = l + 5;
			m->dlen[m->ndeny++] = n - 5;
		} else {
			goto bad;
		}
	}
	return;
bad:
	m->ok = 0;
}

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_policy: %s\n--- input ---\n%s\n--- end ---\n", what, text);
	abort();
}

static void compare(const fa_policy *p, const struct model *m, const char *when)
{
	char what[128];
	int i;

	snprintf(what, sizeof what, "%s: policy differs from the model", when);
	if (fa_policy_nroots(p) != m->nroots || fa_policy_ndeny(p) != m->ndeny ||
	    (int)fa_policy_symlinks(p) != m->symlinks ||
	    fa_policy_unrestricted(p) != m->unrestricted ||
	    fa_policy_outside_symlinks(p) != m->outside_symlinks)
		fail(what);
	for (i = 0; i < m->nroots; i++) {
		const char *r = fa_policy_root(p, i);

		if (!r || strlen(r) != m->rlen[i] || memcmp(r, m->roots[i], m->rlen[i]) != 0)
			fail(what);
	}
	for (i = 0; i < m->ndeny; i++) {
		const char *d = fa_policy_deny(p, i);

		if (!d || strlen(d) != m->dlen[i] || memcmp(d, m->deny[i], m->dlen[i]) != 0)
			fail(what);
	}
	if (fa_policy_nglobs(p) != m->nglob)
		fail(what);
	for (i = 0; i < m->nglob; i++) {
		int read;
		const char *g = fa_policy_glob(p, i, &read);

		if (!g || read != m->gread[i] || strcmp(g, m->glob[i]))
			fail(what);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct model m;
	fa_policy *p, *q;
	char msg[256];
	ssize_t n;
	int r;

	if (size >= sizeof text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	model_parse(text, &m);

	p = fa_policy_new();
	if (!p)
		fail("fa_policy_new failed");
	msg[0] = 0;
	r = fa_policy_parse(p, text, msg, sizeof msg);
	if ((r == 0) != m.ok)
		fail(m.ok ? "engine refused what the model accepts" : "engine accepted what the model refuses");
	if (r < 0) {
		if (!msg[0] || strchr(msg, '\n'))
			fail("an error without a one-line message");
		fa_policy_free(p);
		return 0;
	}
	compare(p, &m, "parse");

	/* What format writes, parse must read back to the same policy. */
	n = fa_policy_format(p, out, sizeof out);
	if (n < 0)
		fail("format failed");
	q = fa_policy_new();
	if (!q)
		fail("fa_policy_new failed");
	if (fa_policy_parse(q, out, msg, sizeof msg) != 0)
		fail("the formatted policy does not parse");
	compare(q, &m, "round trip");
	fa_policy_free(q);
	fa_policy_free(p);
	return 0;
}
