/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json.c - JSON strings and terminal-safe strings, written into a bounded
 * buffer without malloc (see json.h).
 */
#include "config.h"

#include <string.h>

#include "json.h"

static const char hex[] = "0123456789abcdef";

/* Printable ASCII but '"' and '\\': copied as is by both escapers. */
#define R4(x) x, x, x, x
#define R16(x) R4(x), R4(x), R4(x), R4(x)
static const unsigned char plain[256] = {
	R16(0), R16(0),                                        /* 0x00-0x1f */
	1, 1, 0, R4(1), 1,                                     /* 0x20-0x27: '"' */
	R16(1), R16(1), R16(1),                                /* 0x28-0x57 */
	R4(1), 0, 1, 1, 1,                                     /* 0x58-0x5f: '\\' */
	R16(1), R4(1), R4(1), R4(1), 1, 1, 1, 0,               /* 0x60-0x7f: DEL */
};

void fa_putn(struct fa_buf *b, const char *s, size_t n)
{
	size_t at = b->len, k = 0;

	b->len += n;
	if (at >= b->cap)
		return;
	if (at + 1 < b->cap) {
		k = n < b->cap - 1 - at ? n : b->cap - 1 - at;
		memcpy(b->p + at, s, k);
	}
	b->p[at + k] = '\0';
}

void fa_puts(struct fa_buf *b, const char *s)
{
	if (!s)
		s = "(null)";
	fa_putn(b, s, strlen(s));
}

void fa_putu(struct fa_buf *b, unsigned long long v)
{
	char t[24];
	int i = sizeof(t);

	do
		t[--i] = (char)('0' + v % 10);
	while (v /= 10);
	fa_putn(b, t + i, sizeof(t) - (size_t)i);
}

void fa_puto(struct fa_buf *b, unsigned v)
{
	char t[16];
	int i = sizeof(t);

	do
		t[--i] = (char)('0' + (v & 7));
	while (v >>= 3);
	t[--i] = '0';
	fa_putn(b, t + i, sizeof(t) - (size_t)i);
}

size_t fa_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned c = s[0];
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* A NUL is not a continuation byte: the loop never reads past it. */
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/* U+0080-U+009F, the C1 controls, are C2 80 - C2 9F in UTF-8. */
static int c1(const unsigned char *s)
{
	return s[0] == 0xc2 && s[1] < 0xa0;
}

static void put_hex2(struct fa_buf *b, const char *lead, unsigned c)
{
	char t[8];
	size_t n = strlen(lead);

	memcpy(t, lead, n);
	t[n] = hex[c >> 4 & 15];
	t[n + 1] = hex[c & 15];
	fa_putn(b, t, n + 2);
}

/*
 * Runs of bytes that need no escape are copied in one piece: the common
 * path is a plain ASCII name, and this keeps it one memcpy.
 */
void fa_put_json(struct fa_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str, *run;

	if (!s) {
		fa_putn(b, "null", 4);
		return;
	}
	fa_putc(b, '"');
	run = s;
	while (*s) {
		size_t n;

		if (plain[*s]) {
			s++;
			continue;
		}
		n = *s >= 0x80 ? fa_utf8_len((const char *)s) : 0;
		if (n > 1 && !c1(s)) {
			s += n;
			continue;
		}
		fa_putn(b, (const char *)run, (size_t)(s - run));
		if (*s == '"' || *s == '\\') {
			char t[2] = { '\\', (char)*s };

			fa_putn(b, t, 2);
			s++;
		} else if (n > 1) {
			put_hex2(b, "\\u00", s[1]);
			s += n;
		} else {
			put_hex2(b, "\\u00", *s);
			s++;
		}
		run = s;
	}
	fa_putn(b, (const char *)run, (size_t)(s - run));
	fa_putc(b, '"');
}

/*
 * The bidirectional controls (U+061C, U+200E-F, U+202A-E, U+2066-9) make
 * a terminal show the text around them in another order.
 */
static int bidi(const unsigned char *s, size_t n)
{
	if (n == 2)
		return s[0] == 0xd8 && s[1] == 0x9c;
	return n == 3 && s[0] == 0xe2 &&
	       ((s[1] == 0x80 && (s[2] == 0x8e || s[2] == 0x8f || (s[2] >= 0xaa && s[2] <= 0xae))) ||
		(s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9));
}

void fa_put_shown(struct fa_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "(null)"), *run = s;

	while (*s) {
		size_t n, i;

		if (plain[*s]) {
			s++;
			continue;
		}
		n = *s >= 0x80 ? fa_utf8_len((const char *)s) : 0;
		if (n > 1 && !c1(s) && !bidi(s, n)) {
			s += n;
			continue;
		}
		fa_putn(b, (const char *)run, (size_t)(s - run));
		if (*s == '"' || *s == '\\' || *s == '\n' || *s == '\t' || *s == '\r') {
			char t[2] = { '\\', (char)(*s == '\n' ? 'n' : *s == '\t' ? 't' :
						 *s == '\r' ? 'r' : *s) };

			fa_putn(b, t, 2);
			s++;
		} else {
			if (!n)
				n = 1;
			for (i = 0; i < n; i++)
				put_hex2(b, "\\x", s[i]);
			s += n;
		}
		run = s;
	}
	fa_putn(b, (const char *)run, (size_t)(s - run));
}
