/*
 * spawn_test - opens requested through posix_spawn file actions are judged
 * before the spawn, under the process policy and under a context. TAP
 * output. The program re-runs itself with the shim preloaded ($FA_SHIM)
 * and a process policy whose roots are A and B; C is outside.
 */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fa_bridge.h"
#include "fa_policy.h"

extern char **environ;

static int ntest, nfail;
static char A[PATH_MAX], B[PATH_MAX], C[PATH_MAX];

static void ok(int cond, const char *what)
{
	ntest++;
	if (!cond)
		nfail++;
	printf("%sok %d - %s\n", cond ? "" : "not ", ntest, what);
	fflush(stdout);
}

static char *at(const char *dir, const char *name)
{
	static char p[4][PATH_MAX + 64];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static off_t size_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? st.st_size : -1;
}

/* No child left behind: nothing to reap. */
static int no_child(void)
{
	return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

/* Spawn /bin/true (or via PATH with spawnp) with fa; 0 after it ran, or the error. */
static int run(const posix_spawn_file_actions_t *fa, int use_path)
{
	char *argv[] = { (char *)"true", NULL };
	pid_t pid;
	int st, rc;

	rc = use_path ? posix_spawnp(&pid, "true", fa, NULL, argv, environ) :
			posix_spawn(&pid, "/bin/true", fa, NULL, argv, environ);
	if (rc)
		return rc;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

/* One open action, spawned; the result of run(). */
static int spawn_open(const char *path, int flags, int use_path)
{
	posix_spawn_file_actions_t fa;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, path, flags, 0644);
	rc = run(&fa, use_path);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

/* c/fake: an ELF header and no PT_INTERP, which reads as static; a/fake: a copy of /bin/true. */
static void make_fakes(const char *top)
{
	char buf[65536];
	Elf64_Ehdr eh;
	ssize_t n;
	int in, out;

	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	out = open(at(top, "c/fake"), O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (out < 0 || write(out, &eh, sizeof(eh)) != (ssize_t)sizeof(eh)) {
		printf("Bail out! fixture c/fake: %s\n", strerror(errno));
		exit(1);
	}
	close(out);
	in = open("/bin/true", O_RDONLY);
	out = open(at(top, "a/fake"), O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in < 0 || out < 0) {
		printf("Bail out! fixture a/fake: %s\n", strerror(errno));
		exit(1);
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	close(in);
	close(out);
}

/*
 * Make the tree, run this program again under the shim and the policy,
 * then remove the tree: a process under the policy could not.
 */
static void reexec(char **argv)
{
	const char *shim = getenv("FA_SHIM");
	char v[PATH_MAX * 2], pol[PATH_MAX * 3], tmpl[] = "/tmp/fa-spawn.XXXXXX";
	char cmd[PATH_MAX + 16];
	pid_t pid;
	int st, fd;

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
	snprintf(pol, sizeof(pol), "root %s/a\nroot %s/b\n", tmpl, tmpl);
	mkdir(at(tmpl, "a"), 0755);
	mkdir(at(tmpl, "b"), 0755);
	mkdir(at(tmpl, "c"), 0755);
	fd = open(at(tmpl, "c/keep"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "keep\n", 5) != 5) {
		printf("Bail out! fixture: %s\n", strerror(errno));
		exit(1);
	}
	close(fd);
	make_fakes(tmpl);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		setenv("FA_SPAWN_TEST_DIR", tmpl, 1);
		setenv("FA_POLICY", pol, 1);
		setenv("FA_QUIET", "1", 1);
		setenv("LD_PRELOAD", v, 1);
		execv("/proc/self/exe", argv);
		printf("1..0 # SKIP cannot re-run under the shim: %s\n", strerror(errno));
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = 1 << 8;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	if (system(cmd))
		st = 1 << 8;
	exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

int main(int argc, char **argv)
{
	fa_bridge_fn fn = (fa_bridge_fn)dlsym(RTLD_DEFAULT, "fa_bridge_v1");
	const char *top = getenv("FA_SPAWN_TEST_DIR");
	const struct fa_bridge *br;
	posix_spawn_file_actions_t fa;
	struct fa_thread_ctx ctx;
	struct fa_denial dn;
	fa_policy *pol;
	char msg[256];
	int fd, rc;

	(void)argc;
	if (!fn || !top)
		reexec(argv);
	printf("1..24\n");
	br = fn();
	snprintf(A, sizeof(A), "%s/a", top);
	snprintf(B, sizeof(B), "%s/b", top);
	snprintf(C, sizeof(C), "%s/c", top);
	fd = open(at(C, "new"), O_WRONLY | O_CREAT, 0644);
	ok(fd < 0 && errno == EACCES && !exists(at(C, "new")) && size_of(at(C, "keep")) == 5,
	   "the process policy is in force (a direct write to C is denied)");

	ok(spawn_open(at(A, "out"), O_WRONLY | O_CREAT | O_TRUNC, 0) == 0 && exists(at(A, "out")),
	   "addopen for writing inside a root: the child runs and the file is made");
	ok(spawn_open(at(C, "out"), O_WRONLY | O_CREAT | O_TRUNC, 0) == EACCES &&
	   !exists(at(C, "out")) && no_child(),
	   "addopen creating a file outside the roots: EACCES, nothing made, no child");
	ok(spawn_open(at(C, "keep"), O_WRONLY | O_TRUNC, 0) == EACCES &&
	   size_of(at(C, "keep")) == 5 && no_child(),
	   "addopen truncating a file outside the roots: EACCES, the file is intact");
	ok(spawn_open(at(C, "keep"), O_RDONLY, 0) == 0,
	   "addopen reading a file outside the roots is allowed");
	ok(spawn_open(at(C, "out"), O_WRONLY | O_CREAT, 1) == EACCES && !exists(at(C, "out")),
	   "posix_spawnp judges its file actions too");
	ok(br->recent_denials(&dn, 1) == 1 && !strcmp(dn.call, "posix_spawnp") &&
	   strstr(dn.path, "/c/out") && !dn.from_context,
	   "the denial names the spawn call, the resolved path and the process policy");

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, C);
	posix_spawn_file_actions_addopen(&fa, 1, "rel", O_WRONLY | O_CREAT, 0644);
	rc = run(&fa, 0);
	posix_spawn_file_actions_destroy(&fa);
	ok(rc == EACCES && !exists(at(C, "rel")),
	   "a relative open after addchdir is judged in the directory the child will be in");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, top);
	posix_spawn_file_actions_addchdir_np(&fa, "a");
	posix_spawn_file_actions_addopen(&fa, 1, "rel", O_WRONLY | O_CREAT, 0644);
	rc = run(&fa, 0);
	posix_spawn_file_actions_destroy(&fa);
	ok(rc == 0 && exists(at(A, "rel")), "chdir actions compose: top, then a relative 'a'");

	fd = open(C, O_RDONLY | O_DIRECTORY);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addfchdir_np(&fa, fd);
	posix_spawn_file_actions_addopen(&fa, 1, "rel2", O_WRONLY | O_CREAT, 0644);
	rc = run(&fa, 0);
	posix_spawn_file_actions_destroy(&fa);
	ok(rc == EACCES && !exists(at(C, "rel2")),
	   "a relative open after addfchdir is judged against what the fd names");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, fd, A, O_RDONLY | O_DIRECTORY, 0);
	posix_spawn_file_actions_addfchdir_np(&fa, fd);
	posix_spawn_file_actions_addopen(&fa, 1, "rel3", O_WRONLY | O_CREAT, 0644);
	rc = run(&fa, 0);
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	ok(rc == EACCES && !exists(at(A, "rel3")) && br->recent_denials(&dn, 1) == 1 &&
	   !strcmp(dn.why, "spawn-actions-cwd"),
	   "an fchdir to an fd the actions themselves open cannot be judged: refused");

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	posix_spawn_file_actions_addclose(&fa, 0);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	rc = run(&fa, 0);
	posix_spawn_file_actions_destroy(&fa);
	ok(rc == 0, "close, dup2 and read-only opens pass");
	ok(spawn_open("/dev/null", O_WRONLY, 0) == 0, "a write-open of /dev/null passes");

	/*
	 * The child execs after its file actions: a relative program is the
	 * one in the directory its chdir actions select. "fake" is a static
	 * ELF header (refused under the process policy) in C, and a copy of
	 * a dynamic program in A.
	 */
	{
		char *targv[] = { (char *)"fake", NULL };
		pid_t pid;

		if (chdir(A) == 0) {
			posix_spawn_file_actions_init(&fa);
			posix_spawn_file_actions_addchdir_np(&fa, C);
			rc = posix_spawn(&pid, "./fake", &fa, NULL, targv, environ);
			posix_spawn_file_actions_destroy(&fa);
			ok(rc == EACCES && no_child(),
			   "a relative program after addchdir is the one in the child's directory (static: refused)");
		} else {
			ok(0, "chdir A");
		}
		if (chdir(C) == 0) {
			int st;

			posix_spawn_file_actions_init(&fa);
			posix_spawn_file_actions_addchdir_np(&fa, A);
			rc = posix_spawn(&pid, "./fake", &fa, NULL, targv, environ);
			posix_spawn_file_actions_destroy(&fa);
			ok(rc == 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
			   "and not the one in the parent's directory (dynamic there: runs)");
		} else {
			ok(0, "chdir C");
		}
		fd = open(A, O_RDONLY | O_DIRECTORY);
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, fd, A, O_RDONLY | O_DIRECTORY, 0);
		posix_spawn_file_actions_addfchdir_np(&fa, fd);
		rc = posix_spawn(&pid, "./fake", &fa, NULL, targv, environ);
		posix_spawn_file_actions_destroy(&fa);
		close(fd);
		ok(rc == EACCES && br->recent_denials(&dn, 1) == 1 && !strcmp(dn.why, "spawn-actions-cwd"),
		   "a relative program after an fchdir to an fd the actions open cannot be judged: refused");
		(void)!chdir("/");
	}

	/* A context whose only root is A, stacked on the process policy. */
	pol = fa_policy_new();
	if (!pol || fa_policy_add_root(pol, A, msg, sizeof(msg)) < 0 ||
	    fa_policy_seal(pol, 1, msg, sizeof(msg)) < 0) {
		printf("Bail out! policy: %s\n", msg);
		return 1;
	}
	ctx.policy = pol;
	ctx.exec_allowed = 1;
	ctx.key = NULL;
	ctx.ver = 0;
	br->set_thread(&ctx);
	ok(spawn_open(at(B, "ctx"), O_WRONLY | O_CREAT, 0) == EACCES && !exists(at(B, "ctx")),
	   "in a context, an open action outside its root is refused though the process allows it");
	ok(br->recent_denials(&dn, 1) == 1 && dn.from_context,
	   "that denial is the context's");
	ok(spawn_open(at(A, "ctx"), O_WRONLY | O_CREAT, 0) == 0 && exists(at(A, "ctx")),
	   "in a context, an open action inside its root is allowed");

	/*
	 * A context that forbids starting programs: only a start the kernel
	 * would perform is refused. A program that does not exist fails as
	 * libc makes it fail, with no denial, and a PATH search that meets
	 * missing candidates before the one the host approved reaches it.
	 */
	ctx.exec_allowed = 0;
	br->set_thread(&ctx);
	{
		char *targv[] = { (char *)"true", NULL };
		uint64_t before = br->denial_count();
		pid_t pid;
		int st;

		ok(posix_spawn(&pid, "/nonexistent-fa/prog", NULL, NULL, targv, environ) == ENOENT &&
		   br->denial_count() == before,
		   "in a context without exec, posix_spawn of a missing program: ENOENT, no denial");
		ok(posix_spawnp(&pid, "no-such-program-fa", NULL, NULL, targv, environ) == ENOENT &&
		   br->denial_count() == before,
		   "in a context without exec, posix_spawnp of a missing program: ENOENT, no denial");
		before = br->denial_count();
		ok(posix_spawn(&pid, "/bin/true", NULL, NULL, targv, environ) == EACCES &&
		   br->denial_count() == before + 1 && no_child(),
		   "in a context without exec, posix_spawn of an existing program is refused");

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			uint64_t n = br->denial_count();

			setenv("PATH", "/nonexistent-fa1:/nonexistent-fa2/x:/bin", 1);
			br->approve_exec("/bin/true");
			execvp("true", targv);
			_exit(br->denial_count() != n ? 2 : 3);
		}
		ok(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		   "an approved execvp reaches its program past missing PATH candidates, no denial");

		pid = fork();
		if (pid == 0) {
			uint64_t n = br->denial_count();

			setenv("PATH", "/nonexistent-fa1:/bin", 1);
			execvp("no-such-program-fa", targv);
			_exit(errno == ENOENT && br->denial_count() == n ? 0 : 2);
		}
		ok(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		   "execvp of a missing program in a context without exec: ENOENT, no denial");
	}
	br->set_thread(NULL);
	fa_policy_free(pol);
	return nfail != 0;
}
