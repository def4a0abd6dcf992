/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exact.c - two calls of one kind with a directory moved between them by
 * another process: the second must act where bare libc acts, whatever
 * the shim kept from the first (the path a dirfd names, the last parent
 * pinned, the cwd). Each case prints one line per step, "step: ok" or
 * "step: ERRNONAME", then "?" and waits for a line on stdin before the
 * second call; exact.sh moves ROOT/a to ROOT/b and makes a new ROOT/a
 * meanwhile, then compares this output and the tree with a bare run.
 *
 *   exact CASE ROOT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *root;

static int say(const char *step, int rc)
{
	if (rc < 0) {
		const char *e = errno == ENOENT ? "ENOENT" : errno == EACCES ? "EACCES" :
				errno == EEXIST ? "EEXIST" : errno == ENOTDIR ? "ENOTDIR" :
				strerror(errno);

		printf("%s: %s\n", step, e);
	} else {
		printf("%s: ok\n", step);
	}
	fflush(stdout);
	return rc;
}

/* The other process moves ROOT/a away and makes a new, empty ROOT/a. */
static void wait_move(void)
{
	char line[16];

	printf("?\n");
	fflush(stdout);
	if (!fgets(line, sizeof line, stdin))
		exit(2);
}

static char *at(const char *name)
{
	static char buf[4][4096];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, 4096, "%s/%s", root, name);
	return b;
}

static int created(int fd)
{
	if (fd >= 0)
		close(fd);
	return fd;
}

static int dirfd_case(const char *c, int d)
{
	static const struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	if (!strcmp(c, "dirfd-open")) {
		say("first", created(openat(d, "first", O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
		wait_move();
		say("second", created(openat(d, "second", O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
	} else if (!strcmp(c, "dirfd-deep")) {
		say("first", created(openat(d, "sub/first", O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
		wait_move();
		say("second", created(openat(d, "sub/second", O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
	} else if (!strcmp(c, "dirfd-link")) {
		/* through a link inside the root: the judged route, not the fast one */
		say("first", created(openat(d, "ln/first", O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
		wait_move();
		say("second", created(openat(d, "ln/second", O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
	} else if (!strcmp(c, "dirfd-mkdir")) {
		say("first", mkdirat(d, "m1", 0755));
		wait_move();
		say("second", mkdirat(d, "m2", 0755));
		say("deeper", mkdirat(d, "sub/m3", 0755));
	} else if (!strcmp(c, "dirfd-unlink")) {
		say("first", unlinkat(d, "u1", 0));
		/* the last parent pinned is then another directory */
		say("elsewhere", mkdirat(d, "sub/k", 0755));
		wait_move();
		say("second", unlinkat(d, "u2", 0));
		say("rmdir", unlinkat(d, "sub/k", AT_REMOVEDIR));
	} else if (!strcmp(c, "dirfd-rename")) {
		say("first", renameat(d, "u1", d, "u1.new"));
		/* the last parent pinned is then another directory */
		say("elsewhere", mkdirat(d, "sub/k", 0755));
		wait_move();
		say("second", renameat(d, "u2", d, "u2.new"));
	} else if (!strcmp(c, "dirfd-chmod")) {
		say("first", fchmodat(d, "u1", 0600, 0));
		/* the last parent pinned is then another directory */
		say("elsewhere", mkdirat(d, "sub/k", 0755));
		wait_move();
		say("second", fchmodat(d, "u2", 0600, 0));
	} else if (!strcmp(c, "dirfd-utime")) {
		say("first", utimensat(d, "u1", ts, 0));
		/* the last parent pinned is then another directory */
		say("elsewhere", mkdirat(d, "sub/k", 0755));
		wait_move();
		say("second", utimensat(d, "u2", ts, 0));
	} else {
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *c;
	int d;

	if (argc != 3) {
		fprintf(stderr, "usage: exact CASE ROOT\n");
		return 2;
	}
	c = argv[1];
	root = argv[2];
	if (!strncmp(c, "dirfd-", 6)) {
		d = open(at("a"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (d < 0 || dirfd_case(c, d) < 0) {
			fprintf(stderr, "exact: %s: %s\n", c, d < 0 ? strerror(errno) : "no such case");
			return 2;
		}
		return 0;
	}
	if (!strcmp(c, "parent-mkdir")) {
		say("first", mkdir(at("a/p1"), 0755));
		wait_move();
		say("second", mkdir(at("a/p2"), 0755));
	} else if (!strcmp(c, "parent-unlink")) {
		/* the new a is empty: bare libc says ENOENT and b/u2 stays */
		say("first", mkdir(at("a/p1"), 0755));
		wait_move();
		say("second", unlink(at("a/u2")));
	} else if (!strcmp(c, "parent-chmod")) {
		say("first", chmod(at("a/u1"), 0600));
		wait_move();
		say("second", chmod(at("a/u1"), 0600));
	} else if (!strcmp(c, "parent-open")) {
		say("first", created(open(at("a/first"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
		wait_move();
		say("second", created(open(at("a/second"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
	} else if (!strcmp(c, "root-open")) {
		/* ROOT/a is the policy's root itself: the root is what is moved */
		say("first", created(open(at("a/first"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
		wait_move();
		say("second", created(open(at("a/second"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
	} else if (!strcmp(c, "root-entries")) {
		say("mkdir", mkdir(at("a/m1"), 0755));
		say("symlink", symlink("u1", at("a/l1")));
		wait_move();
		say("mkdir", mkdir(at("a/m2"), 0755));
		say("symlink", symlink("u2", at("a/l2")));
		say("unlink", unlink(at("a/u2")));
		say("chmod", chmod(at("a/m2"), 0700));
		say("rename", rename(at("a/m2"), at("a/m3")));
		say("deeper", mkdir(at("a/sub/p2"), 0755));
	} else if (!strcmp(c, "cwd-in")) {
		/* the cwd itself is moved: bare libc keeps acting in it, now b */
		if (say("chdir", chdir(at("a"))) < 0)
			return 2;
		say("first", created(open("first", O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
		wait_move();
		say("second", created(open("second", O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
		say("mkdir", mkdir("m2", 0755));
		say("deeper", mkdir("sub/m3", 0755));
	} else if (!strcmp(c, "cwd-below")) {
		/* a directory below the cwd is moved: the new one is meant */
		if (say("chdir", chdir(root)) < 0)
			return 2;
		say("first", mkdir("a/p1", 0755));
		wait_move();
		say("second", mkdir("a/p2", 0755));
		say("unlink", unlink("a/u2"));
		say("open", created(open("a/f", O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
	} else {
		fprintf(stderr, "exact: no such case: %s\n", c);
		return 2;
	}
	return 0;
}
