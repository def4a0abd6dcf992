/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exec.c - the exec family: judge the program, then start it with the
 * shim and the policy in its environment whatever envp the caller built.
 *
 * A program an audit context lets start (its host approved it) carries
 * the context's policy as its process policy: FA_POLICY is the meet of
 * the process policy and the context's (it can only narrow), and
 * FA_FLOOR_APPLY asks the shim in the new image to put the Landlock floor
 * under it before main() (env.c). Only a start the host approved with
 * UNCONFINED goes out as the host process itself would.
 *
 * Everything here may run in a vfork child: no malloc, no change to
 * environ or to any other shared state, only stack memory and syscalls.
 * The new envp is built on the stack; the array stays valid until the
 * exec replaces the process (or fails and we return).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "path_search.h"
#include "sys.h"
#include "wrap.h"

extern char **environ;

/* ---- the child's environment ---- */

static const char *preload_value(void)
{
	return fa_proc.ld_preload ? fa_proc.ld_preload + FA_PRELOAD_EQ_LEN : "";
}

static int is_sep(char c)
{
	return c == ' ' || c == ':';
}

static int has_token(const char *list, const char *tok, size_t n)
{
	const char *p = list;

	while (*p) {
		size_t k;

		while (is_sep(*p))
			p++;
		for (k = 0; p[k] && !is_sep(p[k]); k++)
			;
		if (k == n && !memcmp(p, tok, n))
			return 1;
		p += k;
	}
	return 0;
}

/*
 * LD_PRELOAD for a child: what this process started with (the shim
 * first, as fa-run put it), the shim itself if that lacked it, then any
 * library the caller added.
 */
static void merge_preload(struct fa_buf *b, const char *callers)
{
	const char *base = preload_value(), *p;

	fa_puts(b, FA_PRELOAD_EQ);
	if (fa_proc.self && !has_token(base, fa_proc.self, strlen(fa_proc.self))) {
		fa_puts(b, fa_proc.self);
		if (*base)
			fa_putc(b, ' ');
	}
	fa_puts(b, base);
	for (p = callers ? callers : ""; *p;) {
		size_t k;

		while (is_sep(*p))
			p++;
		for (k = 0; p[k] && !is_sep(p[k]); k++)
			;
		if (k && !has_token(base, p, k) &&
		    !(fa_proc.self && strlen(fa_proc.self) == k && !memcmp(fa_proc.self, p, k))) {
			fa_putc(b, ' ');
			fa_putn(b, p, k);
		}
		p += k;
	}
}

static const char *callers_preload(char *const envp[])
{
	size_t i;

	for (i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], FA_PRELOAD_EQ, FA_PRELOAD_EQ_LEN))
			return envp[i] + FA_PRELOAD_EQ_LEN;
	return NULL;
}

#define POLICY_VAR "FA_POLICY="
#define FLOOR_APPLY_VAR "FA_FLOOR_APPLY=1"
#define FROM_CONTEXT_VAR "FA_FROM_CONTEXT=1"

#define REPORT_VAR "FA_REPORT=1"
#define LEARN_VAR "FA_LEARN="
#define LEARN_MAX (sizeof(LEARN_VAR "/proc//fd/") + 24)

/*
 * The child of a learning context learns too: it denies nothing
 * (FA_REPORT) and adds its would-be denials to the context's record
 * (FA_LEARN, as fa-run --learn's command does). The FA_LEARN entry, or
 * NULL when the context does not learn.
 */
static const char *child_learns(char *buf, size_t len)
{
	if (len <= sizeof(LEARN_VAR) || !fa_tls.child_ctx || !fa_policy_learning(fa_tls.child_ctx) ||
	    !fa_ctx_learn_record(buf + sizeof(LEARN_VAR) - 1, len - sizeof(LEARN_VAR) + 1))
		return NULL;
	memcpy(buf, LEARN_VAR, sizeof(LEARN_VAR) - 1);
	return buf;
}

/* The text of the confined child's FA_POLICY: its length, or < 0. */
static ssize_t child_policy(char *buf, size_t len)
{
	return fa_policy_format_meet(fa_proc.policy, fa_tls.child_ctx, buf, len);
}

size_t fa_child_env_size(char *const envp[])
{
	size_t n = 0, extra = 0;
	const char *cp = callers_preload(envp);

	while (envp && envp[n])
		n++;
	if (fa_tls.child_ctx) {
		ssize_t pl = child_policy(NULL, 0);

		extra = sizeof(char *) * 5 + sizeof(POLICY_VAR) + sizeof(FLOOR_APPLY_VAR) +
			sizeof(REPORT_VAR) + LEARN_MAX + (pl > 0 ? (size_t)pl : 0) + 8;
	}
	return sizeof(char *) * (n + (size_t)fa_proc.nfa_env + 2) + sizeof(FA_PRELOAD_EQ) +
	       strlen(preload_value()) + (fa_proc.self ? strlen(fa_proc.self) : 0) +
	       (cp ? strlen(cp) : 0) + 8 + extra;
}

char **fa_child_env(char *const envp[], void *mem, size_t memlen)
{
	size_t n = 0, i, k = 0, slots;
	const fa_policy *ctx = fa_tls.child_ctx;
	char **out = mem, *pol = NULL, lbuf[LEARN_MAX], *learn = NULL;
	const char *lv = child_learns(lbuf, sizeof(lbuf));
	struct fa_buf b;

	while (envp && envp[n])
		n++;
	slots = n + (size_t)fa_proc.nfa_env + 2 + (ctx ? 5 : 0);
	if (memlen < sizeof(char *) * slots + 16)
		return NULL;
	b.p = (char *)(out + slots);
	b.len = 0;
	b.cap = memlen - sizeof(char *) * slots;
	merge_preload(&b, callers_preload(envp));
	if (b.len + 1 >= b.cap)
		return NULL;
	if (ctx) {
		ssize_t pl;

		pol = b.p + b.len + 1;
		b.len += 1 + sizeof(POLICY_VAR) - 1;
		if (b.len >= b.cap)
			return NULL;
		memcpy(pol, POLICY_VAR, sizeof(POLICY_VAR) - 1);
		pl = child_policy(b.p + b.len, b.cap - b.len);
		if (pl < 0)
			return NULL;
		b.len += (size_t)pl;
		if (b.len + 1 >= b.cap)
			return NULL;
	}
	if (lv) {
		learn = b.p + b.len + 1;
		b.len += 1 + strlen(lv);
		if (b.len + 1 >= b.cap)
			return NULL;
		memcpy(learn, lv, strlen(lv) + 1);
	}
	for (i = 0; i < n; i++)
		if (strncmp(envp[i], "FA_", 3) && strncmp(envp[i], FA_PRELOAD_EQ, FA_PRELOAD_EQ_LEN))
			out[k++] = envp[i];
	for (i = 0; i < (size_t)fa_proc.nfa_env; i++)
		if (!ctx || (strncmp(fa_proc.fa_env[i], POLICY_VAR, sizeof(POLICY_VAR) - 1) &&
			     strcmp(fa_proc.fa_env[i], FROM_CONTEXT_VAR) &&
			     (!learn || (strncmp(fa_proc.fa_env[i], LEARN_VAR, sizeof(LEARN_VAR) - 1) &&
					 strncmp(fa_proc.fa_env[i], "FA_REPORT=", 10)))))
			out[k++] = (char *)fa_proc.fa_env[i];
	if (ctx) {
		out[k++] = pol;
		/* a learning child denies nothing: no floor, which would */
		if (learn) {
			out[k++] = (char *)REPORT_VAR;
			out[k++] = learn;
		} else {
			out[k++] = (char *)FLOOR_APPLY_VAR;
		}
		out[k++] = (char *)FROM_CONTEXT_VAR;
	}
	out[k++] = b.p;
	out[k] = NULL;
	return out;
}

int fa_child_env_ok(char *const envp[])
{
	char want[PATH_MAX * 2];
	struct fa_buf b = { want, 0, sizeof(want) };
	const char *cp = callers_preload(envp);
	size_t i, nfa = 0;
	int j;

	/* A confined child's policy is made for it: always rebuilt. */
	if (fa_tls.child_ctx)
		return 0;
	merge_preload(&b, cp);
	if (!cp || strcmp(cp, want + 11))
		return 0;
	for (i = 0; envp && envp[i]; i++) {
		if (strncmp(envp[i], "FA_", 3))
			continue;
		nfa++;
		for (j = 0; j < fa_proc.nfa_env; j++)
			if (!strcmp(envp[i], fa_proc.fa_env[j]))
				break;
		if (j == fa_proc.nfa_env)
			return 0;
	}
	return nfa == (size_t)fa_proc.nfa_env;
}

/* ---- judging the program ---- */

/* ctx: the context whose refusal this is (it says whether it learns), or NULL: the process's. */
static int exec_deny(const char *call, const char *path, const char *resolved,
		     const char *why, const char *text, const fa_policy *ctx, void *ra)
{
	struct fa_event ev;

	fa_event_init(&ev, call, "exec", path, NULL, ra);
	ev.resolved = resolved;
	ev.why = why;
	ev.text = text;
	ev.policy = ctx;
	ev.from_context = ctx != NULL;
	return fa_report(&ev) ? -EACCES : 0;
}

int fa_exec_refuse(const char *call, const char *path, const char *why, const char *text,
		   void *ra)
{
	int saved = errno, rc = exec_deny(call, path, NULL, why, text, NULL, ra);

	errno = saved;
	return rc;
}

static int listed(const char *canon)
{
	int i;

	for (i = 0; i < fa_proc.nexec_allow; i++)
		if (!strcmp(fa_proc.exec_allow[i], canon))
			return 1;
	return 0;
}

/* A program the preload cannot follow: which file and why. */
static int refuse_kind(const char *call, const char *shown, const char *canon,
		       enum fa_prog_kind kind, const char *culprit, const fa_policy *ctx, void *ra)
{
	char text[PATH_MAX + 256];
	struct fa_buf b = { text, 0, sizeof(text) - 1 };

	if (*culprit && strcmp(culprit, shown)) {
		fa_puts(&b, "runs ");
		fa_puts(&b, culprit);
		fa_puts(&b, ", a ");
	}
	if (ctx) {
		/* the way out is the host's, not fa-run's option */
		const char *t = fa_prog_text(kind), *opt = strstr(t, " (--allow-static");

		fa_putn(&b, t, opt ? (size_t)(opt - t) : strlen(t));
		fa_puts(&b, " (before_deny returning fastaudit.UNCONFINED starts it unconfined)");
	} else {
		fa_puts(&b, fa_prog_text(kind));
	}
	text[b.len < sizeof(text) ? b.len : sizeof(text) - 1] = '\0';
	return exec_deny(call, shown, canon, fa_prog_rule(kind), text, ctx, ra);
}

int fa_exec_check(const char *call, int dirfd, const char *path, int atflags,
		  char *const argv[], int cwd, void *ra)
{
	char canon[PATH_MAX], culprit[PATH_MAX];
	const char *shown = path && *path ? path : "(fd)";
	const fa_policy *confine = NULL;
	enum fa_prog_kind kind;
	int fd, own = 1, saved = errno, rc = 0;

	fa_child_ctx(NULL);
	if (FA_UNLIKELY(fa_init_state != 2))
		fa_init();
	if (FA_GUARDED())
		return 0;
	if (!fa_proc.active && !__atomic_load_n(&fa_ctx_gate, __ATOMIC_RELAXED))
		return 0;
	if ((atflags & AT_EMPTY_PATH) && path && !*path) {
		fd = dirfd;
		own = 0;
	} else {
		int of = O_RDONLY | O_CLOEXEC | (atflags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0);

		fd = FA_REAL(openat)(dirfd, path, of);
		if (fd < 0 && errno == EACCES)
			fd = FA_REAL(openat)(dirfd, path, (of & ~O_ACCMODE) | O_PATH);
	}
	/*
	 * What the kernel would not start is its to refuse, with its errno
	 * and without a word from the guard; a context's one-shot approval is
	 * kept for the candidate that really runs.
	 */
	if (fd < 0 || !fa_prog_runnable(fd))
		goto out;
	if (fa_fd_path(fd, canon, sizeof(canon)) <= 0)
		canon[0] = '\0';
	if (fa_ctx_exec_denied(path, &confine)) {
		rc = exec_deny(call, shown, canon, "exec-in-context",
			       "starting programs is not allowed in this audit context", confine, ra);
		if (rc)
			goto out;
	}
	/*
	 * A context without roots has nothing to carry: the process policy goes
	 * on. Nor has a learning context under a process policy: its child could
	 * not tell the context's refusals (learned) from the process's (enforced).
	 */
	fa_child_ctx(confine && !fa_policy_unrestricted(confine) &&
		     !(fa_policy_learning(confine) && fa_proc.policy) ? confine : NULL);
	confine = fa_tls.child_ctx;
	if (!fa_proc.active && !confine)
		goto out;
	if (!fa_proc.active) {
		/* no process rules: only the program's kind, below */
	} else if (fa_proc.exec == FA_EXEC_DENY) {
		rc = exec_deny(call, shown, canon, "exec-denied", "exec denied by policy", NULL, ra);
		if (rc)
			goto out;
	} else if (fa_proc.exec == FA_EXEC_LIST && !listed(canon)) {
		rc = exec_deny(call, shown, canon, "exec-not-listed",
			       "not in the exec allow list", NULL, ra);
		if (rc)
			goto out;
	} else if (fa_proc.exec == FA_EXEC_LIST) {
		fa_report_approval("exec", shown, canon, "allow-exec");
	}
	/*
	 * A program the preload cannot follow could not carry a context's
	 * policy either, nor the floor the shim would apply in it.
	 */
	if (!fa_proc.allow_static || confine) {
		kind = fa_prog_check(fd, path, argv, cwd, culprit, sizeof(culprit));
		if (kind != FA_PROG_OK)
			rc = refuse_kind(call, shown, canon, kind, culprit,
					 fa_proc.allow_static || !fa_proc.active ? confine : NULL, ra);
	}
out:
	if (rc)
		fa_child_ctx(NULL);
	if (own && fd >= 0)
		FA_REAL(close)(fd);
	errno = saved;
	return rc;
}

/* ---- starting it ---- */

#define ENV_STACK (64 * 1024)

/*
 * Run fn with the child's environment. Large environments go to mmap;
 * in a vfork child that mapping outlives a successful exec in the
 * parent's address space, a bounded leak accepted for the rare case.
 */
#define WITH_CHILD_ENV(envp, newenv, body) \
	do { \
		char *const *fa_src = (envp) ? (envp) : (char *const[]){ NULL }; \
		size_t fa_sz = fa_child_env_size(fa_src); \
		char fa_stack[fa_sz <= ENV_STACK ? fa_sz : 1]; \
		void *fa_mem = fa_stack; \
		char **newenv; \
		if (fa_sz > ENV_STACK) { \
			fa_mem = fa__sys_mmap(fa_sz, PROT_READ | PROT_WRITE); \
			if (!fa_mem) { \
				errno = ENOMEM; \
				return -1; \
			} \
		} \
		newenv = fa_child_env(fa_src, fa_mem, fa_sz); \
		body; \
		if (fa_mem != fa_stack) { \
			int fa_e = errno; \
			fa__sys_munmap(fa_mem, fa_sz); \
			errno = fa_e; \
		} \
	} while (0)

/*
 * The program starts: execve for a plain path, else execveat, which a libc
 * without it (musl) leaves to the kernel's own call.
 */
static int real_exec(int dirfd, const char *path, char *const argv[], char *const envp[],
		     int flags)
{
	if (dirfd == AT_FDCWD && !flags)
		return FA_REAL(execve)(path, argv, envp);
#if defined(HAVE_EXECVEAT)
	return FA_REAL(execveat)(dirfd, path, argv, envp, flags);
#elif defined(SYS_execveat)
	errno = (int)-fa__sys6(SYS_execveat, dirfd, (long)path, (long)argv, (long)envp, flags, 0);
	return -1;
#else
	errno = ENOSYS;	/* no kernel call for a program named by a directory fd */
	return -1;
#endif
}

/* *denied is set when the policy, not the kernel, refused the program. */
static int exec_at_d(void *ra, const char *call, int dirfd, const char *path,
		     char *const argv[], char *const envp[], int flags, int *denied)
{
	int rc = fa_exec_check(call, dirfd, path, flags, argv, AT_FDCWD, ra);

	if (rc < 0) {
		*denied = 1;
		errno = -rc;
		return -1;
	}
	if (!fa_proc.active && !fa_tls.child_ctx)
		return real_exec(dirfd, path, argv, envp, flags);
	WITH_CHILD_ENV(envp, newenv, rc = real_exec(dirfd, path, argv, newenv, flags));
	fa_child_ctx_done();
	return rc;
}

static int exec_at(void *ra, const char *call, int dirfd, const char *path,
		   char *const argv[], char *const envp[], int flags)
{
	int denied = 0;

	return exec_at_d(ra, call, dirfd, path, argv, envp, flags, &denied);
}

int fa_do_execveat(void *ra, const char *call, int dirfd, const char *path,
		   char *const argv[], char *const envp[], int flags)
{
	return exec_at(ra, call, dirfd, path, argv, envp, flags);
}

int FA_WRAPPER(execve)(const char *path, char *const argv[], char *const envp[])
{
	if (FA_GATE_OPEN())
		return fa_real_execve(path, argv, envp);
	return exec_at(FA_RA(), "execve", AT_FDCWD, path, argv, envp, 0);
}

int FA_WRAPPER(execv)(const char *path, char *const argv[])
{
	if (FA_GATE_OPEN())
		return fa_real_execv(path, argv);
	return exec_at(FA_RA(), "execv", AT_FDCWD, path, argv, environ, 0);
}

#ifdef HAVE_EXECVEAT
int FA_WRAPPER(execveat)(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	if (FA_GATE_OPEN())
		return fa_real_execveat(dirfd, path, argv, envp, flags);
	return exec_at(FA_RA(), "execveat", dirfd, path, argv, envp, flags);
}
#endif

#ifndef FA_DARWIN
int FA_WRAPPER(fexecve)(int fd, char *const argv[], char *const envp[])
{
	int rc;

	if (FA_GATE_OPEN())
		return fa_real_fexecve(fd, argv, envp);
	rc = fa_exec_check("fexecve", fd, "", AT_EMPTY_PATH, argv, AT_FDCWD, FA_RA());
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	if (!fa_proc.active && !fa_tls.child_ctx)
		return FA_REAL(fexecve)(fd, argv, envp);
	WITH_CHILD_ENV(envp, newenv, rc = FA_REAL(fexecve)(fd, argv, newenv));
	fa_child_ctx_done();
	return rc;
}
#endif

/*
 * execvpe's search, as libc does it: each PATH entry in turn, skipping
 * the ones where the file is missing or not permitted, and running a
 * file the kernel will not load (ENOEXEC) through /bin/sh. A candidate
 * the policy refuses ends the search: the program asked for is refused,
 * not replaced by a later one.
 */
static int script_exec(void *ra, const char *call, const char *file, char *const argv[],
		       char *const envp[])
{
	size_t argc = 0, i;

	while (argv[argc])
		argc++;
	{
		char *nargv[argc + 3];

		nargv[0] = (char *)"/bin/sh";
		nargv[1] = (char *)file;
		for (i = 1; i <= argc; i++)
			nargv[i + 1] = argv[i];
		if (argc == 0)
			nargv[2] = NULL;
		return exec_at(ra, call, AT_FDCWD, "/bin/sh", nargv, envp, 0);
	}
}

static int execvpe_slow(void *ra, const char *call, const char *file, char *const argv[],
			char *const envp[])
{
	struct fa_path_search ps;
	char buf[PATH_MAX];
	int got_eacces = 0, denied = 0, rc;

	if (!*file) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(file, '/')) {
		rc = exec_at(ra, call, AT_FDCWD, file, argv, envp, 0);
		if (errno == ENOEXEC)
			rc = script_exec(ra, call, file, argv, envp);
		return rc;
	}
	fa_path_search_init(&ps, file);
	while ((rc = fa_path_search_next(&ps, buf, sizeof(buf))) != 0) {
		if (rc < 0) {
			errno = -rc;
			continue;
		}
		exec_at_d(ra, call, AT_FDCWD, buf, argv, envp, 0, &denied);
		if (denied)
			return -1;
		if (errno == ENOEXEC) {
			script_exec(ra, call, buf, argv, envp);
			return -1;
		}
		switch (errno) {
		case EACCES:
			got_eacces = 1;
			/* fall through */
		case ENOENT:
		case ESTALE:
		case ENOTDIR:
		case ENODEV:
		case ETIMEDOUT:
			break;
		default:
			return -1;
		}
	}
	if (got_eacces)
		errno = EACCES;
	return -1;
}

#ifndef FA_DARWIN
int FA_WRAPPER(execvpe)(const char *file, char *const argv[], char *const envp[])
{
	if (FA_GATE_OPEN())
		return fa_real_execvpe(file, argv, envp);
	return execvpe_slow(FA_RA(), "execvpe", file, argv, envp);
}
#endif

int FA_WRAPPER(execvp)(const char *file, char *const argv[])
{
	if (FA_GATE_OPEN())
		return fa_real_execvp(file, argv);
	return execvpe_slow(FA_RA(), "execvp", file, argv, environ);
}

/* The execl forms: the variadic list copied to a stack argv. */
#define COUNT_ARGS(arg, n) \
	do { \
		va_list fa_ap; \
		va_start(fa_ap, arg); \
		for (n = 1; va_arg(fa_ap, const char *); n++) \
			; \
		va_end(fa_ap); \
	} while (0)

/* 'then' runs with the list positioned after the NULL (execle's envp). */
#define FILL_ARGS(arg, argv, n, then) \
	do { \
		va_list fa_ap; \
		size_t fa_i; \
		va_start(fa_ap, arg); \
		argv[0] = (char *)arg; \
		for (fa_i = 1; fa_i <= n; fa_i++) \
			argv[fa_i] = va_arg(fa_ap, char *); \
		then; \
		va_end(fa_ap); \
	} while (0)

int FA_WRAPPER(execl)(const char *path, const char *arg, ...)
{
	size_t n;

	COUNT_ARGS(arg, n);
	{
		char *argv[n + 1];

		FILL_ARGS(arg, argv, n, (void)0);
		if (FA_GATE_OPEN())
			return fa_real_execv(path, argv);
		return exec_at(FA_RA(), "execl", AT_FDCWD, path, argv, environ, 0);
	}
}

int FA_WRAPPER(execlp)(const char *file, const char *arg, ...)
{
	size_t n;

	COUNT_ARGS(arg, n);
	{
		char *argv[n + 1];

		FILL_ARGS(arg, argv, n, (void)0);
		if (FA_GATE_OPEN())
			return FA_REAL(execvp)(file, argv);
		return execvpe_slow(FA_RA(), "execlp", file, argv, environ);
	}
}

int FA_WRAPPER(execle)(const char *path, const char *arg, ...)
{
	size_t n;

	COUNT_ARGS(arg, n);
	{
		char *argv[n + 1];
		char *const *envp;

		FILL_ARGS(arg, argv, n, envp = va_arg(fa_ap, char *const *));
		if (FA_GATE_OPEN())
			return FA_REAL(execve)(path, argv, envp);
		return exec_at(FA_RA(), "execle", AT_FDCWD, path, argv, envp, 0);
	}
}
