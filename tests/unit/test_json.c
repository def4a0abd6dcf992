/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The writer of JSON and terminal strings (json.c) against a model written
 * the slow, obvious way: decode one code point at a time with its value
 * computed and range-checked, then say what it becomes. Random byte
 * strings (biased towards the bytes that matter: controls, quotes,
 * continuation bytes, lead bytes of overlong forms and surrogates) must
 * come out exactly as the model says, in buffers of every size.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "denial.h"
#include "json.h"

/* Code point at s and its length in bytes; -1 when s starts no valid sequence. */
static long decode(const unsigned char *s, size_t *len)
{
	long cp;
	size_t n, i;

	if (s[0] < 0x80) {
		*len = 1;
		return s[0];
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return -1;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = n;
	return cp;
}

static void model_json(char *out, const unsigned char *s)
{
	size_t n;

	out += sprintf(out, "\"");
	while (*s) {
		long cp = decode(s, &n);

		if (cp < 0) {
			out += sprintf(out, "\\u%04x", *s);
			s++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			out += sprintf(out, "\\%c", (int)cp);
		else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			out += sprintf(out, "\\u%04lx", cp);
		else
			out += sprintf(out, "%.*s", (int)n, (const char *)s);
		s += n;
	}
	sprintf(out, "\"");
}

static int is_bidi(long cp)
{
	return cp == 0x61c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

static void model_shown(char *out, const unsigned char *s)
{
	size_t n, i;

	*out = '\0';
	while (*s) {
		long cp = decode(s, &n);

		if (cp < 0) {
			out += sprintf(out, "\\x%02x", *s);
			s++;
			continue;
		}
		if (cp == '\n')
			out += sprintf(out, "\\n");
		else if (cp == '\t')
			out += sprintf(out, "\\t");
		else if (cp == '\r')
			out += sprintf(out, "\\r");
		else if (cp == '"' || cp == '\\')
			out += sprintf(out, "\\%c", (int)cp);
		else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || is_bidi(cp))
			for (i = 0; i < n; i++)
				out += sprintf(out, "\\x%02x", s[i]);
		else
			out += sprintf(out, "%.*s", (int)n, (const char *)s);
		s += n;
	}
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static unsigned next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 32);
}

static const unsigned char interesting[] = {
	0x01, 0x07, 0x08, 0x09, 0x0a, 0x0d, 0x1b, 0x1f, '"', '\\', '/', 'a', 'Z', ' ', 0x7f,
	0x80, 0x8f, 0x9b, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xd8, 0xdf, 0xe0, 0xe2,
	0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xf8, 0xff, 0x81, 0xa6, 0xae, 0x8e, 0x9c,
};

static void random_bytes(unsigned char *s, size_t max)
{
	size_t n = next() % max, i;

	for (i = 0; i < n; i++) {
		unsigned r = next();

		s[i] = r % 3 ? interesting[(r >> 8) % sizeof(interesting)] : (unsigned char)(r >> 16);
		if (!s[i])
			s[i] = 'x';
	}
	s[n] = '\0';
}

typedef void writer_fn(struct fa_buf *b, const char *s);
typedef void model_fn(char *out, const unsigned char *s);

/* Whole output as the model says, and in every smaller buffer its prefix with the same len. */
static void check_one(writer_fn *w, model_fn *m, const unsigned char *s)
{
	static char want[64 * 6 * 4 + 8], got[sizeof(want)], small[sizeof(want)];
	struct fa_buf b = FA_BUF_INIT(got);
	size_t cap, wl;

	m(want, s);
	wl = strlen(want);
	w(&b, (const char *)s);
	assert_true(fa_buf_fits(&b));
	assert_int_equal(b.len, wl);
	assert_string_equal(got, want);
	for (cap = 1; cap <= wl + 1; cap += 1 + cap / 4) {
		struct fa_buf t = { small, 0, cap };

		memset(small, 'Q', sizeof(small));
		w(&t, (const char *)s);
		assert_int_equal(t.len, wl);
		assert_int_equal(fa_buf_fits(&t), cap > wl);
		assert_int_equal(strlen(small), cap - 1 < wl ? cap - 1 : wl);
		assert_memory_equal(small, want, strlen(small));
	}
}

static void run_model(writer_fn *w, model_fn *m)
{
	unsigned char s[64];
	int i;

	for (i = 0; i < 200000; i++) {
		random_bytes(s, sizeof(s));
		check_one(w, m, s);
	}
}

static void test_json_model(void **state)
{
	(void)state;
	run_model(fa_put_json, model_json);
}

static void test_shown_model(void **state)
{
	(void)state;
	run_model(fa_put_shown, model_shown);
}

/* Hand-picked cases, so that a reader sees the choices the model encodes. */
struct example {
	const char *in, *out;
};

static void run_examples(writer_fn *w, const struct example *ex, size_t n)
{
	char out[256];
	size_t i;

	for (i = 0; i < n; i++) {
		struct fa_buf b = FA_BUF_INIT(out);

		w(&b, ex[i].in);
		assert_string_equal(out, ex[i].out);
	}
}

static void test_json_examples(void **state)
{
	static const struct example ex[] = {
		{ "plain/path", "\"plain/path\"" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"" },
		{ "line\nbreak\t\x1b[31m", "\"line\\u000abreak\\u0009\\u001b[31m\"" },
		{ "\xc3\xa9t\xc3\xa9", "\"\xc3\xa9t\xc3\xa9\"" },        /* valid UTF-8 stays */
		{ "\xff\xfe", "\"\\u00ff\\u00fe\"" },                    /* invalid bytes: Latin-1 */
		{ "\xc2\x9b", "\"\\u009b\"" },                           /* C1 CSI */
		{ "\xc0\xaf", "\"\\u00c0\\u00af\"" },                    /* overlong '/' */
		{ "\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"" },         /* a surrogate */
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },          /* U+1F600 */
		{ "\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"" }, /* above U+10FFFF */
		{ "\x7f", "\"\\u007f\"" },
		{ NULL, "null" },
	};

	(void)state;
	run_examples(fa_put_json, ex, sizeof(ex) / sizeof(ex[0]));
}

static void test_shown_examples(void **state)
{
	static const struct example ex[] = {
		{ "a\nb", "a\\nb" },
		{ "\x1b[2J\x07", "\\x1b[2J\\x07" },
		{ "\xc2\x9b" "31m", "\\xc2\\x9b31m" },
		{ "\x9b" "31m", "\\x9b31m" },
		{ "evil\xe2\x80\xaetxt.exe", "evil\\xe2\\x80\\xaetxt.exe" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "q\"uote\\", "q\\\"uote\\\\" },
	};

	(void)state;
	run_examples(fa_put_shown, ex, sizeof(ex) / sizeof(ex[0]));
}

/* A denial's JSON object: every field of the table, in order, each once. */
static void test_denial_json_fields(void **state)
{
	struct fa_denial_view v;
	static char out[8 * 4096 * 6];
	struct fa_buf b = FA_BUF_INIT(out);
	char *p = out, key[40];
	int i;

	(void)state;
	memset(&v, 0, sizeof(v));
	v.call = "openat";
	v.op = "write";
	v.path = "x\n";
	v.flags = 0101;
	v.mode = -1;
	v.rule = "outside-roots";
	v.enforced = 1;
	fa_denial_json(&b, &v);
	assert_true(fa_buf_fits(&b));
	assert_int_equal(out[0], '{');
	assert_null(strchr(out, '\n'));
	for (i = 0; i < fa_denial_nfields; i++) {
		snprintf(key, sizeof(key), "\"%s\":", fa_denial_fields[i].name);
		p = strstr(p, key);
		assert_non_null(p);
	}
	assert_non_null(strstr(out, "\"path\":\"x\\u000a\""));
	assert_non_null(strstr(out, "\"path2\":null"));
	assert_non_null(strstr(out, "\"mode\":null"));
	assert_non_null(strstr(out, "\"flags\":\"O_WRONLY|O_CREAT\""));
	assert_non_null(strstr(out, "\"enforced\":true"));
	assert_non_null(strstr(out, "\"policy\":\"process\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_examples),
		cmocka_unit_test(test_shown_examples),
		cmocka_unit_test(test_json_model),
		cmocka_unit_test(test_shown_model),
		cmocka_unit_test(test_denial_json_fields),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
