/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A process policy (root T, deny T/c/locked) stacked with an audit
 * context: both must allow a write-open, and when the context's roots lie
 * inside the process policy's, the open is check = use for both, so a
 * directory swapped for a symlink mid-call never leads a write out of the
 * context.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../libc_compat.h"

#include "under_shim.h"

/*
 * The race runs until it has shown what it must (enough rounds, swaps
 * seen, both outcomes), however slow the machine; the cap only stops a
 * swapper that never ran, which the asserts then report.
 */
#define MIN_ROUNDS 5000
#define MIN_SWAPS 1000
#define MAX_ROUNDS 2000000

static fa_policy *ctx_a, *ctx_c;

static const char *fixture(void)
{
	static char pol[PATH_MAX * 3];

	if (mkdir(at("a"), 0755) < 0 || mkdir(at("b"), 0755) < 0 || mkdir(at("c"), 0755) < 0 ||
	    mkdir(at("c/locked"), 0755) < 0) {
		printf("Bail out! fixture: %s\n", strerror(errno));
		exit(1);
	}
	snprintf(pol, sizeof(pol), "root %s\ndeny %s/c/locked\n", T, T);
	return pol;
}

/* Under the context ctx, a write-open of T/rel: 0 or the errno; *made: whether T/rel then exists. */
static int write_in(const fa_policy *ctx, const char *rel, int *made)
{
	int e;

	enter(ctx, 0);
	e = create(at(rel));
	enter(NULL, 0);
	*made = exists(at(rel));
	return e;
}

static void inner_context_allows_its_root(void **state)
{
	int made;

	(void)state;
	assert_int_equal(write_in(ctx_a, "a/in", &made), 0);
	assert_true(made);
}

static void inner_context_denies_rest(void **state)
{
	int made;

	(void)state;
	assert_int_equal(write_in(ctx_a, "b/out", &made), EACCES);
	assert_false(made);
}

static void context_named(void **state)
{
	struct fa_denial dn;

	(void)state;
	assert_int_equal(br->recent_denials(&dn, 1), 1);
	assert_true(dn.from_context);
	assert_non_null(strstr(dn.path, "/b/out"));
}

static void outside_both_denied(void **state)
{
	char sib[PATH_MAX + 8];

	(void)state;
	/* T-out: a sibling whose name has T's as a prefix */
	snprintf(sib, sizeof(sib), "%s-out", T);
	enter(ctx_a, 0);
	assert_int_equal(create(sib), EACCES);
	assert_false(exists(sib));
	enter(NULL, 0);
}

/* A deny subtree of the process policy inside the context's root: no covering. */
static void covering_context_allows(void **state)
{
	int made;

	(void)state;
	assert_int_equal(write_in(ctx_c, "c/ok", &made), 0);
	assert_true(made);
}

static void process_deny_holds(void **state)
{
	int made;

	(void)state;
	assert_int_equal(write_in(ctx_c, "c/locked/x", &made), EACCES);
	assert_false(made);
}

static void process_named(void **state)
{
	struct fa_denial dn;

	(void)state;
	assert_int_equal(br->recent_denials(&dn, 1), 1);
	assert_false(dn.from_context);
}

static void covering_context_denies_rest(void **state)
{
	int made;

	(void)state;
	assert_int_equal(write_in(ctx_c, "a/y", &made), EACCES);
	assert_false(made);
}

/*
 * A relative write is judged against the directory the kernel will
 * resolve it from, whichever way the process changed directory.
 */
static void after_chdir(void **state)
{
	(void)state;
	assert_int_equal(chdir(at("a")), 0);
	assert_int_equal(create("rel1"), 0);
	assert_true(exists(at("a/rel1")));
}

static void after_raw_chdir(void **state)
{
	(void)state;
	assert_int_equal(syscall(SYS_chdir, at("c/locked")), 0);
	assert_int_equal(create("rel2"), EACCES);
	assert_false(exists(at("c/locked/rel2")));
	assert_false(exists(at("a/rel2")));
}

static void after_raw_fchdir(void **state)
{
	int bfd = open(at("b"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long rc = syscall(SYS_fchdir, bfd);

	(void)state;
	close(bfd);
	assert_int_equal(rc, 0);
	assert_int_equal(create("rel3"), 0);
	assert_true(exists(at("b/rel3")));
	assert_false(exists(at("c/locked/rel3")));
	(void)!chdir("/");
}

static atomic_int stop;
static atomic_long swaps;
static int adir = -1;

/*
 * Exchange a/d (a directory) with a/lnk (a symlink to b) as fast as
 * possible, by names relative to a: at()'s buffers belong to the main
 * thread.
 */
static void *swapper(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		if (renameat2(adir, "d", adir, "lnk", RENAME_EXCHANGE) == 0)
			atomic_fetch_add(&swaps, 1);
	return NULL;
}

static long rounds, done, denied, escapes;

static void swap_race_ran(void **state)
{
	char target[PATH_MAX + 64];
	pthread_t t;

	(void)state;
	assert_int_equal(mkdir(at("a/d"), 0755), 0);
	snprintf(target, sizeof(target), "%s/b", T);
	assert_int_equal(symlink(target, at("a/lnk")), 0);
	adir = open(at("a"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(adir >= 0);
	pthread_create(&t, NULL, swapper, NULL);
	enter(ctx_a, 0);
	while (rounds < MAX_ROUNDS &&
	       (rounds < MIN_ROUNDS || atomic_load(&swaps) < MIN_SWAPS || !done || !denied)) {
		int e = create(at("a/d/f"));

		rounds++;
		if (e == 0)
			done++;
		else if (e == EACCES)
			denied++;
		if (exists(at("b/f"))) {
			escapes++;
			enter(NULL, 0);
			unlink(at("b/f"));
			enter(ctx_a, 0);
		}
	}
	enter(NULL, 0);
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	close(adir);
	printf("# rounds %ld done %ld denied %ld swaps %ld escapes %ld\n", rounds, done, denied,
	       atomic_load(&swaps), escapes);
	assert_true(done > 0);
	assert_true(denied > 0);
	assert_true(atomic_load(&swaps) > 0);
}

static void swap_never_escapes(void **state)
{
	(void)state;
	assert_true(rounds > 0);
	assert_int_equal(escapes, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		HOLDS(inner_context_allows_its_root,
		      "context inside the process roots: a write in the context's root is allowed"),
		HOLDS(inner_context_denies_rest, "a write the process allows but the context does not is denied"),
		HOLDS(context_named, "and the context is named as the policy that denied"),
		HOLDS(outside_both_denied, "a write outside both is denied"),
		HOLDS(covering_context_allows,
		      "context holding a process deny subtree: a write elsewhere in its root is allowed"),
		HOLDS(process_deny_holds, "a write in the process policy's deny subtree is denied"),
		HOLDS(process_named, "and the process policy is named as the one that denied"),
		HOLDS(covering_context_denies_rest, "a write outside that context's root is denied"),
		HOLDS(after_chdir, "after chdir, a relative write lands in the new cwd"),
		HOLDS(after_raw_chdir, "after syscall(SYS_chdir) into a deny subtree, a relative write there is denied"),
		HOLDS(after_raw_fchdir, "after syscall(SYS_fchdir), a relative write lands where the cwd really is"),
		HOLDS(swap_race_ran, "the swap race ran (opens both allowed and denied)"),
		HOLDS(swap_never_escapes, "a symlink swapped in mid-open never leads a context's write outside it"),
	};
	int r;

	(void)argc;
	under_shim(argv, fixture);
	ctx_a = context_policy(at("a"));
	ctx_c = context_policy(at("c"));
	r = RUN_UNDER_SHIM("stack", tests);
	fa_policy_free(ctx_a);
	fa_policy_free(ctx_c);
	return r;
}
