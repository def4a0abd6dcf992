/* SPDX-License-Identifier: Apache-2.0 */
/*
 * py_bridge.c - telling libfashim.so, when it is preloaded, which audit
 * context the code on each thread runs in.
 *
 * What keeps the shim's per-thread answer right:
 *  - entering and leaving a context (here, in C) publish the new answer;
 *  - the audit hook, which runs right before most libc calls Python makes,
 *    republishes whenever the thread's answer changed (asyncio task steps
 *    switch contexts without telling anyone);
 *  - the resolver the shim calls before a checked libc call: it answers
 *    from a per-thread cache keyed by (PyThreadState.context, context_ver),
 *    then from a small per-thread table of the Context objects this thread
 *    was seen running (asyncio gives each task one Context for its whole
 *    life), then by reading the ContextVar in the thread's current
 *    Context: through the C API when the thread holds the GIL, and
 *    without it (cpython_private.h's walk of the Context's variables) when
 *    native code released it. The answer is the running Context's on every
 *    call, whatever switched it (a task step, a Context.run), with no
 *    event watched for the switch.
 */
#include "parts.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "denial.h"
#include "shim/fa_bridge.h"

static const struct fa_bridge *br;
static char reason[160] = "native checks not initialised";
static int resolver_set;
/*
 * The ContextVar read without the GIL, and its HAMT hash; peek_ok is 1
 * once the walk was found to agree with CPython on this interpreter, 0 if
 * it did not (the resolver then declines without the GIL), -1 untried.
 */
static PyObject *peek_var;
static int32_t peek_hash;
static int peek_ok = -1;
#if FA_CONTEXT_WATCHERS
static int watcher = -1;
static int context_switched(PyContextEvent event, PyObject *ctx);
#endif

struct tcache {
    int valid;
    PyObject *ctx;          /* identity only, never dereferenced */
    uint64_t ver;
    struct fa_thread_ctx ans;
    int published;
    const fa_policy *pub_policy;
};

static __thread struct tcache tc;

/*
 * Contexts this thread was seen running, with the answer then. Each is
 * held by a weak reference (strongly, from a row made inside a libc call
 * until the thread next publishes): a row must not keep a finished task's
 * Context, and with it the entry it holds, alive (an entry alive anywhere
 * keeps the checks on for native workers, and the hook's fast path off). A row
 * whose Context died is dead too: its referent was cleared before the
 * address could be given to another Context, and the thread asking holds
 * its own current Context, so an address match with a live referent is
 * that very Context.
 * Entering or leaving an audit context (the only writes to the ContextVar)
 * changes the answer of the Context current at that moment, wherever else
 * it was seen: the change is stamped in a small table hashed by Context
 * address, and a row older than its stamp is not used (a collision only
 * costs a lookup).
 */
#define NSEEN 16
struct seen {
    PyObject *ctx;          /* identity only, unless strong */
    PyObject *ref;          /* a weak reference to ctx, or NULL */
    int strong;             /* ctx is a strong reference (see remember()) */
    unsigned long gen;
    unsigned long used;
    struct fa_thread_ctx ans;
};

static __thread struct seen seen[NSEEN];
static __thread unsigned long seen_tick;
static unsigned long fa_gen = 1;

/*
 * A collision makes a row look stale, and a thread that does not hold the
 * GIL cannot look the answer up again: Context objects sit a few pool
 * slots apart, so the address is mixed before it picks one of many slots.
 */
#define NSTAMP_BITS 10
static unsigned long stamp[1 << NSTAMP_BITS];

static unsigned long *
stamp_of(PyObject *ctx)
{
    return &stamp[((uint64_t)(uintptr_t)ctx * 0x9E3779B97F4A7C15ull)
                  >> (64 - NSTAMP_BITS)];
}

/* The ContextVar just changed in the calling thread's current Context. */
void
fa_bridge_changed(void)
{
    *stamp_of(fa_py_ts_context(PyThreadState_Get())) = ++fa_gen;
    /*
     * ContextVar.set() leaves context_ver as it was: the cached answer must go
     */
    tc.valid = 0;
}

static int
row_alive(const struct seen *r)
{
    return r->strong || (r->ref && fa_py_weakref_target(r->ref) == r->ctx);
}

/*
 * GIL held. may_drop: this is a point where dropping a reference and
 * allocating (which may collect garbage, and so run finalizers) are safe.
 * Inside an interposed libc call they are not: a new row there holds its
 * Context strongly, in a free row only, until the next point where it
 * may be held weakly. Rows whose Context died are emptied here.
 */
static int
remember(PyObject *ctx, const struct fa_thread_ctx *ans, int may_drop)
{
    struct seen *slot = NULL, *old = NULL, *free_row = NULL, *r;
    PyObject *drop[NSEEN], *ref, *c;
    int i, ndrop = 0, made = 0;

    if (!ctx) {
        return 0;
    }
    for (i = 0; i < NSEEN; i++) {
        r = &seen[i];
        if (may_drop && r->strong) {
            /*
             * the row is consistent before anything can run: a collection
             * the allocation starts may come back here
             */
            c = r->ctx;
            r->strong = 0;
            drop[ndrop++] = c;
            ref = PyWeakref_NewRef(c, NULL);
            if (!ref) {
                PyErr_Clear();
            }
            if (r->ctx == c && !r->ref && !r->strong) {
                r->ref = ref;
            } else {
                Py_XDECREF(ref);
            }
        }
        if (r->ctx && !row_alive(r)) {
            if (!may_drop) {
                continue;
            }
            Py_CLEAR(r->ref);
            r->ctx = NULL;
        }
        if (r->ctx == ctx) {
            slot = r;
        } else if (!r->ctx) {
            free_row = free_row ? free_row : r;
        } else if (!old || r->used < old->used) {
            old = r;
        }
    }
    if (!slot && !may_drop && free_row) {
        slot = free_row;
        slot->ctx = Py_NewRef(ctx);
        slot->strong = 1;
    } else if (!slot && may_drop) {
        ref = PyWeakref_NewRef(ctx, NULL);
        if (ref) {
            slot = free_row ? free_row : old;
            /* the evicted row's Context (if held strongly) was moved above */
            Py_XSETREF(slot->ref, ref);
            slot->ctx = ctx;
            made = 1;
        } else {
            PyErr_Clear();
        }
    }
    if (slot) {
        slot->gen = fa_gen;
        slot->used = ++seen_tick;
        slot->ans = *ans;
    }
    for (i = 0; i < ndrop; i++) {
        Py_DECREF(drop[i]);
    }
    return made;
}

/* Without the GIL too: see struct seen. */
static const struct fa_thread_ctx *
recall(PyObject *ctx)
{
    int i;

    for (i = 0; i < NSEEN; i++) {
        if (seen[i].ctx == ctx && row_alive(&seen[i])
            && seen[i].gen >= *stamp_of(ctx))
        {
            return &seen[i].ans;
        }
    }
    return NULL;
}

const char *
fa_native_reason(void)
{
    return br ? NULL : reason;
}

int
fa_native_on(void)
{
    return br != NULL;
}

void
fa_bridge_init(void)
{
    fa_bridge_fn fn;
    const struct fa_bridge *b;

    *(void **)&fn = dlsym(RTLD_DEFAULT, "fa_bridge_v1");
    if (!fn) {
        snprintf(reason, sizeof reason, "libfashim.so is not loaded");
        return;
    }
    b = fn();
    if (!b || b->version != FA_BRIDGE_VERSION || b->size < sizeof *b) {
        snprintf(reason, sizeof reason,
                 "libfashim.so speaks another bridge version (%u)",
                 b ? b->version : 0);
        return;
    }
    if (b->engine_abi != FA_ENGINE_ABI) {
        snprintf(reason, sizeof reason,
                 "libfashim.so was built from another engine (ABI %#x, ours "
                 "%#x)", b->engine_abi, FA_ENGINE_ABI);
        return;
    }
    br = b;
    reason[0] = 0;
    /*
     * The shim judges every call the hook lets through, beneath the pinned
     * roots: the hook may keep the paths it proved free of links while
     * the shim counts no move (linkfree_cache.c).
     */
    fa_trust_moves(b->moves);
#if FA_CONTEXT_WATCHERS
    /*
     * once per process, however often the module is executed: it publishes
     * a switch as it happens (the resolver would find it anyway)
     */
    if (watcher < 0 && (watcher = PyContext_AddWatcher(context_switched)) < 0) {
        PyErr_Clear();
    }
#endif
}

/* tc's answer was made for the thread's current Context, as it is now */
static int
tc_current(PyThreadState *ts)
{
    return tc.valid && fa_py_ts_context(ts) == tc.ctx
        && fa_py_ts_context_ver(ts) == tc.ver;
}

/* tc's answer is now the one for the thread's current Context */
static void
tc_keep(PyThreadState *ts)
{
    tc.ctx = fa_py_ts_context(ts);
    tc.ver = fa_py_ts_context_ver(ts);
    tc.ans.ver = tc.ver;
    tc.valid = 1;
}

static void
answer_for(PyObject *entry, struct fa_thread_ctx *ans)
{
    memset(ans, 0, sizeof *ans);
    ans->learn_fd = -1;
    if (entry) {
        ans->policy = ((FaEntryObject *)entry)->cfg->pol->policy;
        ans->exec_allowed = 0;
        ans->key = entry;
        ans->learn_fd = ((FaEntryObject *)entry)->cfg->learn_fd;
    }
}

/*
 * A finished asyncio task runs nothing more in its Context, yet the Task
 * (and so its Context, and the entry in it) may live on: in a gather()'s
 * result, a list of the host's, a kernel's history. While it lives the
 * entry counts as alive, and native workers are judged under its policy
 * outside any context. So a task seen running in a Context that holds an
 * entry gets a done callback, run in that Context, that sets the
 * ContextVar there to None: the entry then dies with the last Context
 * still able to run code under it. Only a Context no one else holds is
 * changed: the Task's own reference, the callback's handle, the bound
 * Context.run and the thread running it are all there is (a Context
 * passed to several tasks, or kept by the host, may run again). Tasks
 * say which Context is theirs from 3.12 (Task.get_context()).
 */
#define TASK_CONTEXT_REFS 4
static PyObject *followed;      /* weakref.WeakSet of the tasks followed */
static PyObject *release_cb_obj;

static PyObject *
release_task_context(PyObject *self, PyObject *task)
{
    PyObject *ctx = fa_py_ts_context(PyThreadState_Get()), *entry, *tok;

    (void)self;
    (void)task;
    if (!ctx || Py_REFCNT(ctx) != TASK_CONTEXT_REFS) {
        Py_RETURN_NONE;
    }
    entry = fa_current_entry();
    if (!entry) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Py_DECREF(entry);
    tok = PyContextVar_Set(fa_st.var, Py_None);
    if (!tok) {
        return NULL;
    }
    fa_bridge_changed();
    Py_DECREF(tok);
    Py_RETURN_NONE;
}

static PyMethodDef release_def = {
    "_release_task_context", release_task_context, METH_O,
    "Done callback: the finished task's Context no longer holds its entry."};

static void
follow_task(PyObject *ctx)
{
    PyObject *task = fa_current_task(), *own = NULL, *r = NULL, *kw = NULL,
        *add = NULL, *args = NULL;

    if (!task) {
        return;
    }
    if (!followed) {
        PyObject *wr = PyImport_ImportModule("weakref");

        followed = wr ? PyObject_CallMethod(wr, "WeakSet", NULL) : NULL;
        Py_XDECREF(wr);
        release_cb_obj = followed ? PyCFunction_New(&release_def, NULL) : NULL;
        if (!release_cb_obj) {
            Py_CLEAR(followed);
            goto out;
        }
    }
    own = PyObject_CallMethod(task, "get_context", NULL);
    if (own != ctx || PySequence_Contains(followed, task) != 0) {
        goto out;
    }
    add = PyObject_GetAttrString(task, "add_done_callback");
    args = add ? PyTuple_Pack(1, release_cb_obj) : NULL;
    kw = args ? Py_BuildValue("{s:O}", "context", ctx) : NULL;
    r = kw ? PyObject_Call(add, args, kw) : NULL;
    if (r) {
        Py_DECREF(r);
        r = PyObject_CallMethod(followed, "add", "O", task);
    }
out:
    PyErr_Clear();
    Py_XDECREF(r);
    Py_XDECREF(kw);
    Py_XDECREF(args);
    Py_XDECREF(add);
    Py_XDECREF(own);
    Py_XDECREF(task);
}

/* Called with the GIL held, with the thread's current entry (or NULL). */
void
fa_bridge_publish(PyObject *entry)
{
    PyThreadState *ts;

    if (!br) {
        return;
    }
    ts = PyThreadState_Get();
    /*
     * the ContextVar changes only through the Context's version: nothing new
     */
    if (tc.published && tc_current(ts)) {
        return;
    }
    answer_for(entry, &tc.ans);
    tc_keep(ts);
    if (remember(tc.ctx, &tc.ans, 1) && entry) {
        follow_task(tc.ctx);
    }
    if (!tc.published || tc.pub_policy != tc.ans.policy) {
        br->set_thread(&tc.ans);
        tc.published = 1;
        tc.pub_policy = tc.ans.policy;
    }
}

/* may be called with an exception set (a Context.run that raised) */
void
fa_bridge_switch(void)
{
    PyThreadState *ts = PyThreadState_Get();
    PyObject *entry, *et, *ev, *tb;

    if (!br || (tc.published && tc_current(ts))) {
        return;
    }
    PyErr_Fetch(&et, &ev, &tb);
    entry = fa_current_entry();
    if (!entry) {
        PyErr_Clear();
    }
    fa_bridge_publish(entry);
    Py_XDECREF(entry);
    PyErr_Restore(et, ev, tb);
}

#if FA_CONTEXT_WATCHERS
/*
 * Every change of a thread's current Context (an asyncio task step, a
 * Context.run) comes here, after the change: the new Context's answer is
 * published before the code it runs can reach native code.
 */
static int
context_switched(PyContextEvent event, PyObject *ctx)
{
    (void)ctx;
    if (event == Py_CONTEXT_SWITCHED && fa_st.live_entries) {
        fa_bridge_switch();
    }
    return 0;
}
#endif

static int
holds_gil(PyThreadState *ts)
{
    return fa_py_ts_unchecked() == ts;
}

/*
 * Thread ids of native workers seen judged by the shared answer: their
 * denials surface as errors in whichever Python thread waits for them.
 * Written without a lock from the workers (one atomic store each).
 */
#define NWORKERS 64
static int workers[NWORKERS];
static unsigned worker_next;

static void
remember_worker(void)
{
    static __thread int remembered;
    unsigned i;

    if (remembered) {
        return;
    }
    remembered = 1;
    i = __atomic_fetch_add(&worker_next, 1, __ATOMIC_RELAXED) % NWORKERS;
    __atomic_store_n(&workers[i], (int)gettid(), __ATOMIC_RELAXED);
}

/*
 * A thread seen without a Python thread state (one starting, before it is
 * bound to its own) is no native worker once it is refused with one:
 * otherwise another thread's exception could be given its refusal's note.
 * Inside the refused call: atomics only.
 */
static void
forget_worker(int tid)
{
    int i, t;

    for (i = 0; i < NWORKERS; i++) {
        t = tid;
        __atomic_compare_exchange_n(&workers[i], &t, 0, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
    }
}

static int
is_worker(int tid)
{
    int i;

    for (i = 0; i < NWORKERS; i++) {
        if (__atomic_load_n(&workers[i], __ATOMIC_RELAXED) == tid) {
            return 1;
        }
    }
    return 0;
}

static int
resolve(struct fa_thread_ctx *out)
{
    PyThreadState *ts;
    PyObject *entry, *et, *ev, *tb;
    const struct fa_thread_ctx *known;

    if (!fa_st.live_entries) {
        memset(out, 0, sizeof *out);
        return 1;
    }
    ts = PyGILState_GetThisThreadState();
    if (!ts) {
        /* a native worker: the shared answer (fa_bridge_live) */
        remember_worker();
        return FA_RESOLVE_SHARED;
    }
    if (tc_current(ts)) {
        *out = tc.ans;
        return 1;
    }
    if (!fa_py_ts_context(ts)) {
        /* no Context was ever created on this thread: no entry either */
        memset(out, 0, sizeof *out);
        return 1;
    }
    known = recall(fa_py_ts_context(ts));
    if (known) {
        tc.ans = *known;
        tc_keep(ts);
        *out = tc.ans;
        return 1;
    }
    if (!holds_gil(ts)) {
        /* native code released the GIL: read the variable where it lives */
        if (peek_ok != 1 || peek_var != fa_st.var) {
            return 0;
        }
        entry = fa_py_context_peek(fa_py_ts_context(ts), peek_var, peek_hash);
        answer_for(entry && Py_IS_TYPE(entry, fa_st.entry_type) ? entry : NULL,
                   &tc.ans);
        tc_keep(ts);
        tc.published = 1;
        tc.pub_policy = tc.ans.policy;
        *out = tc.ans;
        return 1;
    }
    /*
     * inside some C function with the GIL: run no Python, keep its exception
     */
    PyErr_Fetch(&et, &ev, &tb);
    entry = fa_current_entry();
    PyErr_Clear();
    PyErr_Restore(et, ev, tb);
    answer_for(entry, &tc.ans);
    Py_XDECREF(entry);   /* the context holds it; only its identity is kept */
    tc_keep(ts);
    tc.published = 1;
    tc.pub_policy = tc.ans.policy;
    remember(tc.ctx, &tc.ans, 0);
    *out = tc.ans;
    return 1;
}

/*
 * Whether fa_py_context_peek() finds what PyContextVar_Get() finds, in a
 * Context of one variable and in one of 200 (whose root is an array node
 * over bitmap nodes): 1, or 0 when it does not (a CPython whose Context or
 * HAMT layout changed). GIL held; any exception is cleared.
 */
static int
peek_agrees(void)
{
    PyObject *vars[200] = {NULL}, *ctx = NULL, *tok, *got;
    int32_t hash[200];
    int i, n = 0, ok = 0, entered = 0;

    ctx = PyContext_New();
    if (!ctx || PyContext_Enter(ctx) < 0) {
        goto out;
    }
    entered = 1;
    for (n = 0; n < 200; n++) {
        vars[n] = PyContextVar_New("fastaudit_peek", NULL);
        if (!vars[n] || (hash[n] = fa_py_hamt_hash(vars[n])) == -1) {
            goto out;
        }
        if (n == 1 || n == 199) {
            /* vars[0] first alone, then among the others */
            if (fa_py_context_peek(ctx, vars[0], hash[0]) != Py_True
                || fa_py_context_peek(ctx, vars[n], hash[n]) != NULL)
            {
                goto out;
            }
        }
        tok = PyContextVar_Set(vars[n], n % 2 ? Py_False : Py_True);
        if (!tok) {
            goto out;
        }
        Py_DECREF(tok);
    }
    ok = 1;
    for (i = 0; i < n && ok; i++) {
        if (PyContextVar_Get(vars[i], NULL, &got) < 0) {
            ok = 0;
            break;
        }
        ok = got && fa_py_context_peek(ctx, vars[i], hash[i]) == got;
        Py_XDECREF(got);
    }
out:
    if (entered && PyContext_Exit(ctx) < 0) {
        ok = 0;
    }
    for (i = 0; i < 200; i++) {
        Py_XDECREF(vars[i]);
    }
    Py_XDECREF(ctx);
    PyErr_Clear();
    return ok;
}

/* First context entry: from now on the shim asks before trusting its cache. */
void
fa_bridge_enter(PyObject *entry)
{
    if (!br) {
        return;
    }
    if (peek_var != fa_st.var) {
        peek_ok = peek_ok != 0 ? peek_agrees() : 0;
        peek_hash = peek_ok ? fa_py_hamt_hash(fa_st.var) : 0;
        if (peek_hash == -1) {
            PyErr_Clear();
            peek_ok = 0;
        }
        peek_var = fa_st.var;
    }
    if (!resolver_set) {
        br->set_resolver(resolve);
        resolver_set = 1;
    }
    fa_bridge_publish(entry);
}

/*
 * Native worker threads (library thread pools, threads whose creating
 * context ended) run no Python code of their own: nothing says for which
 * task they write. While entries are alive they are judged under every
 * live entry's policy at once: a write must be allowed by all of them,
 * so a write on behalf of any audited task is never let through. With
 * one policy alive that is the policy itself; with several it is their
 * intersection, built once per change of the set: the roots of each that
 * every other one allows, the deny subtrees of all, the strictest symlink
 * rules. A cwd root (".") moves with the process's directory and cannot
 * be intersected once: with several policies and a cwd root among them,
 * or more distinct policies than the table holds, every write is refused.
 * With no entry alive they are free.
 *
 * A policy stays alive while any thread may still be judging with it (a
 * worker that loaded the shared answer, a thread started in the context,
 * a native call of a thread whose context just ended): when the last
 * entry of a policy dies, or set_shared() replaces an intersection, the
 * policy is retired (the shim's retire() tags it with the epoch that
 * ends) and held here until the shim says no reader of that epoch is
 * left (reclaimable()). That is asked whenever the list has doubled
 * since the last look, so a reader that stays in one call keeps back
 * only what was retired after it began, and never makes Python wait.
 */
#define NLIVE 16
static struct {
    FaPolicyObject *pol;
    Py_ssize_t n;
    int learn_fd;           /* its learner's record, or -1 */
} live[NLIVE];
static Py_ssize_t live_overflow;   /* entries whose policy found no row */
static fa_policy *no_roots;
/* the intersection set_shared() holds now, freed through the list below */
static fa_policy *shared_meet;

struct retired {
    PyObject *obj;          /* a FaPolicyObject, or NULL */
    fa_policy *own;         /* an intersection of ours, or NULL */
    uint64_t tag;
};
static struct retired *retired;
static Py_ssize_t nretired, retired_cap, reclaim_at = 8;

static void
reclaim(void)
{
    uint64_t below = br->reclaimable();
    Py_ssize_t i, n = 0, nfree = 0;
    struct retired *gone;

    gone = PyMem_Malloc((size_t)(nretired ? nretired : 1) * sizeof *gone);
    if (!gone) {
        return;
    }
    for (i = 0; i < nretired; i++) {
        if (retired[i].tag < below) {
            gone[nfree++] = retired[i];
        } else {
            retired[n++] = retired[i];
        }
    }
    nretired = n;
    reclaim_at = nretired * 2 > 8 ? nretired * 2 : 8;
    /* the list is consistent before any finalizer runs */
    for (i = 0; i < nfree; i++) {
        if (gone[i].own) {
            fa_policy_free(gone[i].own);
        }
        Py_XDECREF(gone[i].obj);
    }
    PyMem_Free(gone);
}

/*
 * obj (a new reference is taken) or own (taken over) is no longer
 * published anywhere. Without memory for the list it is never freed.
 */
static void
retire(PyObject *obj, fa_policy *own)
{
    uint64_t tag = br->retire();

    if (nretired == retired_cap) {
        Py_ssize_t cap = retired_cap ? retired_cap * 2 : 16;
        struct retired *r = PyMem_Realloc(retired, (size_t)cap * sizeof *r);

        if (!r) {
            Py_XINCREF(obj);
            return;
        }
        retired = r;
        retired_cap = cap;
    }
    retired[nretired].obj = Py_XNewRef(obj);
    retired[nretired].own = own;
    retired[nretired].tag = tag;
    if (++nretired >= reclaim_at) {
        reclaim();
    }
}

static int
has_cwd_root(const fa_policy *p)
{
    int i, n = fa_policy_nroots(p);

    for (i = 0; i < n; i++) {
        if (!strcmp(fa_policy_root(p, i), ".")) {
            return 1;
        }
    }
    return 0;
}

/* root is a directory every policy in pols but 'self' lets code write into */
static int
all_allow(const fa_policy *const *pols, int n, int self, const char *root)
{
    struct fa_decision d;
    int j;

    for (j = 0; j < n; j++) {
        if (j != self
            && fa_check(pols[j], FA_OP_DIR, AT_FDCWD, root, &d) != FA_ALLOW)
        {
            return 0;
        }
    }
    return 1;
}

/* What n restricted policies (n >= 2, no cwd root) all allow, or NULL. */
static fa_policy *
meet(const fa_policy *const *pols, int n)
{
    fa_policy *p = fa_policy_new();
    enum fa_symlinks sym = FA_SYM_TRUST;
    int i, k, outside = 1;
    char msg[256];

    if (!p) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        for (k = 0; k < fa_policy_nroots(pols[i]); k++) {
            const char *r = fa_policy_root(pols[i], k);

            if (all_allow(pols, n, i, r)
                && fa_policy_add_root(p, r, msg, sizeof msg) < 0)
            {
                goto fail;
            }
        }
        for (k = 0; k < fa_policy_ndeny(pols[i]); k++) {
            if (fa_policy_add_deny(p, fa_policy_deny(pols[i], k), msg,
                                   sizeof msg) < 0)
            {
                goto fail;
            }
        }
        if (fa_policy_add_globs_of(p, pols[i], msg, sizeof msg) < 0) {
            goto fail;
        }
        if (fa_policy_symlinks(pols[i]) > sym) {
            sym = fa_policy_symlinks(pols[i]);
        }
        outside &= fa_policy_outside_symlinks(pols[i]) != 0;
    }
    fa_policy_set_symlinks(p, sym);
    fa_policy_set_outside_symlinks(p, outside);
    if (fa_policy_seal(p, 0, msg, sizeof msg) < 0) {
        goto fail;
    }
    return p;
fail:
    fa_policy_free(p);
    return NULL;
}

static const fa_policy *
refuse_all(void)
{
    char msg[128];

    if (!no_roots) {
        no_roots = fa_policy_new();
        if (no_roots && fa_policy_seal(no_roots, 0, msg, sizeof msg) < 0) {
            fa_policy_free(no_roots);
            no_roots = NULL;
        }
    }
    return no_roots;
}

static void
publish_shared(void)
{
    const fa_policy *pols[NLIVE], *p = NULL;
    fa_policy *m = NULL;
    struct fa_thread_ctx c;
    int i, n = 0, cwd = 0, learn_fd = -1, one_fd = -1;

    /* the policies of live entries stay alive until retired (fa_bridge_live) */
    for (i = 0; i < NLIVE; i++) {
        /* an unrestricted policy allows every path: it narrows nothing */
        if (live[i].pol && !fa_policy_unrestricted(live[i].pol->policy)) {
            one_fd = live[i].learn_fd;
            pols[n++] = live[i].pol->policy;
            cwd |= has_cwd_root(live[i].pol->policy);
        } else if (live[i].pol && !p) {
            p = live[i].pol->policy;
        }
    }
    if (live_overflow) {
        p = refuse_all();
    } else if (n == 1) {
        /* one learning context: what workers would have been refused is its to learn */
        p = pols[0];
        learn_fd = one_fd;
    } else if (n > 1 && cwd) {
        p = refuse_all();
    } else if (n > 1) {
        m = meet(pols, n);
        p = m ? m : refuse_all();
    }
    memset(&c, 0, sizeof c);
    c.policy = p;
    c.learn_fd = learn_fd;
    br->set_shared(&c);
    /* the intersection published before is no longer reachable */
    if (shared_meet) {
        retire(NULL, shared_meet);
    }
    shared_meet = m;
}

void
fa_bridge_live(PyObject *policy, int delta, int learn_fd)
{
    FaPolicyObject *pol = (FaPolicyObject *)policy;
    int i, free_row = -1;

    if (!br) {
        return;
    }
    for (i = 0; i < NLIVE; i++) {
        if (live[i].pol == pol) {
            break;
        }
        if (!live[i].pol && free_row < 0) {
            free_row = i;
        }
    }
    if (i == NLIVE) {
        /*
         * entries of more distinct policies than the table holds: refuse for
         * workers
         */
        if (delta < 0) {
            if (live_overflow && --live_overflow == 0) {
                publish_shared();
            }
            goto dead;
        }
        if (free_row < 0) {
            if (live_overflow++ == 0) {
                publish_shared();
            }
            return;
        }
        i = free_row;
        live[i].pol = pol;     /* borrowed: its entries keep it alive */
        live[i].n = 0;
        live[i].learn_fd = learn_fd;
    }
    live[i].n += delta;
    if (live[i].n <= 0) {
        live[i].pol = NULL;
    }
    /* publish only when the set of policies changed */
    if (live[i].n == (delta > 0 ? 1 : 0)) {
        publish_shared();
    }
dead:
    /*
     * An entry's policy reached threads through set_thread, the resolver or
     * set_shared (replaced just above): whoever still judges with it keeps
     * it alive through the list, whatever else lets it go.
     */
    if (delta < 0) {
        retire(policy, NULL);
    }
}

void
fa_bridge_approve(enum fa_op op, const char *path)
{
    if (br && path) {
        br->approve(op, path);
    }
}

/*
 * A process start the host allowed: approve, one-shot, the program paths
 * the exec will try (subprocess joins a bare name with each PATH entry;
 * only candidates that exist are approved, the shim keeps few). os.execv
 * takes a bare name as a path in the cwd, as execve does; os.posix_spawn
 * too, while posix_spawnp, which raises the same event, searches PATH: a
 * bare name is approved both ways there. The program starts under the
 * context's policy unless the host said UNCONFINED.
 */
void
fa_bridge_approve_exec(const char *event, PyObject *args, int unconfined)
{
    void (*approve_exec)(const char *) = NULL;
    PyObject *prog = NULL, *env = Py_None, *os = NULL, *dirs = NULL, *b = NULL;
    const char *p;
    char buf[PATH_MAX];
    struct stat st;
    Py_ssize_t i, n;

    if (!br || !PyTuple_Check(args) || PyTuple_GET_SIZE(args) < 1) {
        return;
    }
    approve_exec = unconfined ? br->approve_exec_unconfined : br->approve_exec;
    if (!strcmp(event, "os.system")) {
        approve_exec("/bin/sh");
        return;
    }
    if (!strcmp(event, "subprocess.Popen") || !strcmp(event, "os.exec")
        || !strcmp(event, "os.posix_spawn"))
    {
        prog = PyTuple_GET_ITEM(args, 0);
    } else if (!strcmp(event, "pty.spawn")) {
        prog = PyTuple_GET_ITEM(args, 0);
    }
    if (!prog) {
        return;
    }
    if (PyList_Check(prog) || PyTuple_Check(prog)) {
        prog = PySequence_Size(prog) > 0 ? PySequence_GetItem(prog, 0) : NULL;
    } else {
        Py_INCREF(prog);
    }
    if (!prog || !PyUnicode_FSConverter(prog, &b)) {
        goto out;
    }
    p = PyBytes_AS_STRING(b);
    if (strchr(p, '/') || !strcmp(event, "os.exec")
        || !strcmp(event, "os.posix_spawn"))
    {
        approve_exec(p);
    }
    if (strchr(p, '/') || !strcmp(event, "os.exec")) {
        goto out;
    }
    if (!strcmp(event, "subprocess.Popen") && PyTuple_GET_SIZE(args) >= 4) {
        env = PyTuple_GET_ITEM(args, 3);
    }
    os = PyImport_ImportModule("os");
    dirs = os ? PyObject_CallMethod(os, "get_exec_path", "O", env) : NULL;
    n = dirs && PyList_Check(dirs) ? PyList_GET_SIZE(dirs) : 0;
    for (i = 0; i < n; i++) {
        PyObject *d = NULL;
        if (!PyUnicode_FSConverter(PyList_GET_ITEM(dirs, i), &d)) {
            break;
        }
        /* an empty entry is the cwd: subprocess runs the bare name */
        snprintf(buf, sizeof buf, "%s%s%s", PyBytes_AS_STRING(d),
                 *PyBytes_AS_STRING(d) ? "/" : "", p);
        Py_DECREF(d);
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
            approve_exec(buf);
        }
    }
out:
    PyErr_Clear();
    Py_XDECREF(prog);
    Py_XDECREF(b);
    Py_XDECREF(os);
    Py_XDECREF(dirs);
}

/* the newest refusal the shim made on this thread, as it told us */
static __thread uint64_t own_seq;

/*
 * Threads refused with the GIL released whose note is still to be given:
 * no one can set RAISE for them until they raise, and another thread may
 * clear it meanwhile (its own note given); while any waits, RAISE stays.
 * Each thread counts itself once per generation; the last exit starts a
 * new one.
 */
static long waiting;
static unsigned long waiting_gen = 1;
static __thread unsigned long waiting_mine;

static void
wait_for_note(void)
{
    unsigned long g = __atomic_load_n(&waiting_gen, __ATOMIC_ACQUIRE);

    if (waiting_mine != g) {
        waiting_mine = g;
        __atomic_add_fetch(&waiting, 1, __ATOMIC_ACQ_REL);
    }
}

static void
note_given(void)
{
    if (waiting_mine
        && waiting_mine == __atomic_load_n(&waiting_gen, __ATOMIC_ACQUIRE))
    {
        __atomic_sub_fetch(&waiting, 1, __ATOMIC_ACQ_REL);
    }
    waiting_mine = 0;
}

int
fa_bridge_notes_waiting(void)
{
    return __atomic_load_n(&waiting, __ATOMIC_ACQUIRE) > 0;
}

void
fa_bridge_notes_forget(void)
{
    __atomic_add_fetch(&waiting_gen, 1, __ATOMIC_ACQ_REL);
    __atomic_store_n(&waiting, 0, __ATOMIC_RELEASE);
}

/*
 * Each thread's newest refusal, recorded as the shim tells of it: while
 * this thread waits for the GIL to raise its error, another that holds it
 * may be refused more often than the shim's ring keeps records. A few slots,
 * claimed by thread id (a dead thread's is taken over), each written and
 * read by its own thread only (a seqlock for a signal handler's refusal
 * in between); a thread that finds none falls back to the ring.
 */
#define NOWN 8
static struct own {
    int tid;                /* 0: free */
    uint64_t ver;           /* odd while being written */
    struct fa_denial d;
} owns[NOWN];

static struct own *
own_slot(int claim)
{
    int me = (int)gettid(), i, t;

    for (i = 0; i < NOWN; i++) {
        if (__atomic_load_n(&owns[i].tid, __ATOMIC_ACQUIRE) == me) {
            return &owns[i];
        }
    }
    for (i = 0; claim && i < NOWN; i++) {
        t = __atomic_load_n(&owns[i].tid, __ATOMIC_ACQUIRE);
        if ((t == 0 || (tgkill(getpid(), t, 0) < 0 && errno == ESRCH))
            && __atomic_compare_exchange_n(&owns[i].tid, &t, me, 0,
                                           __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        {
            return &owns[i];
        }
    }
    return NULL;
}

/* Inside the refused call: async-signal-safe, no GIL, errno kept. */
static void
keep_own(const struct fa_denial_view *v)
{
    struct own *o;
    int saved = errno;

    o = own_slot(1);
    if (o) {
        __atomic_store_n(&o->ver, o->ver + 1, __ATOMIC_RELEASE);
        fa_denial_record(&o->d, v);
        __atomic_store_n(&o->ver, o->ver + 1, __ATOMIC_RELEASE);
    }
    errno = saved;
}

/* This thread's refusal numbered seq, as kept: 1, or 0. */
static int
own_copy(uint64_t seq, struct fa_denial *out)
{
    struct own *o = own_slot(0);
    uint64_t v;

    if (!o) {
        return 0;
    }
    v = __atomic_load_n(&o->ver, __ATOMIC_ACQUIRE);
    if (v % 2 || o->d.seq != seq) {
        return 0;
    }
    memcpy(out, &o->d, sizeof *out);
    return __atomic_load_n(&o->ver, __ATOMIC_ACQUIRE) == v;
}
/* the newest denial whose note was given on this thread */
static __thread uint64_t given_seq;
/* an OSError has given_seq's note: only an exception linked to it gets it */
static __thread int given_closed;
/* the newest denial found to be another thread's */
static __thread uint64_t passed_seq;
/* the exception the RAISE before this one carried (identity only) */
static __thread void *last_raised;

/*
 * A bridge record rendered by the shim's own renderer (denial.h) into a
 * str: one line, every control byte escaped.
 */
static PyObject *
denial_text(const struct fa_denial *d)
{
    struct fa_denial_view v;
    char small[2048], *big = NULL;
    struct fa_buf b = FA_BUF_INIT(small);
    PyObject *r;

    fa_denial_view_of(&v, d);
    fa_denial_text(&b, &v);
    if (!fa_buf_fits(&b)) {
        big = PyMem_Malloc(b.len + 1);
        if (!big) {
            return PyErr_NoMemory();
        }
        b = (struct fa_buf){ big, 0, b.len + 1 };
        fa_denial_text(&b, &v);
    }
    r = PyUnicode_DecodeUTF8(b.p, (Py_ssize_t)b.len, "replace");
    PyMem_Free(big);
    return r;
}

/*
 * Append to __notes__: what add_note() does on 3.11+; 3.10 has no add_note().
 */
static int
append_note(PyObject *exc, PyObject *text)
{
    PyObject *notes = PyObject_GetAttrString(exc, "__notes__");
    int rc;

    if (!notes) {
        PyErr_Clear();
        notes = PyList_New(0);
        if (!notes || PyObject_SetAttrString(exc, "__notes__", notes) < 0) {
            Py_XDECREF(notes);
            return -1;
        }
    }
    rc = PyList_Check(notes) ? PyList_Append(notes, text) : -1;
    Py_DECREF(notes);
    return rc;
}

/*
 * What the last note given on this thread was given with, in the thread's
 * state dict so that it goes with the thread: (note, rule or None, fix or
 * None, frames, offsets). An exception holding this very note object in
 * its __notes__ is a noted one: a noted exception's own address says
 * nothing once it is freed, as the next exception is often made there.
 * frames and offsets are the stack the first noted exception was raised
 * on, innermost first, and where each frame was; None once closed.
 */
#define NOTE_KEY "fastaudit.native_note"
#define ANCHOR_MAX 32

static PyObject *
last_given(void)
{
    PyObject *d = PyThreadState_GetDict(), *t;

    t = d ? PyDict_GetItemString(d, NOTE_KEY) : NULL;
    return t && PyTuple_Check(t) && PyTuple_GET_SIZE(t) == 5 ? t : NULL;
}

/* The running stack as (frames, offsets), innermost first; NULL on failure. */
static PyObject *
anchor_here(void)
{
    PyFrameObject *f = PyEval_GetFrame(), *b;
    PyObject *frames = PyList_New(0), *offs = PyList_New(0), *o, *r = NULL;
    int n = 0;

    Py_XINCREF(f);
    while (f && frames && offs && n++ < ANCHOR_MAX) {
        o = PyLong_FromLong(fa_py_frame_lasti(f));
        if (!o || PyList_Append(frames, (PyObject *)f) < 0
            || PyList_Append(offs, o) < 0)
        {
            Py_XDECREF(o);
            goto out;
        }
        Py_DECREF(o);
        b = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = b;
    }
    if (frames && offs) {
        r = Py_BuildValue("(NN)", PyList_AsTuple(frames), PyList_AsTuple(offs));
    }
out:
    Py_XDECREF(f);
    Py_XDECREF(frames);
    Py_XDECREF(offs);
    return r;
}

/*
 * The running frame is one the first noted exception passed on its way
 * out of the refused call (not the frame it was raised in), and it is
 * still at the same instruction: the call is the one that was refused.
 */
static int
inside_anchor(PyObject *given)
{
    PyObject *frames = PyTuple_GET_ITEM(given, 3),
        *offs = PyTuple_GET_ITEM(given, 4);
    PyFrameObject *f = PyEval_GetFrame();
    Py_ssize_t i;

    if (!f || !PyTuple_Check(frames) || !PyTuple_Check(offs)) {
        return 0;
    }
    for (i = 1; i < PyTuple_GET_SIZE(frames); i++) {
        if (PyTuple_GET_ITEM(frames, i) == (PyObject *)f) {
            return PyLong_AsLong(PyTuple_GET_ITEM(offs, i))
                   == fa_py_frame_lasti(f);
        }
    }
    return 0;
}

/*
 * Frames of the anchor that finished and that nothing else holds can never
 * run again: they are let go rather than kept, with their locals, until
 * the next denial.
 */
static void
prune_anchor(PyObject *given)
{
    PyObject *frames = PyTuple_GET_ITEM(given, 3), *f;
    Py_ssize_t i;

    if (!PyTuple_Check(frames) || Py_REFCNT(frames) != 1) {
        return;
    }
    for (i = 0; i < PyTuple_GET_SIZE(frames); i++) {
        f = PyTuple_GET_ITEM(frames, i);
        if (f != Py_None && Py_REFCNT(f) == 1) {
            /* the tuple is ours alone: replacing an item is safe */
            PyTuple_SET_ITEM(frames, i, Py_NewRef(Py_None));
            Py_DECREF(f);
        }
    }
}

static PyObject *
str_or_none(const char *s)
{
    return s && *s ? PyUnicode_FromString(s) : Py_NewRef(Py_None);
}

/* Give exc the note, and the guard's attribute: 0, or -1 with an exception. */
static int
give(PyObject *exc, PyObject *note, PyObject *rule, PyObject *fix)
{
    PyObject *libc;
    const char *r = rule != Py_None ? PyUnicode_AsUTF8(rule) : NULL,
        *x = fix != Py_None ? PyUnicode_AsUTF8(fix) : NULL;
    int rc;

    if (PyErr_Occurred() || append_note(exc, note) < 0) {
        return -1;
    }
    /* the guard's attribute says who refused, whatever the library raised */
    libc = PyUnicode_InternFromString("libc");
    rc = libc ? fa_set_guard_attr(exc, libc, r, x) : -1;
    Py_XDECREF(libc);
    return rc;
}

static int
holds(PyObject *exc, PyObject *note)
{
    PyObject *notes;
    Py_ssize_t i;
    int found = 0;

    if (!exc || !note) {
        return 0;
    }
    notes = PyObject_GetAttrString(exc, "__notes__");
    if (!notes) {
        PyErr_Clear();
        return 0;
    }
    if (PyList_Check(notes)) {
        for (i = 0; i < PyList_GET_SIZE(notes) && !found; i++) {
            found = PyList_GET_ITEM(notes, i) == note;
        }
    }
    Py_DECREF(notes);
    return found;
}

/* exc was raised while handling the exception that got the last note */
static int
linked_to_noted(PyObject *exc, PyObject *note)
{
    PyObject *ctx = PyException_GetContext(exc),
        *cause = PyException_GetCause(exc);
    int linked = holds(ctx, note) || holds(cause, note);

    Py_XDECREF(ctx);
    Py_XDECREF(cause);
    return linked;
}

/*
 * The first exception raised on this thread after the shim refused one of
 * its calls (or one of a native worker's, made on its behalf as far as
 * anyone can tell) gets a note: the shim's own line for that denial.
 * Native libraries report EACCES in their own words, and may run code of
 * their own between the refusal and the error they finally raise (h5py
 * raises and catches errors of its own while it reads its error stack), so
 * the note is given again, until an OSError has it, to an exception first
 * raised (not passed on) in a frame the first noted one passed on its way
 * out while that frame is still at the same instruction: raised for the
 * call that was refused. An exception raised while handling a noted one
 * (a library re-raising in its own type) gets it too. Any other exception
 * gets nothing: a later int('x'), a refusal of another context.
 *
 * The newest record is not always the one: the shim numbers a denial
 * before its record is readable, so a worker refused a moment later (a
 * pool's second thread trying the same mkdir) can hold the newest number
 * while the exception for the first one is built. The newest readable
 * record of this thread, or of a native worker, among the last few is
 * taken instead.
 */
#define NLOOK 4

static int
give_new(PyObject *exc, uint64_t n)
{
    struct fa_denial *d, *pick = NULL;
    PyObject *text = NULL, *rule = NULL, *fix = NULL, *anchor = NULL,
        *given = NULL, *dict;
    int i, got, closed, rc = -1;

    d = PyMem_Malloc(NLOOK * sizeof *d);
    if (!d) {
        return -1;
    }
    /*
     * the shim said which refusal was this thread's: however many others
     * came after it (another thread that kept the GIL meanwhile), it is
     * the one
     */
    if (own_seq > given_seq && own_copy(own_seq, &d[0])) {
        pick = &d[0];
        got = 0;
    } else {
        own_seq = 0;    /* not kept (no slot was free): it gets no note */
        got = br->recent_denials(d, NLOOK);
    }
    for (i = got - 1; i >= 0 && d[i].seq > given_seq && !pick; i--) {
        if (d[i].tid == (int)gettid()
            || (d[i].from_context && is_worker(d[i].tid)))
        {
            pick = &d[i];
        }
    }
    if (!pick) {
        /* the newest were read and none is ours: skip until the next denial */
        if (got > 0 && d[got - 1].seq >= n) {
            passed_seq = n;
        }
        PyMem_Free(d);
        return 0;
    }
    closed = PyErr_GivenExceptionMatches(exc, PyExc_OSError);
    text = denial_text(pick);
    rule = text ? str_or_none(pick->why) : NULL;
    fix = rule ? str_or_none(pick->fix) : NULL;
    anchor = fix && !closed ? anchor_here() : NULL;
    if (fix && (closed || anchor)) {
        given = Py_BuildValue("(OOOOO)", text, rule, fix,
                              anchor ? PyTuple_GET_ITEM(anchor, 0) : Py_None,
                              anchor ? PyTuple_GET_ITEM(anchor, 1) : Py_None);
    }
    dict = PyThreadState_GetDict();
    if (given && dict && PyDict_SetItemString(dict, NOTE_KEY, given) == 0
        && give(exc, text, rule, fix) == 0)
    {
        if (pick->seq >= own_seq) {
            note_given();
        }
        given_seq = pick->seq;
        given_closed = closed;
        rc = 1;
    }
    Py_XDECREF(given);
    Py_XDECREF(anchor);
    Py_XDECREF(fix);
    Py_XDECREF(rule);
    Py_XDECREF(text);
    PyMem_Free(d);
    return rc;
}

static void (*on_denial)(void);

/* Called by the shim inside a refused libc call (fa_bridge.h) */
static void
denied(const struct fa_denial_view *v)
{
    PyThreadState *ts;

    own_seq = v->seq;
    ts = PyGILState_GetThisThreadState();
    if (!ts) {
        return;
    }
    /* a thread that raises Python errors (native workers do not) */
    keep_own(v);
    forget_worker((int)gettid());
    if (!holds_gil(ts)) {
        wait_for_note();
    } else if (fa_st.live_entries && on_denial
               && PyThreadState_GetInterpreter(ts) == fa_st.interp)
    {
        /* the contexts, and the monitoring id, are the main interpreter's */
        on_denial();
    }
}

void
fa_bridge_on_denial(void (*fn)(void))
{
    if (!br) {
        return;
    }
    on_denial = fn;
    br->set_denied(fn ? denied : NULL);
}

int
fa_bridge_note_pending(void)
{
    uint64_t n;

    if (!br) {
        return 0;
    }
    n = br->denial_count();
    return own_seq > given_seq || (n > given_seq && n != passed_seq)
        || (!given_closed && last_given());
}

int
fa_bridge_note(PyObject *exc)
{
    PyObject *given, *note, *dict, *closed;
    void *before = last_raised;
    uint64_t n;
    int rc;

    if (!br || !exc) {
        return 0;
    }
    last_raised = exc;
    n = br->denial_count();
    if (n == 0) {
        return 0;
    }
    given = last_given();
    note = given ? PyTuple_GET_ITEM(given, 0) : NULL;
    if (holds(exc, note)) {
        return 0;
    }
    if ((n > given_seq && n != passed_seq) || own_seq > given_seq) {
        rc = give_new(exc, n);
        if (rc != 0) {
            if (rc < 0) {
                PyErr_Clear();
            }
            return rc > 0;
        }
    }
    if (!note) {
        return 0;
    }
    if (!given_closed) {
        prune_anchor(given);
    }
    if (!linked_to_noted(exc, note)
        && (given_closed || exc == before || !inside_anchor(given)))
    {
        return 0;
    }
    Py_INCREF(given);
    rc = give(exc, note, PyTuple_GET_ITEM(given, 1), PyTuple_GET_ITEM(given, 2));
    if (rc == 0 && !given_closed
        && PyErr_GivenExceptionMatches(exc, PyExc_OSError))
    {
        /* closed: the frames are let go */
        given_closed = 1;
        dict = PyThreadState_GetDict();
        closed = Py_BuildValue("(OOOOO)", note, PyTuple_GET_ITEM(given, 1),
                               PyTuple_GET_ITEM(given, 2), Py_None, Py_None);
        if (!closed || !dict
            || PyDict_SetItemString(dict, NOTE_KEY, closed) < 0)
        {
            rc = -1;
        }
        Py_XDECREF(closed);
    }
    Py_DECREF(given);
    if (rc < 0) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

static PyObject *
roots_list(const struct fa_denial_view *v)
{
    const char *r, *cur = NULL;
    PyObject *list, *item;
    int i;

    if (!FA_DENIAL_HAS_ROOTS(v)) {
        Py_RETURN_NONE;
    }
    list = PyList_New(0);
    for (i = 0; list && (r = fa_denial_root(v, i, &cur)); i++) {
        item = PyUnicode_DecodeFSDefault(r);
        if (!item || PyList_Append(list, item) < 0) {
            Py_CLEAR(list);
        }
        Py_XDECREF(item);
    }
    return list;
}

/* One field of a record, as the log writes it but as a Python object. */
static PyObject *
field_value(const struct fa_denial_view *v, const struct fa_denial_field *f)
{
    const char *at = (const char *)v + f->off;
    char small[64];
    struct fa_buf b = FA_BUF_INIT(small);

    switch (f->kind) {
    case FA_FIELD_STR:
        if (!*(const char *const *)at) {
            Py_RETURN_NONE;
        }
        return PyUnicode_DecodeUTF8(
            *(const char *const *)at,
            (Py_ssize_t)strlen(*(const char *const *)at), "replace");
    case FA_FIELD_PATH:
        /* os.fsencode() gives back the exact bytes */
        if (!*(const char *const *)at) {
            Py_RETURN_NONE;
        }
        return PyUnicode_DecodeFSDefault(*(const char *const *)at);
    case FA_FIELD_U64:
        return PyLong_FromUnsignedLongLong(*(const uint64_t *)at);
    case FA_FIELD_INT:
        return PyLong_FromLong(*(const int *)at);
    case FA_FIELD_BOOL:
        return PyBool_FromLong(*(const int *)at);
    case FA_FIELD_ROOTS:
        return roots_list(v);
    default:
        if (!fa_denial_field_text(&b, v, f)) {
            Py_RETURN_NONE;
        }
        return PyUnicode_FromStringAndSize(b.p, (Py_ssize_t)b.len);
    }
}

/* A record as a dict with the keys and values of its log line. */
static PyObject *
denial_dict(const struct fa_denial *d)
{
    struct fa_denial_view v;
    PyObject *dict = PyDict_New(), *val;
    int i;

    if (!dict) {
        return NULL;
    }
    fa_denial_view_of(&v, d);
    for (i = 0; i < fa_denial_nfields; i++) {
        val = field_value(&v, &fa_denial_fields[i]);
        if (!val
            || PyDict_SetItemString(dict, fa_denial_fields[i].name, val) < 0)
        {
            Py_XDECREF(val);
            Py_DECREF(dict);
            return NULL;
        }
        Py_DECREF(val);
    }
    return dict;
}

#define NRECENT 16

/* Recent native denials as a list of dicts, oldest first. */
PyObject *
fa_native_denials(void)
{
    struct fa_denial *d;
    PyObject *list = PyList_New(0), *item;
    int i, n;

    if (!list || !br) {
        return list;
    }
    d = PyMem_Malloc(NRECENT * sizeof *d);
    if (!d) {
        Py_DECREF(list);
        return PyErr_NoMemory();
    }
    n = br->recent_denials(d, NRECENT);
    for (i = 0; i < n; i++) {
        item = denial_dict(&d[i]);
        if (!item || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(list);
            list = NULL;
            break;
        }
        Py_DECREF(item);
    }
    PyMem_Free(d);
    return list;
}

unsigned long long
fa_native_denial_count(void)
{
    return br ? (unsigned long long)br->denial_count() : 0;
}
