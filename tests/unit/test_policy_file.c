/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Policy files (policy_file.c) and the roots a run needed (places.c):
 * what a file grants, that every malformed line is refused with its line
 * and column, and the collapse rule.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fa_policy.h"

static char top[PATH_MAX / 2];

static const char *at(const char *rel)
{
	static char buf[32][PATH_MAX];
	static int k;
	char *b = buf[k++ % 32];

	if (snprintf(b, PATH_MAX, "%s/%s", top, rel) >= PATH_MAX)
		abort();
	return b;
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/fa-pfile-XXXXXX";

	(void)state;
	if (!mkdtemp(tmpl) || !realpath(tmpl, top))
		return -1;
	if (mkdir(at("proj"), 0700) || mkdir(at("proj/build"), 0700) ||
	    mkdir(at("proj/build/secret"), 0700) || mkdir(at("proj/src"), 0700) ||
	    mkdir(at("proj/src/a"), 0700) || mkdir(at("proj/src/b"), 0700) ||
	    mkdir(at("home"), 0700) || mkdir(at("home/.ssh"), 0700) ||
	    mkdir(at("home/.cache"), 0700) || mkdir(at("other"), 0700) ||
	    mkdir(at("other/.git"), 0700) || mkdir(at("proj/.git"), 0700))
		return -1;
	setenv("HOME", at("home"), 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) ? -1 : 0;
}

static int parse(const char *text, fa_policy **pp, struct fa_policy_file *pf, char *msg,
		 size_t len)
{
	*pp = fa_policy_new();
	assert_non_null(*pp);
	return fa_policy_file_parse(*pp, text, at("proj/policy"), pf, msg, len);
}

static void grants_what_it_says(void **state)
{
	struct fa_policy_file pf;
	struct fa_decision d;
	char msg[512];
	fa_policy *p;

	(void)state;
	assert_int_equal(parse("# a comment\n\n  root build   \n"
			       "deny build/secret\n"
			       "deny ../proj/build/secret\n"
			       "symlinks beneath\n"
			       "allow-exec make\n"
			       "allow-exec ./tools/gen\n", &p, &pf, msg, sizeof(msg)), 0);
	assert_int_equal(pf.nroots, 1);
	assert_true(pf.symlinks_set);
	assert_int_equal(pf.symlinks, FA_SYM_BENEATH);
	assert_false(pf.exec_set);
	assert_int_equal(pf.exec, FA_EXEC_LIST);
	assert_int_equal(pf.nallow_exec, 2);
	assert_string_equal(pf.allow_exec[0], "make");
	/* relative to the file's directory, not to the current one */
	assert_string_equal(pf.allow_exec[1], at("proj/tools/gen"));
	assert_int_equal(fa_policy_seal(p, 1, msg, sizeof(msg)), 0);
	assert_string_equal(fa_policy_root(p, 0), at("proj/build"));
	assert_int_equal(fa_policy_symlinks(p), FA_SYM_BENEATH);
	assert_int_equal(fa_check(p, FA_OP_WRITE, AT_FDCWD, at("proj/build/x"), &d), FA_ALLOW);
	assert_int_equal(fa_check(p, FA_OP_WRITE, AT_FDCWD, at("proj/build/secret/x"), &d),
			 FA_DENY);
	assert_int_equal(fa_check(p, FA_OP_WRITE, AT_FDCWD, at("proj/src/x"), &d), FA_DENY);
	fa_policy_file_free(&pf);
	fa_policy_free(p);
}

static void exec_modes(void **state)
{
	struct fa_policy_file pf;
	char msg[512];
	fa_policy *p;

	(void)state;
	assert_int_equal(parse("exec deny\nroot .\n", &p, &pf, msg, sizeof(msg)), 0);
	assert_true(pf.exec_set);
	assert_int_equal(pf.exec, FA_EXEC_DENY);
	fa_policy_free(p);
	assert_int_equal(parse("exec list\nallow-exec /bin/sh\n", &p, &pf, msg, sizeof(msg)), 0);
	assert_int_equal(pf.exec, FA_EXEC_LIST);
	assert_int_equal(pf.nallow_exec, 1);
	fa_policy_file_free(&pf);
	fa_policy_free(p);
	assert_string_equal(fa_exec_mode_name(FA_EXEC_LIST), "list");
}

/* Every malformed file: refused as a whole, with its line and column. */
static void malformed(void **state)
{
	static const struct {
		const char *text, *where, *says;
	} bad[] = {
		{ "root .\nfrobnicate yes\n", ":2:1: ", "unknown key 'frobnicate'" },
		{ "root .\n  symlinks sideways\n", ":2:12: ", "unknown symlink mode 'sideways'" },
		{ "symlinks trust\nsymlinks beneath\n", ":2:10: ", "contradicts symlinks trust" },
		{ "exec allow\nexec deny\n", ":2:6: ", "contradicts exec allow" },
		{ "exec allow\nallow-exec make\n", ":2:1: ", "contradicts 'exec allow' on line 1" },
		{ "allow-exec make\nexec allow\n", ":2:6: ", "contradicts the allow-exec lines" },
		{ "exec sometimes\n", ":1:6: ", "unknown exec mode" },
		{ "root\n", ":1:5: ", "'root' needs a value" },
		{ "root build\ndeny src/a\n", ":2:6: ", "not inside any root of the file" },
		{ "outside-symlinks maybe\n", ":1:18: ", "expected 'outside-symlinks allow'" },
		{ "root ~x/y\n", ":1:6: ", "only ~ and ~/ are expanded" },
		{ "root .\r\n", ":1:7: ", "carriage return" },
		{ "cwdroot\n", ":1:1: ", "unknown key 'cwdroot'" },
	};
	struct fa_policy_file pf;
	char msg[512], want[PATH_MAX + 64];
	fa_policy *p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		assert_true(parse(bad[i].text, &p, &pf, msg, sizeof(msg)) < 0);
		snprintf(want, sizeof(want), "%s%s", at("proj/policy"), bad[i].where);
		if (strncmp(msg, want, strlen(want)) || !strstr(msg, bad[i].says))
			fail_msg("case %zu: %s\nwanted %s...%s", i, msg, want, bad[i].says);
		assert_null(pf.allow_exec);
		fa_policy_free(p);
	}
}

static void unreadable(void **state)
{
	struct fa_policy_file pf;
	char msg[512];
	fa_policy *p = fa_policy_new();

	(void)state;
	assert_int_equal(fa_policy_file_read(p, at("nothing-here"), &pf, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "nothing-here: cannot read the policy file"));
	fa_policy_free(p);
}

static int suggest(const char *const *dirs, int n, struct fa_suggested_root *out)
{
	return fa_suggest_roots(dirs, n, at("proj"), out, n);
}

static void collapse(void **state)
{
	struct fa_suggested_root r[8];
	const char *sib[] = { at("proj/src/a"), at("proj/src/b"), at("proj/src/a") };
	const char *one[] = { at("proj/src/a"), at("proj/src/a/deeper") };
	const char *top_[] = { "/tmp/fa-x", "/tmp/fa-y" };
	const char *up[] = { at("proj/build"), at("proj/src") };
	int n;

	(void)state;
	/* siblings collapse into their parent */
	n = suggest(sib, 3, r);
	assert_int_equal(n, 1);
	assert_string_equal(r[0].path, at("proj/src"));
	assert_null(r[0].sensitive);
	/* one place, and a place beneath it, is that place */
	n = suggest(one, 2, r);
	assert_int_equal(n, 1);
	assert_string_equal(r[0].path, at("proj/src/a"));
	/* never into a top-level directory */
	n = fa_suggest_roots(top_, 2, at("proj"), r, 2);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].path, "/tmp/fa-x");
	/* into the project itself, never above it */
	n = fa_suggest_roots(up, 2, at("proj"), r, 2);
	assert_int_equal(n, 1);
	assert_string_equal(r[0].path, at("proj"));
	n = fa_suggest_roots(up, 2, at("proj/src/a"), r, 2);
	assert_int_equal(n, 2);
}

static void sensitive_places(void **state)
{
	struct fa_suggested_root r[4];
	const char *keys[] = { at("home/.ssh"), at("home/.cache") };
	const char *git[] = { at("other/.git"), at("proj/.git") };
	int n;

	(void)state;
	/* named, and never collapsed into $HOME */
	n = suggest(keys, 2, r);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].path, at("home/.cache"));
	assert_non_null(strstr(r[0].sensitive, "dotfile"));
	assert_non_null(strstr(r[1].sensitive, "keys"));
	/* another project's .git is sensitive, the project's own is not */
	n = suggest(git, 2, r);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].path, at("other/.git"));
	assert_non_null(r[0].sensitive);
	assert_string_equal(r[1].path, at("proj/.git"));
	assert_null(r[1].sensitive);
	assert_non_null(fa_place_sensitive("/", NULL));
	assert_non_null(fa_place_sensitive("/etc/ssl", NULL));
	assert_non_null(fa_place_sensitive("/usr/lib", NULL));
	assert_non_null(fa_place_sensitive(at("home"), NULL));
	assert_null(fa_place_sensitive("/tmp", NULL));
	/* above the project: named, not granted; the project itself is fine */
	assert_non_null(fa_place_sensitive(at("proj"), at("proj/src")));
	assert_null(fa_place_sensitive(at("proj/src"), at("proj/src")));
}

static void holder(void **state)
{
	char out[PATH_MAX];

	(void)state;
	/* the nearest directory that exists now */
	assert_int_equal(fa_place_holder(at("proj/build/new/deeper/f"), out, sizeof(out)), 1);
	assert_string_equal(out, at("proj/build"));
	assert_int_equal(fa_place_holder("/f", out, sizeof(out)), 0);
	assert_int_equal(fa_place_holder("relative", out, sizeof(out)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(grants_what_it_says),
		cmocka_unit_test(exec_modes),
		cmocka_unit_test(malformed),
		cmocka_unit_test(unreadable),
		cmocka_unit_test(collapse),
		cmocka_unit_test(sensitive_places),
		cmocka_unit_test(holder),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, setup, teardown);
}
