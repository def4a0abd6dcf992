/* SPDX-License-Identifier: Apache-2.0 */
/*
 * under_shim.h - what the shim's own tests share: each program starts
 * itself again with libfashim.so preloaded ($FA_SHIM, after the sanitizer
 * runtime when the build has one) in a scratch tree, then runs its cmocka
 * group there, driving the shim through its bridge as a host does.
 */
#ifndef FA_TEST_UNDER_SHIM_H
#define FA_TEST_UNDER_SHIM_H

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cmocka.h>

#include "shim/fa_bridge.h"
#include "fa_policy.h"

/* The scratch tree (its parent holds nothing else), and the shim's bridge. */
extern char T[PATH_MAX];
extern const struct fa_bridge *br;

/*
 * Returns only in the run under the shim, with T and br set. The first
 * run makes T, lets fixture fill it and give the FA_POLICY text (NULL:
 * no process policy), runs the program again under the shim, removes the
 * tree and exits with that run's status. Without $FA_SHIM it skips.
 */
void under_shim(char **argv, const char *(*fixture)(void));

/* T/rel, in a rotating buffer (eight live at once). */
const char *at(const char *rel);
int exists(const char *path);
off_t size_of(const char *path);
/* open(path, O_WRONLY|O_CREAT|O_TRUNC): 0, or the errno. */
int create(const char *path);
/* A sealed policy whose only root is root: a context to set on a thread. */
fa_policy *context_policy(const char *root);
/* Sets the calling thread's context (NULL: none). */
void enter(const fa_policy *p, int exec_allowed);
/* No child left behind: nothing to reap. */
int no_child(void);

/* A test named by what must hold; run in order, each after the last. */
#define HOLDS(fn, what) { what, fn, NULL, NULL, NULL }
#define RUN_UNDER_SHIM(name, tests) \
	(cmocka_set_message_output(CM_OUTPUT_TAP), \
	 cmocka_run_group_tests_name(name, tests, NULL, NULL))

#endif
