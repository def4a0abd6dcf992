/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The symlink-swap race: one thread keeps exchanging a directory inside the
 * root with a symlink to a directory outside it (renameat2 RENAME_EXCHANGE)
 * while the other opens and creates through that name. Whatever
 * interleaving happens, nothing may ever be created outside.
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
#include <unistd.h>

#include "../libc_compat.h"

#include "tree.h"

/*
 * A race runs until it has shown what it must (enough rounds, enough swaps
 * seen by the checker, both outcomes), however slow the machine; the cap
 * only stops a swapper that never ran, which the asserts then report.
 */
#define MIN_ROUNDS 5000
#define MIN_SWAPS 1000
#define MAX_ROUNDS 2000000

static atomic_int stop;
static atomic_long swaps;
/* Fixed before the thread starts: tp()'s buffers are not shared safely. */
static char dir_path[PATH_MAX], link_path[PATH_MAX];
static char victim_f[PATH_MAX], victim_d[PATH_MAX], open_path[PATH_MAX];

static void *swapper(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		if (renameat2(AT_FDCWD, dir_path, AT_FDCWD, link_path, RENAME_EXCHANGE) == 0)
			atomic_fetch_add(&swaps, 1);
	}
	return NULL;
}

static void fresh(void)
{
	char target[PATH_MAX + 16];
	struct stat st;

	/* Whichever name holds the directory now, start from dir + link again. */
	if (lstat(dir_path, &st) == 0 && S_ISLNK(st.st_mode))
		renameat2(AT_FDCWD, dir_path, AT_FDCWD, link_path, RENAME_EXCHANGE);
	unlink(tp("root/race/dir/f"));
	rmdir(tp("root/race/dir/d"));
	unlink(link_path);
	mkdir(tp("root/race"), 0755);
	mkdir(dir_path, 0755);
	mkdir(tp("outside/victim"), 0755);
	snprintf(target, sizeof target, "%s/outside/victim", T);
	assert_int_equal(symlink(target, link_path), 0);
}

static int shown(long rounds, long min_rounds, long min_swaps, long opened)
{
	return rounds >= min_rounds && atomic_load(&swaps) >= min_swaps && opened > 0;
}

static void race(enum fa_symlinks mode)
{
	fa_policy *p = tree_policy(mode);
	pthread_t th;
	long rounds = 0, opened = 0, pinned = 0, escapes = 0;

	strcpy(dir_path, tp("root/race/dir"));
	strcpy(link_path, tp("root/race/link"));
	strcpy(victim_f, tp("outside/victim/f"));
	strcpy(victim_d, tp("outside/victim/d"));
	strcpy(open_path, tp("root/race/dir/f"));
	fresh();
	atomic_store(&stop, 0);
	atomic_store(&swaps, 0);
	assert_int_equal(pthread_create(&th, NULL, swapper, NULL), 0);
	while (rounds < MAX_ROUNDS && !shown(rounds, MIN_ROUNDS, MIN_SWAPS, opened)) {
		struct fa_decision d;
		struct fa_pin pin;
		int fd = fa_openat(p, AT_FDCWD, open_path, O_WRONLY | O_CREAT | O_CLOEXEC,
				   0600, &d);

		if (fd >= 0) {
			opened++;
			close(fd);
		}
		if (fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, "race/dir/d", &pin, &d) == 0) {
			if (mkdirat(pin.fd, pin.name, 0700) == 0)
				pinned++;
			fa_unpin(&pin);
		}
		if (access(victim_f, F_OK) == 0 || access(victim_d, F_OK) == 0) {
			escapes++;
			unlink(victim_f);
			rmdir(victim_d);
		}
		/* Keep the create-side outcomes possible on every round. */
		rmdir(tp("root/race/dir/d"));
		rounds++;
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	if (access(victim_f, F_OK) == 0 || access(victim_d, F_OK) == 0)
		escapes++;
	print_message("# %s: %ld rounds, %ld swaps, %ld opens, %ld mkdirs, %ld escapes\n",
		      fa_symlinks_name(mode), rounds, atomic_load(&swaps), opened, pinned, escapes);
	fa_policy_free(p);
	assert_int_equal(escapes, 0);
	assert_true(atomic_load(&swaps) >= MIN_SWAPS);
	/* Both outcomes must have happened, or the race was not a race. */
	assert_true(opened > 0);
}

/* Two names swapped: a link to a file inside, a link to a file outside. */
static char lin_path[PATH_MAX], lout_path[PATH_MAX], vfile[PATH_MAX];

static void *link_swapper(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		if (renameat2(AT_FDCWD, lin_path, AT_FDCWD, lout_path, RENAME_EXCHANGE) == 0)
			atomic_fetch_add(&swaps, 1);
	}
	return NULL;
}

static void final_link_race(enum fa_symlinks mode)
{
	fa_policy *p = tree_policy(mode);
	pthread_t th;
	struct stat st;
	long rounds = 0, opened = 0;
	int fd;

	strcpy(lin_path, tp("root/race2/l_in"));
	strcpy(lout_path, tp("root/race2/l_out"));
	strcpy(vfile, tp("outside/vfile"));
	mkdir(tp("root/race2"), 0755);
	unlink(lin_path);
	unlink(lout_path);
	fd = open(vfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(write(fd, "keep", 4), 4);
	close(fd);
	fd = open(tp("root/race2/target"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	close(fd);
	assert_int_equal(symlink("target", lin_path), 0);
	assert_int_equal(symlink(vfile, lout_path), 0);
	atomic_store(&stop, 0);
	atomic_store(&swaps, 0);
	assert_int_equal(pthread_create(&th, NULL, link_swapper, NULL), 0);
	while (rounds < MAX_ROUNDS && !shown(rounds, MIN_ROUNDS / 2, MIN_SWAPS / 2, opened)) {
		struct fa_decision d;

		fd = fa_openat(p, AT_FDCWD, lin_path, O_WRONLY | O_APPEND | O_CLOEXEC, 0, &d);
		if (fd >= 0) {
			opened++;
			if (write(fd, "x", 1) != 1)
				fail();
			close(fd);
		}
		rounds++;
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	assert_int_equal(stat(vfile, &st), 0);
	print_message("# %s final link: %ld rounds, %ld swaps, %ld opens, outside file %ld bytes\n",
		      fa_symlinks_name(mode), rounds, atomic_load(&swaps), opened, (long)st.st_size);
	fa_policy_free(p);
	assert_int_equal(st.st_size, 4);
	assert_true(atomic_load(&swaps) >= MIN_SWAPS / 2);
	assert_true(opened > 0);
}

static void final_link_trust(void **state)
{
	(void)state;
	final_link_race(FA_SYM_TRUST);
}

static void final_link_beneath(void **state)
{
	(void)state;
	final_link_race(FA_SYM_BENEATH);
}

static void race_beneath(void **state)
{
	(void)state;
	race(FA_SYM_BENEATH);
}

static void race_nofollow(void **state)
{
	(void)state;
	race(FA_SYM_NOFOLLOW);
}

static void race_trust(void **state)
{
	(void)state;
	race(FA_SYM_TRUST);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(race_beneath),
		BOTH(race_nofollow),
		BOTH(race_trust),
		BOTH(final_link_trust),
		BOTH(final_link_beneath),
	};

	return RUN_TAP("race", tests);
}
