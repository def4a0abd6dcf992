/* SPDX-License-Identifier: Apache-2.0 */
/*
 * racer OP ROOT OUTSIDE ROUNDS SECONDS - the symlink-swap race.
 *
 * ROOT/d starts as a real directory and ROOT/s as a symlink to OUTSIDE. A
 * thread keeps exchanging the two names (renameat2 RENAME_EXCHANGE), so
 * ROOT/d is a directory one moment and a way out the next. Meanwhile the
 * main thread creates ROOT/d/nN (OP "open": O_CREAT|O_EXCL then one byte
 * written; OP "mkdir": a directory) for up to ROUNDS rounds or SECONDS.
 *
 * OP "unlink" and "rename" work the other way round: ROOT/d and OUTSIDE
 * both start with entries n0..nN-1 (made beforehand, without the shim, by
 * OP "populate"), and the main thread removes ROOT/d/nN, or renames it to
 * ROOT/kept/nN.
 *
 * An entry created in OUTSIDE, or one missing from it, is an escape: the
 * check saw a directory, the use followed the symlink. Prints the counts;
 * exits 1 on any escape, or when no round ever succeeded (no race ran).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../libc_compat.h"

static atomic_int stop;
static atomic_long swaps, swap_errors;
static int rootfd;

static void *swapper(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (renameat2(rootfd, "d", rootfd, "s", RENAME_EXCHANGE) == 0)
			atomic_fetch_add_explicit(&swaps, 1, memory_order_relaxed);
		else
			atomic_fetch_add_explicit(&swap_errors, 1, memory_order_relaxed);
	}
	return NULL;
}

static long count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long n = 0;

	if (!d) {
		perror(dir);
		exit(2);
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char path[4096];
	long rounds, ok = 0, denied = 0, other = 0, escapes;
	int last_other = 0;
	double deadline;
	pthread_t th;
	int mkdir_op, unlink_op, rename_op, populate;
	long before = 0;

	if (argc != 6) {
		fprintf(stderr, "usage: racer open|mkdir|unlink|rename|populate ROOT OUTSIDE ROUNDS SECONDS\n");
		return 2;
	}
	mkdir_op = !strcmp(argv[1], "mkdir");
	unlink_op = !strcmp(argv[1], "unlink");
	rename_op = !strcmp(argv[1], "rename");
	populate = !strcmp(argv[1], "populate");
	rounds = atol(argv[4]);
	if (populate) {
		for (long i = 0; i < rounds; i++) {
			for (int side = 0; side < 2; side++) {
				int fd;

				snprintf(path, sizeof path, "%s/n%ld", side ? argv[3] : "", i);
				if (!side)
					snprintf(path, sizeof path, "%s/d/n%ld", argv[2], i);
				fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
				if (fd < 0) {
					perror(path);
					return 2;
				}
				close(fd);
			}
		}
		snprintf(path, sizeof path, "%s/kept", argv[2]);
		mkdir(path, 0755);
		return 0;
	}
	if (unlink_op || rename_op)
		before = count_entries(argv[3]);
	deadline = now() + atof(argv[5]);
	rootfd = open(argv[2], O_PATH | O_DIRECTORY);
	if (rootfd < 0) {
		perror(argv[2]);
		return 2;
	}
	if (pthread_create(&th, NULL, swapper, NULL)) {
		fprintf(stderr, "racer: pthread_create failed\n");
		return 2;
	}
	/* Start only once the swapping is under way, or short runs race nothing. */
	while (atomic_load(&swaps) < 10 && now() < deadline)
		sched_yield();
	/*
	 * A denied unlink or rename leaves its entry in place: try it again
	 * rather than move on, so that a run cannot spend all its entries in
	 * the few milliseconds while the swapper is off the CPU (a loaded
	 * machine) and end with nothing raced.
	 */
	for (long i = 0, tries = 0; i < rounds && now() < deadline; tries++) {
		int rc;

		if (tries && !(tries % 256))
			sched_yield();

		snprintf(path, sizeof path, "%s/d/n%ld", argv[2], i);
		if (mkdir_op) {
			rc = mkdir(path, 0755);
		} else if (unlink_op) {
			rc = unlink(path);
		} else if (rename_op) {
			char to[4200];

			snprintf(to, sizeof to, "%s/kept/n%ld", argv[2], i);
			rc = rename(path, to);
		} else {
			rc = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (rc >= 0) {
				if (write(rc, "x", 1) != 1)
					other++;
				close(rc);
			}
		}
		if (rc >= 0)
			ok++;
		else if (errno == EACCES)
			denied++;
		else {
			other++;
			last_other = errno;
		}
		if (rc >= 0 || errno != EACCES || !(unlink_op || rename_op))
			i++;
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);

	escapes = count_entries(argv[3]) - before;
	if (escapes < 0)
		escapes = -escapes;
	printf("rounds %ld done %ld denied %ld other %ld (last %s) swaps %ld swap-errors %ld escapes %ld\n",
	       ok + denied + other, ok, denied, other,
	       last_other ? strerrorname_np(last_other) : "-",
	       atomic_load(&swaps), atomic_load(&swap_errors), escapes);
	if (escapes) {
		fprintf(stderr, "racer: %ld entries escaped into %s\n", escapes, argv[3]);
		return 1;
	}
	if (!ok || !atomic_load(&swaps)) {
		fprintf(stderr, "racer: the race did not run (done %ld, swaps %ld)\n",
			ok, atomic_load(&swaps));
		return 1;
	}
	return 0;
}
