/* SPDX-License-Identifier: Apache-2.0 */
/*
 * calltest FUNC ARG... - call one libc function exactly as named and say
 * what happened: "ok" or "err ENAME" on stdout, exit status 0.
 *
 * The point is to hit each interposed entry point itself (not a sibling
 * that libc happens to route through), so every case calls its function
 * directly. errno is set to a sentinel first; a success that changed it
 * prints "ok errno=ENAME", so a run without the shim and a run with the
 * shim but no policy can be compared line for line.
 *
 * Arguments: DIR is a directory path opened O_PATH to serve as a dirfd, or
 * "." for AT_FDCWD, or "-" for AT_FDCWD too; "gone:PATH" is the directory
 * PATH opened, then removed, its descriptor kept. FLAGS are '|'-separated names
 * (WRONLY|CREAT|TRUNC ...). Exec cases run PROG with the single argument
 * "ok", so /bin/echo makes a successful exec print "ok" as well.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <semaphore.h>
#include <spawn.h>
#include <paths.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <mntent.h>
#include <mqueue.h>
#include <shadow.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>
#include <utmp.h>
#include <utmpx.h>

#include "../libc_compat.h"

#include "calltest.h"

#define SENTINEL 1234

extern char **environ;

static void say_ok(void)
{
	if (errno == SENTINEL)
		puts("ok");
	else
		printf("ok errno=%s\n", errno_name(errno));
}

static int say_err(int e)
{
	printf("err %s\n", errno_name(e));
	return 0;
}

/* The common shape: -1 (or NULL) with errno on failure. */
static int rc_neg(long rc)
{
	int e = errno;

	if (rc < 0)
		return say_err(e);
	errno = e;
	say_ok();
	return 0;
}

static int fd_result(int fd)
{
	int e = errno;

	if (fd < 0)
		return say_err(e);
	close(fd);
	errno = e;
	say_ok();
	return 0;
}

static int file_result(FILE *f)
{
	int e = errno;

	if (!f)
		return say_err(e);
	fclose(f);
	errno = e;
	say_ok();
	return 0;
}

static const struct { const char *name; int bit; } flag_names[] = {
	{ "RDONLY", O_RDONLY }, { "WRONLY", O_WRONLY }, { "RDWR", O_RDWR },
	{ "CREAT", O_CREAT }, { "EXCL", O_EXCL }, { "TRUNC", O_TRUNC },
	{ "APPEND", O_APPEND }, { "TMPFILE", O_TMPFILE }, { "DIRECTORY", O_DIRECTORY },
	{ "NOFOLLOW", O_NOFOLLOW }, { "PATH", O_PATH }, { "CLOEXEC", O_CLOEXEC },
	{ "NONBLOCK", O_NONBLOCK },
	{ "REMOVEDIR", AT_REMOVEDIR }, { "EMPTY_PATH", AT_EMPTY_PATH },
	{ "SYMLINK_FOLLOW", AT_SYMLINK_FOLLOW }, { "SYMLINK_NOFOLLOW", AT_SYMLINK_NOFOLLOW },
	{ "NOREPLACE", RENAME_NOREPLACE }, { "EXCHANGE", RENAME_EXCHANGE },
	{ "XATTR_CREATE", XATTR_CREATE }, { "XATTR_REPLACE", XATTR_REPLACE },
	{ "0", 0 },
};

int parse_flags(const char *s)
{
	int flags = 0;

	while (*s) {
		size_t n = strcspn(s, "|");
		size_t i;

		for (i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
			if (strlen(flag_names[i].name) == n && !strncmp(s, flag_names[i].name, n))
				break;
		if (i == sizeof flag_names / sizeof flag_names[0]) {
			fprintf(stderr, "calltest: unknown flag in '%s'\n", s);
			exit(2);
		}
		flags |= flag_names[i].bit;
		s += n;
		if (*s == '|')
			s++;
	}
	return flags;
}

/* Dirfds are opened O_PATH, which is a read and never judged. */
static int dir_fd(const char *s)
{
	int fd, gone = !strncmp(s, "gone:", 5);

	if (!strcmp(s, ".") || !strcmp(s, "-"))
		return AT_FDCWD;
	if (gone)
		s += 5;
	fd = open(s, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || (gone && rmdir(s))) {
		fprintf(stderr, "calltest: cannot open dirfd %s: %s\n", s, strerror(errno));
		exit(2);
	}
	return fd;
}

static mode_t num(const char *s)
{
	return (mode_t)strtoul(s, NULL, 8);
}

static int ro_fd(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "calltest: cannot open %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return fd;
}

/* ---- the cases ---------------------------------------------------------- */

#define A(i) (argv[i])
#define CASE(fn) static int c_##fn(char **argv)

CASE(open) { errno = SENTINEL; return fd_result(open(A(0), parse_flags(A(1)), 0644)); }
#ifdef HAVE_LFS64
CASE(open64) { errno = SENTINEL; return fd_result(open64(A(0), parse_flags(A(1)), 0644)); }
#endif
CASE(openat) { int d = dir_fd(A(0)); errno = SENTINEL; return fd_result(openat(d, A(1), parse_flags(A(2)), 0644)); }
#ifdef HAVE_LFS64
CASE(openat64) { int d = dir_fd(A(0)); errno = SENTINEL; return fd_result(openat64(d, A(1), parse_flags(A(2)), 0644)); }
#endif
#ifdef HAVE___OPEN_2
CASE(__open_2) { int f = parse_flags(A(1)); errno = SENTINEL; return fd_result(__open_2(A(0), f)); }
#endif
#ifdef HAVE___OPEN64_2
CASE(__open64_2) { int f = parse_flags(A(1)); errno = SENTINEL; return fd_result(__open64_2(A(0), f)); }
#endif
#ifdef HAVE___OPENAT_2
CASE(__openat_2) { int d = dir_fd(A(0)); int f = parse_flags(A(2)); errno = SENTINEL; return fd_result(__openat_2(d, A(1), f)); }
#endif
#ifdef HAVE___OPENAT64_2
CASE(__openat64_2) { int d = dir_fd(A(0)); int f = parse_flags(A(2)); errno = SENTINEL; return fd_result(__openat64_2(d, A(1), f)); }
#endif
#ifdef HAVE___OPEN_2
CASE(fortify_open) { int f = parse_flags(A(1)); errno = SENTINEL; return fd_result(fortified_open(A(0), f)); }
#endif
#ifdef HAVE___OPENAT_2
CASE(fortify_openat) { int d = dir_fd(A(0)); int f = parse_flags(A(2)); errno = SENTINEL; return fd_result(fortified_openat(d, A(1), f)); }
#endif
/* glibc exports these aliases of open(); programs can call them. */
#ifdef HAVE___OPEN
CASE(__open) { errno = SENTINEL; return fd_result(__open(A(0), parse_flags(A(1)), 0644)); }
#endif
#ifdef HAVE___OPEN64
CASE(__open64) { errno = SENTINEL; return fd_result(__open64(A(0), parse_flags(A(1)), 0644)); }
#endif
/*
 * Hold PATH open read-only, then open it again for writing through the
 * magic link PREFIX/N (/proc/self/fd or /dev/fd): an upgrade, judged like
 * any write to the file.
 */
static int reopen(const char *prefix, const char *path, int flags)
{
	char p[64];
	int fd = ro_fd(path);

	snprintf(p, sizeof p, "%s/%d", prefix, fd);
	errno = SENTINEL;
	return fd_result(open(p, flags, 0644));
}

CASE(reopen) { return reopen("/proc/self/fd", A(0), parse_flags(A(1))); }
CASE(reopen_devfd) { return reopen("/dev/fd", A(0), parse_flags(A(1))); }
CASE(creat) { errno = SENTINEL; return fd_result(creat(A(0), 0644)); }
#ifdef HAVE_LFS64
CASE(creat64) { errno = SENTINEL; return fd_result(creat64(A(0), 0644)); }
#endif
CASE(fopen) { errno = SENTINEL; return file_result(fopen(A(0), A(1))); }
#ifdef HAVE_LFS64
CASE(fopen64) { errno = SENTINEL; return file_result(fopen64(A(0), A(1))); }
#endif

CASE(freopen)
{
	FILE *f = fopen("/dev/null", "r");
	FILE *g;

	if (!f)
		return say_err(errno);
	errno = SENTINEL;
	g = freopen(A(0), A(1), f);
	return file_result(g);
}

#ifdef HAVE_LFS64
CASE(freopen64)
{
	FILE *f = fopen("/dev/null", "r");

	if (!f)
		return say_err(errno);
	errno = SENTINEL;
	return file_result(freopen64(A(0), A(1), f));
}
#endif

CASE(truncate) { errno = SENTINEL; return rc_neg(truncate(A(0), atol(A(1)))); }
#ifdef HAVE_LFS64
CASE(truncate64) { errno = SENTINEL; return rc_neg(truncate64(A(0), atol(A(1)))); }
#endif

/* An fd opened for writing was judged when it was opened. */
CASE(ftruncate)
{
	int fd = open(A(0), O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return say_err(errno);
	errno = SENTINEL;
	return rc_neg(ftruncate(fd, atol(A(1))));
}

CASE(unlink) { errno = SENTINEL; return rc_neg(unlink(A(0))); }
CASE(unlinkat) { int d = dir_fd(A(0)); int f = parse_flags(A(2)); errno = SENTINEL; return rc_neg(unlinkat(d, A(1), f)); }
CASE(remove) { errno = SENTINEL; return rc_neg(remove(A(0))); }
CASE(rmdir) { errno = SENTINEL; return rc_neg(rmdir(A(0))); }
CASE(rename) { errno = SENTINEL; return rc_neg(rename(A(0), A(1))); }

CASE(renameat)
{
	int d1 = dir_fd(A(0)), d2 = dir_fd(A(2));

	errno = SENTINEL;
	return rc_neg(renameat(d1, A(1), d2, A(3)));
}

#ifdef HAVE_RENAMEAT2
CASE(renameat2)
{
	int d1 = dir_fd(A(0)), d2 = dir_fd(A(2));
	unsigned f = (unsigned)parse_flags(A(4));

	errno = SENTINEL;
	return rc_neg(renameat2(d1, A(1), d2, A(3), f));
}
#endif

CASE(link) { errno = SENTINEL; return rc_neg(link(A(0), A(1))); }

CASE(linkat)
{
	int d1 = dir_fd(A(0)), d2 = dir_fd(A(2));
	int f = parse_flags(A(4));

	errno = SENTINEL;
	return rc_neg(linkat(d1, A(1), d2, A(3), f));
}

/* linkat(fd, "", ..., AT_EMPTY_PATH): the source is an open descriptor. */
CASE(linkat_fd)
{
	int fd = ro_fd(A(0));

	errno = SENTINEL;
	return rc_neg(linkat(fd, "", AT_FDCWD, A(1), AT_EMPTY_PATH));
}

/* The same through the magic link, as glibc's own O_TMPFILE code does. */
CASE(linkat_proc)
{
	char p[64];
	int fd = ro_fd(A(0));

	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	errno = SENTINEL;
	return rc_neg(linkat(AT_FDCWD, p, AT_FDCWD, A(1), AT_SYMLINK_FOLLOW));
}

/* An anonymous O_TMPFILE in DIR, then given the name NEW. */
CASE(linkat_tmpfile)
{
	char p[64];
	int fd = open(A(0), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0)
		return say_err(errno);
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	errno = SENTINEL;
	return rc_neg(linkat(AT_FDCWD, p, AT_FDCWD, A(1), AT_SYMLINK_FOLLOW));
}

CASE(symlink) { errno = SENTINEL; return rc_neg(symlink(A(0), A(1))); }
CASE(symlinkat) { int d = dir_fd(A(1)); errno = SENTINEL; return rc_neg(symlinkat(A(0), d, A(2))); }
CASE(mkdir) { errno = SENTINEL; return rc_neg(mkdir(A(0), 0755)); }
CASE(mkdirat) { int d = dir_fd(A(0)); errno = SENTINEL; return rc_neg(mkdirat(d, A(1), 0755)); }
CASE(mknod) { errno = SENTINEL; return rc_neg(mknod(A(0), S_IFREG | 0644, 0)); }
CASE(mknodat) { int d = dir_fd(A(0)); errno = SENTINEL; return rc_neg(mknodat(d, A(1), S_IFIFO | 0644, 0)); }
/*
 * The glibc < 2.33 mknod entry points survive only as compatibility
 * symbols, which no new program can link against: look them up the way
 * an old binary would find them, the shim's own first.
 */
typedef int (*xmknod_fn)(int, const char *, mode_t, dev_t *);
typedef int (*xmknodat_fn)(int, int, const char *, mode_t, dev_t *);

static void *old_sym(const char *name)
{
	void *f = dlsym(RTLD_DEFAULT, name);

#ifdef __GLIBC__
	if (!f)
		f = dlvsym(RTLD_DEFAULT, name, "GLIBC_2.2.5");
	if (!f)
		f = dlvsym(RTLD_DEFAULT, name, "GLIBC_2.17");
#endif
	if (!f) {
		printf("err ENOSYS\n");
		exit(0);
	}
	return f;
}

CASE(__xmknod)
{
	xmknod_fn f = (xmknod_fn)old_sym("__xmknod");
	dev_t dev = 0;

	errno = SENTINEL;
	return rc_neg(f(0, A(0), S_IFREG | 0644, &dev));
}

CASE(__xmknodat)
{
	xmknodat_fn f = (xmknodat_fn)old_sym("__xmknodat");
	int d = dir_fd(A(0));
	dev_t dev = 0;

	errno = SENTINEL;
	return rc_neg(f(0, d, A(1), S_IFIFO | 0644, &dev));
}

CASE(mkfifo) { errno = SENTINEL; return rc_neg(mkfifo(A(0), 0644)); }
CASE(mkfifoat) { int d = dir_fd(A(0)); errno = SENTINEL; return rc_neg(mkfifoat(d, A(1), 0644)); }
CASE(chmod) { errno = SENTINEL; return rc_neg(chmod(A(0), num(A(1)))); }
CASE(fchmodat) { int d = dir_fd(A(0)); errno = SENTINEL; return rc_neg(fchmodat(d, A(1), num(A(2)), 0)); }
CASE(lchmod) { errno = SENTINEL; return rc_neg(lchmod(A(0), num(A(1)))); }
CASE(fchmod) { int fd = ro_fd(A(0)); errno = SENTINEL; return rc_neg(fchmod(fd, num(A(1)))); }
CASE(chown) { errno = SENTINEL; return rc_neg(chown(A(0), getuid(), getgid())); }
CASE(lchown) { errno = SENTINEL; return rc_neg(lchown(A(0), getuid(), getgid())); }

CASE(fchownat)
{
	int d = dir_fd(A(0));

	errno = SENTINEL;
	return rc_neg(fchownat(d, A(1), getuid(), getgid(), parse_flags(A(2))));
}

CASE(fchown) { int fd = ro_fd(A(0)); errno = SENTINEL; return rc_neg(fchown(fd, getuid(), getgid())); }
CASE(setxattr) { errno = SENTINEL; return rc_neg(setxattr(A(0), "user.fa", "v", 1, 0)); }
CASE(lsetxattr) { errno = SENTINEL; return rc_neg(lsetxattr(A(0), "user.fa", "v", 1, 0)); }
CASE(removexattr) { errno = SENTINEL; return rc_neg(removexattr(A(0), "user.fa")); }
CASE(lremovexattr) { errno = SENTINEL; return rc_neg(lremovexattr(A(0), "user.fa")); }
/* Read-only descriptors: judged by the file they name. */
CASE(fsetxattr) { int fd = ro_fd(A(0)); errno = SENTINEL; return rc_neg(fsetxattr(fd, "user.fa", "v", 1, 0)); }
CASE(fremovexattr) { int fd = ro_fd(A(0)); errno = SENTINEL; return rc_neg(fremovexattr(fd, "user.fa")); }

/* The mk*temp cases take a directory and build the template themselves. */
static char *tmpl(const char *dir, const char *suffix)
{
	static char buf[4096];

	snprintf(buf, sizeof buf, "%s/tmpXXXXXX%s", dir, suffix);
	return buf;
}

CASE(mkstemp) { char *t = tmpl(A(0), ""); errno = SENTINEL; return fd_result(mkstemp(t)); }
#ifdef HAVE_LFS64
CASE(mkstemp64) { char *t = tmpl(A(0), ""); errno = SENTINEL; return fd_result(mkstemp64(t)); }
#endif
CASE(mkostemp) { char *t = tmpl(A(0), ""); errno = SENTINEL; return fd_result(mkostemp(t, O_CLOEXEC)); }
#ifdef HAVE_LFS64
CASE(mkostemp64) { char *t = tmpl(A(0), ""); errno = SENTINEL; return fd_result(mkostemp64(t, O_CLOEXEC)); }
#endif
CASE(mkstemps) { char *t = tmpl(A(0), ".x"); errno = SENTINEL; return fd_result(mkstemps(t, 2)); }
#ifdef HAVE_LFS64
CASE(mkstemps64) { char *t = tmpl(A(0), ".x"); errno = SENTINEL; return fd_result(mkstemps64(t, 2)); }
#endif
CASE(mkostemps) { char *t = tmpl(A(0), ".x"); errno = SENTINEL; return fd_result(mkostemps(t, 2, O_CLOEXEC)); }
#ifdef HAVE_LFS64
CASE(mkostemps64) { char *t = tmpl(A(0), ".x"); errno = SENTINEL; return fd_result(mkostemps64(t, 2, O_CLOEXEC)); }
#endif

CASE(mkdtemp)
{
	char *t = tmpl(A(0), "");
	char *r;
	int e;

	errno = SENTINEL;
	r = mkdtemp(t);
	e = errno;
	if (!r)
		return say_err(e);
	errno = e;
	say_ok();
	return 0;
}

CASE(tmpfile) { (void)argv; errno = SENTINEL; return file_result(tmpfile()); }
#ifdef HAVE_LFS64
CASE(tmpfile64) { (void)argv; errno = SENTINEL; return file_result(tmpfile64()); }
#endif

CASE(sem_open)
{
	sem_t *s;
	int e;

	errno = SENTINEL;
	s = sem_open(A(0), O_CREAT, 0600, 0);
	e = errno;
	if (s == SEM_FAILED)
		return say_err(e);
	sem_close(s);
	sem_unlink(A(0));
	errno = e;
	say_ok();
	return 0;
}

CASE(shm_open)
{
	int fd;
	int e;

	errno = SENTINEL;
	fd = shm_open(A(0), O_CREAT | O_RDWR, 0600);
	e = errno;
	if (fd < 0)
		return say_err(e);
	close(fd);
	shm_unlink(A(0));
	errno = e;
	say_ok();
	return 0;
}

/* bind(2) of NAME ("@x": abstract), through libc or by number. */
static int bind_to(const char *name, int by_number)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return say_err(errno);
	if (name[0] == '@') {
		/* Abstract names live in no directory. */
		memcpy(sa.sun_path + 1, name + 1, strlen(name + 1));
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name));
	} else {
		snprintf(sa.sun_path, sizeof sa.sun_path, "%s", name);
		len = sizeof sa;
	}
	errno = SENTINEL;
	if (by_number)
		return rc_neg(syscall(SYS_bind, s, (struct sockaddr *)&sa, len));
	return rc_neg(bind(s, (struct sockaddr *)&sa, len));
}

CASE(bind) { return bind_to(A(0), 0); }

/* ---- process creation --------------------------------------------------- */

static char *exec_argv[3];

static char **args_for(const char *prog)
{
	const char *base = strrchr(prog, '/');

	exec_argv[0] = (char *)(base ? base + 1 : prog);
	exec_argv[1] = "ok";
	exec_argv[2] = NULL;
	return exec_argv;
}

/* Flush before exec so nothing printed earlier is lost or doubled. */
#define PRE_EXEC() (fflush(stdout), errno = SENTINEL)

CASE(execve) { char **v = args_for(A(0)); PRE_EXEC(); return rc_neg(execve(A(0), v, environ)); }
CASE(execv) { char **v = args_for(A(0)); PRE_EXEC(); return rc_neg(execv(A(0), v)); }
CASE(execvp) { char **v = args_for(A(0)); PRE_EXEC(); return rc_neg(execvp(A(0), v)); }
CASE(execvpe) { char **v = args_for(A(0)); PRE_EXEC(); return rc_neg(execvpe(A(0), v, environ)); }
CASE(execl) { PRE_EXEC(); return rc_neg(execl(A(0), A(0), "ok", (char *)NULL)); }
CASE(execlp) { PRE_EXEC(); return rc_neg(execlp(A(0), A(0), "ok", (char *)NULL)); }
CASE(execle) { PRE_EXEC(); return rc_neg(execle(A(0), A(0), "ok", (char *)NULL, environ)); }

CASE(fexecve)
{
	int fd = open(A(0), O_RDONLY);
	char **v = args_for(A(0));

	if (fd < 0)
		return say_err(errno);
	PRE_EXEC();
	return rc_neg(fexecve(fd, v, environ));
}

#ifdef HAVE_EXECVEAT
CASE(execveat)
{
	int d = dir_fd(A(0));
	char **v = args_for(A(1));

	PRE_EXEC();
	return rc_neg(execveat(d, A(1), v, environ, 0));
}
#endif

static int wait_ok(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) < 0)
		return say_err(errno);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("child status %d\n", st);
		return 0;
	}
	return 0;
}

/*
 * Spawned children print their own "ok"; the parent prints only a
 * failure, so one line results either way.
 */
CASE(posix_spawn)
{
	pid_t pid;
	int rc;

	fflush(stdout);
	errno = SENTINEL;
	rc = posix_spawn(&pid, A(0), NULL, NULL, args_for(A(0)), environ);
	if (rc)
		return say_err(rc);
	return wait_ok(pid);
}

CASE(posix_spawnp)
{
	pid_t pid;
	int rc;

	fflush(stdout);
	errno = SENTINEL;
	rc = posix_spawnp(&pid, A(0), NULL, NULL, args_for(A(0)), environ);
	if (rc)
		return say_err(rc);
	return wait_ok(pid);
}

/* A search that finds nothing: the result, and what errno is left as. */
CASE(posix_spawnp_errno)
{
	pid_t pid = 0;
	int rc;

	errno = SENTINEL;
	rc = posix_spawnp(&pid, A(0), NULL, NULL, args_for(A(0)), environ);
	if (!rc)
		return wait_ok(pid);
	printf("err %s, errno %s, pid %s\n", errno_name(rc), errno_name(errno),
	       pid ? "set" : "untouched");
	return 0;
}

CASE(system)
{
	int st;

	fflush(stdout);
	errno = SENTINEL;
	st = system(A(0));
	if (st == -1)
		return say_err(errno);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		printf("child status %d\n", st);
	return 0;
}

CASE(popen)
{
	char line[256];
	FILE *p;
	int st;

	fflush(stdout);
	errno = SENTINEL;
	p = popen(A(0), "r");
	if (!p)
		return say_err(errno);
	while (fgets(line, sizeof line, p))
		fputs(line, stdout);
	st = pclose(p);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st))
		printf("child status %d\n", st);
	return 0;
}

/*
 * Children started with an empty environment, which drops LD_PRELOAD and
 * FA_POLICY unless the shim puts them back: the child is calltest again,
 * running the case named by the remaining arguments and printing its own
 * answer.
 */
static char self[4096];
static char *no_env[] = { NULL };

static void find_self(void)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	if (n < 0) {
		perror("calltest: /proc/self/exe");
		exit(2);
	}
	self[n] = 0;
}

static char **child_argv(char **argv)
{
	return argv - 1;	/* argv[-1] is this case's own name: replaced below */
}

CASE(spawn_noenv)
{
	char **v = child_argv(argv);
	pid_t pid;
	int rc;

	find_self();
	v[0] = "calltest";
	fflush(stdout);
	errno = SENTINEL;
	rc = posix_spawn(&pid, self, NULL, NULL, v, no_env);
	if (rc)
		return say_err(rc);
	return wait_ok(pid);
}

CASE(execle_noenv)
{
	find_self();
	PRE_EXEC();
	/* execle takes its arguments in the call itself: up to three here. */
	if (!A(1))
		return rc_neg(execle(self, "calltest", A(0), (char *)NULL, no_env));
	if (!A(2))
		return rc_neg(execle(self, "calltest", A(0), A(1), (char *)NULL, no_env));
	return rc_neg(execle(self, "calltest", A(0), A(1), A(2), A(3), (char *)NULL, no_env));
}

CASE(clearenv_exec)
{
	char **v = child_argv(argv);

	find_self();
	v[0] = "calltest";
	clearenv();
	PRE_EXEC();
	return rc_neg(execv(self, v));
}

/* ---- raw syscall() ------------------------------------------------------ */

/* ---- aliases, self-openers, timestamps, IPC names ---------------------- */

static const struct timespec past_ts[2] = { { 978307200, 0 }, { 978307200, 0 } };
static const struct timeval past_tv[2] = { { 978307200, 0 }, { 978307200, 0 } };
static const struct utimbuf past_ub = { 978307200, 978307200 };

typedef int (*open_fn)(const char *, int, ...);

#if defined(HAVE___OPEN_NOCANCEL) || defined(HAVE___OPEN64_NOCANCEL)
/* Private names of open() that libc's own libraries call; looked up, not linked. */
static int nocancel(const char *name, const char *path, int flags)
{
	open_fn f = (open_fn)(uintptr_t)dlsym(RTLD_DEFAULT, name);

	if (!f) {
		printf("skip %s\n", name);
		return 0;
	}
	errno = SENTINEL;
	return fd_result(f(path, flags, 0644));
}
#endif

#ifdef HAVE___OPEN_NOCANCEL
CASE(__open_nocancel) { return nocancel("__open_nocancel", A(0), parse_flags(A(1))); }
#endif
#ifdef HAVE___OPEN64_NOCANCEL
CASE(__open64_nocancel) { return nocancel("__open64_nocancel", A(0), parse_flags(A(1))); }
#endif
#ifdef HAVE__IO_FOPEN
CASE(_IO_fopen) { errno = SENTINEL; return file_result(_IO_fopen(A(0), A(1))); }
#endif

/* freopen(NULL): the stream's own file, opened read-only, reopened with MODE. */
CASE(freopen_null)
{
	FILE *f = fopen(A(0), "r");

	if (!f)
		return say_err(errno);
	errno = SENTINEL;
	return file_result(freopen(NULL, A(1), f));
}

/* A file by handle: its handle taken from PATH, opened with FLAGS. */
static int by_handle(const char *path, int flags, int by_number)
{
	union { struct file_handle h; char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ]; } u;
	int mount_id, mfd, fd;

	u.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, path, &u.h, &mount_id, 0) < 0)
		return say_err(errno);
	mfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	errno = SENTINEL;
	if (by_number)
		fd = (int)syscall(SYS_open_by_handle_at, mfd, &u.h, flags);
	else
		fd = open_by_handle_at(mfd, &u.h, flags);
	return fd_result(fd);
}

CASE(open_by_handle_at) { return by_handle(A(0), parse_flags(A(1)), 0); }

/* openat2(DIR, PATH) with RESOLVE_IN_ROOT: PATH is resolved as if DIR were "/". */
static int openat2_in_root(long nr, const char *dir, const char *path, int flags)
{
	struct { unsigned long long flags, mode, resolve; } how = {
		(unsigned)flags, flags & O_CREAT ? 0644 : 0, 0x10 /* RESOLVE_IN_ROOT */ };
	int d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int i, fd;

	/* The kernel answers EAGAIN when any rename in the system races a ".."
	 * walk; callers are meant to retry, and a loaded machine renames a lot. */
	for (i = 0; i < 1000; i++) {
		errno = SENTINEL;
		fd = (int)syscall(nr, d, path, &how, sizeof how);
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	return fd_result(fd);
}

CASE(setmntent) { errno = SENTINEL; return file_result(setmntent(A(0), A(1))); }
#ifdef HAVE___SETMNTENT
CASE(__setmntent) { errno = SENTINEL; return file_result(__setmntent(A(0), A(1))); }
#endif

/* libio's own entry: opens into a FILE it is given, with open(2) flags. */
int _IO_file_close_it(FILE *fp);
FILE *_IO_file_open(FILE *fp, const char *file, int flags, int prot, int rw, int is32);
#ifdef HAVE__IO_FILE_OPEN
CASE(_IO_file_open)
{
	FILE *f = fopen("/dev/null", "r");

	if (!f)
		return say_err(errno);
	_IO_file_close_it(f);
	errno = SENTINEL;
	return file_result(_IO_file_open(f, A(0), parse_flags(A(1)), 0644, 4 /* _IO_NO_READS */, 1));
}
#endif

FILE *_IO_file_fopen(FILE *fp, const char *file, const char *mode, int is32);
#ifdef HAVE__IO_FILE_FOPEN
CASE(_IO_file_fopen)
{
	FILE *f = fopen("/dev/null", "r");

	if (!f)
		return say_err(errno);
	_IO_file_close_it(f);
	errno = SENTINEL;
	return file_result(_IO_file_fopen(f, A(0), A(1), 1));
}
#endif

/*
 * popen's engine, given the FILE to fill: only its refusal is tested, since
 * the FILE it needs is libio's private struct _IO_proc_file. A refused
 * start never touches the buffer; a started one would, so the buffer is
 * large and the case reports "started" without reading from it.
 */
FILE *_IO_proc_open(FILE *fp, const char *cmd, const char *mode);
#ifdef HAVE__IO_PROC_OPEN
CASE(_IO_proc_open)
{
	static long long buf[512];
	FILE *p;

	errno = SENTINEL;
	p = _IO_proc_open((FILE *)buf, A(0), "r");
	if (!p)
		return say_err(errno);
	printf("started\n");
	return 0;
}
#endif

/* A descriptor handed to stdio and read back through the stream. */
CASE(fdopen)
{
	int fd = open(A(0), O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return say_err(errno);
	errno = SENTINEL;
	return file_result(fdopen(fd, "r"));
}

/* Closes made inside libc: nothing judged, the call answers as libc's own. */
CASE(fclose)
{
	FILE *f = fopen(A(0), "r");

	if (!f)
		return say_err(errno);
	errno = SENTINEL;
	return rc_neg(fclose(f));
}

CASE(closedir)
{
	DIR *d = opendir(A(0));

	if (!d)
		return say_err(errno);
	errno = SENTINEL;
	return rc_neg(closedir(d));
}

CASE(acct)
{
	int rc;

	errno = SENTINEL;
	rc = acct(A(0));
	if (rc == 0) {
		int e = errno;

		acct(NULL);
		errno = e;
	}
	return rc_neg(rc);
}

static struct utmp one_ut(void)
{
	struct utmp ut;

	memset(&ut, 0, sizeof ut);
	ut.ut_type = USER_PROCESS;
	ut.ut_pid = 1;
	strcpy(ut.ut_line, "fa0");
	strcpy(ut.ut_id, "fa0");
	strcpy(ut.ut_user, "fa");
	return ut;
}

/* void functions that write FILE: "ok" if FILE grew, else the errno. */
static int grew(const char *file, off_t before)
{
	struct stat st;
	int e = errno;

	if (stat(file, &st) == 0 && st.st_size > before)
		return puts("ok"), 0;
	return say_err(e);
}

static off_t size_of(const char *file)
{
	struct stat st;

	return stat(file, &st) == 0 ? st.st_size : -1;
}

CASE(updwtmp)
{
	struct utmp ut = one_ut();
	off_t n = size_of(A(0));

	errno = SENTINEL;
	updwtmp(A(0), &ut);
	return grew(A(0), n);
}

CASE(updwtmpx)
{
	struct utmpx ut;
	off_t n = size_of(A(0));

	memset(&ut, 0, sizeof ut);
	ut.ut_type = USER_PROCESS;
	strcpy(ut.ut_line, "fa0");
	errno = SENTINEL;
	updwtmpx(A(0), &ut);
	return grew(A(0), n);
}

/* utmpname(FILE) (or utmpxname) and one record written there. */
static int put_utmp(const char *file, int x)
{
	struct utmp ut = one_ut();
	struct utmpx utx;

	memset(&utx, 0, sizeof utx);
	utx.ut_type = USER_PROCESS;
	strcpy(utx.ut_line, "fa0");
	strcpy(utx.ut_id, "fa0");
	if ((x ? utmpxname(file) : utmpname(file)) < 0)
		return say_err(errno);
	if (x)
		setutxent();
	else
		setutent();
	errno = SENTINEL;
	return rc_neg((x ? (void *)pututxline(&utx) : (void *)pututline(&ut)) ? 0 : -1);
}

CASE(utmpname) { return put_utmp(A(0), 0); }
CASE(pututline) { return put_utmp(A(0), 0); }
CASE(utmpxname) { return put_utmp(A(0), 1); }
CASE(pututxline) { return put_utmp(A(0), 1); }

#ifdef HAVE_LOGIN
CASE(login)
{
	struct utmp ut = one_ut();
	off_t n = size_of(A(0));

	utmpname(A(0));
	errno = SENTINEL;
	login(&ut);
	return grew(A(0), n);
}
#endif

#ifdef HAVE_LOGOUT
CASE(logout)
{
	utmpname(A(0));
	errno = SENTINEL;
	return rc_neg(logout("fa0") ? 0 : -1);
}
#endif

#ifdef HAVE_LOGWTMP
CASE(logwtmp)
{
	off_t n = size_of(_PATH_WTMP);

	(void)argv;
	errno = SENTINEL;
	logwtmp("fa0", "fa", "");
	return grew(_PATH_WTMP, n);
}
#endif

CASE(lckpwdf)
{
	int rc;

	(void)argv;
	errno = SENTINEL;
	rc = lckpwdf();
	if (rc == 0)
		ulckpwdf();
	return rc_neg(rc);
}

/* FS_IOC_SETFLAGS on a read-only fd: the flags it has, set again. */
CASE(ioctl)
{
	int fd = ro_fd(A(0)), fl = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &fl) < 0)
		return say_err(errno);
	errno = SENTINEL;
	return rc_neg(ioctl(fd, FS_IOC_SETFLAGS, &fl));
}

CASE(utimensat)
{
	int d = dir_fd(A(0)), f = parse_flags(A(2));

	errno = SENTINEL;
	return rc_neg(utimensat(d, A(1), past_ts, f));
}

CASE(futimens) { int fd = ro_fd(A(0)); errno = SENTINEL; return rc_neg(futimens(fd, past_ts)); }
CASE(utimes) { errno = SENTINEL; return rc_neg(utimes(A(0), past_tv)); }
CASE(lutimes) { errno = SENTINEL; return rc_neg(lutimes(A(0), past_tv)); }
CASE(futimes) { int fd = ro_fd(A(0)); errno = SENTINEL; return rc_neg(futimes(fd, past_tv)); }
CASE(futimesat) { int d = dir_fd(A(0)); errno = SENTINEL; return rc_neg(futimesat(d, A(1), past_tv)); }
CASE(utime) { errno = SENTINEL; return rc_neg(utime(A(0), &past_ub)); }

CASE(shm_unlink) { errno = SENTINEL; return rc_neg(shm_unlink(A(0))); }
CASE(sem_unlink) { errno = SENTINEL; return rc_neg(sem_unlink(A(0))); }

/* A queue made here is removed again, so that runs do not see each other's. */
static int mq_result(long q, const char *name)
{
	int e = errno;

	if (q < 0)
		return say_err(e);
	mq_close((mqd_t)q);
	mq_unlink(name);
	errno = e;
	say_ok();
	return 0;
}

CASE(mq_open) { errno = SENTINEL; return mq_result(mq_open(A(0), O_CREAT | O_RDWR, 0600, NULL), A(0)); }
CASE(mq_unlink) { errno = SENTINEL; return rc_neg(mq_unlink(A(0))); }

/*
 * A signal handler that writes while the thread is inside a wrapped call:
 * freopen() flushing a stream to a full pipe blocks in libc; a child
 * process waits until the kernel says this process sleeps in write(),
 * then signals it. The handler opens PATH for writing (its answer is the
 * case's), then drains the pipe so that freopen can finish.
 */
static int sig_rd = -1;
static volatile sig_atomic_t sig_done;
static const char *sig_path;

static void sig_handler(int sig)
{
	char buf[4096];
	int fd, e;

	(void)sig;
	errno = SENTINEL;
	fd = open(sig_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	e = errno;
	if (fd >= 0) {
		close(fd);
		if (e == SENTINEL)
			puts("ok");
		else
			printf("ok errno=%s\n", errno_name(e));
	} else {
		printf("err %s\n", errno_name(e));
	}
	sig_done = 1;
	while (read(sig_rd, buf, sizeof buf) > 0)
		;
}

/* 1 once /proc/PID/syscall names nr: the process is blocked in that syscall. */
static int blocked_in(pid_t pid, long nr1, long nr2, long nr3)
{
	char p[64], b[64];
	FILE *f;
	long nr = -1;

	snprintf(p, sizeof p, "/proc/%d/syscall", (int)pid);
	f = fopen(p, "r");
	if (!f)
		return 0;
	if (fgets(b, sizeof b, f))
		nr = strtol(b, NULL, 10);
	fclose(f);
	return nr == nr1 || nr == nr2 || nr == nr3;
}

/* A child that signals this process once it sleeps in nr1, nr2 or nr3. */
static pid_t signal_when_blocked(long nr1, long nr2, long nr3)
{
	pid_t me = getpid(), kid;

	fflush(stdout);
	kid = fork();
	if (kid == 0) {
		while (!blocked_in(me, nr1, nr2, nr3))
			usleep(1000);
		kill(me, SIGUSR1);
		_exit(0);
	}
	return kid;
}

CASE(sig_freopen)
{
	int p[2], fl;
	pid_t kid;
	FILE *w;
	static char junk[65536];

	sig_path = A(0);
	if (pipe(p) < 0)
		return say_err(errno);
	sig_rd = p[0];
	fl = fcntl(p[0], F_GETFL);
	fcntl(p[0], F_SETFL, fl | O_NONBLOCK);
	fl = fcntl(p[1], F_GETFL);
	fcntl(p[1], F_SETFL, fl | O_NONBLOCK);
	while (write(p[1], junk, sizeof junk) > 0)
		;
	fcntl(p[1], F_SETFL, fl);
	signal(SIGUSR1, sig_handler);
	/* glibc flushes with write, musl with writev. */
	kid = signal_when_blocked(SYS_write, SYS_writev, SYS_write);
	w = fdopen(p[1], "w");
	fwrite("x", 1, 1, w);
	freopen("/dev/null", "w", w);
	waitpid(kid, NULL, 0);
	if (!sig_done)
		puts("handler did not run");
	return 0;
}

/*
 * The same while open() of FIFO for writing waits for a reader: the
 * handler writes PATH, then opens FIFO for reading, which lets the
 * writer's open finish.
 */
static const char *sig_fifo;

static void fifo_handler(int sig)
{
	sig_handler(sig);
	sig_rd = open(sig_fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
}

CASE(sig_open)
{
	pid_t kid;
	int fd;

	sig_fifo = A(0);
	sig_path = A(1);
	signal(SIGUSR1, fifo_handler);
	/* musl's open() is SYS_open where the kernel has one. */
#ifdef SYS_open
	kid = signal_when_blocked(SYS_openat, SYS_openat2, SYS_open);
#else
	kid = signal_when_blocked(SYS_openat, SYS_openat2, SYS_openat);
#endif
	fd = open(sig_fifo, O_WRONLY | O_CLOEXEC);
	waitpid(kid, NULL, 0);
	if (fd >= 0)
		close(fd);
	if (!sig_done)
		puts("handler did not run");
	return 0;
}


static long sys_nr(const char *s)
{
	static const struct { const char *n; long nr; } t[] = {
		{ "openat", SYS_openat }, { "unlinkat", SYS_unlinkat },
		{ "mkdirat", SYS_mkdirat }, { "renameat2", SYS_renameat2 },
		{ "renameat", SYS_renameat }, { "linkat", SYS_linkat },
		{ "symlinkat", SYS_symlinkat }, { "mknodat", SYS_mknodat },
		{ "fchmodat", SYS_fchmodat }, { "truncate", SYS_truncate },
#ifdef SYS_open
		{ "open", SYS_open }, { "creat", SYS_creat }, { "unlink", SYS_unlink },
		{ "rmdir", SYS_rmdir }, { "mkdir", SYS_mkdir }, { "rename", SYS_rename },
		{ "link", SYS_link }, { "symlink", SYS_symlink }, { "chmod", SYS_chmod },
#endif
#ifdef SYS_openat2
		{ "openat2", SYS_openat2 },
#endif
#ifdef SYS_utimes
		{ "utimes", SYS_utimes }, { "futimesat", SYS_futimesat }, { "utime", SYS_utime },
#endif
		{ "utimensat", SYS_utimensat }, { "bind", SYS_bind },
		{ "open_by_handle_at", SYS_open_by_handle_at },
		{ "setxattrat", 463 }, { "removexattrat", 466 },
		{ "mq_open", SYS_mq_open }, { "mq_unlink", SYS_mq_unlink },
		{ "close", SYS_close }, { "dup3", SYS_dup3 },
#ifdef SYS_dup2
		{ "dup2", SYS_dup2 },
#endif
#ifdef SYS_close_range
		{ "close_range", SYS_close_range },
#endif
		{ "fchmod", SYS_fchmod }, { "fchown", SYS_fchown }, { "fchownat", SYS_fchownat },
		{ "fchmodat2", 452 }, { "setxattr", SYS_setxattr }, { "lsetxattr", SYS_lsetxattr },
		{ "fsetxattr", SYS_fsetxattr }, { "removexattr", SYS_removexattr },
		{ "lremovexattr", SYS_lremovexattr }, { "fremovexattr", SYS_fremovexattr },
		{ "execve", SYS_execve }, { "execveat", SYS_execveat },
#ifdef SYS_chown
		{ "chown", SYS_chown }, { "lchown", SYS_lchown }, { "mknod", SYS_mknod },
#endif
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(t[i].n, s))
			return t[i].nr;
	fprintf(stderr, "calltest: unknown syscall %s\n", s);
	exit(2);
}

/*
 * syscall NAME ARGS: path arguments as given, "AT" for AT_FDCWD, numbers in
 * octal for modes and as flag names otherwise, per the syscall's shape.
 */
CASE(syscall)
{
	const char *n = A(0);
	long nr = sys_nr(n);
	long rc;

	errno = SENTINEL;
	if (!strcmp(n, "openat"))
		rc = syscall(nr, AT_FDCWD, A(1), parse_flags(A(2)), 0644);
	else if (!strcmp(n, "open"))
		rc = syscall(nr, A(1), parse_flags(A(2)), 0644);
	else if (!strcmp(n, "creat"))
		rc = syscall(nr, A(1), 0644);
	else if (!strcmp(n, "unlinkat"))
		rc = syscall(nr, AT_FDCWD, A(1), parse_flags(A(2)));
	else if (!strcmp(n, "mkdirat") || !strcmp(n, "fchmodat"))
		rc = syscall(nr, AT_FDCWD, A(1), 0755);
	else if (!strcmp(n, "mknod"))
		rc = syscall(nr, A(1), S_IFREG | 0644, 0);
	else if (!strcmp(n, "mknodat"))
		rc = syscall(nr, AT_FDCWD, A(1), S_IFREG | 0644, 0);
	else if (!strcmp(n, "renameat"))
		rc = syscall(nr, AT_FDCWD, A(1), AT_FDCWD, A(2));
	else if (!strcmp(n, "renameat2"))
		rc = syscall(nr, AT_FDCWD, A(1), AT_FDCWD, A(2), parse_flags(A(3)));
	else if (!strcmp(n, "linkat"))
		rc = syscall(nr, AT_FDCWD, A(1), AT_FDCWD, A(2), 0);
	else if (!strcmp(n, "symlinkat"))
		rc = syscall(nr, A(1), AT_FDCWD, A(2));
	else if (!strcmp(n, "truncate"))
		rc = syscall(nr, A(1), 0L);
	else if (!strcmp(n, "unlink") || !strcmp(n, "rmdir"))
		rc = syscall(nr, A(1));
	else if (!strcmp(n, "mkdir") || !strcmp(n, "chmod"))
		rc = syscall(nr, A(1), 0755);
	else if (!strcmp(n, "rename") || !strcmp(n, "link") || !strcmp(n, "symlink"))
		rc = syscall(nr, A(1), A(2));
	else if (!strcmp(n, "utimensat"))
		rc = syscall(nr, AT_FDCWD, A(1), past_ts, 0);
	else if (!strcmp(n, "fchmod"))
		rc = syscall(nr, ro_fd(A(1)), 0600);
	else if (!strcmp(n, "close"))
		rc = syscall(nr, ro_fd(A(1)));
	else if (!strcmp(n, "close_range")) {
		int fd = ro_fd(A(1));

		rc = syscall(nr, fd, fd, 0);
	}
	else if (!strcmp(n, "dup2"))
		rc = syscall(nr, ro_fd(A(1)), 100) == 100 ? 0 : -1;
	else if (!strcmp(n, "dup3"))
		rc = syscall(nr, ro_fd(A(1)), 100, 0) == 100 ? 0 : -1;
	else if (!strcmp(n, "fchmodat2"))
		rc = syscall(nr, AT_FDCWD, A(1), 0600, 0);
	else if (!strcmp(n, "fchown"))
		rc = syscall(nr, ro_fd(A(1)), getuid(), getgid());
	else if (!strcmp(n, "chown") || !strcmp(n, "lchown"))
		rc = syscall(nr, A(1), getuid(), getgid());
	else if (!strcmp(n, "fchownat"))
		rc = syscall(nr, AT_FDCWD, A(1), getuid(), getgid(), 0);
	else if (!strcmp(n, "setxattr") || !strcmp(n, "lsetxattr"))
		rc = syscall(nr, A(1), "user.fa", "v", 1, 0);
	else if (!strcmp(n, "fsetxattr"))
		rc = syscall(nr, ro_fd(A(1)), "user.fa", "v", 1, 0);
	else if (!strcmp(n, "removexattr") || !strcmp(n, "lremovexattr"))
		rc = syscall(nr, A(1), "user.fa");
	else if (!strcmp(n, "fremovexattr"))
		rc = syscall(nr, ro_fd(A(1)), "user.fa");
	else if (!strcmp(n, "execve")) {
		char *v[] = { (char *)A(1), (char *)"ok", NULL };

		fflush(stdout);
		rc = syscall(nr, A(1), v, environ);
	} else if (!strcmp(n, "execveat")) {
		char *v[] = { (char *)A(1), (char *)"ok", NULL };

		fflush(stdout);
		rc = syscall(nr, AT_FDCWD, A(1), v, environ, 0);
	}
	else if (!strcmp(n, "utimes"))
		rc = syscall(nr, A(1), past_tv);
	else if (!strcmp(n, "futimesat"))
		rc = syscall(nr, AT_FDCWD, A(1), past_tv);
	else if (!strcmp(n, "utime"))
		rc = syscall(nr, A(1), &past_ub);
	else if (!strcmp(n, "setxattrat")) {
		/* struct xattr_args { value, size, flags } */
		struct { unsigned long long value; unsigned int size, flags; } xa = {
			(unsigned long long)(unsigned long)"v", 1, 0 };

		rc = syscall(nr, AT_FDCWD, A(1), 0, "user.fa", &xa, sizeof xa);
	} else if (!strcmp(n, "removexattrat"))
		rc = syscall(nr, AT_FDCWD, A(1), 0, "user.fa");
	else if (!strcmp(n, "openat2"))
		return openat2_in_root(nr, A(1), A(2), parse_flags(A(3)));
	else if (!strcmp(n, "bind"))
		return bind_to(A(1), 1);
	else if (!strcmp(n, "open_by_handle_at"))
		return by_handle(A(1), parse_flags(A(2)), 1);
	else if (!strcmp(n, "mq_open"))
		return mq_result(syscall(nr, A(1) + 1, O_CREAT | O_RDWR, 0600, NULL), A(1));
	else if (!strcmp(n, "mq_unlink"))
		rc = syscall(nr, A(1) + 1);
	else {
		fprintf(stderr, "calltest: no shape for syscall %s\n", n);
		exit(2);
	}
	if (rc >= 0 && (!strcmp(n, "openat") || !strcmp(n, "open") || !strcmp(n, "creat")))
		return fd_result((int)rc);
	return rc_neg(rc);
}

/*
 * Changes of directory: each case moves the cwd by the named call, then
 * makes one write-open of FILE relative to where it now is, so the answer
 * says whether the guard followed the move.
 */
static int open_here(const char *file)
{
	errno = SENTINEL;
	return fd_result(open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
}

CASE(chdir)
{
	if (chdir(A(0)))
		return say_err(errno);
	return open_here(A(1));
}

CASE(fchdir)
{
	int d = open(A(0), O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (d < 0)
		return say_err(errno);
	rc = fchdir(d);
	close(d);
	if (rc)
		return say_err(errno);
	return open_here(A(1));
}

/* daemon FILE: the child, in "/", makes the write and says how it went. */
CASE(daemon)
{
	if (daemon(0, 1))
		return say_err(errno);
	return open_here(A(0));
}

/* fts_open DIR FILE: the write from inside DIR, while the walk is there. */
#define FTS_CASE(open_fn, close_fn, fts_t, ent_t) \
	CASE(open_fn) \
	{ \
		char *paths[] = { A(0), NULL }; \
		fts_t *f = open_fn(paths, FTS_PHYSICAL, NULL); \
		ent_t *e; \
		int rc = -1; \
		if (!f) \
			return say_err(errno); \
		while ((e = fts_read(f)) != NULL) \
			if (e->fts_level == 1) { \
				rc = open_here(A(1)); \
				break; \
			} \
		close_fn(f); \
		return rc < 0 ? say_err(ENOENT) : 0; \
	}
/* fts_close START DIR FILE: walk DIR from START, close, write back in START. */
#define FTS_CLOSE_CASE(open_fn, close_fn, fts_t, ent_t) \
	CASE(close_fn) \
	{ \
		char *paths[] = { A(1), NULL }; \
		fts_t *f; \
		ent_t *e; \
		if (chdir(A(0))) \
			return say_err(errno); \
		f = open_fn(paths, FTS_PHYSICAL, NULL); \
		if (!f) \
			return say_err(errno); \
		while ((e = fts_read(f)) != NULL && e->fts_level < 1) \
			; \
		if (close_fn(f)) \
			return say_err(errno); \
		return open_here(A(2)); \
	}
#ifdef HAVE_FTS_OPEN
#define fts_read fts_read
FTS_CASE(fts_open, fts_close, FTS, FTSENT)
FTS_CLOSE_CASE(fts_open, fts_close, FTS, FTSENT)
#undef fts_read
#endif
#ifdef HAVE_FTS64_OPEN
#define fts_read fts64_read
FTS_CASE(fts64_open, fts64_close, FTS64, FTSENT64)
FTS_CLOSE_CASE(fts64_open, fts64_close, FTS64, FTSENT64)
#undef fts_read
#endif

/* nftw DIR FILE with FTW_CHDIR: the write from the first entry's callback. */
static const char *nftw_file;

static int nftw_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path, (void)st, (void)type;
	if (ftw->level != 1)
		return 0;
	open_here(nftw_file);
	return 1;
}

#ifdef HAVE_LFS64
static int nftw64_cb(const char *path, const struct stat64 *st, int type, struct FTW *ftw)
{
	(void)path, (void)st, (void)type;
	if (ftw->level != 1)
		return 0;
	open_here(nftw_file);
	return 1;
}
#endif

CASE(nftw)
{
	int rc;

	nftw_file = A(1);
	rc = nftw(A(0), nftw_cb, 8, FTW_PHYS | FTW_CHDIR);
	return rc == 1 ? 0 : say_err(rc < 0 ? errno : ENOENT);
}

#ifdef HAVE_LFS64
CASE(nftw64)
{
	int rc;

	nftw_file = A(1);
	rc = nftw64(A(0), nftw64_cb, 8, FTW_PHYS | FTW_CHDIR);
	return rc == 1 ? 0 : say_err(rc < 0 ? errno : ENOENT);
}
#endif


static int run_case(int argc, char **argv);

/*
 * removed DIR FUNC ARG...: FUNC run in DIR after another process removed
 * it. The program moves to DIR and makes a relative call there, says "?"
 * and waits for a line on its stdin, which comes once DIR is gone; what
 * the program was told of its directory is then out of date.
 */
CASE(removed)
{
	char line[16];
	int argc = 0;

	if (chdir(A(0)))
		return say_err(errno);
	unlink("calltest-none");
	puts("?");
	fflush(stdout);
	if (!fgets(line, sizeof line, stdin))
		return say_err(EPIPE);
	while (argv[argc + 1])
		argc++;
	/* run_case() takes argv[0] as the program and argv[1] as FUNC */
	return run_case(argc + 1, argv);
}

/* ---- dispatch ----------------------------------------------------------- */

#define ENTRY(fn, nargs) { #fn, nargs, c_##fn }

static const struct {
	const char *name;
	int nargs;
	int (*fn)(char **argv);
} cases[] = {
	ENTRY(open, 2),
#ifdef HAVE_LFS64
	ENTRY(open64, 2),
#endif
	ENTRY(openat, 3),
#ifdef HAVE_LFS64
	ENTRY(openat64, 3),
#endif
#ifdef HAVE___OPEN_2
	ENTRY(__open_2, 2),
#endif
#ifdef HAVE___OPEN64_2
	ENTRY(__open64_2, 2),
#endif
#ifdef HAVE___OPENAT_2
	ENTRY(__openat_2, 3),
#endif
#ifdef HAVE___OPENAT64_2
	ENTRY(__openat64_2, 3),
#endif
#ifdef HAVE___OPEN_2
	ENTRY(fortify_open, 2),
#endif
#ifdef HAVE___OPENAT_2
	ENTRY(fortify_openat, 3),
#endif
#ifdef HAVE___OPEN
	ENTRY(__open, 2),
#endif
#ifdef HAVE___OPEN64
	ENTRY(__open64, 2),
#endif
	ENTRY(reopen, 2), ENTRY(reopen_devfd, 2), ENTRY(creat, 1),
#ifdef HAVE_LFS64
	ENTRY(creat64, 1),
#endif
	ENTRY(fopen, 2),
#ifdef HAVE_LFS64
	ENTRY(fopen64, 2),
#endif
	ENTRY(freopen, 2),
#ifdef HAVE_LFS64
	ENTRY(freopen64, 2),
#endif
	ENTRY(truncate, 2),
#ifdef HAVE_LFS64
	ENTRY(truncate64, 2),
#endif
	ENTRY(ftruncate, 2), ENTRY(unlink, 1), ENTRY(unlinkat, 3), ENTRY(remove, 1), ENTRY(rmdir, 1),
	ENTRY(rename, 2), ENTRY(renameat, 4),
#ifdef HAVE_RENAMEAT2
	ENTRY(renameat2, 5),
#endif
	ENTRY(link, 2), ENTRY(linkat, 5), ENTRY(linkat_fd, 2), ENTRY(linkat_proc, 2),
	ENTRY(linkat_tmpfile, 2), ENTRY(symlink, 2), ENTRY(symlinkat, 3), ENTRY(mkdir, 1),
	ENTRY(mkdirat, 2), ENTRY(mknod, 1), ENTRY(mknodat, 2), ENTRY(__xmknod, 1),
	ENTRY(__xmknodat, 2), ENTRY(mkfifo, 1), ENTRY(mkfifoat, 2), ENTRY(chmod, 2),
	ENTRY(fchmodat, 3), ENTRY(fchmod, 2), ENTRY(lchmod, 2), ENTRY(chown, 1), ENTRY(lchown, 1),
	ENTRY(fchownat, 3), ENTRY(fchown, 1), ENTRY(setxattr, 1), ENTRY(lsetxattr, 1),
	ENTRY(removexattr, 1), ENTRY(lremovexattr, 1), ENTRY(fsetxattr, 1), ENTRY(fremovexattr, 1),
	ENTRY(mkstemp, 1),
#ifdef HAVE_LFS64
	ENTRY(mkstemp64, 1),
#endif
	ENTRY(mkostemp, 1),
#ifdef HAVE_LFS64
	ENTRY(mkostemp64, 1),
#endif
	ENTRY(mkstemps, 1),
#ifdef HAVE_LFS64
	ENTRY(mkstemps64, 1),
#endif
	ENTRY(mkostemps, 1),
#ifdef HAVE_LFS64
	ENTRY(mkostemps64, 1),
#endif
	ENTRY(mkdtemp, 1), ENTRY(tmpfile, 0),
#ifdef HAVE_LFS64
	ENTRY(tmpfile64, 0),
#endif
	ENTRY(sem_open, 1), ENTRY(shm_open, 1), ENTRY(bind, 1), ENTRY(execve, 1), ENTRY(execv, 1),
	ENTRY(execvp, 1), ENTRY(execvpe, 1), ENTRY(execl, 1), ENTRY(execlp, 1), ENTRY(execle, 1),
	ENTRY(fexecve, 1),
#ifdef HAVE_EXECVEAT
	ENTRY(execveat, 2),
#endif
	ENTRY(posix_spawn, 1), ENTRY(posix_spawnp, 1), ENTRY(posix_spawnp_errno, 1),
	ENTRY(system, 1), ENTRY(popen, 1), ENTRY(spawn_noenv, 2), ENTRY(execle_noenv, 2),
	ENTRY(clearenv_exec, 2), ENTRY(syscall, 2), ENTRY(chdir, 2), ENTRY(fchdir, 2),
	ENTRY(daemon, 1),
#ifdef HAVE_FTS_OPEN
	ENTRY(fts_open, 2),
#endif
#ifdef HAVE_FTS64_OPEN
	ENTRY(fts64_open, 2),
#endif
#ifdef HAVE_FTS_OPEN
	ENTRY(fts_close, 3),
#endif
#ifdef HAVE_FTS64_OPEN
	ENTRY(fts64_close, 3),
#endif
	ENTRY(nftw, 2),
#ifdef HAVE_LFS64
	ENTRY(nftw64, 2),
#endif
#ifdef HAVE___OPEN_NOCANCEL
	ENTRY(__open_nocancel, 2),
#endif
#ifdef HAVE___OPEN64_NOCANCEL
	ENTRY(__open64_nocancel, 2),
#endif
#ifdef HAVE__IO_FOPEN
	ENTRY(_IO_fopen, 2),
#endif
	ENTRY(freopen_null, 2), ENTRY(open_by_handle_at, 2), ENTRY(setmntent, 2),
#ifdef HAVE___SETMNTENT
	ENTRY(__setmntent, 2),
#endif
#ifdef HAVE__IO_FILE_OPEN
	ENTRY(_IO_file_open, 2),
#endif
#ifdef HAVE__IO_FILE_FOPEN
	ENTRY(_IO_file_fopen, 2),
#endif
#ifdef HAVE__IO_PROC_OPEN
	ENTRY(_IO_proc_open, 1),
#endif
	ENTRY(fdopen, 1), ENTRY(fclose, 1), ENTRY(closedir, 1), ENTRY(acct, 1), ENTRY(updwtmp, 1),
	ENTRY(updwtmpx, 1), ENTRY(utmpname, 1), ENTRY(utmpxname, 1), ENTRY(pututline, 1),
	ENTRY(pututxline, 1),
#ifdef HAVE_LOGIN
	ENTRY(login, 1),
#endif
#ifdef HAVE_LOGOUT
	ENTRY(logout, 1),
#endif
#ifdef HAVE_LOGWTMP
	ENTRY(logwtmp, 0),
#endif
	ENTRY(lckpwdf, 0), ENTRY(ioctl, 1), ENTRY(utimensat, 3), ENTRY(futimens, 1),
	ENTRY(utimes, 1), ENTRY(lutimes, 1), ENTRY(futimes, 1), ENTRY(futimesat, 2), ENTRY(utime, 1),
	ENTRY(shm_unlink, 1), ENTRY(sem_unlink, 1), ENTRY(mq_open, 1), ENTRY(mq_unlink, 1),
	ENTRY(sig_freopen, 1), ENTRY(sig_open, 2), ENTRY(removed, 2),
};

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
			puts(cases[i].name);
		return 0;
	}
	/* Some cases test what glibc does where another libc may differ. */
	if (argc == 2 && !strcmp(argv[1], "--glibc")) {
#ifdef __GLIBC__
		puts("1");
#else
		puts("0");
#endif
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--fortified")) {
		printf("%d\n", fortified_build());
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: calltest FUNC ARG... | --list | --glibc | --fortified\n");
		return 2;
	}
	return run_case(argc, argv);
}

/* argv[1] is FUNC, its arguments follow. */
static int run_case(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (strcmp(cases[i].name, argv[1]))
			continue;
		if (argc - 2 < cases[i].nargs) {
			fprintf(stderr, "calltest: %s needs %d arguments\n", argv[1], cases[i].nargs);
			return 2;
		}
		/*
		 * CALLTEST_MARK brackets the case with getppid(), a syscall
		 * nothing else here makes, so a trace shows exactly which
		 * syscalls the case cost.
		 */
		if (getenv("CALLTEST_MARK"))
			getppid();
		cases[i].fn(argv + 2);
		if (getenv("CALLTEST_MARK"))
			getppid();
		fflush(stdout);
		return 0;
	}
	fprintf(stderr, "calltest: no case for %s\n", argv[1]);
	return 2;
}
