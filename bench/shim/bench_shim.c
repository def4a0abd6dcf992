/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench-shim ROOT [naive] - nanoseconds per libc call, for the shim table.
 *
 * The same binary is run bare, with the shim preloaded and no policy, and
 * with the shim checking a policy whose root is ROOT (bench/shim/run.sh
 * sets the environment); "naive" instead times the pattern a checker
 * without a pinned root would use: realpath() of the parent, a prefix
 * compare against the root, then the call.
 *
 * Only the measured call is inside the timed region: files are opened in
 * batches and closed outside the clock, unlink and rmdir get their
 * entries made beforehand. Each figure is the fastest of several batches:
 * interference from other processes only ever adds time.
 * Output: one "NAME NS" line per operation.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include <time.h>
#include <unistd.h>

#define BATCH 100
#define REPS 60

static char root[PATH_MAX];
static size_t rootlen;
static int naive;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double fastest(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[0];
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "bench-shim: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

/* What a checker without a pinned root does before every write. */
static int naive_ok(const char *path)
{
	char parent[PATH_MAX], real[PATH_MAX];
	char *slash;

	snprintf(parent, sizeof parent, "%s", path);
	slash = strrchr(parent, '/');
	if (slash)
		*slash = 0;
	if (!realpath(parent, real))
		return 0;
	return !strncmp(real, root, rootlen) && (real[rootlen] == '/' || real[rootlen] == 0);
}

static char names[BATCH][PATH_MAX];

static void make_names(const char *dir, const char *stem)
{
	for (int i = 0; i < BATCH; i++)
		snprintf(names[i], PATH_MAX, "%s/%s%d", dir, stem, i);
}

static double bench_open(const char *dir, int flags)
{
	static int fds[BATCH];
	double t[REPS];

	make_names(dir, "f");
	for (int r = 0; r < REPS; r++) {
		double t0 = now_ns();

		for (int i = 0; i < BATCH; i++) {
			if (naive && (flags & O_ACCMODE) != O_RDONLY && !naive_ok(names[i]))
				die("naive check refused", names[i]);
			fds[i] = open(names[i], flags, 0644);
		}
		t[r] = (now_ns() - t0) / BATCH;
		for (int i = 0; i < BATCH; i++) {
			if (fds[i] < 0)
				die("open", names[i]);
			close(fds[i]);
		}
	}
	return fastest(t, REPS);
}

/*
 * The least a checked write-open can cost: one openat2 beneath a pinned
 * root fd, issued directly (only meaningful in the bare run).
 */
static double bench_openat2(const char *rel)
{
	static int fds[BATCH];
	struct open_how how = {
		.flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		.mode = 0644,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	double t[REPS];
	int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (rfd < 0)
		die("open", root);
	make_names(rel, "f");
	for (int r = 0; r < REPS; r++) {
		double t0 = now_ns();

		for (int i = 0; i < BATCH; i++)
			fds[i] = (int)syscall(SYS_openat2, rfd, names[i], &how, sizeof how);
		t[r] = (now_ns() - t0) / BATCH;
		for (int i = 0; i < BATCH; i++) {
			if (fds[i] < 0)
				die("openat2", names[i]);
			close(fds[i]);
		}
	}
	close(rfd);
	return fastest(t, REPS);
}

static double bench_unlink(const char *dir)
{
	double t[REPS];

	make_names(dir, "u");
	for (int r = 0; r < REPS; r++) {
		double t0;

		for (int i = 0; i < BATCH; i++) {
			int fd = open(names[i], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

			if (fd < 0)
				die("create", names[i]);
			close(fd);
		}
		t0 = now_ns();
		for (int i = 0; i < BATCH; i++) {
			if (naive && !naive_ok(names[i]))
				die("naive check refused", names[i]);
			if (unlink(names[i]))
				die("unlink", names[i]);
		}
		t[r] = (now_ns() - t0) / BATCH;
	}
	return fastest(t, REPS);
}

static double bench_rename(const char *dir)
{
	char a[PATH_MAX + 4], b[PATH_MAX + 4];
	double t[REPS];
	int fd;

	snprintf(a, sizeof a, "%s/ra", dir);
	snprintf(b, sizeof b, "%s/rb", dir);
	fd = open(a, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die("create", a);
	close(fd);
	for (int r = 0; r < REPS; r++) {
		double t0 = now_ns();

		for (int i = 0; i < BATCH; i++) {
			const char *from = i & 1 ? b : a, *to = i & 1 ? a : b;

			if (naive && !(naive_ok(from) && naive_ok(to)))
				die("naive check refused", from);
			if (rename(from, to))
				die("rename", from);
		}
		t[r] = (now_ns() - t0) / BATCH;
	}
	unlink(a);
	return fastest(t, REPS);
}

static double bench_mkdir(const char *dir)
{
	double t[REPS];

	make_names(dir, "m");
	for (int r = 0; r < REPS; r++) {
		double t0 = now_ns();

		for (int i = 0; i < BATCH; i++) {
			if (naive && !naive_ok(names[i]))
				die("naive check refused", names[i]);
			if (mkdir(names[i], 0755))
				die("mkdir", names[i]);
		}
		t[r] = (now_ns() - t0) / BATCH;
		for (int i = 0; i < BATCH; i++)
			rmdir(names[i]);
	}
	return fastest(t, REPS);
}

int main(int argc, char **argv)
{
	char d1[PATH_MAX], d5[PATH_MAX];

	if (argc < 2) {
		fprintf(stderr, "usage: bench-shim ROOT [naive]\n");
		return 2;
	}
	if (!realpath(argv[1], root))
		die("root", argv[1]);
	rootlen = strlen(root);
	naive = argc > 2 && !strcmp(argv[2], "naive");
	snprintf(d1, sizeof d1, "%s", root);
	snprintf(d5, sizeof d5, "%s/a/b/c/d", root);
	for (char *p = d5 + rootlen + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		mkdir(d5, 0755);
		*p = '/';
	}
	mkdir(d5, 0755);

	/* Warm the page cache, the dentry cache and lazy symbol binding. */
	bench_open(d1, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);

	printf("write-open-d1 %.0f\n", bench_open(d1, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC));
	printf("write-open-d5 %.0f\n", bench_open(d5, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC));
	printf("read-open-d1 %.0f\n", bench_open(d1, O_RDONLY | O_CLOEXEC));
	printf("read-open-d5 %.0f\n", bench_open(d5, O_RDONLY | O_CLOEXEC));
	printf("unlink %.0f\n", bench_unlink(d1));
	printf("rename %.0f\n", bench_rename(d1));
	printf("mkdir %.0f\n", bench_mkdir(d1));
	if (!naive && !getenv("LD_PRELOAD")) {
		printf("limit:openat2-beneath-d1 %.0f\n", bench_openat2("."));
		printf("limit:openat2-beneath-d5 %.0f\n", bench_openat2("a/b/c/d"));
	}
	return 0;
}
