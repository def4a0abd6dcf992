/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spawn.c - posix_spawn, posix_spawnp, system, popen and wordexp.
 *
 * posix_spawn* run through libc after the program and the opens of the
 * file actions (spawn_actions.c) are judged and the envp is replaced by
 * the child's environment (built on the stack). system(), popen() (and
 * libio's exported _IO_popen and _IO_proc_open) and wordexp()'s command
 * substitution spawn /bin/sh inside libc from the global environ, out of reach of any
 * wrapper: they are judged as an exec of /bin/sh (the shell, preloaded,
 * judges what it runs), and when environ has lost the shim's variables
 * (unsetenv, clearenv) libc is handed a private copy for the duration of
 * the call. That swap is not atomic with respect to a concurrent setenv()
 * in another thread, whose change may be lost. The same swap gives the
 * shell a context's policy when an audit context's host approved it.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "path_search.h"
#include "sys.h"
#include "wrap.h"

extern char **environ;

#define ENV_STACK (64 * 1024)

/* Returns 0 and sets mem, sz and newenv, or an errno value. */
static int child_env(char *const envp[], void *stack, size_t stacklen, void **mem,
		     size_t *sz, char ***newenv)
{
	*sz = fa_child_env_size(envp);
	*mem = stack;
	if (*sz > stacklen) {
		*mem = fa__sys_mmap(*sz, PROT_READ | PROT_WRITE);
		if (!*mem)
			return ENOMEM;
	}
	*newenv = fa_child_env(envp, *mem, *sz);
	return *newenv ? 0 : ENOMEM;
}

static void child_env_free(void *stack, void *mem, size_t sz)
{
	if (mem != stack && mem)
		fa__sys_munmap(mem, sz);
}

/*
 * The child execs after its file actions ran: a relative program, and a
 * relative #! interpreter, are found from the directory its chdir and
 * fchdir actions select.
 */
static int spawn_exec_check(void *ra, const char *call, const char *path,
			    const posix_spawn_file_actions_t *fa, char *const argv[])
{
	char dir[PATH_MAX];
	int dirfd = AT_FDCWD, cwd, rc;

	/* set again by the judging of the program, when it is judged */
	fa_child_ctx(NULL);
	rc = fa_spawn_actions_cwd(fa, &dirfd, dir, sizeof(dir));
	if (rc == 0)
		return fa_exec_check(call, AT_FDCWD, path, 0, argv, AT_FDCWD, ra);
	if (rc < 0) {
		/* Unknown: under a process policy a relative program cannot be judged. */
		if (path[0] != '/' && fa_proc.active)
			return fa_exec_refuse(call, path, "spawn-actions-cwd",
					      "a relative program started from a directory the file actions themselves set up cannot be judged before the spawn",
					      ra);
		return fa_exec_check(call, AT_FDCWD, path, 0, argv, AT_FDCWD, ra);
	}
	cwd = FA_REAL(openat)(dirfd, *dir ? dir : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0)
		/* The child's chdir fails and nothing is started. */
		return 0;
	rc = fa_exec_check(call, cwd, path, 0, argv, cwd, ra);
	FA_REAL(close)(cwd);
	return rc;
}

static int spawn_slow(void *ra, const char *call, pid_t *pid, const char *path,
		      const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
		      char *const argv[], char *const envp[])
{
	static char *const empty[] = { NULL };
	char stack[ENV_STACK] __attribute__((aligned(sizeof(char *))));
	char **newenv;
	void *mem;
	size_t sz;
	int rc, e, saved = errno;

	rc = spawn_exec_check(ra, call, path, fa, argv);
	if (rc == 0)
		rc = fa_spawn_actions_check(call, fa, ra);
	errno = saved;
	if (rc < 0)
		return -rc;
	if (!fa_proc.active && !fa_tls.child_ctx)
		return FA_REAL(posix_spawn)(pid, path, fa, attr, argv, envp);
	rc = child_env(envp ? envp : empty, stack, sizeof(stack), &mem, &sz, &newenv);
	fa_child_ctx_done();
	if (!rc)
		rc = FA_REAL(posix_spawn)(pid, path, fa, attr, argv, newenv);
	/* errno as libc left it, as without the shim. */
	e = errno;
	child_env_free(stack, mem, sz);
	errno = e;
	return rc;
}

int FA_WRAPPER(posix_spawn)(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	if (FA_GATE_OPEN())
		return fa_real_posix_spawn(pid, path, fa, attr, argv, envp);
	return spawn_slow(FA_RA(), "posix_spawn", pid, path, fa, attr, argv, envp);
}

/*
 * posix_spawnp: the PATH search is done here so that the program judged
 * is the program started: the first entry holding an executable regular
 * file, which is where libc's search would stop too. A search that finds
 * none fails as libc's does: EACCES if some candidate existed but could
 * not be executed, ENOENT otherwise, in errno too.
 */
int FA_WRAPPER(posix_spawnp)(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	struct fa_path_search ps;
	char buf[PATH_MAX];
	struct stat st;
	int saved = errno, got_eacces = 0, rc;

	if (FA_GATE_OPEN())
		return fa_real_posix_spawnp(pid, file, fa, attr, argv, envp);
	if (!*file)
		return ENOENT;
	if (strchr(file, '/'))
		return spawn_slow(FA_RA(), "posix_spawnp", pid, file, fa, attr, argv, envp);
	fa_path_search_init(&ps, file);
	while ((rc = fa_path_search_next(&ps, buf, sizeof(buf))) != 0) {
		if (rc > 0 && !stat(buf, &st)) {
			if (S_ISREG(st.st_mode) && !faccessat(AT_FDCWD, buf, X_OK, AT_EACCESS)) {
				errno = saved;
				return spawn_slow(FA_RA(), "posix_spawnp", pid, buf, fa, attr, argv, envp);
			}
			got_eacces = 1;
		}
	}
	/*
	 * libc's child tried each candidate on the parent's memory, errno
	 * included: its last answer is left there, as the result.
	 */
	errno = got_eacces ? EACCES : ENOENT;
	return errno;
}

/*
 * system(), popen() and wordexp() start /bin/sh inside libc from the
 * global environ. The shell is judged as an exec of /bin/sh (0, or -1
 * with errno for a denial); while libc runs, environ carries the shim's
 * variables if the program removed them.
 */
static int shell_check(void *ra, const char *call)
{
	int rc = fa_exec_check(call, AT_FDCWD, "/bin/sh", 0, NULL, AT_FDCWD, ra);

	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

struct env_swap {
	char **old;
	void *mem;
	size_t sz;
	int swapped;
	/* Holds the new envp's pointer array first. */
	char stack[ENV_STACK] __attribute__((aligned(sizeof(char *))));
};

/* 0, or an errno value. */
static int swap_in(struct env_swap *s)
{
	char **newenv;
	int e;

	s->swapped = 0;
	if ((!fa_proc.active && !fa_tls.child_ctx) || fa_child_env_ok(environ))
		return 0;
	e = child_env(environ, s->stack, sizeof(s->stack), &s->mem, &s->sz, &newenv);
	fa_child_ctx_done();
	if (e)
		return e;
	s->old = environ;
	environ = newenv;
	s->swapped = 1;
	return 0;
}

static void swap_out(struct env_swap *s)
{
	int e = errno;

	if (!s->swapped)
		return;
	environ = s->old;
	child_env_free(s->stack, s->mem, s->sz);
	errno = e;
}

int FA_WRAPPER(system)(const char *cmd)
{
	struct env_swap s;
	int rc, e;

	if (FA_GATE_OPEN() || FA_GUARDED())
		return FA_REAL(system)(cmd);
	if (shell_check(FA_RA(), "system") < 0)
		return -1;
	e = swap_in(&s);
	if (e) {
		errno = e;
		return -1;
	}
	rc = FA_REAL(system)(cmd);
	swap_out(&s);
	return rc;
}

/* popen's start: the shell judged, then the environment swapped in; 0 or -1 with errno. */
static int popen_enter(void *ra, const char *call, struct env_swap *s)
{
	int e;

	if (shell_check(ra, call) < 0)
		return -1;
	e = swap_in(s);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

FILE *FA_WRAPPER(popen)(const char *cmd, const char *mode)
{
	struct env_swap s;
	FILE *f;

	if (FA_GATE_OPEN() || FA_GUARDED())
		return FA_REAL(popen)(cmd, mode);
	if (popen_enter(FA_RA(), "popen", &s) < 0)
		return NULL;
	f = FA_REAL(popen)(cmd, mode);
	swap_out(&s);
	return f;
}

/* The old libio name of popen, still exported and reachable by itself. */
#ifdef HAVE__IO_POPEN
FILE *FA_WRAPPER(_IO_popen)(const char *cmd, const char *mode)
{
	struct env_swap s;
	FILE *f;

	if (FA_GATE_OPEN() || FA_GUARDED())
		return FA_REAL(_IO_popen)(cmd, mode);
	if (popen_enter(FA_RA(), "_IO_popen", &s) < 0)
		return NULL;
	f = FA_REAL(_IO_popen)(cmd, mode);
	swap_out(&s);
	return f;
}
#endif

/* popen's engine, also exported: it fills a FILE its caller provides. */
#ifdef HAVE__IO_PROC_OPEN
FILE *FA_WRAPPER(_IO_proc_open)(FILE *fp, const char *cmd, const char *mode)
{
	struct env_swap s;
	FILE *f;

	if (FA_GATE_OPEN() || FA_GUARDED())
		return FA_REAL(_IO_proc_open)(fp, cmd, mode);
	if (popen_enter(FA_RA(), "_IO_proc_open", &s) < 0)
		return NULL;
	f = FA_REAL(_IO_proc_open)(fp, cmd, mode);
	swap_out(&s);
	return f;
}
#endif

/*
 * wordexp() runs a command substitution ($(...) or `...`) through
 * /bin/sh. Whether these words hold one is libc's own parse to decide
 * (quoting, escapes): it is asked first with WRDE_NOCMD, on a scratch
 * result, and answers WRDE_CMDSUB exactly when the real call would start
 * a shell. A refused shell fails the call with WRDE_CMDSUB and EACCES,
 * the caller's result untouched.
 */
int FA_WRAPPER(wordexp)(const char *words, wordexp_t *we, int flags)
{
	struct env_swap s;
	wordexp_t probe;
	int rc, e;

	if (FA_GATE_OPEN() || FA_GUARDED() || (flags & WRDE_NOCMD) || !words ||
	    (!strchr(words, '`') && !strstr(words, "$(")))
		return FA_REAL(wordexp)(words, we, flags);
	memset(&probe, 0, sizeof(probe));
	rc = FA_REAL(wordexp)(words, &probe,
			      (flags & ~(WRDE_APPEND | WRDE_REUSE | WRDE_DOOFFS)) | WRDE_NOCMD);
	if (rc == 0 || rc == WRDE_NOSPACE)
		wordfree(&probe);
	if (rc != WRDE_CMDSUB)
		return FA_REAL(wordexp)(words, we, flags);
	if (shell_check(FA_RA(), "wordexp") < 0)
		return WRDE_CMDSUB;
	e = swap_in(&s);
	if (e) {
		errno = e;
		return WRDE_NOSPACE;
	}
	rc = FA_REAL(wordexp)(words, we, flags);
	swap_out(&s);
	return rc;
}
