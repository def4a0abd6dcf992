/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_fold.c - the engine's lexical folder against the model.
 *
 * Input: one control byte (which buffer length to use), then the path.
 * Both folders run on the same path with the same buffer length, for the
 * absolute form (fa__fold_abs) and the relative one (fa_lex_normalize);
 * they must agree on the result or the error.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "model.h"

static char in[2 * PATH_MAX];
static char got[PATH_MAX], want[PATH_MAX];

static void mismatch(const char *what, ssize_t g, ssize_t w, size_t len)
{
	const unsigned char *u;

	fprintf(stderr, "fuzz_fold: %s mismatch, buffer %zu, input \"", what, len);
	for (u = (const unsigned char *)in; *u; u++)
		fprintf(stderr, *u >= 0x20 && *u < 0x7f && *u != '\\' ? "%c" : "\\x%02x", *u);
	fprintf(stderr, "\": engine %zd \"%s\", model %zd \"%s\"\n", g, g >= 0 ? got : "", w,
		w >= 0 ? want : "");
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len, n;
	ssize_t g, w;

	if (size < 1)
		return 0;
	/* Short buffers reach the length checks; PATH_MAX is the real case. */
	len = data[0] < 200 ? (size_t)data[0] % 48 : PATH_MAX;
	n = size - 1 < sizeof in - 1 ? size - 1 : sizeof in - 1;
	memcpy(in, data + 1, n);
	in[n] = 0;

	g = fa__fold_abs(in, got, len);
	w = model_fold(in, 1, want, len);
	if (g != w || (g >= 0 && strcmp(got, want) != 0))
		mismatch("absolute", g, w, len);

	if (in[0] == '/') {
		if (fa_lex_normalize(in, got, len) != -EINVAL)
			mismatch("relative (absolute input)", -1, -EINVAL, len);
		return 0;
	}
	g = fa_lex_normalize(in, got, len);
	w = len < 1 ? -ENAMETOOLONG : model_fold(in, 0, want, len);
	if (g != w || (g >= 0 && strcmp(got, want) != 0))
		mismatch("relative", g, w, len);
	return 0;
}
