/* SPDX-License-Identifier: Apache-2.0 */
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
 * host's own copy of the engine and read in place by the shim's, and
 * denials come back as struct fa_denial records (denial.h). engine_abi
 * fingerprints everything that crosses: the policy's layout and limits
 * (fa_policy_layout.h), struct fa_decision, the denial record, the
 * thread context and this table. A host compares it with its own
 * FA_ENGINE_ABI before it passes anything, and a shim and host built from
 * different sources refuse each other with both values in the message.
 */
#ifndef FA_BRIDGE_H
#define FA_BRIDGE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "denial.h"
#include "fa_policy.h"
#include "fa_policy_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FA_BRIDGE_VERSION 8

/* What the host says about the code running on a thread. */
struct fa_thread_ctx {
	const fa_policy *policy;   /* the context's path policy; NULL: no context active */
	int exec_allowed;          /* the context lets processes start (host policy) */
	const void *key;           /* opaque identity of the host context (e.g. a PyContext*) */
	uint64_t ver;              /* the host's version counter for key, 0 if none */
	/*
	 * A learning context's record (learn_record.h), which its refusals and
	 * those of the programs it starts go to, or -1. A descriptor that does
	 * not hold a record is never written to.
	 */
	int learn_fd;
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
	/*
	 * The lifetime of what the host publishes. A policy handed over by
	 * set_thread, set_shared or the resolver may be read by any thread
	 * that loaded it (a native worker, a thread started in the context,
	 * a signal handler) for as long as that call judges. Once the host
	 * stops publishing a policy (its last entry is gone, or set_shared
	 * replaced it) it calls retire(), which ends the current epoch and
	 * returns its number: the policy's tag. reclaimable() returns the
	 * oldest epoch a judging thread may still be reading from; whatever
	 * was retired with a tag below it is no longer read by anyone and
	 * may be freed. Neither ever waits for a reader: a reader that stays
	 * in one call (a write-open of a FIFO) only keeps what was retired
	 * after it began from being freed. A thread's cached answer that is
	 * older than the last retire() is not used again without a fresh
	 * answer from the resolver (or set_shared's, when it has none).
	 */
	uint64_t (*retire)(void);
	uint64_t (*reclaimable)(void);
	/*
	 * A count that grows with every rename, removal of a directory and
	 * new link the shim sees in the process (renames and removals in the
	 * run's other processes too, under fa-run), and whenever it starts
	 * seeing them again after a time it did not look. A host that judges
	 * a call the shim judges again may keep what it proved of paths
	 * while the count stays put (fa_trust_moves()).
	 */
	uint64_t (*moves)(void);
	/*
	 * Register the host's function (NULL to remove) that the shim calls on
	 * the refusing thread right after each refusal is recorded, before the
	 * refused call returns, with the refusal (valid during the call only):
	 * a host that attaches its own report to the error its runtime raises
	 * next keeps it, and learns that an error is coming. It runs inside the
	 * refused libc call (whatever lock the caller holds, possibly with no
	 * runtime lock, possibly in a signal handler): it must do little, and
	 * the shim judges nothing it does.
	 */
	void (*set_denied)(void (*fn)(const struct fa_denial_view *v));
};

typedef const struct fa_bridge *(*fa_bridge_fn)(void);

#define FA__BOFF(h, type, member) FA_ABI_MIX(h, offsetof(type, member))
#define FA__DECISION_LAYOUT(h)                                                   \
	FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA_ABI_MIX(h,                   \
	sizeof(struct fa_decision)), struct fa_decision, verdict),                  \
	struct fa_decision, why), struct fa_decision, root),                        \
	struct fa_decision, err), struct fa_decision, path)
#define FA__CTX_LAYOUT(h)                                                        \
	FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA_ABI_MIX(h,                   \
	sizeof(struct fa_thread_ctx)), struct fa_thread_ctx, policy),               \
	struct fa_thread_ctx, exec_allowed), struct fa_thread_ctx, key),            \
	struct fa_thread_ctx, ver), struct fa_thread_ctx, learn_fd)
/* The record's size covers its string limits; the offsets, their order. */
#define FA__DENIAL_LAYOUT(h)                                                     \
	FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(     \
	FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA_ABI_MIX(h,         \
	sizeof(struct fa_denial)), struct fa_denial, when),                         \
	struct fa_denial, enforced), struct fa_denial, cut),                        \
	struct fa_denial, call), struct fa_denial, op), struct fa_denial, why),     \
	struct fa_denial, reason), struct fa_denial, path),                         \
	struct fa_denial, resolved), struct fa_denial, path2),                      \
	struct fa_denial, resolved2), struct fa_denial, caller),                    \
	struct fa_denial, roots), struct fa_denial, fix)
#define FA__VIEW_LAYOUT(h)                                                       \
	FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA_ABI_MIX(h,                   \
	sizeof(struct fa_denial_view)), struct fa_denial_view, path),               \
	struct fa_denial_view, rule), struct fa_denial_view, caller),               \
	struct fa_denial_view, policy), struct fa_denial_view, held)
#define FA__TABLE_LAYOUT(h)                                                      \
	FA__BOFF(FA__BOFF(FA__BOFF(FA__BOFF(FA_ABI_MIX(FA_ABI_MIX(h, sizeof(struct fa_bridge)),\
	FA_RESOLVE_SHARED), struct fa_bridge, set_thread), struct fa_bridge, set_shared),\
	struct fa_bridge, moves), struct fa_bridge, set_denied)

/* What both sides compare before anything crosses: a constant expression. */
#define FA_ENGINE_ABI                                                            \
	FA__TABLE_LAYOUT(FA__VIEW_LAYOUT(FA__DENIAL_LAYOUT(FA__CTX_LAYOUT(           \
	FA__DECISION_LAYOUT(FA_ABI_MIX(FA_POLICY_LAYOUT, FA_WHY_ERROR))))))

#ifdef __cplusplus
}
#endif
#endif
