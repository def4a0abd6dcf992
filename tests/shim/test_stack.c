/*
 * stack_test - a process policy (root T, deny T/c/locked) stacked with an
 * audit context: both must allow a write-open, and when the context's
 * roots lie inside the process policy's, the open is check = use for
 * both, so a directory swapped for a symlink mid-call never leads a
 * write out of the context. TAP output. Re-runs itself under $FA_SHIM.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fa_bridge.h"
#include "fa_policy.h"

static int ntest, nfail;
static char T[PATH_MAX];
static const struct fa_bridge *br;

static void ok(int cond, const char *what)
{
	ntest++;
	if (!cond)
		nfail++;
	printf("%sok %d - %s\n", cond ? "" : "not ", ntest, what);
	fflush(stdout);
}

static char *at(const char *name)
{
	static char p[4][PATH_MAX + 64];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", T, name);
	return p[k];
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* open(path, O_WRONLY|O_CREAT): 0, or the errno. */
static int create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static fa_policy *context(const char *root)
{
	char msg[256];
	fa_policy *p = fa_policy_new();

	if (!p || fa_policy_add_root(p, root, msg, sizeof(msg)) < 0 ||
	    fa_policy_seal(p, 1, msg, sizeof(msg)) < 0) {
		printf("Bail out! policy %s: %s\n", root, msg);
		exit(1);
	}
	return p;
}

static void enter(const fa_policy *p)
{
	struct fa_thread_ctx c = { .policy = p, .exec_allowed = 0 };

	br->set_thread(p ? &c : NULL);
}

static volatile int stop;
static long swaps;
static int adir = -1;

/*
 * Exchange a/d (a directory) with a/lnk (a symlink to b) as fast as
 * possible, by names relative to a: at()'s buffers belong to the main
 * thread.
 */
static void *swapper(void *arg)
{
	(void)arg;
	while (!stop)
		if (renameat2(adir, "d", adir, "lnk", RENAME_EXCHANGE) == 0)
			swaps++;
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void race(const fa_policy *a)
{
	long rounds = 0, done = 0, denied = 0, escapes = 0;
	double end = now() + 3.0;
	pthread_t t;
	char target[PATH_MAX + 64];

	mkdir(at("a/d"), 0755);
	snprintf(target, sizeof(target), "%s/b", T);
	if (symlink(target, at("a/lnk")) < 0) {
		printf("Bail out! symlink: %s\n", strerror(errno));
		exit(1);
	}
	adir = open(at("a"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (adir < 0) {
		printf("Bail out! open a: %s\n", strerror(errno));
		exit(1);
	}
	pthread_create(&t, NULL, swapper, NULL);
	enter(a);
	while (rounds < 20000 && now() < end) {
		int e = create(at("a/d/f"));

		rounds++;
		if (e == 0)
			done++;
		else if (e == EACCES)
			denied++;
		if (exists(at("b/f"))) {
			escapes++;
			enter(NULL);
			unlink(at("b/f"));
			enter(a);
		}
	}
	enter(NULL);
	stop = 1;
	pthread_join(t, NULL);
	close(adir);
	printf("# rounds %ld done %ld denied %ld swaps %ld escapes %ld\n", rounds, done, denied,
	       swaps, escapes);
	ok(done > 0 && denied > 0 && swaps > 0, "the swap race ran (opens both allowed and denied)");
	ok(escapes == 0, "a symlink swapped in mid-open never leads a context's write outside it");
}

/*
 * A relative write is judged against the directory the kernel will
 * resolve it from, whichever way the process changed directory.
 */
static void cwd_changes(void)
{
	int back = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), bfd;

	if (back < 0 || chdir(at("a")) < 0) {
		printf("Bail out! chdir: %s\n", strerror(errno));
		exit(1);
	}
	ok(create("rel1") == 0 && exists(at("a/rel1")), "after chdir, a relative write lands in the new cwd");
	if (syscall(SYS_chdir, at("c/locked")) < 0) {
		printf("Bail out! syscall(SYS_chdir): %s\n", strerror(errno));
		exit(1);
	}
	ok(create("rel2") == EACCES && !exists(at("c/locked/rel2")) && !exists(at("a/rel2")),
	   "after syscall(SYS_chdir) into a deny subtree, a relative write there is denied");
	bfd = open(at("b"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bfd < 0 || syscall(SYS_fchdir, bfd) < 0) {
		printf("Bail out! syscall(SYS_fchdir): %s\n", strerror(errno));
		exit(1);
	}
	ok(create("rel3") == 0 && exists(at("b/rel3")) && !exists(at("c/locked/rel3")),
	   "after syscall(SYS_fchdir), a relative write lands where the cwd really is");
	close(bfd);
	if (fchdir(back) < 0)
		exit(1);
	close(back);
}

static void reexec(char **argv)
{
	const char *shim = getenv("FA_SHIM");
	char v[PATH_MAX * 2], pol[PATH_MAX * 3], tmpl[] = "/tmp/fa-stack.XXXXXX";
	char cmd[PATH_MAX * 2 + 16];
	pid_t pid;
	int st;

	if (!shim) {
		printf("1..0 # SKIP FA_SHIM not set\n");
		exit(0);
	}
	if (!mkdtemp(tmpl)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
#ifdef FA_ASAN_LIB
	snprintf(v, sizeof(v), "%s %s", FA_ASAN_LIB, shim);
	setenv("ASAN_OPTIONS", "detect_leaks=0", 0);
#else
	snprintf(v, sizeof(v), "%s", shim);
#endif
	snprintf(T, sizeof(T), "%s", tmpl);
	mkdir(at("a"), 0755);
	mkdir(at("b"), 0755);
	mkdir(at("c"), 0755);
	mkdir(at("c/locked"), 0755);
	snprintf(pol, sizeof(pol), "root %s\ndeny %s/c/locked\n", tmpl, tmpl);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		setenv("FA_STACK_TEST_DIR", tmpl, 1);
		setenv("FA_POLICY", pol, 1);
		setenv("FA_QUIET", "1", 1);
		setenv("LD_PRELOAD", v, 1);
		execv("/proc/self/exe", argv);
		printf("1..0 # SKIP cannot re-run under the shim: %s\n", strerror(errno));
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = 1 << 8;
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s-out", tmpl, tmpl);
	if (system(cmd))
		st = 1 << 8;
	exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

int main(int argc, char **argv)
{
	fa_bridge_fn fn = (fa_bridge_fn)dlsym(RTLD_DEFAULT, "fa_bridge_v1");
	const char *top = getenv("FA_STACK_TEST_DIR");
	fa_policy *a, *c;
	struct fa_denial dn;

	(void)argc;
	if (!fn || !top)
		reexec(argv);
	snprintf(T, sizeof(T), "%s", top);
	br = fn();
	printf("1..13\n");
	a = context(at("a"));
	c = context(at("c"));

	enter(a);
	ok(create(at("a/in")) == 0 && exists(at("a/in")),
	   "context inside the process roots: a write in the context's root is allowed");
	ok(create(at("b/out")) == EACCES && !exists(at("b/out")),
	   "a write the process allows but the context does not is denied");
	ok(br->recent_denials(&dn, 1) == 1 && dn.from_context && strstr(dn.path, "/b/out"),
	   "and the context is named as the policy that denied");
	{
		char sib[PATH_MAX + 8];

		/* T-out: a sibling whose name has T's as a prefix */
		snprintf(sib, sizeof(sib), "%s-out", T);
		ok(create(sib) == EACCES && !exists(sib), "a write outside both is denied");
	}
	enter(NULL);

	/* A deny subtree of the process policy inside the context's root: no covering. */
	enter(c);
	ok(create(at("c/ok")) == 0 && exists(at("c/ok")),
	   "context holding a process deny subtree: a write elsewhere in its root is allowed");
	ok(create(at("c/locked/x")) == EACCES && !exists(at("c/locked/x")),
	   "a write in the process policy's deny subtree is denied");
	ok(br->recent_denials(&dn, 1) == 1 && !dn.from_context,
	   "and the process policy is named as the one that denied");
	ok(create(at("a/y")) == EACCES && !exists(at("a/y")),
	   "a write outside that context's root is denied");
	enter(NULL);

	cwd_changes();
	race(a);
	fa_policy_free(a);
	fa_policy_free(c);
	return nfail != 0;
}
