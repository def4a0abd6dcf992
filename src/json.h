/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json.h - the one writer of text the project prints: JSON strings, and
 * strings shown on a terminal.
 *
 * It needs no malloc, no locale and no lock, so the shim can use it inside
 * any wrapped call (even from a signal handler), and fa-check and the
 * Python extension use the same code so that every output escapes bytes
 * the same way.
 */
#ifndef FA_JSON_H
#define FA_JSON_H

#include <stddef.h>

/*
 * A bounded buffer. len counts every byte written, like snprintf()'s
 * result; what fits is stored and kept NUL-terminated (cap - 1 bytes at
 * most). So len < cap: all of it is in p, len bytes long; len >= cap: the
 * text was cut, and it takes len + 1 bytes of room (see fa_buf_fits).
 */
struct fa_buf {
	char *p;
	size_t len, cap;
};

#define FA_BUF_INIT(array) { (array), 0, sizeof(array) }

static inline int fa_buf_fits(const struct fa_buf *b)
{
	return b->len < b->cap;
}

void fa_putn(struct fa_buf *b, const char *s, size_t n);
void fa_puts(struct fa_buf *b, const char *s);

/* Inline: a denial line is mostly single characters between strings. */
static inline void fa_putc(struct fa_buf *b, char c)
{
	if (b->len + 1 < b->cap) {
		b->p[b->len++] = c;
		b->p[b->len] = '\0';
	} else {
		fa_putn(b, &c, 1);
	}
}

void fa_putu(struct fa_buf *b, unsigned long long v);
/* Octal with a leading 0 ("0644"). */
void fa_puto(struct fa_buf *b, unsigned v);

/*
 * The length of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or 0 when the
 * byte at s does not start one. s is NUL-terminated.
 */
size_t fa_utf8_len(const char *s);

/*
 * s as a JSON string with its quotes, or null for NULL. '"', '\\' and the
 * control characters (U+0000-U+001F, U+007F-U+009F) are escaped; valid
 * UTF-8 passes through; every byte that is not part of valid UTF-8 is
 * written as \u00XX, the code point of the same number (its Latin-1
 * reading), so the line is valid JSON whatever the bytes were.
 */
void fa_put_json(struct fa_buf *b, const char *s);

/*
 * s for a terminal or a one-line log: valid printable UTF-8 passes
 * through; '\\' and '"' are escaped with a backslash; newline, tab and
 * carriage return as \n \t \r; every other control character (C0, DEL,
 * the C1 range U+0080-U+009F, which includes CSI), the bidirectional
 * controls (which reorder what a terminal shows) and every byte that is
 * not part of valid UTF-8 as \xHH per byte. The result has no control
 * character at all, so it cannot break the line or drive the terminal.
 */
void fa_put_shown(struct fa_buf *b, const char *s);

#endif
