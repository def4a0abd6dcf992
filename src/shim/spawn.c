/*
 * spawn.c - posix_spawn, posix_spawnp, system and popen.
 *
 * posix_spawn* run through libc after the program and the opens of the
 * file actions (spawn_actions.c) are judged and the envp is replaced by
 * the child's environment (built on the stack). system()
 * and popen() spawn "/bin/sh -c" inside libc from the global environ,
 * out of reach of any wrapper: they are judged as an exec of /bin/sh (the
 * shell, preloaded, judges what it runs), and when environ has lost the
 * shim's variables (unsetenv, clearenv) libc is handed a private copy for
 * the duration of the call. That swap is not atomic with respect to a
 * concurrent setenv() in another thread, whose change may be lost.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
		*mem = mmap(NULL, *sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (*mem == MAP_FAILED)
			return ENOMEM;
	}
	*newenv = fa_child_env(envp, *mem, *sz);
	return *newenv ? 0 : ENOMEM;
}

static void child_env_free(void *stack, void *mem, size_t sz)
{
	if (mem != stack && mem != MAP_FAILED)
		munmap(mem, sz);
}

static int spawn_slow(void *ra, const char *call, pid_t *pid, const char *path,
		      const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
		      char *const argv[], char *const envp[])
{
	static char *const empty[] = { NULL };
	char stack[ENV_STACK];
	char **newenv;
	void *mem;
	size_t sz;
	int rc, saved = errno;

	rc = fa_exec_check(call, AT_FDCWD, path, 0, ra);
	if (rc == 0)
		rc = fa_spawn_actions_check(call, fa, ra);
	errno = saved;
	if (rc < 0)
		return -rc;
	if (!fa_proc.active)
		return FA_REAL(posix_spawn)(pid, path, fa, attr, argv, envp);
	rc = child_env(envp ? envp : empty, stack, sizeof(stack), &mem, &sz, &newenv);
	if (!rc)
		rc = FA_REAL(posix_spawn)(pid, path, fa, attr, argv, newenv);
	child_env_free(stack, mem, sz);
	errno = saved;
	return rc;
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	if (FA_GATE_OPEN())
		return fa_real_posix_spawn(pid, path, fa, attr, argv, envp);
	return spawn_slow(FA_RA(), "posix_spawn", pid, path, fa, attr, argv, envp);
}

/*
 * posix_spawnp: the PATH search is done here so that the program judged
 * is the program started: the first entry holding an executable regular
 * file, which is where libc's search would stop too.
 */
int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	const char *path, *p, *end;
	char buf[PATH_MAX];
	size_t flen;
	struct stat st;

	if (FA_GATE_OPEN())
		return fa_real_posix_spawnp(pid, file, fa, attr, argv, envp);
	if (!*file)
		return ENOENT;
	if (strchr(file, '/'))
		return spawn_slow(FA_RA(), "posix_spawnp", pid, file, fa, attr, argv, envp);
	flen = strlen(file);
	path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; p = end + 1) {
		size_t dl;

		end = strchrnul(p, ':');
		dl = (size_t)(end - p);
		if (dl + flen + 2 <= sizeof(buf)) {
			memcpy(buf, p, dl);
			if (dl)
				buf[dl++] = '/';
			memcpy(buf + dl, file, flen + 1);
			if (!faccessat(AT_FDCWD, buf, X_OK, AT_EACCESS) && !stat(buf, &st) &&
			    S_ISREG(st.st_mode))
				return spawn_slow(FA_RA(), "posix_spawnp", pid, buf, fa, attr, argv, envp);
		}
		if (!*end)
			break;
	}
	return ENOENT;
}

/* Judge /bin/sh; 0, or -1 with errno for a denial. */
static int shell_check(void *ra, const char *call)
{
	int rc = fa_exec_check(call, AT_FDCWD, "/bin/sh", 0, ra);

	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

int system(const char *cmd)
{
	char stack[ENV_STACK];
	char **newenv, **old;
	void *mem;
	size_t sz;
	int rc, e;

	if (FA_GATE_OPEN() || FA_GUARDED())
		return FA_REAL(system)(cmd);
	if (shell_check(FA_RA(), "system") < 0)
		return -1;
	if (!fa_proc.active || fa_child_env_ok(environ))
		return FA_REAL(system)(cmd);
	e = child_env(environ, stack, sizeof(stack), &mem, &sz, &newenv);
	if (e) {
		errno = e;
		return -1;
	}
	old = environ;
	environ = newenv;
	rc = FA_REAL(system)(cmd);
	e = errno;
	environ = old;
	child_env_free(stack, mem, sz);
	errno = e;
	return rc;
}

FILE *popen(const char *cmd, const char *mode)
{
	char stack[ENV_STACK];
	char **newenv, **old;
	void *mem;
	size_t sz;
	FILE *f;
	int e;

	if (FA_GATE_OPEN() || FA_GUARDED())
		return FA_REAL(popen)(cmd, mode);
	if (shell_check(FA_RA(), "popen") < 0)
		return NULL;
	if (!fa_proc.active || fa_child_env_ok(environ))
		return FA_REAL(popen)(cmd, mode);
	e = child_env(environ, stack, sizeof(stack), &mem, &sz, &newenv);
	if (e) {
		errno = e;
		return NULL;
	}
	old = environ;
	environ = newenv;
	f = FA_REAL(popen)(cmd, mode);
	e = errno;
	environ = old;
	child_env_free(stack, mem, sz);
	errno = e;
	return f;
}
