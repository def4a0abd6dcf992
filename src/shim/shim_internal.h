/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shim_internal.h - state and helpers shared by the files of libfashim.so.
 *
 * Nothing here is exported: the version script exports only the wrapped
 * libc names and fa_bridge_v1.
 */
#ifndef FA_SHIM_INTERNAL_H
#define FA_SHIM_INTERNAL_H

#include <dirent.h>
#include <fcntl.h>
#ifdef HAVE_MNTENT_H
#include <mntent.h>
#endif
#ifdef HAVE_MQUEUE_H
#include <mqueue.h>
#endif
#include <pthread.h>
#include <semaphore.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>
#include <utime.h>
#ifdef HAVE_UTMP_H
#include <utmp.h>
#endif
#include <utmpx.h>

#include "counts.h"
#include "fa_bridge.h"
#include "fa_policy.h"
#include "floor/elf.h"
#include "json.h"
#include "sys.h"

#define FA_HIDDEN __attribute__((visibility("hidden")))
#define FA_LIKELY(x) __builtin_expect(!!(x), 1)
#define FA_UNLIKELY(x) __builtin_expect(!!(x), 0)

/*
 * The name a wrapper is defined under: the row's own on Linux, where the
 * shim exports it and the dynamic linker finds it first; fa_dyld_<name> on
 * macOS, where an __interpose tuple pairs it with the original
 * (interpose_darwin.c) and the image must not define the original's name,
 * nor export the wrapper: the bridge is its only export.
 */
#ifdef FA_DARWIN
#define FA_WRAPPER(name) fa_dyld_##name
#define FA_WRAPPER_EXPORT
#else
#define FA_WRAPPER(name) name
#define FA_WRAPPER_EXPORT __attribute__((visibility("default")))
#endif

/*
 * The variable that loads the shim into a program: dyld's on macOS, ld.so's
 * elsewhere. FA_PRELOAD_EQ is the start of its environment entry.
 */
#ifdef FA_DARWIN
#define FA_PRELOAD_VAR "DYLD_INSERT_LIBRARIES"
#else
#define FA_PRELOAD_VAR "LD_PRELOAD"
#endif
#define FA_PRELOAD_EQ FA_PRELOAD_VAR "="
#define FA_PRELOAD_EQ_LEN (sizeof(FA_PRELOAD_EQ) - 1)

/*
 * Parameter types each libc spells its own way; a wrapper's prototype must
 * be the header's. glibc passes bind's address as a transparent union and
 * names nftw's callback types; musl writes them out.
 */
#include <ftw.h>
#ifdef __GLIBC__
typedef __CONST_SOCKADDR_ARG fa_sockaddr_arg;
#define FA_SOCKADDR_UN(a) ((a).__sockaddr_un__)
typedef __nftw_func_t fa_nftw_fn;
typedef __nftw64_func_t fa_nftw64_fn;
#else
typedef const struct sockaddr *fa_sockaddr_arg;
#define FA_SOCKADDR_UN(a) ((const struct sockaddr_un *)(const void *)(a))
typedef int (*fa_nftw_fn)(const char *, const struct stat *, int, struct FTW *);
#endif
/* ioctl's request: unsigned long in glibc and macOS, int in POSIX and musl. */
#if defined(__GLIBC__) || defined(__APPLE__)
typedef unsigned long fa_ioctl_req;
#else
typedef int fa_ioctl_req;
#endif
/* A file length of 64 bits whatever off_t is; musl's off_t always is. */
#ifdef HAVE_LFS64
#define fa_ftruncate64 ftruncate64
#else
#define fa_ftruncate64 ftruncate
#endif

/* A thread's id in reports: the kernel's where libc names it, else the system's own. */
#ifndef HAVE_GETTID
static inline pid_t gettid(void)
{
	uint64_t id = 0;

	pthread_threadid_np(NULL, &id);
	return (pid_t)id;
}
#endif

/*
 * The shim's way down: proc.c (the process state, the thread's record,
 * the real functions) at the bottom; report.c; shim_bridge.c (the
 * threads' contexts and the host's table); env.c (start-up: fa_init(),
 * the constructor, fa_bridge_v1()); then the judging helpers and the
 * wrappers, which alone call start-up when they run before it.
 */

/* ---- the real functions, one pointer per line of symbols.def (proc.c) ---- */
#define FA_SYM(name, ret, fail, params, args, ...) \
	typedef ret (*fa_real_t_##name) params; \
	extern FA_HIDDEN fa_real_t_##name fa_real_##name;
#include "symbols.def"
#undef FA_SYM

/* Resolve one real function now; never returns NULL (aborts loudly). */
FA_HIDDEN void *fa_resolve(const char *name);
/*
 * The original of a wrapped name, or NULL: the next library's on Linux; on
 * macOS, where dyld leaves an interposing image's own references alone,
 * the image's own reference to it (interpose_darwin.c).
 */
#ifdef FA_DARWIN
FA_HIDDEN void *fa_next(const char *name);
/* The program's file and the address it is mapped at, as dyld knows them. */
FA_HIDDEN void fa_dyld_main(char *exe, size_t len, void **base);
#else
#define fa_next(name) dlsym(RTLD_NEXT, (name))
#endif
/* Fill the whole table: the one place that knows how (start-up calls it). */
FA_HIDDEN void fa_resolve_all(void);

/*
 * The gate: 0 when no policy of any kind can apply (the only test on the
 * fast path). It counts reasons to look closer: the constructor not run
 * yet, a process policy, each thread holding a context, a resolver.
 */
extern FA_HIDDEN int fa_gate;
/* The part of fa_gate that comes from contexts and the resolver. */
extern FA_HIDDEN int fa_ctx_gate;
/* Thread-exit and fork bookkeeping for the context counts (fa_init). */
FA_HIDDEN void fa_bridge_init(void);
/*
 * Read the environment once (env.c: the constructor, or the first call
 * before it). Only the files above env.c call it (fa_init_ensure()).
 */
FA_HIDDEN void fa_init(void);
/* 0 not started, 1 starting (on some thread), 2 started. */
extern FA_HIDDEN int fa_init_state;
#define FA_GATE_OPEN() FA_LIKELY(__atomic_load_n(&fa_gate, __ATOMIC_RELAXED) == 0)

/* Start-up, if a wrapper runs before the constructor has. */
static inline void fa_init_ensure(void)
{
	if (FA_UNLIKELY(__atomic_load_n(&fa_init_state, __ATOMIC_ACQUIRE) != 2))
		fa_init();
}

/* ---- process policy (proc.c; read by env.c) ---- */

struct fa_proc {
	fa_policy *policy;        /* NULL: no path policy for the process */
	int active;               /* FA_POLICY or FA_EXEC set: injection and exec checks */
	enum fa_exec_mode exec;
	const char **exec_allow;  /* canonical program paths for FA_EXEC_LIST */
	int nexec_allow;
	int report;               /* FA_REPORT=1 */
	int quiet;                /* FA_QUIET=1 */
	int allow_static;         /* FA_ALLOW_STATIC=1 */
	int floor;                /* FA_FLOOR=1: fa-run applied a Landlock floor */
	int floor_entries;        /* that floor alone decides entry changes (shim_judge.c) */
	int from_context;         /* FA_FROM_CONTEXT=1: the policy is an audit context's (exec.c) */
	const char *log;          /* FA_LOG, or NULL */
	int log_approvals;        /* FA_LOG_APPROVALS=1: the log also gets what approvals let through */
	const char *learn;        /* FA_LEARN: fa-run --learn's record of would-be denials, or NULL */
	struct fa_counts *counts; /* FA_COUNTS mapped: fa-run's tally of the run, or NULL */
	int counts_fd;            /* its descriptor, kept (and kept from close) for children */
	const char *self;         /* path of libfashim.so */
	/* Saved at start-up, re-injected into every child's environment. */
	const char *ld_preload;   /* "LD_PRELOAD=..." (FA_PRELOAD_EQ) as the process got it, shim included */
	const char **fa_env;      /* "FA_...=..." entries */
	int nfa_env;
	/*
	 * The range of fds the process policy pinned, for close()/dup2();
	 * with none, pin_lo is 0x80000000 so that no valid fd falls in it.
	 */
	unsigned int pin_lo, pin_span;
	int npinned;
};
extern FA_HIDDEN struct fa_proc fa_proc;

/* fd lies in the range of the process policy's pinned root fds (fd.c). */
static inline int fa_pinned_range(int fd)
{
	return (unsigned)fd - fa_proc.pin_lo <= fa_proc.pin_span;
}
FA_HIDDEN int fa_is_root_fd(int fd);

/* Private memory that never touches the application's malloc. */
FA_HIDDEN void *fa_arena_alloc(size_t n);
FA_HIDDEN char *fa_arena_strdup(const char *s);

/* ---- per-thread state (fa_tls in proc.c; contexts in shim_bridge.c) ---- */
struct fa_approval {
	int op;                   /* enum fa_op, or FA_APPR_EXEC* */
	uint32_t len;
	uint64_t hash;
};

#define FA_NAPPROVALS 8
/* A start of the program: in the context's policy, or as the host is. */
#define FA_APPR_EXEC (-1)
#define FA_APPR_EXEC_UNCONFINED (-2)

/* A call as the caller made it, when its operation alone cannot say what the kernel looks up first. */
enum fa_whole_kind { FA_WHOLE_RENAME, FA_WHOLE_LINK, FA_WHOLE_UNLINK };
struct fa_whole {
	enum fa_whole_kind kind;
	int fd1, fd2;
	const char *p1, *p2;      /* p2 is NULL for unlinkat */
	unsigned flags;           /* renameat2, linkat or unlinkat flags */
};

struct fa_tls {
	struct fa_thread_ctx ctx;
	pid_t ctx_pid;            /* the process ctx came from: its learn_fd is that process's */
	int counted;              /* this thread holds one count in fa_gate */
	int guard;                /* inside code that may call back into wrappers */
	int nappr;
	struct fa_approval appr[FA_NAPPROVALS];
	int call_approved;        /* a multi-step call took its approval up front */
	int call_op;              /* that call's operation + 1, named in its reports */
	const char *call_path2;   /* its second path, shown when the first is refused */
	const struct fa_whole *call_whole; /* a rename, link or unlink, for the kernel's order */
	/*
	 * Set by the judging of a program start for the start that follows:
	 * the context policy the child is to carry, or NULL.
	 */
	const fa_policy *child_ctx;
};
/*
 * initial-exec: the shim is loaded with the program (LD_PRELOAD), so its
 * TLS sits in the static block and costs one %fs-relative access, no
 * __tls_get_addr call.
 */
extern FA_HIDDEN __thread struct fa_tls fa_tls __attribute__((tls_model("initial-exec")));

/*
 * The policies that govern one call, after approvals: proc (process) and
 * ctx (the thread's audit context). Either may be NULL.
 */
struct fa_pols {
	const fa_policy *proc;
	const fa_policy *ctx;
	int ctx_exec_denied;      /* a context is active and forbids exec */
	int held;                 /* ctx stays readable until this goes out of scope */
};
/* The lookup with contexts: after start-up (fa_pols_get() sees to it). */
FA_HIDDEN void fa_pols_get_slow(struct fa_pols *pp, int op, const char *path);
/*
 * The host frees what it published once no thread may still be judging
 * with it (shim_bridge.c): a thread judging is inside a read section, from
 * fa_pols_get() until its struct fa_pols goes out of scope. Every struct
 * fa_pols is declared with FA_POLS() so that the section ends on every
 * return.
 */
FA_HIDDEN void fa_read_enter(void);
FA_HIDDEN void fa_read_exit(void);
static inline void fa_pols_put(struct fa_pols *pp)
{
	if (FA_UNLIKELY(pp->held))
		fa_read_exit();
}
#define FA_POLS(name) struct fa_pols name __attribute__((cleanup(fa_pols_put))) = { .held = 0 }

/* The process policy alone unless a context may apply (or start-up is not done). */
static inline void fa_pols_get(struct fa_pols *pp, int op, const char *path)
{
	if (FA_UNLIKELY(__atomic_load_n(&fa_init_state, __ATOMIC_ACQUIRE) != 2 ||
			__atomic_load_n(&fa_ctx_gate, __ATOMIC_RELAXED) != 0)) {
		fa_init_ensure();
		fa_pols_get_slow(pp, op, path);
		return;
	}
	pp->proc = fa_proc.policy;
	pp->ctx = NULL;
	pp->ctx_exec_denied = 0;
	pp->held = 0;
}
/* After start-up: the caller has run fa_init_ensure(). */
FA_HIDDEN int fa_ctx_exec_denied(const char *path, const fa_policy **confine);
/*
 * fa_tls.child_ctx, the context policy a program start carries: readable
 * (a read section) from fa_ctx_exec_denied() until fa_child_ctx(NULL) or,
 * once the child's environment is built, fa_child_ctx_done(), after which
 * the pointer only says whether there is one.
 */
FA_HIDDEN void fa_child_ctx(const fa_policy *p);
FA_HIDDEN void fa_child_ctx_done(void);
/*
 * The record of the thread's context when it learns (/proc/<pid>/fd/<n>,
 * learn_record.h) into buf: 1, or 0 when it does not learn (report.c).
 */
FA_HIDDEN int fa_ctx_learn_record(char *buf, size_t len);
/*
 * A call made of several checks (rename, link, symlink) takes its one
 * approval, named by its first path, before the first check.
 */
FA_HIDDEN void fa_call_approve(enum fa_op op, const char *path);
FA_HIDDEN void fa_call_done(void);

/* ---- reporting (report.c) ---- */
struct fa_event {
	const char *call;         /* the libc function */
	const char *op;           /* operation class name */
	const char *path;         /* as given */
	const char *path2;        /* second path as given, or NULL */
	const struct fa_decision *d;   /* the denying decision (path judged), or NULL */
	int flags;                /* open flags, or -1 */
	int mode;                 /* mode for creation calls, or -1 */
	const char *why;          /* stable rule name */
	const char *text;         /* human reason */
	const fa_policy *policy;  /* the policy that denied: its roots, and whether it learns */
	int from_context;
	int second;               /* d judged path2 (a rename's destination), not path */
	void *ra;                 /* return address in the caller: names the calling object */
	const char *resolved;     /* the judged path when no decision carries it (exec), or NULL */
};

/* The fields every denial has; the rest start empty (flags and mode -1). */
static inline void fa_event_init(struct fa_event *ev, const char *call, const char *op,
				 const char *path, const char *path2, void *ra)
{
	memset(ev, 0, sizeof(*ev));
	ev->call = call;
	ev->op = op;
	ev->path = path;
	ev->path2 = path2;
	ev->flags = -1;
	ev->mode = -1;
	ev->ra = ra;
}

/* What the engine decided: the decision, its rule, and the policy that made it. */
static inline void fa_event_decision(struct fa_event *ev, const fa_policy *p,
				     const struct fa_decision *d, int from_context)
{
	ev->d = d;
	ev->why = fa_why_name(d->why);
	ev->text = d->why == FA_WHY_ERROR && d->err > 0 ? fa_why_error_text(d->err)
							: fa_why_text(d->why);
	ev->policy = p;
	/* a context's approved child: its process policy is that context's */
	ev->from_context = from_context || (p && p == fa_proc.policy && fa_proc.from_context);
}
/* Report one denial; returns 1 if it is to be enforced, 0 in report-only mode. */
FA_HIDDEN int fa_report(const struct fa_event *ev);
FA_HIDDEN int fa_recent(struct fa_denial *out, int max);
/*
 * An operation an approval let through (by: "allow-exec" for fa-run's
 * list, "host" for a Python host's): a log line when FA_LOG_APPROVALS.
 */
FA_HIDDEN void fa_report_approval(const char *op, const char *path, const char *resolved,
				  const char *by);
FA_HIDDEN uint64_t fa_ndenials(void);
/* The host's function called after each refusal (fa_bridge.h's set_denied). */
FA_HIDDEN void fa_report_tell(void (*fn)(const struct fa_denial_view *v));

/* Read once at start-up what reports need later (the program's own path). */
FA_HIDDEN void fa_report_init(void);
/* NULL when fa_proc.log can be appended to now, else why not (start-up only). */
FA_HIDDEN const char *fa_report_log_unusable(void);

/* ---- checking helpers (shim_judge.c) ----
 *
 * The one contract of every helper below: it returns 0 to go on, or -1
 * with errno set (EACCES for a denial, which has been reported, or the
 * error that stopped the check). On 0, errno is what the caller had, so
 * the real call that follows sees the caller's errno; releasing (unpin)
 * keeps whatever errno the real call left. No wrapper touches errno.
 * A thread inside the shim's own callbacks (fa_tls.guard) is never
 * judged: every helper answers 0 with nothing pinned.
 */

/*
 * What the real call is given: the pinned parent and final name when a
 * policy applied (P_FD/P_NAME), the caller's own dirfd and path when none
 * did; or, for a function that opens by itself, /proc/self/fd/N of the
 * file the engine opened (rfd).
 */
struct fa_spin {
	struct fa_pin pin;
	int pinned;
	int rfd;
	int fd;
	const char *name;
	char nbuf[NAME_MAX + 2];
	/* Left to the kernel floor (fa_pin_entry_call): what to judge if it refuses. */
	struct {
		const char *call, *path;
		void *ra;
		const struct fa_whole *whole;
		int op, dirfd, saved;
	} floor;
};

static inline void fa_spin_init(struct fa_spin *s)
{
	s->pinned = 0;
	s->rfd = -1;
	s->floor.call = NULL;
}

/* Nothing judged: the real call gets the path as given. */
static inline int fa_spin_by_name(struct fa_spin *s, const char *path)
{
	fa_spin_init(s);
	s->fd = AT_FDCWD;
	s->name = path;
	return 0;
}

/*
 * Judge op on (dirfd, path) under every policy that applies and pin the
 * parent. 'shown1' names the other path of a two-path call, shown first
 * in reports (path is then the second, e.g. a rename's destination).
 */
FA_HIDDEN int fa_pin_call(const char *call, enum fa_op op, int dirfd, const char *path,
			  const char *shown1, struct fa_spin *s, void *ra);
/*
 * fa_pin_call() for a call that makes or removes one entry (mkdir, mknod,
 * unlink, rmdir): where the kernel floor decides such calls exactly
 * (fa_floor_decides_entries()) and no context applies, nothing is judged
 * or pinned and the real call gets the caller's own arguments; the call is
 * judged only if the kernel refuses it, by fa_unpin_after(), for the message.
 */
FA_HIDDEN int fa_pin_entry_call(const char *call, enum fa_op op, int dirfd, const char *path,
				struct fa_spin *s, void *ra);
/* Undo what a prep helper holds (pin, opened file); errno kept. */
FA_HIDDEN void fa_unpin_call(struct fa_spin *s);
/* fa_unpin_call() after the real call, which failed when 'failed' is set. */
FA_HIDDEN void fa_unpin_after(struct fa_spin *s, int failed);

/*
 * A write-open under every policy that applies. Returns 1 when the shim
 * opened (or refused): *fd is the fd, or -1 with errno set. Returns 0
 * when no policy applies: the caller runs its own real function.
 */
/*
 * Set once any policy in the process has a read pattern (the process
 * policy, or a context's published through the bridge), never cleared:
 * until then a read-open pays one load and branch for it.
 */
extern FA_HIDDEN int fa_read_guard;
#define FA_READS_GUARDED() FA_UNLIKELY(__atomic_load_n(&fa_read_guard, __ATOMIC_RELAXED) != 0)
/*
 * A read-open under read patterns: 1 with *fdp (-1 and errno on failure)
 * when it was judged and done here; 0: the caller opens as usual.
 */
FA_HIDDEN int fa_read_call(const char *call, int dirfd, const char *path, int flags,
			   mode_t mode, void *ra, int *fdp);
FA_HIDDEN int fa_open_call(const char *call, int dirfd, const char *path, int flags,
			   mode_t mode, void *ra, int *fd);
/*
 * For a function that opens a named file by itself: the engine opens path
 * with flags, and s->name becomes /proc/self/fd/N of that file, which the
 * real function then opens again: the file it writes is the file judged.
 */
FA_HIDDEN int fa_reopen_call(const char *call, const char *path, int flags,
			     struct fa_spin *s, void *ra);
/* Judge what an open fd names for an attribute change. */
FA_HIDDEN int fa_fd_call(const char *call, int fd, void *ra);
/* Judge op on a path without performing it. */
FA_HIDDEN int fa_check_call(const char *call, enum fa_op op, int dirfd, const char *path,
			    int flags, void *ra);
/*
 * The same, for a name in a file system that may not be mounted where the
 * path says (/dev/mqueue): a path that cannot be resolved is outside every
 * root, and refused as such.
 */
FA_HIDDEN int fa_check_missing_call(const char *call, enum fa_op op, const char *path,
				    void *ra);

/* Judge an openat2(RESOLVE_IN_ROOT) by the subtree of dirfd it can reach. */
FA_HIDDEN int fa_in_root_call(const char *call, enum fa_op op, int dirfd, const char *path,
			      int flags, void *ra);

/* The target of a symlink about to be made in the pinned parent s. */
FA_HIDDEN int fa_symlink_target_call(const char *call, const char *target, const char *path,
				     const struct fa_spin *s, void *ra);

/* Judge a two-path operation (fa_check2) without performing it. */
FA_HIDDEN int fa_check2_call(const char *call, enum fa_op op, int dirfd1, const char *path1,
			     int dirfd2, const char *path2, void *ra);

/*
 * A host approves by the operation it knows: a change made to a link
 * itself (FA_OP_LATTR) is what Python's events call "attr".
 */
static inline enum fa_op fa_host_op(enum fa_op op)
{
	return op == FA_OP_LATTR ? FA_OP_ATTR : op;
}

/* True when open flags can write or create. */
static inline int fa_is_write(int flags)
{
	return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)) ||
	       (flags & O_TMPFILE) == O_TMPFILE;
}

static inline int fa_needs_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

/* A stream on an fd the engine opened, or NULL (the fd closed, errno kept). */
FA_HIDDEN FILE *fa_stream_of(int fd, const char *mode);

/* fopen's mode string as open flags (0 for a mode libc refuses). */
FA_HIDDEN int fa_stdio_flags(const char *mode);

/* Internal entry points shared by wrappers and syscall(): same contract as libc. */
FA_HIDDEN int fa_do_renameat2(void *ra, const char *call, int fromfd, const char *from,
			      int tofd, const char *to, unsigned int flags);
FA_HIDDEN int fa_do_linkat(void *ra, const char *call, int fromfd, const char *from,
			   int tofd, const char *to, int flags);
FA_HIDDEN int fa_do_unlinkat(void *ra, const char *call, int dirfd, const char *path, int flags);
FA_HIDDEN int fa_do_symlinkat(void *ra, const char *call, const char *target, int dirfd,
			      const char *path);
FA_HIDDEN int fa_do_truncate(void *ra, const char *call, const char *path, int64_t len,
			     int *rc);
#ifndef FA_DARWIN
FA_HIDDEN int fa_open_by_handle(void *ra, const char *call, int mount_fd, struct file_handle *h,
				int flags, int *fd);
#endif
/* close_range() and syscall(SYS_close_range): the root fds stay (fd.c). */
FA_HIDDEN int fa_close_range(unsigned int first, unsigned int last, int flags);
FA_HIDDEN int fa_do_bind(void *ra, const char *call, int fd, fa_sockaddr_arg addr,
			 socklen_t len);
FA_HIDDEN int fa_make_temp(void *ra, const char *call, char *tmpl, int suffixlen, int flags,
			   int dir, int *out);
FA_HIDDEN int fa_xmknodat(void *ra, const char *call, int ver, int dirfd, const char *path,
			  mode_t mode, dev_t *dev);
FA_HIDDEN int fa_do_execveat(void *ra, const char *call, int dirfd, const char *path,
			     char *const argv[], char *const envp[], int flags);

/* The utmp file libc writes: what utmpname() last named (utmp.c). */
FA_HIDDEN const char *fa_utmp_path(void);

/* Judge a message queue's creation or removal (tmp.c). */
FA_HIDDEN int fa_mq_check(void *ra, const char *call, enum fa_op op, const char *name);

/* Helpers the generated calls use. */
FA_HIDDEN int fa_remove_at(int dirfd, const char *name);
FA_HIDDEN int fa_rmdir_at(int dirfd, const char *name);
#ifdef SYS_setxattr
FA_HIDDEN int fa_xattr_at(int dirfd, const char *name, int follow, int set,
			  const char *attr, const void *value, size_t size, int flags);
#endif
FA_HIDDEN int fa_utimes_at(int dirfd, const char *name, const struct timeval tv[2], int flags);
FA_HIDDEN int fa_utime_at(int dirfd, const char *name, const void *times);

/* ---- exec (exec.c; what a preload can follow: floor/elf.h) ---- */
/*
 * Judge an exec of the program at (dirfd, path) run with argv, from the
 * working directory cwd (AT_FDCWD, or a spawned child's): 0 or -EACCES
 * (reported). A program the kernel would not start (missing, not
 * executable) is left to the kernel's own error, silently.
 */
FA_HIDDEN int fa_exec_check(const char *call, int dirfd, const char *path, int atflags,
			    char *const argv[], int cwd, void *ra);
/* Refuse an exec the process policy cannot judge: 0 or -EACCES (reported). */
FA_HIDDEN int fa_exec_refuse(const char *call, const char *path, const char *why,
			     const char *text, void *ra);
/*
 * Where a posix_spawn child will be when it execs: 0 where the parent is,
 * 1 with (*dirfd, dir) naming it ("" = *dirfd itself), -1 unknown before
 * the spawn (an fchdir to an fd the list itself opens).
 */
FA_HIDDEN int fa_spawn_actions_cwd(const posix_spawn_file_actions_t *fa, int *dirfd, char *dir,
				   size_t len);
/* Judge the write-class opens of a posix_spawn file-actions list: 0 or -errno (reported). */
FA_HIDDEN int fa_spawn_actions_check(const char *call, const posix_spawn_file_actions_t *fa,
				     void *ra);
/*
 * The child's environment: envp with LD_PRELOAD and every FA_* variable
 * of the process put back. Built in 'mem' (nslots pointers, then text);
 * returns the new envp, or NULL if mem is too small.
 */
FA_HIDDEN char **fa_child_env(char *const envp[], void *mem, size_t memlen);
FA_HIDDEN size_t fa_child_env_size(char *const envp[]);
/* True if envp already carries what fa_child_env() would add. */
FA_HIDDEN int fa_child_env_ok(char *const envp[]);

/* The host's table (shim_bridge.c), handed out by fa_bridge_v1() after start-up. */
extern FA_HIDDEN const struct fa_bridge fa_bridge_table;
/* The one exported function besides the wrappers (env.c). */
__attribute__((visibility("default"))) const struct fa_bridge *fa_bridge_v1(void);

#endif
