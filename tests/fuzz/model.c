/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model.c - see model.h.
 */
#include <errno.h>
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
