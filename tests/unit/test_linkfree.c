/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kept proofs of fa_check_verdict() (linkfree_cache.c): with a count
 * of moves trusted, a path proved free of links is taken from the cache
 * while the count stays put, and proved again once it moves.
 *
 * That the cache is used is shown by what it cannot see: a directory
 * swapped for a link behind the count's back is still allowed, which no
 * fresh proof would do; the same swap counted is refused at once.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../libc_compat.h"

#include "tree.h"

static uint64_t count = 1;

static uint64_t moves(void)
{
	return count;
}

static enum fa_verdict verdict(fa_policy *p, const char *rel)
{
	struct fa_decision d;

	return fa_check_verdict(p, FA_OP_WRITE, AT_FDCWD, tp(rel), &d);
}

/* Swap T/root/<dir> for a link to ../outside (raw calls: no shim counts them). */
static void swap_for_link(const char *dir)
{
	char keep[300];

	snprintf(keep, sizeof keep, "%s.kept", tp(dir));
	assert_int_equal(syscall(SYS_renameat2, AT_FDCWD, tp(dir), AT_FDCWD, keep, 0), 0);
	assert_int_equal(syscall(SYS_symlinkat, "../outside", AT_FDCWD, tp(dir)), 0);
}

static void swap_back(const char *dir)
{
	char keep[300];

	snprintf(keep, sizeof keep, "%s.kept", tp(dir));
	assert_int_equal(unlink(tp(dir)), 0);
	assert_int_equal(rename(keep, tp(dir)), 0);
}

/* Below the root the proof is an openat2's: none to keep without it (valgrind). */
static void need_openat2(void)
{
	if (!fa_resolve_uses_openat2())
		skip();
}

static void kept_while_the_count_stays(const char *dir, const char *path)
{
	fa_policy *p = tree_policy(FA_SYM_NOFOLLOW);

	fa_trust_moves(moves);
	assert_int_equal(mkdir(tp(dir), 0700), 0);
	assert_int_equal(verdict(p, path), FA_ALLOW);
	swap_for_link(dir);
	/* not counted: the kept proof answers */
	assert_int_equal(verdict(p, path), FA_ALLOW);
	count++;
	assert_int_equal(verdict(p, path), FA_DENY);
	/* nor is a refusal kept: still refused, and allowed again once undone */
	assert_int_equal(verdict(p, path), FA_DENY);
	swap_back(dir);
	count++;
	assert_int_equal(verdict(p, path), FA_ALLOW);
	fa_trust_moves(NULL);
	swap_for_link(dir);
	/* trusting nothing: every verdict is proved afresh */
	assert_int_equal(verdict(p, path), FA_DENY);
	swap_back(dir);
	assert_int_equal(rmdir(tp(dir)), 0);
	fa_policy_free(p);
}

/* A file four directories down: the openat2 of the whole way is kept. */
static void deep_path(void **state)
{
	(void)state;
	need_openat2();
	assert_int_equal(mkdir(tp("root/sub/a"), 0700), 0);
	assert_int_equal(mkdir(tp("root/sub/a/b"), 0700), 0);
	kept_while_the_count_stays("root/sub/a/b/c", "root/sub/a/b/c/f");
	assert_int_equal(rmdir(tp("root/sub/a/b")), 0);
	assert_int_equal(rmdir(tp("root/sub/a")), 0);
}

/* A directory just beneath the root holding the file. */
static void one_down(void **state)
{
	(void)state;
	need_openat2();
	kept_while_the_count_stays("root/d1", "root/d1/f");
}

/* In the root itself the final component's readlinkat is kept too. */
static void in_the_root(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_NOFOLLOW);

	(void)state;
	fa_trust_moves(moves);
	assert_int_equal(verdict(p, "root/plain"), FA_ALLOW);
	assert_int_equal(symlink("../outside/secret", tp("root/plain")), 0);
	assert_int_equal(verdict(p, "root/plain"), FA_ALLOW);
	count++;
	assert_int_equal(verdict(p, "root/plain"), FA_DENY);
	assert_int_equal(unlink(tp("root/plain")), 0);
	fa_trust_moves(NULL);
	fa_policy_free(p);
}

/* One policy's proof is not another's, though the path is the same. */
static void per_policy(void **state)
{
	fa_policy *p, *q;

	(void)state;
	need_openat2();
	p = tree_policy(FA_SYM_NOFOLLOW);
	q = tree_policy(FA_SYM_NOFOLLOW);
	fa_trust_moves(moves);
	assert_int_equal(mkdir(tp("root/d2"), 0700), 0);
	assert_int_equal(verdict(p, "root/d2/f"), FA_ALLOW);
	swap_for_link("root/d2");
	assert_int_equal(verdict(p, "root/d2/f"), FA_ALLOW);
	assert_int_equal(verdict(q, "root/d2/f"), FA_DENY);
	swap_back("root/d2");
	assert_int_equal(rmdir(tp("root/d2")), 0);
	count++;
	fa_trust_moves(NULL);
	fa_policy_free(p);
	fa_policy_free(q);
}

static enum fa_verdict verdict_op(fa_policy *p, enum fa_op op, const char *rel)
{
	struct fa_decision d;

	return fa_check_verdict(p, op, AT_FDCWD, tp(rel), &d);
}

/*
 * A new name in a directory proved: the way down is taken from the kept
 * directory (a swap of it behind the count's back goes unseen), and only
 * the final component is asked after, where the rule follows it.
 */
static void new_name_in_a_kept_directory(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_NOFOLLOW);

	(void)state;
	need_openat2();
	fa_trust_moves(moves);
	assert_int_equal(mkdir(tp("root/d4"), 0700), 0);
	assert_int_equal(mkdir(tp("root/d4/e"), 0700), 0);
	assert_int_equal(verdict(p, "root/d4/e/f1"), FA_ALLOW);
	/* a final link made behind the count's back is still seen */
	assert_int_equal(syscall(SYS_symlinkat, "../../../outside/x", AT_FDCWD,
				 tp("root/d4/e/lnk")), 0);
	assert_int_equal(verdict(p, "root/d4/e/lnk"), FA_DENY);
	/* a rule that does not follow it asks nothing: removing the link is fine */
	assert_int_equal(verdict_op(p, FA_OP_REMOVE, "root/d4/e/lnk"), FA_ALLOW);
	assert_int_equal(unlink(tp("root/d4/e/lnk")), 0);
	swap_for_link("root/d4/e");
	/* not counted: the kept directory answers for a name never judged */
	assert_int_equal(verdict(p, "root/d4/e/f2"), FA_ALLOW);
	count++;
	assert_int_equal(verdict(p, "root/d4/e/f3"), FA_DENY);
	assert_int_equal(verdict_op(p, FA_OP_REMOVE, "root/d4/e/f3"), FA_DENY);
	swap_back("root/d4/e");
	assert_int_equal(rmdir(tp("root/d4/e")), 0);
	assert_int_equal(rmdir(tp("root/d4")), 0);
	fa_trust_moves(NULL);
	fa_policy_free(p);
}

/*
 * A count of 0 (the hook's own count while a move is under way or a child
 * runs) keeps nothing and trusts nothing kept, then or after.
 */
static void zero_keeps_nothing(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_NOFOLLOW);
	uint64_t was = count;

	(void)state;
	need_openat2();
	fa_trust_moves(moves);
	assert_int_equal(mkdir(tp("root/d3"), 0700), 0);
	assert_int_equal(verdict(p, "root/d3/f"), FA_ALLOW);
	swap_for_link("root/d3");
	count = 0;
	assert_int_equal(verdict(p, "root/d3/f"), FA_DENY);
	swap_back("root/d3");
	assert_int_equal(verdict(p, "root/d3/f"), FA_ALLOW);
	swap_for_link("root/d3");
	assert_int_equal(verdict(p, "root/d3/f"), FA_DENY);
	count = was + 1;
	assert_int_equal(verdict(p, "root/d3/f"), FA_DENY);
	swap_back("root/d3");
	assert_int_equal(rmdir(tp("root/d3")), 0);
	fa_trust_moves(NULL);
	fa_policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(deep_path, use_openat2),
		cmocka_unit_test_setup(one_down, use_openat2),
		BOTH(in_the_root),
		cmocka_unit_test_setup(per_policy, use_openat2),
		cmocka_unit_test_setup(zero_keeps_nothing, use_openat2),
		cmocka_unit_test_setup(new_name_in_a_kept_directory, use_openat2),
	};

	return RUN_TAP("linkfree", tests);
}
