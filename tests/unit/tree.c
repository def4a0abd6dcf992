/* SPDX-License-Identifier: Apache-2.0 */
/* The test tree and the runner shared by the engine's unit tests. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rm_tree.h"
#include "tree.h"

char T[256];

static void must(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "test tree: %s: %s\n", what, strerror(errno));
		exit(99);
	}
}

static void put(const char *rel, const char *text)
{
	FILE *f = fopen(tp(rel), "w");

	must(f != NULL, rel);
	fputs(text, f);
	fclose(f);
}

const char *tp(const char *rel)
{
	static char bufs[8][PATH_MAX];
	static int i;
	char *b = bufs[i++ % 8];

	snprintf(b, PATH_MAX, "%s/%s", T, rel);
	return b;
}

int exists(const char *rel)
{
	struct stat st;

	return lstat(tp(rel), &st) == 0;
}

void tree_make(void)
{
	char abs[PATH_MAX + 16];

	strcpy(T, "/tmp/fa-unit-XXXXXX");
	must(mkdtemp(T) != NULL, "mkdtemp");
	must(mkdir(tp("root"), 0755) == 0, "root");
	must(mkdir(tp("root/sub"), 0755) == 0, "sub");
	must(mkdir(tp("root/proj"), 0755) == 0, "proj");
	must(mkdir(tp("root/proj/.git"), 0755) == 0, ".git");
	must(mkdir(tp("rootab"), 0755) == 0, "rootab");
	must(mkdir(tp("outside"), 0755) == 0, "outside");
	put("root/sub/file", "inside\n");
	put("root/proj/.git/config", "config\n");
	put("outside/secret", "secret\n");
	must(symlink("sub", tp("root/in_link")) == 0, "in_link");
	snprintf(abs, sizeof abs, "%s/root/sub", T);
	must(symlink(abs, tp("root/abs_in_link")) == 0, "abs_in_link");
	must(symlink("../outside", tp("root/out_link")) == 0, "out_link");
	must(symlink("sub/file", tp("root/file_link_in")) == 0, "file_link_in");
	must(symlink("../outside/secret", tp("root/file_link_out")) == 0, "file_link_out");
	must(symlink("sub/newfile", tp("root/dangle_in")) == 0, "dangle_in");
	must(symlink("../outside/newfile", tp("root/dangle_out")) == 0, "dangle_out");
	must(symlink("loop", tp("root/loop")) == 0, "loop");
	must(chdir(tp("root")) == 0, "chdir");
}


void tree_remove(void)
{
	if (chdir("/") == 0 && T[0])
		rm_tree(T);
}

fa_policy *tree_policy(enum fa_symlinks mode)
{
	char msg[256];
	fa_policy *p = fa_policy_new();

	assert_non_null(p);
	assert_int_equal(fa_policy_add_root(p, tp("root"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_deny(p, tp("root/proj/.git"), msg, sizeof msg), 0);
	fa_policy_set_symlinks(p, mode);
	if (fa_policy_seal(p, 1, msg, sizeof msg) != 0)
		fail_msg("seal: %s", msg);
	return p;
}

int use_openat2(void **state)
{
	(void)state;
	/* Without openat2 in this kernel the dispatcher walks anyway. */
	fa_resolve_force_fallback(0);
	return 0;
}

int use_walk(void **state)
{
	(void)state;
	fa_resolve_force_fallback(1);
	return 0;
}

int tree_group_setup(void **state)
{
	(void)state;
	tree_make();
	return 0;
}

int tree_group_teardown(void **state)
{
	(void)state;
	tree_remove();
	return 0;
}
