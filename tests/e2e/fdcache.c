/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fdcache.c - sequences that must defeat what the shim remembers about
 * descriptors: the path a dirfd names, and the fds it opened for writing
 * (whose fchmod/fchown/futimens it does not judge again), and never
 * remember a device. Each case prints
 * one line per step, "step: ok" or "step: ERRNONAME"; fdcache.sh compares.
 *
 *   fdcache CASE IN OUT     (IN inside the policy's root, OUT outside)
 */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../libc_compat.h"

static const char *in, *out;

static const char *ename(int e)
{
	switch (e) {
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case EBADF: return "EBADF";
	case EPERM: return "EPERM";
	case ENOTDIR: return "ENOTDIR";
	default: return strerror(e);
	}
}

static int say(const char *step, int rc)
{
	printf("%s: %s\n", step, rc < 0 ? ename(errno) : "ok");
	fflush(stdout);
	return rc;
}

static char *at(const char *dir, const char *name)
{
	static char buf[4][4096];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, 4096, "%s/%s", dir, name);
	return b;
}

/* The number the next open will get is the lowest free one: check it is the one meant. */
static int same(const char *what, int want, int got)
{
	if (want == got)
		return 1;
	printf("%s: got fd %d, not %d\n", what, got, want);
	return 0;
}

static int opened_outside_dir(void)
{
	DIR *d = opendir(out);	/* libc opens it itself: no wrapper sees that open */

	return d ? dirfd(d) : -1;
}

static int wfile(const char *path)
{
	return open(path, O_WRONLY | O_CREAT, 0644);
}

int main(int argc, char **argv)
{
	const char *c;
	int fd, o, dfd;

	if (argc != 4)
		return 2;
	c = argv[1];
	in = argv[2];
	out = argv[3];
	/* CASE-rel: the same steps by paths relative to IN, the current directory. */
	if (strlen(c) > 4 && !strcmp(c + strlen(c) - 4, "-rel")) {
		static char base[64];

		if (chdir(in) < 0)
			return 2;
		in = ".";
		snprintf(base, sizeof base, "%.*s", (int)(strlen(c) - 4), c);
		c = base;
	}
	if (!strcmp(c, "close-reuse")) {
		fd = say("open in", wfile(at(in, "f")));
		say("fchmod in", fchmod(fd, 0600));
		say("close", close(fd));
		if (!same("opendir out", fd, opened_outside_dir()))
			return 1;
		say("fchmod reused", fchmod(fd, 0700));
		say("fchown reused", fchown(fd, (uid_t)-1, (gid_t)-1));
	} else if (!strcmp(c, "dup2-over")) {
		fd = say("open in", wfile(at(in, "f")));
		say("fchmod in", fchmod(fd, 0600));
		o = say("open out", open(at(out, "f"), O_RDONLY));
		say("dup2", dup2(o, fd));
		say("fchmod replaced", fchmod(fd, 0600));
	} else if (!strcmp(c, "stdio")) {
		FILE *f = fopen(at(in, "g"), "w");

		fd = f ? fileno(f) : -1;
		say("fchmod stream", fchmod(fd, 0600));
		say("fclose", fclose(f));
		if (!same("opendir out", fd, opened_outside_dir()))
			return 1;
		say("fchmod reused", fchmod(fd, 0700));
	} else if (!strcmp(c, "raw-close")) {
		fd = say("open in", wfile(at(in, "f")));
		say("fchmod in", fchmod(fd, 0600));
		say("syscall close", (int)syscall(SYS_close, fd));
		if (!same("opendir out", fd, opened_outside_dir()))
			return 1;
		say("fchmod reused", fchmod(fd, 0700));
	} else if (!strcmp(c, "fdopen")) {
		FILE *f;

		fd = say("open in", wfile(at(in, "f")));
		say("fchmod in", fchmod(fd, 0600));
		f = fdopen(fd, "w");
		say("fdopen", f ? 0 : -1);
		say("fclose", f ? fclose(f) : -1);
		if (!same("opendir out", fd, opened_outside_dir()))
			return 1;
		say("fchmod reused", fchmod(fd, 0700));
	} else if (!strcmp(c, "freopen")) {
		FILE *f;

		fd = say("open in", wfile(at(in, "f")));
		f = fdopen(fd, "w");
		/* libc reopens into the same number, out of sight. */
		f = freopen(at(out, "f"), "r", f);
		say("freopen out", f ? 0 : -1);
		say("fchmod reopened", fchmod(f ? fileno(f) : -1, 0600));
	} else if (!strcmp(c, "device")) {
		/* Opened for writing, but no file inside a root: judged by what it names. */
		fd = say("open /dev/null", open("/dev/null", O_WRONLY));
		say("fchmod device", fchmod(fd, 0666));
	} else if (!strcmp(c, "dirfd-reuse")) {
		say("mkdir", mkdir(at(in, "d1"), 0755));
		dfd = say("open dir in", open(at(in, "d1"), O_RDONLY | O_DIRECTORY));
		fd = say("openat in", openat(dfd, "a", O_WRONLY | O_CREAT, 0644));
		close(fd);
		say("close dir", close(dfd));
		o = open(out, O_RDONLY | O_DIRECTORY);
		if (!same("open dir out", dfd, o))
			return 1;
		say("openat reused", openat(o, "x", O_WRONLY | O_CREAT, 0644));
		say("mkdirat reused", mkdirat(o, "xd", 0755));
	} else if (!strncmp(c, "dirfd-gone-", 11)) {
		/*
		 * A dirfd whose name is kept, its number given up by one of the
		 * ways below, then reused for a directory outside by an open no
		 * wrapper sees (libc's opendir): a write through it is judged
		 * by what it names now.
		 */
		const char *how = c + 11;
		DIR *d = NULL;
		FILE *f = NULL;
		int gone;

		say("mkdir", mkdir(at(in, "d1"), 0755));
		if (!strcmp(how, "closedir")) {
			d = opendir(at(in, "d1"));
			dfd = d ? dirfd(d) : -1;
		} else {
			dfd = open(at(in, "d1"), O_RDONLY | O_DIRECTORY);
			if (!strcmp(how, "fdopendir"))
				d = fdopendir(dfd);
		}
		say("open dir in", dfd);
		fd = say("openat in", openat(dfd, "a", O_WRONLY | O_CREAT, 0644));
		close(fd);
		if (!strcmp(how, "close"))
			gone = close(dfd);
		else if (!strcmp(how, "close_range"))
			gone = close_range((unsigned)dfd, (unsigned)dfd, 0);
		else if (!strcmp(how, "syscall-close_range"))
			gone = (int)syscall(SYS_close_range, dfd, dfd, 0);
		else if (!strcmp(how, "closefrom"))
			closefrom(dfd), gone = 0;
		else if (!strcmp(how, "closedir") || !strcmp(how, "fdopendir"))
			gone = closedir(d);
		else if (!strcmp(how, "fclose"))
			gone = (f = fdopen(dfd, "r")) ? fclose(f) : -1;
		else if (!strcmp(how, "dup2"))
			gone = 0;
		else
			return 2;
		if (!strcmp(how, "dup2")) {
			o = opened_outside_dir();
			say("dup2 over", dup2(o, dfd));
		} else {
			say(how, gone);
			if (!same("opendir out", dfd, opened_outside_dir()))
				return 1;
		}
		say("openat reused", openat(dfd, "x", O_WRONLY | O_CREAT, 0644));
		say("mkdirat reused", mkdirat(dfd, "xd", 0755));
	} else if (!strcmp(c, "dirfd-rmdir")) {
		say("mkdir", mkdir(at(in, "d"), 0755));
		dfd = say("open dir", open(at(in, "d"), O_RDONLY | O_DIRECTORY));
		fd = say("openat", openat(dfd, "a", O_WRONLY | O_CREAT, 0644));
		close(fd);
		say("unlink", unlink(at(in, "d/a")));
		say("rmdir", rmdir(at(in, "d")));
		say("mkdir again", mkdir(at(in, "d"), 0755));
		/* The directory the fd names is gone: nothing is made in its successor. */
		say("openat removed", openat(dfd, "b", O_WRONLY | O_CREAT, 0644));
		say("mkdirat removed", mkdirat(dfd, "c", 0755));
	} else if (!strcmp(c, "parent-rename")) {
		/* The engine keeps in/a open after the first mkdir in it. */
		say("mkdir a", mkdir(at(in, "a"), 0755));
		say("mkdir a/x", mkdir(at(in, "a/x"), 0755));
		say("rename a b", rename(at(in, "a"), at(in, "b")));
		say("mkdir a again", mkdir(at(in, "a"), 0755));
		say("mkdir a/y", mkdir(at(in, "a/y"), 0755));
	} else if (!strcmp(c, "parent-rmdir")) {
		say("mkdir a", mkdir(at(in, "a"), 0755));
		say("mkdir a/x", mkdir(at(in, "a/x"), 0755));
		say("rmdir a/x", rmdir(at(in, "a/x")));
		say("rmdir a", rmdir(at(in, "a")));
		say("mkdir a again", mkdir(at(in, "a"), 0755));
		say("mkdir a/y", mkdir(at(in, "a/y"), 0755));
	} else if (!strcmp(c, "parent-dup2")) {
		/* Every number but one made a directory outside: the kept one stays the engine's. */
		say("mkdir a", mkdir(at(in, "a"), 0755));
		say("mkdir a/x", mkdir(at(in, "a/x"), 0755));
		o = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		for (fd = 3; fd < 1100; fd++)
			if (fd != o)
				dup2(o, fd);
		say("mkdir a/y", mkdir(at(in, "a/y"), 0755));
		for (fd = 3; fd < 1100; fd++)
			close(fd);
		say("mkdir a/z", mkdir(at(in, "a/z"), 0755));
	} else if (!strcmp(c, "parent-vfork")) {
		pid_t pid;
		int st;

		say("mkdir a", mkdir(at(in, "a"), 0755));
		say("mkdir c", mkdir(at(in, "c"), 0755));
		say("mkdir a/x", mkdir(at(in, "a/x"), 0755));
		/* The child's own table of descriptors: what it keeps is not the parent's. */
		pid = vfork();
		if (pid == 0) {
			mkdir(at(in, "c/x"), 0755);
			_exit(0);
		}
		waitpid(pid, &st, 0);
		say("mkdir c/z", mkdir(at(in, "c/z"), 0755));
	} else if (!strcmp(c, "dirfd-rename")) {
		say("mkdir", mkdir(at(in, "d"), 0755));
		dfd = say("open dir", open(at(in, "d"), O_RDONLY | O_DIRECTORY));
		fd = say("openat", openat(dfd, "a", O_WRONLY | O_CREAT, 0644));
		close(fd);
		say("rename", rename(at(in, "d"), at(in, "e")));
		fd = say("openat renamed", openat(dfd, "b", O_WRONLY | O_CREAT, 0644));
		close(fd);
		say("mkdirat renamed", mkdirat(dfd, "c", 0755));
	} else if (!strcmp(c, "dirfd-moved-out")) {
		char line[16];

		say("mkdir", mkdir(at(in, "d"), 0755));
		dfd = say("open dir", open(at(in, "d"), O_RDONLY | O_DIRECTORY));
		fd = say("openat", openat(dfd, "a", O_WRONLY | O_CREAT, 0644));
		close(fd);
		/* Another process moves the directory out of the roots now. */
		if (!fgets(line, sizeof line, stdin))
			return 1;
		say("openat moved", openat(dfd, "b", O_WRONLY | O_CREAT, 0644));
		say("mkdirat moved", mkdirat(dfd, "c", 0755));
	} else if (!strcmp(c, "parent-moved")) {
		char line[16];

		say("mkdir a", mkdir(at(in, "a"), 0755));
		say("mkdir a/x", mkdir(at(in, "a/x"), 0755));
		/* Another process of the run renames a to b and makes a new a now. */
		if (!fgets(line, sizeof line, stdin))
			return 1;
		say("mkdir a/y", mkdir(at(in, "a/y"), 0755));
	} else if (!strcmp(c, "fchdir")) {
		say("mkdir", mkdir(at(in, "d"), 0755));
		dfd = say("open dir", open(at(in, "d"), O_RDONLY | O_DIRECTORY));
		fd = say("openat", openat(dfd, "a", O_WRONLY | O_CREAT, 0644));
		close(fd);
		say("fchdir in", fchdir(dfd));
		fd = say("open relative", wfile("b"));
		close(fd);
		o = say("open dir out", open(out, O_RDONLY | O_DIRECTORY));
		say("fchdir out", fchdir(o));
		say("open relative out", wfile("c"));
		fd = say("openat still in", openat(dfd, "c2", O_WRONLY | O_CREAT, 0644));
		close(fd);
		say("openat out", openat(o, "c3", O_WRONLY | O_CREAT, 0644));
	} else {
		return 2;
	}
	return 0;
}
