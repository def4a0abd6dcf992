/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Opens requested through posix_spawn file actions are judged before the
 * spawn, under the process policy (roots T/a and T/b; T/c is outside) and
 * under a context; the program a spawn starts is the one the child's
 * directory selects; a context without exec refuses only what the kernel
 * would start.
 */
#include "config.h"

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

#include "under_shim.h"

extern char **environ;

static char A[PATH_MAX + 8], B[PATH_MAX + 8], C[PATH_MAX + 8];

/* dir/name in a rotating buffer. */
static const char *in(const char *dir, const char *name)
{
	static char p[4][PATH_MAX + 64];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void must(int cond, const char *what)
{
	if (!cond) {
		printf("Bail out! fixture %s: %s\n", what, strerror(errno));
		exit(1);
	}
}

/* c/fake: an ELF header and no PT_INTERP, which reads as static; a/fake: a copy of /bin/true. */
static void make_fakes(void)
{
	char buf[65536];
	Elf64_Ehdr eh;
	ssize_t n;
	int fd, src;

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
	fd = open(at("c/fake"), O_WRONLY | O_CREAT | O_TRUNC, 0755);
	must(fd >= 0 && write(fd, &eh, sizeof(eh)) == (ssize_t)sizeof(eh), "c/fake");
	close(fd);
	src = open("/bin/true", O_RDONLY);
	fd = open(at("a/fake"), O_WRONLY | O_CREAT | O_TRUNC, 0755);
	must(src >= 0 && fd >= 0, "a/fake");
	while ((n = read(src, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			break;
	close(src);
	close(fd);
}

static const char *fixture(void)
{
	static char pol[PATH_MAX * 3];
	int fd;

	must(mkdir(at("a"), 0755) == 0 && mkdir(at("b"), 0755) == 0 && mkdir(at("c"), 0755) == 0,
	     "mkdir");
	fd = open(at("c/keep"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	must(fd >= 0 && write(fd, "keep\n", 5) == 5, "c/keep");
	close(fd);
	make_fakes();
	snprintf(pol, sizeof(pol), "root %s/a\nroot %s/b\n", T, T);
	return pol;
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

static int last_denial(struct fa_denial *dn)
{
	return br->recent_denials(dn, 1) == 1;
}

static void process_policy_in_force(void **state)
{
	int fd = open(in(C, "new"), O_WRONLY | O_CREAT, 0644);

	(void)state;
	assert_true(fd < 0 && errno == EACCES);
	assert_false(exists(in(C, "new")));
	assert_int_equal(size_of(in(C, "keep")), 5);
}

static void addopen_inside(void **state)
{
	(void)state;
	assert_int_equal(spawn_open(in(A, "out"), O_WRONLY | O_CREAT | O_TRUNC, 0), 0);
	assert_true(exists(in(A, "out")));
}

static void addopen_create_outside(void **state)
{
	(void)state;
	assert_int_equal(spawn_open(in(C, "out"), O_WRONLY | O_CREAT | O_TRUNC, 0), EACCES);
	assert_false(exists(in(C, "out")));
	assert_true(no_child());
}

static void addopen_truncate_outside(void **state)
{
	(void)state;
	assert_int_equal(spawn_open(in(C, "keep"), O_WRONLY | O_TRUNC, 0), EACCES);
	assert_int_equal(size_of(in(C, "keep")), 5);
	assert_true(no_child());
}

static void addopen_read_outside(void **state)
{
	(void)state;
	assert_int_equal(spawn_open(in(C, "keep"), O_RDONLY, 0), 0);
}

static void spawnp_judged(void **state)
{
	(void)state;
	assert_int_equal(spawn_open(in(C, "out"), O_WRONLY | O_CREAT, 1), EACCES);
	assert_false(exists(in(C, "out")));
}

static void denial_names_spawn(void **state)
{
	struct fa_denial dn;

	(void)state;
	assert_true(last_denial(&dn));
	assert_string_equal(dn.call, "posix_spawnp");
	assert_non_null(strstr(dn.path, "/c/out"));
	assert_false(dn.from_context);
}

/* Spawns /bin/true with chdir actions to dir1 (and dir2), then an open of "name". */
static int chdir_then_open(const char *dir1, const char *dir2, const char *name)
{
	posix_spawn_file_actions_t fa;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, dir1);
	if (dir2)
		posix_spawn_file_actions_addchdir_np(&fa, dir2);
	posix_spawn_file_actions_addopen(&fa, 1, name, O_WRONLY | O_CREAT, 0644);
	rc = run(&fa, 0);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

static void addchdir_relative_open(void **state)
{
	(void)state;
	assert_int_equal(chdir_then_open(C, NULL, "rel"), EACCES);
	assert_false(exists(in(C, "rel")));
}

static void chdir_actions_compose(void **state)
{
	(void)state;
	assert_int_equal(chdir_then_open(T, "a", "rel"), 0);
	assert_true(exists(in(A, "rel")));
}

static void addfchdir_relative_open(void **state)
{
	posix_spawn_file_actions_t fa;
	int fd = open(C, O_RDONLY | O_DIRECTORY), rc;

	(void)state;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addfchdir_np(&fa, fd);
	posix_spawn_file_actions_addopen(&fa, 1, "rel2", O_WRONLY | O_CREAT, 0644);
	rc = run(&fa, 0);
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	assert_int_equal(rc, EACCES);
	assert_false(exists(in(C, "rel2")));
}

/*
 * An fchdir to an fd that an earlier action of the same spawn opens: what
 * the fd will name cannot be judged before the spawn. The fd number is
 * one this process has open (on C), so that the parent's fd says nothing.
 */
static int fchdir_to_own_fd(const char *what_to_run, pid_t *pid)
{
	char *targv[] = { (char *)"true", NULL };
	posix_spawn_file_actions_t fa;
	int fd = open(what_to_run ? A : C, O_RDONLY | O_DIRECTORY), rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, fd, A, O_RDONLY | O_DIRECTORY, 0);
	posix_spawn_file_actions_addfchdir_np(&fa, fd);
	if (what_to_run) {
		rc = posix_spawn(pid, what_to_run, &fa, NULL, targv, environ);
	} else {
		posix_spawn_file_actions_addopen(&fa, 1, "rel3", O_WRONLY | O_CREAT, 0644);
		rc = run(&fa, 0);
	}
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	return rc;
}

static void fchdir_own_fd_refused(void **state)
{
	struct fa_denial dn;

	(void)state;
	assert_int_equal(fchdir_to_own_fd(NULL, NULL), EACCES);
	assert_false(exists(in(A, "rel3")));
	assert_true(last_denial(&dn));
	assert_string_equal(dn.why, "spawn-actions-cwd");
}

static void other_actions_pass(void **state)
{
	posix_spawn_file_actions_t fa;
	int rc;

	(void)state;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	posix_spawn_file_actions_addclose(&fa, 0);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	rc = run(&fa, 0);
	posix_spawn_file_actions_destroy(&fa);
	assert_int_equal(rc, 0);
}

static void dev_null_passes(void **state)
{
	(void)state;
	assert_int_equal(spawn_open("/dev/null", O_WRONLY, 0), 0);
}

/*
 * The child execs after its file actions: a relative program is the one
 * in the directory its chdir actions select. "fake" is a static ELF
 * header (refused under the process policy) in C, and a copy of a
 * dynamic program in A: /bin/true, run as "true" (argv[0] is what a
 * multi-call program such as busybox runs).
 */
static int spawn_fake_from(const char *parent_cwd, const char *child_cwd, pid_t *pid)
{
	char *targv[] = { (char *)"true", NULL };
	posix_spawn_file_actions_t fa;
	int rc;

	if (chdir(parent_cwd) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addchdir_np(&fa, child_cwd);
	rc = posix_spawn(pid, "./fake", &fa, NULL, targv, environ);
	posix_spawn_file_actions_destroy(&fa);
	(void)!chdir("/");
	return rc;
}

static void program_from_child_dir_static(void **state)
{
	pid_t pid;

	(void)state;
	assert_int_equal(spawn_fake_from(A, C, &pid), EACCES);
	assert_true(no_child());
}

static void program_not_from_parent_dir(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	assert_int_equal(spawn_fake_from(C, A, &pid), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && !WEXITSTATUS(st));
}

static void program_after_own_fd_refused(void **state)
{
	struct fa_denial dn;
	pid_t pid;
	int rc;

	(void)state;
	assert_int_equal(chdir(C), 0);
	rc = fchdir_to_own_fd("./fake", &pid);
	(void)!chdir("/");
	assert_int_equal(rc, EACCES);
	assert_true(last_denial(&dn));
	assert_string_equal(dn.why, "spawn-actions-cwd");
}

/* A context whose only root is A, stacked on the process policy. */
static fa_policy *ctx_a;

static void context_refuses_outside(void **state)
{
	(void)state;
	enter(ctx_a, 1);
	assert_int_equal(spawn_open(in(B, "ctx"), O_WRONLY | O_CREAT, 0), EACCES);
	assert_false(exists(in(B, "ctx")));
}

static void context_denial_is_contexts(void **state)
{
	struct fa_denial dn;

	(void)state;
	assert_true(last_denial(&dn));
	assert_true(dn.from_context);
}

static void context_allows_inside(void **state)
{
	(void)state;
	enter(ctx_a, 1);
	assert_int_equal(spawn_open(in(A, "ctx"), O_WRONLY | O_CREAT, 0), 0);
	assert_true(exists(in(A, "ctx")));
	enter(NULL, 0);
}

/* Native code's starts carry the context's roots too, whatever the spawn path. */
static void context_spawn_child_confined(void **state)
{
	char cmd[3 * PATH_MAX];
	char *sargv[] = { (char *)"sh", (char *)"-c", cmd, NULL };
	pid_t pid;
	int st;

	(void)state;
	snprintf(cmd, sizeof(cmd), "echo x > %s; echo y > %s", in(B, "nat1"), in(A, "nat1"));
	enter(ctx_a, 1);
	assert_int_equal(posix_spawn(&pid, "/bin/sh", NULL, NULL, sargv, environ), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	enter(NULL, 0);
	assert_false(exists(in(B, "nat1")));
	assert_true(exists(in(A, "nat1")));
}

static void context_system_confined(void **state)
{
	char cmd[3 * PATH_MAX];
	int rc;

	(void)state;
	snprintf(cmd, sizeof(cmd), "echo x > %s; echo y > %s", in(B, "nat2"), in(A, "nat2"));
	enter(ctx_a, 1);
	rc = system(cmd);
	enter(NULL, 0);
	assert_int_not_equal(rc, -1);
	assert_false(exists(in(B, "nat2")));
	assert_true(exists(in(A, "nat2")));
}

/*
 * A context that forbids starting programs: only a start the kernel would
 * perform is refused. A program that does not exist fails as libc makes
 * it fail, with no denial, and a PATH search that meets missing
 * candidates before the one the host approved reaches it.
 */
static char *true_argv[] = { (char *)"true", NULL };

/* posix_spawn (or posix_spawnp) of prog in the context without exec; *denials: how many it made. */
static int spawn_no_exec(int use_path, const char *prog, uint64_t *denials)
{
	uint64_t before;
	pid_t pid;
	int rc;

	enter(ctx_a, 0);
	before = br->denial_count();
	rc = use_path ? posix_spawnp(&pid, prog, NULL, NULL, true_argv, environ) :
			posix_spawn(&pid, prog, NULL, NULL, true_argv, environ);
	*denials = br->denial_count() - before;
	return rc;
}

/*
 * Whether posix_spawn reports a failed exec here: under qemu-user it does
 * not (its CLONE_VFORK child is a fork, which cannot hand the error back),
 * and returns 0 for a child that exits 127.
 */
static int spawn_reports_exec_errors(void)
{
	char *argv[] = { (char *)"prog", NULL };
	pid_t pid;
	int rc = posix_spawn(&pid, "/nonexistent-fa/prog", NULL, NULL, argv, environ);

	if (rc == 0) {
		waitpid(pid, NULL, 0);
		fprintf(stderr, "# posix_spawn does not report a failed exec here (qemu-user?)\n");
	}
	return rc == ENOENT;
}

static void no_exec_missing_program(void **state)
{
	uint64_t denials;

	(void)state;
	if (!spawn_reports_exec_errors())
		skip();
	assert_int_equal(spawn_no_exec(0, "/nonexistent-fa/prog", &denials), ENOENT);
	assert_int_equal(denials, 0);
}

static void no_exec_missing_program_path(void **state)
{
	uint64_t denials;

	(void)state;
	assert_int_equal(spawn_no_exec(1, "no-such-program-fa", &denials), ENOENT);
	assert_int_equal(denials, 0);
}

static void no_exec_existing_refused(void **state)
{
	uint64_t denials;

	(void)state;
	assert_int_equal(spawn_no_exec(0, "/bin/true", &denials), EACCES);
	assert_int_equal(denials, 1);
	assert_true(no_child());
}

/* In a child: execvp of prog with PATH set to path; the child's exit status. */
static int child_execvp(const char *path, const char *approve, const char *prog)
{
	pid_t pid;
	int st;

	enter(ctx_a, 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		uint64_t n = br->denial_count();

		setenv("PATH", path, 1);
		if (approve)
			br->approve_exec(approve);
		execvp(prog, true_argv);
		/* Approved: any return is a failure. Not: ENOENT and no denial. */
		_exit(!approve && errno == ENOENT && br->denial_count() == n ? 0 : 2);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void approved_execvp_past_missing(void **state)
{
	(void)state;
	/* true exits 0; a refusal or a failed search exits 2. */
	assert_int_equal(child_execvp("/nonexistent-fa1:/nonexistent-fa2/x:/bin", "/bin/true", "true"), 0);
}

static void no_exec_execvp_missing(void **state)
{
	(void)state;
	assert_int_equal(child_execvp("/nonexistent-fa1:/bin", NULL, "no-such-program-fa"), 0);
	enter(NULL, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		HOLDS(process_policy_in_force, "the process policy is in force (a direct write to C is denied)"),
		HOLDS(addopen_inside, "addopen for writing inside a root: the child runs and the file is made"),
		HOLDS(addopen_create_outside, "addopen creating a file outside the roots: EACCES, nothing made, no child"),
		HOLDS(addopen_truncate_outside, "addopen truncating a file outside the roots: EACCES, the file is intact"),
		HOLDS(addopen_read_outside, "addopen reading a file outside the roots is allowed"),
		HOLDS(spawnp_judged, "posix_spawnp judges its file actions too"),
		HOLDS(denial_names_spawn, "the denial names the spawn call, the resolved path and the process policy"),
		HOLDS(addchdir_relative_open, "a relative open after addchdir is judged in the directory the child will be in"),
		HOLDS(chdir_actions_compose, "chdir actions compose: top, then a relative 'a'"),
		HOLDS(addfchdir_relative_open, "a relative open after addfchdir is judged against what the fd names"),
		HOLDS(fchdir_own_fd_refused, "an fchdir to an fd the actions themselves open cannot be judged: refused"),
		HOLDS(other_actions_pass, "close, dup2 and read-only opens pass"),
		HOLDS(dev_null_passes, "a write-open of /dev/null passes"),
		HOLDS(program_from_child_dir_static,
		      "a relative program after addchdir is the one in the child's directory (static: refused)"),
		HOLDS(program_not_from_parent_dir, "and not the one in the parent's directory (dynamic there: runs)"),
		HOLDS(program_after_own_fd_refused,
		      "a relative program after an fchdir to an fd the actions open cannot be judged: refused"),
		HOLDS(context_refuses_outside,
		      "in a context, an open action outside its root is refused though the process allows it"),
		HOLDS(context_denial_is_contexts, "that denial is the context's"),
		HOLDS(context_allows_inside, "in a context, an open action inside its root is allowed"),
		HOLDS(context_spawn_child_confined,
		      "a context's posix_spawn child writes inside its root only, though the process allows more"),
		HOLDS(context_system_confined, "a context's system() shell writes inside its root only"),
		HOLDS(no_exec_missing_program,
		      "in a context without exec, posix_spawn of a missing program: ENOENT, no denial"),
		HOLDS(no_exec_missing_program_path,
		      "in a context without exec, posix_spawnp of a missing program: ENOENT, no denial"),
		HOLDS(no_exec_existing_refused,
		      "in a context without exec, posix_spawn of an existing program is refused"),
		HOLDS(approved_execvp_past_missing,
		      "an approved execvp reaches its program past missing PATH candidates, no denial"),
		HOLDS(no_exec_execvp_missing,
		      "execvp of a missing program in a context without exec: ENOENT, no denial"),
	};
	int r;

	(void)argc;
	under_shim(argv, fixture);
	snprintf(A, sizeof(A), "%s/a", T);
	snprintf(B, sizeof(B), "%s/b", T);
	snprintf(C, sizeof(C), "%s/c", T);
	ctx_a = context_policy(A);
	r = RUN_UNDER_SHIM("spawn", tests);
	fa_policy_free(ctx_a);
	return r;
}
