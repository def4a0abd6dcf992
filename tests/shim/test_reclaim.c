/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How long what the host publishes lives: a host that retires a policy may
 * free it only once reclaimable() passes its tag, which no call that began
 * before the retire and still judges lets happen; a thread's cached answer
 * older than a retire is not used again. A thread is held inside a judged
 * call by the host's own resolver, which waits on a pipe: nothing here
 * depends on timing.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "under_shim.h"

/* roots T/a and T/b */
static fa_policy *pol_a, *pol_b;

static const char *fixture(void)
{
	mkdir(at("a"), 0755);
	mkdir(at("b"), 0755);
	return NULL;
}

static int ready_fd[2], go_fd[2];
static __thread int hold_here;

/* Answers T/a's policy; on the holding thread, first says so and waits. */
static int holding_resolver(struct fa_thread_ctx *out)
{
	char c = 1;

	if (hold_here) {
		hold_here = 0;
		if (write(ready_fd[1], &c, 1) != 1 || read(go_fd[0], &c, 1) != 1)
			return 0;
	}
	out->policy = pol_a;
	out->learn_fd = -1;
	return 1;
}

static int held_result;

static void *held_writer(void *v)
{
	(void)v;
	hold_here = 1;
	held_result = create(at("b/held"));
	return NULL;
}

static void nothing_judging_reclaims(void **state)
{
	uint64_t tag;

	(void)state;
	tag = br->retire();
	assert_true(br->reclaimable() > tag);
}

static void a_judging_call_holds_back(void **state)
{
	uint64_t before, during;
	pthread_t t;
	char c;

	(void)state;
	assert_int_equal(pipe(ready_fd), 0);
	assert_int_equal(pipe(go_fd), 0);
	br->set_resolver(holding_resolver);
	before = br->retire();
	assert_int_equal(pthread_create(&t, NULL, held_writer, NULL), 0);
	assert_int_equal(read(ready_fd[0], &c, 1), 1);
	/* the writer is inside its call: what is retired now must stay */
	during = br->retire();
	assert_true(br->reclaimable() <= during);
	assert_true(br->reclaimable() > before);
	assert_int_equal(write(go_fd[1], "g", 1), 1);
	pthread_join(t, NULL);
	br->set_resolver(NULL);
	/* judged by T/a's policy, and done: now it may go */
	assert_int_equal(held_result, EACCES);
	assert_true(br->reclaimable() > during);
	close(ready_fd[0]);
	close(ready_fd[1]);
	close(go_fd[0]);
	close(go_fd[1]);
}

static int declining(struct fa_thread_ctx *out)
{
	(void)out;
	return 0;
}

static void stale_answer_not_used(void **state)
{
	struct fa_thread_ctx shared = { .policy = pol_b, .learn_fd = -1 };

	(void)state;
	br->set_shared(&shared);
	br->set_resolver(declining);
	enter(pol_a, 0);
	/* the resolver cannot say: the answer set on the thread stands */
	assert_int_equal(create(at("b/cached")), EACCES);
	/* T/a's policy may be gone after this: the workers' answer stands in */
	(void)br->retire();
	assert_int_equal(create(at("b/shared")), 0);
	assert_int_equal(create(at("a/shared")), EACCES);
	br->set_resolver(NULL);
	enter(NULL, 0);
	br->set_shared(NULL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		HOLDS(nothing_judging_reclaims, "with no call judging, what was retired can be freed"),
		HOLDS(a_judging_call_holds_back,
		      "a call judging keeps back what is retired while it runs, until it ends"),
		HOLDS(stale_answer_not_used,
		      "a thread's cached answer older than a retire is not used again"),
	};
	int r;

	(void)argc;
	under_shim(argv, fixture);
	pol_a = context_policy(at("a"));
	pol_b = context_policy(at("b"));
	r = RUN_UNDER_SHIM("reclaim", tests);
	fa_policy_free(pol_a);
	fa_policy_free(pol_b);
	return r;
}
