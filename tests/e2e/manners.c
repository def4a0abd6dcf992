/* SPDX-License-Identifier: Apache-2.0 */
/*
 * manners TEST ARG... - how the shim behaves around fork, vfork, threads,
 * signals and errno. Prints "ok" or a reason and exits 0 / 1.
 *
 *   fork-threads ROOT OUT   threads hammer wrapped calls while the main
 *                           thread forks; each child must work (allowed
 *                           write inside, EACCES outside) and exit
 *   vfork PROG              vfork + execv(PROG "ok"); prints the child's
 *                           exec errno or its exit status
 *   signal ROOT OUT         a signal handler calls unlink() inside and
 *                           outside while the main thread loops on opens
 *   errno ROOT              errno is preserved across allowed calls
 *   close|dup2|dup3|close_range|closefrom ROOT OUT
 *                           a program that closes or overwrites every
 *                           descriptor it does not know (daemons, exec
 *                           launchers) must leave the policy working
 *   pthread_create ROOT OUT a new thread is confined like its creator
 *   vfork-cwd ROOT OUT      a vfork child changes directory and writes
 *                           before it exits: the parent's relative writes
 *                           are still judged in the parent's own directory
 *   clone-vm-cwd ROOT OUT   the same with a clone(CLONE_VM) child
 *   wordexp ROOT OUT        command substitution starts /bin/sh inside
 *                           libc: refused under FA_EXEC=deny, and with
 *                           exec allowed the shell is confined even after
 *                           clearenv(); words without one always expand
 *   _IO_popen ROOT OUT      popen's old name: refused under FA_EXEC=deny,
 *                           its shell confined after unsetenv(LD_PRELOAD)
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

#include "../libc_compat.h"

/* popen's libio name, exported by glibc without a declaration. */
#ifdef HAVE__IO_POPEN
extern FILE *_IO_popen(const char *cmd, const char *mode);
#endif

static const char *root, *outside;
static atomic_int stop;
static atomic_long bad;

static void *hammer(void *arg)
{
	char p[4096], q[4096];
	long id = (long)arg;

	snprintf(p, sizeof p, "%s/t%ld", root, id);
	snprintf(q, sizeof q, "%s/t%ld", outside, id);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0)
			atomic_fetch_add(&bad, 1);
		else
			close(fd);
		if (unlink(p) != 0)
			atomic_fetch_add(&bad, 1);
		if (open(q, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) >= 0 || errno != EACCES)
			atomic_fetch_add(&bad, 1);
	}
	return NULL;
}

/* What a forked child of a busy multithreaded parent must still manage. */
static int child_work(int i)
{
	char p[4096];
	int fd;

	alarm(10);
	snprintf(p, sizeof p, "%s/c%d", root, i);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return 10;
	close(fd);
	if (unlink(p))
		return 11;
	snprintf(p, sizeof p, "%s/c%d", outside, i);
	if (open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) >= 0 || errno != EACCES)
		return 12;
	return 0;
}

static int fork_threads(int n_forks)
{
	pthread_t th[4];
	long failed = 0;

	for (long i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, hammer, (void *)i))
			return puts("pthread_create failed"), 1;
	for (int i = 0; i < n_forks; i++) {
		int st;
		pid_t pid = fork();

		if (pid < 0)
			return printf("fork: %s\n", strerror(errno)), 1;
		if (pid == 0)
			_exit(child_work(i));
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("child %d: status %#x\n", i, st);
			failed++;
		}
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	if (failed || atomic_load(&bad)) {
		printf("%ld children failed, %ld bad results in threads\n", failed, atomic_load(&bad));
		return 1;
	}
	puts("ok");
	return 0;
}

static int do_vfork(const char *prog)
{
	static volatile int child_errno;
	int st;
	pid_t pid;

	child_errno = 0;
	pid = vfork();
	if (pid < 0)
		return printf("vfork: %s\n", strerror(errno)), 1;
	if (pid == 0) {
		execl(prog, prog, "ok", (char *)NULL);
		child_errno = errno;
		_exit(127);
	}
	fflush(stdout);
	if (waitpid(pid, &st, 0) < 0)
		return printf("waitpid: %s\n", strerror(errno)), 1;
	if (child_errno)
		printf("err %s\n", strerrorname_np(child_errno));
	else if (!WIFEXITED(st) || WEXITSTATUS(st))
		printf("status %#x\n", st);
	return 0;
}

static char sig_in[4096], sig_out[4096];
static volatile sig_atomic_t handled, sig_bad;

static void on_signal(int sig)
{
	int saved = errno;

	(void)sig;
	/* The inside file may or may not exist; either answer is fine. */
	if (unlink(sig_in) != 0 && errno != ENOENT)
		sig_bad++;
	if (unlink(sig_out) == 0 || errno != EACCES)
		sig_bad++;
	handled++;
	errno = saved;
}

static int signals(double secs)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	struct timespec t0, t;
	char p[4096];
	long loops = 0, loop_bad = 0;

	snprintf(sig_in, sizeof sig_in, "%s/sig", root);
	snprintf(sig_out, sizeof sig_out, "%s/f", outside);
	snprintf(p, sizeof p, "%s/main", root);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0 && errno != EINTR)
			loop_bad++;
		if (fd >= 0)
			close(fd);
		fd = open(sig_in, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
		loops++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_REAL, &it, NULL);
	if (handled < 10 || sig_bad || loop_bad) {
		printf("signals handled %d, bad in handler %d, bad in loop %ld of %ld\n",
		       (int)handled, (int)sig_bad, loop_bad, loops);
		return 1;
	}
	puts("ok");
	return 0;
}

static int check_errno(void)
{
	char p[4096];
	int fd, fails = 0;

	snprintf(p, sizeof p, "%s/e", root);
	errno = 1234;
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || errno != 1234)
		printf("write-open: fd %d errno %d\n", fd, errno), fails++;
	if (fd >= 0)
		close(fd);
	errno = 1234;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || errno != 1234)
		printf("read-open: fd %d errno %d\n", fd, errno), fails++;
	if (fd >= 0)
		close(fd);
	errno = 1234;
	if (mkdir(p, 0755) == 0 || errno != EEXIST)
		printf("mkdir of an existing name: errno %d, want EEXIST\n", errno), fails++;
	errno = 1234;
	if (unlink(p) != 0 || errno != 1234)
		printf("unlink: errno %d\n", errno), fails++;
	if (!fails)
		puts("ok");
	return fails != 0;
}

/* One allowed write inside and one denied write outside; 0 when both behave. */
static int policy_works(void)
{
	char p[4096];
	int fd;

	snprintf(p, sizeof p, "%s/alive", root);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		printf("write inside the root: %s\n", strerrorname_np(errno));
		return 1;
	}
	close(fd);
	unlink(p);
	snprintf(p, sizeof p, "%s/alive", outside);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0 || errno != EACCES) {
		printf("write outside the root: %s\n", fd >= 0 ? "allowed" : strerrorname_np(errno));
		return 1;
	}
	return 0;
}

static void *thread_check(void *arg)
{
	(void)arg;
	return (void *)(long)policy_works();
}

static int descriptors(const char *how)
{
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (!strcmp(how, "pthread_create")) {
		pthread_t th;
		void *res;

		if (pthread_create(&th, NULL, thread_check, NULL))
			return puts("pthread_create failed"), 1;
		pthread_join(th, &res);
		if (res)
			return 1;
	} else if (!strcmp(how, "close") || !strcmp(how, "__close")) {
		/* libc's exported alias, looked up rather than linked */
		int (*cl)(int) = how[0] == '_' ? (int (*)(int))(uintptr_t)dlsym(RTLD_DEFAULT, how) : close;

		for (int fd = 3; fd < 1024; fd++)
			cl(fd);
	} else if (!strcmp(how, "dup2") || !strcmp(how, "__dup2") || !strcmp(how, "dup3")) {
		int (*d2)(int, int) = how[0] == '_' ? (int (*)(int, int))(uintptr_t)dlsym(RTLD_DEFAULT, how) : dup2;

		for (int fd = 3; fd < 1024; fd++)
			if (fd != nul)
				(void)(strcmp(how, "dup3") ? d2(nul, fd) : dup3(nul, fd, O_CLOEXEC));
		for (int fd = 3; fd < 1024; fd++)
			if (fd != nul)
				close(fd);
	} else if (!strcmp(how, "close_range")) {
		close_range(3, ~0U, 0);
	} else if (!strcmp(how, "closefrom")) {
		closefrom(3);
	} else {
		return 2;
	}
	if (policy_works())
		return 1;
	puts("ok");
	return 0;
}

/* Open 'rel' for writing relative to the cwd: 0 if made, else the errno. */
static int write_rel(const char *rel)
{
	int fd = open(rel, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int exists(const char *dir, const char *name)
{
	char p[4096];

	snprintf(p, sizeof p, "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/*
 * The parent works in 'mine', its vfork child moves to 'theirs' and
 * writes there; then the parent writes again. Returns the parent's
 * second write's errno (0 when made).
 */
static const char *child_dir, *child_file;

/* The child's part: move, write, leave. */
static int child_moves(void *arg)
{
	(void)arg;
	if (chdir(child_dir))
		_exit(1);
	(void)write_rel(child_file);
	_exit(0);
}

static int use_clone;

static int vfork_round(const char *mine, const char *theirs, const char *first,
		       const char *child, const char *second)
{
	static char stack[256 * 1024] __attribute__((aligned(16)));
	int st;
	pid_t pid;

	if (chdir(mine))
		return -1;
	(void)write_rel(first);
	child_dir = theirs;
	child_file = child;
	if (use_clone) {
		/* Memory shared, working directory not (no CLONE_FS); the parent waits. */
		pid = clone(child_moves, stack + sizeof(stack), CLONE_VM | SIGCHLD, NULL);
	} else {
		pid = vfork();
		if (pid == 0)
			child_moves(NULL);
	}
	if (pid < 0)
		return -1;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return write_rel(second);
}

static int vfork_cwd(void)
{
	int e, fails = 0;

	/* Parent outside, child inside: the parent's write must not be let out. */
	e = vfork_round(outside, root, "v0", "v-child", "v-escape");
	if (e != EACCES || exists(outside, "v-escape"))
		printf("parent outside after a child wrote inside: %s, %s\n",
		       e ? strerrorname_np(e) : "made", exists(outside, "v-escape") ? "escaped" : "not made"),
			fails++;
	if (!exists(root, "v-child"))
		printf("the child's own write inside was not made\n"), fails++;
	/* Parent inside, child outside: the parent's write must not be refused. */
	e = vfork_round(root, outside, "v1", "v-child-out", "v-mine");
	if (e || !exists(root, "v-mine"))
		printf("parent inside after a child wrote outside: %s\n", e ? strerrorname_np(e) : "made elsewhere"),
			fails++;
	if (exists(outside, "v-child-out"))
		printf("the child's write outside was made\n"), fails++;
	if (!fails)
		puts("ok");
	return fails != 0;
}

static int do_wordexp(void)
{
	const char *mode = getenv("FA_EXEC");
	char cmd[8192];
	wordexp_t we;
	int rc, fails = 0;

	/* No command substitution: libc starts nothing, whatever the policy. */
	rc = wordexp("a '$(no)' \"b c\" \\`no", &we, 0);
	if (rc || we.we_wordc != 4 || strcmp(we.we_wordv[1], "$(no)"))
		printf("plain words: rc %d, %zu words\n", rc, rc ? 0 : we.we_wordc), fails++;
	if (!rc)
		wordfree(&we);
	if (mode && !strcmp(mode, "deny")) {
		snprintf(cmd, sizeof cmd, "x$(echo y >%s/w-denied)", root);
		errno = 0;
		rc = wordexp(cmd, &we, 0);
		if (rc != WRDE_CMDSUB || errno != EACCES || exists(root, "w-denied"))
			printf("substitution under exec deny: rc %d errno %s%s\n", rc,
			       strerrorname_np(errno), exists(root, "w-denied") ? ", the shell ran" : ""),
				fails++;
		snprintf(cmd, sizeof cmd, "\"`echo y >%s/w-denied2`\"", root);
		rc = wordexp(cmd, &we, 0);
		if (rc != WRDE_CMDSUB || exists(root, "w-denied2"))
			printf("backquotes under exec deny: rc %d\n", rc), fails++;
	} else {
		clearenv();
		snprintf(cmd, sizeof cmd, "$(echo y >%s/w-in; echo y >%s/w-out; echo done)", root,
			 outside);
		rc = wordexp(cmd, &we, 0);
		if (rc || we.we_wordc != 1 || strcmp(we.we_wordv[0], "done"))
			printf("substitution after clearenv: rc %d\n", rc), fails++;
		if (!rc)
			wordfree(&we);
		if (!exists(root, "w-in"))
			printf("the shell did not write inside\n"), fails++;
		if (exists(outside, "w-out"))
			printf("after clearenv the shell of a substitution wrote outside\n"), fails++;
	}
	if (!fails)
		puts("ok");
	return fails != 0;
}

#ifdef HAVE__IO_POPEN
static int do_io_popen(void)
{
	const char *mode = getenv("FA_EXEC");
	char cmd[8192], buf[64];
	FILE *f;
	int fails = 0;

	if (mode && !strcmp(mode, "deny")) {
		snprintf(cmd, sizeof cmd, "echo y >%s/p-denied", root);
		errno = 0;
		f = _IO_popen(cmd, "r");
		if (f || errno != EACCES) {
			printf("_IO_popen under exec deny: %s\n", f ? "started" : strerrorname_np(errno));
			fails++;
		}
		if (f)
			pclose(f);
		if (exists(root, "p-denied"))
			printf("the shell ran\n"), fails++;
	} else {
		unsetenv("LD_PRELOAD");
		snprintf(cmd, sizeof cmd, "echo y >%s/p-in; echo y >%s/p-out; echo done", root,
			 outside);
		f = _IO_popen(cmd, "r");
		if (!f || !fgets(buf, sizeof buf, f) || strcmp(buf, "done\n"))
			printf("_IO_popen after unsetenv: no output\n"), fails++;
		if (f)
			pclose(f);
		if (!exists(root, "p-in"))
			printf("the shell did not write inside\n"), fails++;
		if (exists(outside, "p-out"))
			printf("after unsetenv(LD_PRELOAD) the shell of _IO_popen wrote outside\n"), fails++;
	}
	if (!fails)
		puts("ok");
	return fails != 0;
}
#endif

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		/* libc's internal names only where this libc has them (symbols.def) */
		puts("fork-threads\nvfork\nsignal\nerrno\nclose\ndup2\ndup3\nclose_range\n"
		     "closefrom\npthread_create\nvfork-cwd\nclone-vm-cwd\nwordexp");
#ifdef HAVE___CLOSE
		puts("__close");
#endif
#ifdef HAVE___DUP2
		puts("__dup2");
#endif
#ifdef HAVE__IO_POPEN
		puts("_IO_popen");
#endif
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "fork-threads")) {
		root = argv[2];
		outside = argv[3];
		return fork_threads(argc > 4 ? atoi(argv[4]) : 200);
	}
	if (argc == 3 && !strcmp(argv[1], "vfork"))
		return do_vfork(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "signal")) {
		root = argv[2];
		outside = argv[3];
		return signals(argc > 4 ? atof(argv[4]) : 1.0);
	}
	if (argc == 3 && !strcmp(argv[1], "errno")) {
		root = argv[2];
		return check_errno();
	}
	if (argc == 4 && (!strcmp(argv[1], "vfork-cwd") || !strcmp(argv[1], "clone-vm-cwd") ||
			  !strcmp(argv[1], "wordexp") || !strcmp(argv[1], "_IO_popen"))) {
		root = argv[2];
		outside = argv[3];
		use_clone = argv[1][0] == 'c';
		if (argv[1][0] == 'v' || use_clone)
			return vfork_cwd();
		if (argv[1][0] == 'w')
			return do_wordexp();
#ifdef HAVE__IO_POPEN
		return do_io_popen();
#endif
	}
	if (argc == 4) {
		int rc;

		root = argv[2];
		outside = argv[3];
		rc = descriptors(argv[1]);
		if (rc != 2)
			return rc;
	}
	fprintf(stderr, "usage: manners fork-threads|vfork|signal|errno ARG...\n");
	return 2;
}
