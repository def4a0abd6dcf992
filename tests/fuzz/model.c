/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model.c - see model.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define MAXC 4096

ssize_t model_fold(const char *in, int absolute, char *out, size_t len)
{
	static const char *comp[MAXC];
	static size_t clen[MAXC];
	size_t ncomp = 0, total, i;
	const char *s = in;

	/* The base: "/" for an absolute path, nothing for a relative one. */
	size_t base = absolute ? 1 : 0;

	if (len < base + 1)
		return -ENAMETOOLONG;
	total = base;
	while (*s) {
		const char *c = s;
		size_t n;

		while (*s && *s != '/')
			s++;
		n = (size_t)(s - c);
		if (*s == '/')
			s++;
		if (n == 0 || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (ncomp == 0) {
				if (!absolute)
					return -EXDEV;
				continue;
			}
			ncomp--;
			total -= clen[ncomp] + (ncomp > 0 ? 1 : 0);
			continue;
		}
		/* The new state: a separator unless first, then the name. */
		total += (ncomp > 0 ? 1 : 0) + n;
		if (total + 1 > len)
			return -ENAMETOOLONG;
		if (ncomp == MAXC)
			return -ENAMETOOLONG;
		comp[ncomp] = c;
		clen[ncomp] = n;
		ncomp++;
	}
	i = 0;
	if (absolute)
		out[i++] = '/';
	for (size_t k = 0; k < ncomp; k++) {
		if (k > 0)
			out[i++] = '/';
		memcpy(out + i, comp[k], clen[k]);
		i += clen[k];
	}
	out[i] = 0;
	return (ssize_t)i;
}

int model_within(const char *path, const char *base)
{
	size_t b = strlen(base);

	if (strcmp(base, "/") == 0)
		return path[0] == '/';
	return strncmp(path, base, b) == 0 && (path[b] == 0 || path[b] == '/');
}

int model_pattern(const char *in, char *out, size_t len)
{
	char buf[2 * PATH_MAX];
	const char *home = getenv("HOME"), *s;
	size_t o = 0, n, i;
	int dirs;

	/* "~/" is $HOME's, as for roots */
	if (in[0] == '~') {
		if (in[1] && in[1] != '/')
			return -1;
		if (!home || home[0] != '/' || 2 * strlen(home) + strlen(in) >= sizeof buf)
			return -1;
		/* $HOME names itself: its glob characters escaped */
		for (o = 0; *home; home++) {
			if (strchr("*?[]\\", *home))
				buf[o++] = '\\';
			buf[o++] = *home;
		}
		snprintf(buf + o, sizeof buf - o, "%s", in + 1);
		o = 0;
		in = buf;
	}
	n = strlen(in);
	if (!n || in[0] == '!' || strchr(in, '\n'))
		return -1;
	for (i = 0; i < n; i++)
		if (in[i] == '\\' && (++i >= n || in[i] == '/'))
			return -1;
	dirs = in[n - 1] == '/';
	if (in[0] == '/')
		out[o++] = '/';
	for (s = in; *s; s += n) {
		s += strspn(s, "/");
		n = strcspn(s, "/");
		if (!n || (n == 1 && s[0] == '.'))
			continue;
		if (n == 2 && s[0] == '.' && s[1] == '.')
			return -1;
		if (o + n + 5 >= len)
			return -1;
		if (o && !(o == 1 && out[0] == '/'))
			out[o++] = '/';
		memcpy(out + o, s, n);
		o += n;
	}
	if (!o || (o == 1 && out[0] == '/'))
		return -1;
	out[o] = 0;
	if (dirs && !(!strcmp(out, "**") || (o >= 3 && !strcmp(out + o - 3, "/**"))))
		strcpy(out + o, "/**");
	/* a name that would read back as "~/..." or a negation is escaped */
	if (out[0] == '~' || out[0] == '!') {
		memmove(out + 1, out, strlen(out) + 1);
		out[0] = '\\';
	}
	return 0;
}
