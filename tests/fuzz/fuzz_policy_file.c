/*
 * fuzz_policy_file.c - the policy file parser (policy_file.c) against a
 * model of what it may accept, and of where it may say it failed.
 *
 * The model: a file is accepted only if every line that is not blank or a
 * comment starts (after blanks) with one of the six keys followed by a
 * blank and a value, or is "outside-symlinks allow"; then every "root"
 * line is counted in nroots and every "allow-exec" line is in the list.
 * A refusal names the file, a line that exists and a column >= 1, and
 * leaves no list behind. The input is split at its first NUL: the first
 * part is the text, the file is always /fz/policy (no such directory, so
 * relative paths resolve lexically and nothing on disk matters).
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

#define FILE_NAME "/fz/policy"

static char text[1 << 16];

static int known(const char *k, size_t n)
{
	static const char *const keys[] = { "root", "deny", "symlinks", "outside-symlinks", "exec",
					    "allow-exec" };
	size_t i;

	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strlen(keys[i]) == n && !memcmp(keys[i], k, n))
			return 1;
	return 0;
}

/* Lines of the text, and whether each item line has a known key; counts roots and allow-execs. */
static int model(const char *t, int *lines, int *roots, int *execs)
{
	const char *s = t;
	int ok = 1;

	*lines = *roots = *execs = 0;
	while (*s) {
		const char *e = strchr(s, '\n'), *k;
		size_t n = e ? (size_t)(e - s) : strlen(s), kl;

		(*lines)++;
		for (k = s; k < s + n && (*k == ' ' || *k == '\t'); k++)
			;
		if (k < s + n && *k != '#') {
			kl = strcspn(k, " \t\n");
			if (kl > (size_t)(s + n - k))
				kl = (size_t)(s + n - k);
			if (!known(k, kl))
				ok = 0;
			if (kl == 4 && !memcmp(k, "root", 4))
				(*roots)++;
			if (kl == 10 && !memcmp(k, "allow-exec", 10))
				(*execs)++;
		}
		s += n + (e ? 1 : 0);
	}
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fa_policy_file pf;
	char msg[PATH_MAX + 256];
	int lines, roots, execs, r, ok, line, col;
	fa_policy *p;

	if (size >= sizeof text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	ok = model(text, &lines, &roots, &execs);
	p = fa_policy_new();
	if (!p)
		return 0;
	r = fa_policy_file_parse(p, text, FILE_NAME, &pf, msg, sizeof msg);
	if (r == 0) {
		if (!ok) {
			fprintf(stderr, "mismatch: accepted a line with an unknown key:\n%s\n", text);
			abort();
		}
		if (pf.nroots != roots || pf.nallow_exec != execs) {
			fprintf(stderr, "mismatch: %d roots (model %d), %d allow-exec (model %d)\n",
				pf.nroots, roots, pf.nallow_exec, execs);
			abort();
		}
		fa_policy_file_free(&pf);
	} else {
		if (strncmp(msg, FILE_NAME ":", sizeof(FILE_NAME)) ||
		    sscanf(msg + sizeof(FILE_NAME), "%d:%d: ", &line, &col) != 2 || line < 1 ||
		    line > lines || col < 1) {
			fprintf(stderr, "mismatch: refusal does not name a line and column: %s\n", msg);
			abort();
		}
		if (pf.allow_exec || pf.nallow_exec) {
			fprintf(stderr, "mismatch: a refused file left its allow list\n");
			abort();
		}
	}
	fa_policy_free(p);
	return 0;
}
