/* SPDX-License-Identifier: Apache-2.0 */
/*
 * match.c - pure path-string work: component matching, lexical folding,
 * portable names. No I/O, no allocation: safe anywhere, easy to test.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

/*
 * Fold '.', empty components, trailing slashes and 'a/..' into out, whose
 * first 'base' bytes are already written ("/" for an absolute path, nothing
 * for a relative one). A '..' at the base stays there when climb is 0 ("/.."
 * is "/") and fails with -climb otherwise (a relative path may not climb out).
 */
static ssize_t fold(const char *s, char *out, size_t len, size_t base, int climb)
{
	size_t o = base, n;
	const char *c;

	while ((c = fa__next_comp(&s, &n))) {
		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (o == base && climb)
				return -climb;
			while (o > base && out[o - 1] != '/')
				o--;
			if (o > base)
				o--;
			continue;
		}
		if (o > base) {
			if (o + 1 >= len)
				return -ENAMETOOLONG;
			out[o++] = '/';
		}
		if (o + n >= len)
			return -ENAMETOOLONG;
		memcpy(out + o, c, n);
		o += n;
	}
	out[o] = 0;
	return (ssize_t)o;
}

ssize_t fa__fold_abs(const char *in, char *out, size_t len)
{
	if (len < 2)
		return -ENAMETOOLONG;
	out[0] = '/';
	return fold(in, out, len, 1, 0);
}

ssize_t fa_lex_normalize(const char *rel, char *out, size_t len)
{
	if (!rel || rel[0] == '/')
		return -EINVAL;
	if (len < 1)
		return -ENAMETOOLONG;
	return fold(rel, out, len, 0, EXDEV);
}

int fa__has_dotdot(const char *path)
{
	const char *s = path, *c;
	size_t n;

	while ((c = fa__next_comp(&s, &n)))
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return 1;
	return 0;
}

/*
 * The folding flags of the components from s on (s starts a component):
 * an empty one ('//', a trailing '/'), '.', '..'. *end: the final NUL.
 * One tight pass; the common path has none of them.
 */
static int scan_components(const char *s, const char **end)
{
	int st = 0;

	for (;;) {
		if (*s == '/') {
			st |= FA__SCAN_FOLD;
		} else if (*s == '.') {
			if (s[1] == '/' || !s[1])
				st |= FA__SCAN_FOLD;
			else if (s[1] == '.' && (s[2] == '/' || !s[2]))
				st |= FA__SCAN_DOTDOT;
		} else if (!*s) {
			st |= FA__SCAN_FOLD;
			break;
		}
		while (*s && *s != '/')
			s++;
		if (!*s)
			break;
		s++;
	}
	*end = s;
	return st;
}

/*
 * 0x80 in each byte of x that is zero; a byte above a zero one may show a
 * false hit, which only costs the exact scan.
 */
static inline uint64_t zero_bytes(uint64_t x)
{
	return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

/*
 * At each byte of the word at s: a '/' followed by '/' or '.' ('.' is '/'
 * with bit 0 clear). s[8] must be readable.
 */
static inline uint64_t slash_fold(const char *s)
{
	uint64_t w, next;

	memcpy(&w, s, sizeof w);
	memcpy(&next, s + 1, sizeof next);
	return zero_bytes(w ^ 0x2f2f2f2f2f2f2f2full) &
	       zero_bytes((next | 0x0101010101010101ull) ^ 0x2f2f2f2f2f2f2f2full);
}

/*
 * 1 if some '/' in path[0..n) may be followed by '/' or '.', or path ends
 * in '/': only then can a component be empty, '.' or '..'. Eight bytes a
 * step; a false hit (".hidden") only costs the exact scan.
 */
static int may_fold(const char *path, size_t n)
{
	size_t i;

	if (path[n - 1] == '/')
		return 1;
	if (n < 9) {
		for (i = 0; i + 1 < n; i++)
			if (path[i] == '/' && (path[i + 1] | 1) == '/')
				return 1;
		return 0;
	}
	/* The reads stop at path[n], the NUL; the last word overlaps. */
	for (i = 0; i + 8 < n; i += 8)
		if (slash_fold(path + i))
			return 1;
	return slash_fold(path + n - 8) != 0;
}

int fa__scan_abs_len(const char *path, size_t len)
{
	const char *end;

	if (len == 1 || !may_fold(path, len))
		return 0;
	return scan_components(path + 1, &end);
}

int fa__scan_abs(const char *path, size_t *len)
{
	*len = strlen(path);
	return fa__scan_abs_len(path, *len);
}

ssize_t fa__join_clean(const char *base, size_t blen, const char *rel, char *out, size_t len)
{
	const char *s = rel, *end, *c;
	size_t o = blen, n;
	int st;

	if (rel[0] == '/')
		return -EINVAL;
	st = scan_components(rel, &end);
	if (st & FA__SCAN_DOTDOT)
		return -EXDEV;
	if (blen >= len)
		return -ENAMETOOLONG;
	if (out != base)
		memcpy(out, base, blen);
	if (!st) {
		/* Already clean: one copy. */
		n = (size_t)(end - rel);
		if (o + n + 2 > len)
			return -ENAMETOOLONG;
		if (o > 1)
			out[o++] = '/';
		memcpy(out + o, rel, n + 1);
		return (ssize_t)(o + n);
	}
	while ((c = fa__next_comp(&s, &n))) {
		if (n == 1 && c[0] == '.')
			continue;
		/* base "/" needs no separator. */
		if (o + n + 2 > len)
			return -ENAMETOOLONG;
		if (o > 1)
			out[o++] = '/';
		memcpy(out + o, c, n);
		o += n;
	}
	out[o] = 0;
	return (ssize_t)o;
}

void fa__split(const char *path, size_t *dlen, const char **name, size_t *nlen)
{
	size_t end = strlen(path), start;

	while (end > 1 && path[end - 1] == '/')
		end--;
	if (end == 1 && path[0] == '/') {
		*dlen = 1;
		*name = path + 1;
		*nlen = 0;
		return;
	}
	start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	*name = path + start;
	*nlen = end - start;
	/* The directory part keeps no trailing slash, except the root itself. */
	end = start;
	while (end > 1 && path[end - 1] == '/')
		end--;
	*dlen = end;
}

static int parse_uint(const char *s, const char **end)
{
	long n = 0;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		n = n * 10 + (*s - '0');
		if (n > 0x7fffffff)
			return -1;
		s++;
	}
	*end = s;
	return (int)n;
}

int fa__fd_alias(const char *path, int pid)
{
	const char *s, *e;
	int n;

	if (strcmp(path, "/dev/stdin") == 0)
		return 0;
	if (strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	if (strncmp(path, "/dev/fd/", 8) == 0) {
		s = path + 8;
	} else if (strncmp(path, "/proc/", 6) == 0) {
		s = path + 6;
		if (strncmp(s, "self/", 5) == 0) {
			s += 5;
		} else if (strncmp(s, "thread-self/", 12) == 0) {
			s += 12;
		} else {
			n = parse_uint(s, &e);
			if (n < 0 || n != pid || *e != '/')
				return -1;
			s = e + 1;
		}
		if (strncmp(s, "fd/", 3) != 0)
			return -1;
		s += 3;
	} else {
		return -1;
	}
	n = parse_uint(s, &e);
	if (n < 0 || *e)
		return -1;
	return n;
}

ssize_t fa__join(const char *base, size_t blen, const char *rel, char *out, size_t len)
{
	size_t rlen = strlen(rel);
	size_t need = blen + 1 + rlen + 1;

	if (need > len)
		return -ENAMETOOLONG;
	if (out != base)
		memmove(out, base, blen);
	if (blen == 0 || out[blen - 1] != '/')
		out[blen++] = '/';
	memcpy(out + blen, rel, rlen + 1);
	return (ssize_t)(blen + rlen);
}

size_t fa__utoa(unsigned long n, char *buf)
{
	char tmp[24];
	size_t i = 0, j;

	do {
		tmp[i++] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	for (j = 0; j < i; j++)
		buf[j] = tmp[i - 1 - j];
	buf[i] = 0;
	return i;
}

static int upper(int c)
{
	return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

int fa_name_portable(const char *name, size_t len)
{
	static const char *const reserved[] = {"CON", "PRN", "AUX", "NUL"};
	size_t base = 0, i;

	if (len == 0)
		return 0;
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return 1;
	for (i = 0; i < len; i++)
		if (name[i] == ':' || name[i] == '/' || name[i] == 0)
			return 0;
	if (name[len - 1] == '.' || name[len - 1] == ' ')
		return 0;
	/* Windows reserves the device names whatever extension follows. */
	while (base < len && name[base] != '.')
		base++;
	/* "CON .txt" is CON too: trailing spaces of the stem are ignored. */
	while (base > 0 && name[base - 1] == ' ')
		base--;
	if (base == 3) {
		for (i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
			if (upper(name[0]) == reserved[i][0] && upper(name[1]) == reserved[i][1] &&
			    upper(name[2]) == reserved[i][2])
				return 0;
	}
	if (base == 4 && name[3] >= '1' && name[3] <= '9') {
		if ((upper(name[0]) == 'C' && upper(name[1]) == 'O' && upper(name[2]) == 'M') ||
		    (upper(name[0]) == 'L' && upper(name[1]) == 'P' && upper(name[2]) == 'T'))
			return 0;
	}
	return 1;
}

/*
 * The public faces of the helpers the shim and the Workspace share with
 * the engine (fa_policy.h), so that neither keeps a copy of its own
 * (fa_fd_path, which reads /proc, is fd_path.c's).
 */
int fa_path_within(const char *path, const char *base)
{
	return fa__within(path, strlen(path), base, strlen(base));
}

ssize_t fa_path_join(const char *base, size_t blen, const char *rel, char *out, size_t len)
{
	return fa__join(base, blen, rel, out, len);
}
