/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tree.h - the temporary tree every engine test runs in, and the cmocka
 * glue that runs each test twice: through openat2 and through the forced
 * O_PATH walk.
 *
 *   T/root/                 write root (policy root 0)
 *   T/root/sub/file
 *   T/root/proj/.git/config deny subtree T/root/proj/.git
 *   T/root/in_link      ->  sub              (relative, inside)
 *   T/root/abs_in_link  ->  T/root/sub       (absolute, inside)
 *   T/root/out_link     ->  ../outside       (leaves the root)
 *   T/root/file_link_in ->  sub/file
 *   T/root/file_link_out->  ../outside/secret
 *   T/root/dangle_in    ->  sub/newfile      (dangling, inside)
 *   T/root/dangle_out   ->  ../outside/newfile
 *   T/root/loop         ->  loop
 *   T/rootab/               sibling with a common string prefix
 *   T/outside/secret
 */
#ifndef FA_TEST_TREE_H
#define FA_TEST_TREE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fa_policy.h"

extern char T[256];	/* the tree's top directory */

void tree_make(void);
void tree_remove(void);
/* T + "/" + rel, in a static rotating buffer. */
const char *tp(const char *rel);
int exists(const char *rel);
/* A sealed policy: root T/root, deny T/root/proj/.git, the given mode. */
fa_policy *tree_policy(enum fa_symlinks mode);

/* cmocka setups: choose the resolver for the test that follows. */
int use_openat2(void **state);
int use_walk(void **state);
/* cmocka group setup and teardown: the tree around a whole group. */
int tree_group_setup(void **state);
int tree_group_teardown(void **state);
#define RUN_TAP(name, tests) \
	(cmocka_set_message_output(CM_OUTPUT_TAP), \
	 cmocka_run_group_tests_name(name, tests, tree_group_setup, tree_group_teardown))

/* Each test twice: "name/openat2" and "name/walk". */
#define BOTH(fn) \
	{#fn "/openat2", fn, use_openat2, NULL, NULL}, \
	{#fn "/walk", fn, use_walk, NULL, NULL}

#endif
