/*
 * fa_bridge.h - the interface libfashim.so offers to code in the same
 * process (the fastaudit Python extension, tests).
 *
 * The shim exports one symbol, fa_bridge_v1, a function returning a
 * const struct fa_bridge *. A host finds it with
 * dlsym(RTLD_DEFAULT, "fa_bridge_v1"); when it is absent the shim is not
 * loaded and native checks are off.
 *
 * Policies passed through the bridge are fa_policy objects built by the
 * host's own copy of the engine; engine_abi guards against a host and a
 * shim built from different engine sources.
 */
#ifndef FA_BRIDGE_H
#define FA_BRIDGE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "fa_policy.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FA_BRIDGE_VERSION 5

/*
 * A compile-time fingerprint of the engine's data layout: both sides must
 * agree before a policy pointer crosses over.
 */
#define FA_ENGINE_ABI ((uint32_t)(0xfa010000u ^ (uint32_t)sizeof(struct fa_decision)))

/* What the host says about the code running on a thread. */
struct fa_thread_ctx {
	const fa_policy *policy;   /* the context's path policy; NULL: no context active */
	int exec_allowed;          /* the context lets processes start (host policy) */
	const void *key;           /* opaque identity of the host context (e.g. a PyContext*) */
	uint64_t ver;              /* the host's version counter for key, 0 if none */
};

/*
 * Called by the shim (with no lock held, from the thread making the libc
 * call) to learn the context of the running code when the cached answer for
 * this thread may be stale. Returns 1 and fills *out if the host could
 * answer exactly, 0 if it could not (the shim then uses the cached answer),
 * FA_RESOLVE_SHARED if the thread runs no host code of its own (a native
 * worker: its writes are made on behalf of whoever handed it work), in
 * which case the shim applies the answer given with set_shared().
 * It must be async-signal-safe in the sense that it may decline (return 0)
 * whenever it cannot answer without locks or allocation.
 */
#define FA_RESOLVE_SHARED 2
typedef int (*fa_ctx_resolver)(struct fa_thread_ctx *out);

/*
 * A native denial, kept in a small ring for the host to read back. The
 * strings are those of the log line (denial.h renders both from the same
 * fields); "" stands for an absent value. A string longer than its field
 * is cut, and its bit (1 << FA_DENIAL_CUT_*) set in 'cut'.
 */
struct fa_denial {
	uint64_t seq;              /* 1, 2, ... in the order denials happened */
	struct timespec when;      /* CLOCK_REALTIME */
	int pid, tid;
	int from_context;          /* 1: context policy; 0: process policy */
	int enforced;              /* 0: report-only (fa-run --report), the call went through */
	int flags;                 /* open flags, or -1 */
	int mode;                  /* mode of a creation, or -1 */
	int has_roots;             /* roots holds the denying policy's roots */
	uint32_t cut;
	char call[32];             /* the libc function: "openat", "unlink", ... */
	char op[16];               /* fa_op_name() */
	char why[32];              /* the rule: fa_why_name() or an exec/spawn rule name */
	char reason[256];          /* the rule as a sentence */
	char path[PATH_MAX];       /* the path as the caller gave it */
	char resolved[PATH_MAX];   /* what the engine judged for path, if known */
	char path2[PATH_MAX];      /* second path (rename, link, symlink), as given */
	char resolved2[PATH_MAX];  /* what the engine judged for path2, if known */
	char caller[PATH_MAX];     /* the object that made the call (the executable's real path for the program) */
	char roots[PATH_MAX];      /* each root and its NUL, then an empty string */
	char fix[PATH_MAX + 256];  /* the smallest change that would allow it, or "" */
};

enum { FA_DENIAL_CUT_PATH, FA_DENIAL_CUT_RESOLVED, FA_DENIAL_CUT_PATH2,
       FA_DENIAL_CUT_RESOLVED2, FA_DENIAL_CUT_CALLER, FA_DENIAL_CUT_REASON,
       FA_DENIAL_CUT_ROOTS, FA_DENIAL_CUT_FIX };

struct fa_bridge {
	uint32_t version;          /* FA_BRIDGE_VERSION */
	uint32_t size;             /* sizeof(struct fa_bridge) as built into the shim */
	uint32_t engine_abi;       /* FA_ENGINE_ABI as built into the shim */
	uint32_t reserved;

	/* Set (or clear, with policy NULL) the calling thread's context. */
	void (*set_thread)(const struct fa_thread_ctx *ctx);
	/* Register the host's resolver (NULL to remove). */
	void (*set_resolver)(fa_ctx_resolver fn);
	/*
	 * One-shot approvals for the calling thread: the next libc operation
	 * of class op on exactly this path (as the host saw it) skips the
	 * context policy. The process policy still applies.
	 */
	void (*approve)(enum fa_op op, const char *path);
	void (*approve_exec)(const char *path);
	void (*clear_approvals)(void);
	/* Copy up to max of the most recent denials, newest last; returns count. */
	int (*recent_denials)(struct fa_denial *out, int max);
	uint64_t (*denial_count)(void);
	/* The process policy from fa-run, or NULL. */
	const fa_policy *(*process_policy)(void);
	/*
	 * The answer for threads that run no host code of their own (see
	 * FA_RESOLVE_SHARED); policy NULL: such threads are not checked.
	 */
	void (*set_shared)(const struct fa_thread_ctx *ctx);
	/*
	 * Like approve_exec, but the program starts as the host process would
	 * without the context (approve_exec starts it under the context's
	 * policy, carried in its environment).
	 */
	void (*approve_exec_unconfined)(const char *path);
};

typedef const struct fa_bridge *(*fa_bridge_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
