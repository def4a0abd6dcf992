/* SPDX-License-Identifier: Apache-2.0 */
/*
 * parts.h - what the pieces of fastaudit._fastaudit share.
 *
 * The enforcement state is process-wide C data (the audit hook is
 * process-wide and cannot be removed), created once by fa_install() and
 * never exposed to Python as a mutable object.
 */
#ifndef FASTAUDIT_PARTS_H
#define FASTAUDIT_PARTS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "cpython_private.h"

#include "fa_policy.h"

#if PY_VERSION_HEX >= 0x030C0000
#define FA_HAVE_MONITORING 1
#else
#define FA_HAVE_MONITORING 0
#endif

/* PyContext_AddWatcher, with Py_CONTEXT_SWITCHED */
#if PY_VERSION_HEX >= 0x030E0000
#define FA_CONTEXT_WATCHERS 1
#else
#define FA_CONTEXT_WATCHERS 0
#endif

/* ---- text.c ------------------------------------------------------------ */

#define FA_TEXT_MAX 160

struct fa_piece {
    const char *s;          /* ASCII, when u is NULL */
    PyObject *u;
    Py_ssize_t len;
    int owned;
};

struct fa_text {
    int n, failed;
    struct fa_piece p[FA_TEXT_MAX];
};

void fa_text_init(struct fa_text *t);
void fa_text_c(struct fa_text *t, const char *s);
void fa_text_ascii(struct fa_text *t, const char *s, Py_ssize_t len);
/* an ASCII string literal: no strlen, no scan */
#define fa_text_lit(t, s) fa_text_ascii((t), "" s, (Py_ssize_t)sizeof(s) - 1)
void fa_text_u(struct fa_text *t, PyObject *u);
void fa_text_steal(struct fa_text *t, PyObject *u);
void fa_text_repr(struct fa_text *t, PyObject *o);
void fa_text_tuple_repr(struct fa_text *t, PyObject *tup);
PyObject *fa_text_done(struct fa_text *t);

/* ---- events.c ---------------------------------------------------------- */

enum fa_evclass {
    FA_EV_OTHER = 0,  /* not listed: denied unless host policy allows */
    FA_EV_ALLOW,      /* explicitly allowed */
    FA_EV_FIRST,      /* first argument is a path */
    FA_EV_DST,        /* second argument is the destination path */
    FA_EV_BOTH,       /* source and destination */
    FA_EV_OPEN,
    FA_EV_CHDIR,
    FA_EV_TRUNCATE,
    FA_EV_SETATTR,
    FA_EV_ENV,
    FA_EV_THREAD,
    /* audit_perms.*: policy changes, denied inside a context */
    FA_EV_INTERNAL,
    FA_EV_IMPORT,     /* a module not yet in sys.modules is being imported */
    /* a process start that may be part of a subprocess.Popen just allowed */
    FA_EV_SPAWN,
    /* a call into native code: the shim's to judge where it is loaded */
    FA_EV_NATIVE,
};

struct fa_evinfo {
    const char *name;
    enum fa_evclass cls;
    enum fa_op op;
    signed char dirfd_arg;   /* index of a dir_fd argument, or -1 */
    signed char dirfd2_arg;  /* second dir_fd (rename, link), or -1 */
    unsigned char moves;     /* FA_MOVES_*: what moves.c counts */
};

const struct fa_evinfo *fa_event_lookup(const char *event);
int fa_setattr_allowed(const char *name);
int fa_env_sensitive(const char *key);

/* ---- moves.c --------------------------------------------------------- */

/* an event that may put a link on a path, or move a directory */
#define FA_MOVES_LINK 1
/* an event that starts a process */
#define FA_MOVES_START 2

/* Without libfashim.so: the hook keeps its proofs by this count. */
void fa_moves_watch(void);
/*
 * Events went unwatched (no context was live): forget what was kept, and
 * look for children.
 */
void fa_moves_unwatched(void);
/* The hook keeps its proofs by this count. */
int fa_moves_on(void);
/* Before an event whose moves is not 0. */
void fa_moves_announce(int how);
/* At each event of a thread: the moves it announced are done. */
void fa_moves_settle(void);

/* ---- roots.c ------------------------------------------------------------ */

/* A compiled, sealed set of roots, shared by the snapshots of one mk_audit. */
typedef struct {
    PyObject_HEAD
    fa_policy *policy;      /* sealed; unrestricted for roots=None */
    PyObject *roots;        /* tuple of str as the user sees them, or None */
    PyObject *roots_repr;   /* repr(roots), for messages */
} FaPolicyObject;

extern PyTypeObject FaPolicy_Type;

/*
 * symlinks: the mode (enum fa_symlinks), or -1 when the caller named none
 * (base's, or trust). outside_symlinks: symlinks may be created whatever
 * their target. base: a policy already filled from a policy file (taken
 * over, freed on failure), or NULL.
 */
/*
 * mk_audit(deny=, deny_read=): iterables of paths and patterns, or NULL.
 * A deny entry with a wildcard is a pattern, any other a deny subtree.
 */
struct fa_py_denies {
    PyObject *deny;
    PyObject *deny_read;
};
PyObject *fa_policy_from_roots(PyObject *roots, int symlinks,
                               int outside_symlinks, fa_policy *base,
                               const struct fa_py_denies *dn);

/* ---- py_policy.c ------------------------------------------------------- */

/*
 * 0: allowed; -1: denied (PermissionError raised or host allowed: see
 * *handled).
 */
int fa_judge_event(PyObject *entry, const struct fa_evinfo *ev,
                   PyObject *args);
void fa_approve_event(PyObject *entry, const struct fa_evinfo *ev,
                      PyObject *args);

/* ---- ctx.c ------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    FaPolicyObject *pol;
    PyObject *before_deny;  /* or None */
    PyObject *on_call;      /* or None */
    PyObject *data;
    PyObject *import_allow; /* sorted tuple of str */
    int monitor_calls;
    /* native calls go on to the shim's checks when it is loaded */
    int libc_calls;
    /* mk_audit(preset='data') */
    int preset;
    /* threads started inside run in a copy of the context */
    int threads_follow;
    /*
     * modules trusted while they initialise, besides allow_imports: none,
     * the standard library's, or also installed distributions'
     */
    int trust_installed;    /* FA_TRUST_* */
    /* mk_audit(learn=True): records refusals and approves them, or NULL */
    PyObject *learner;
    /* the learner's record, which the shim appends to, or -1 */
    int learn_fd;
} FaCfgObject;

/* What one entry into a context installs in the ContextVar. */
typedef struct {
    PyObject_HEAD
    FaCfgObject *cfg;
    unsigned long tid;
    void *task;             /* identity of the asyncio task, or NULL */
    /* the threading.Thread that entered, or its name */
    PyObject *thread;
    /* tuple of frame names, outermost first, fastaudit's left out */
    PyObject *chain;
} FaEntryObject;

extern PyTypeObject FaCfg_Type, FaEntry_Type, FaPerms_Type, FaCM_Type;

PyObject *fa_perms_new(FaCfgObject *cfg);
PyObject *fa_cfg_new(FaPolicyObject *pol, PyObject *before_deny,
                     PyObject *on_call,
                     PyObject *data, PyObject *import_allow,
                     int monitor_calls);
PyObject *fa_mods_union(PyObject *a, PyObject *b);
int fa_ctx_init(void);
/*
 * A _thread start (the event's args) of a context of threads_follow that
 * carries its work into a Context of its own: 1 or 0.
 */
int fa_thread_start_follows(PyObject *args);
/* Copy cfg's settings beyond those fa_cfg_new() takes into n. */
void fa_cfg_copy_modes(FaCfgObject *n, const FaCfgObject *cfg);

/* ---- state.c: read by every file ---------------------------------------- */

struct fa_state {
    int installed;
    /* the hook serves the main interpreter only */
    PyInterpreterState *interp;
    /* ContextVar holding the active FaEntryObject */
    PyObject *var;
    PyObject *safe_native;       /* sorted tuple of module prefixes */
    PyObject *import_allow;      /* sorted tuple, from entry points */
    /* tuple of callables, the bundled lxml hook left out */
    PyObject *monitor_hooks;
    /* the bundled lxml hook is among the monitor hooks */
    int lxml_hook;
    PyObject *audit_hooks;       /* tuple of callables */
    PyObject *active_calls;      /* callable returning the tracked calls */
    PyObject *stdlib;            /* frozenset of stdlib top-level names */
    /* entries alive anywhere: 0 = nothing to check */
    Py_ssize_t live_entries;
    int tool_id;                 /* -1 until the monitor is installed */
    Py_ssize_t monitor_on;       /* monitoring contexts entered */
    PyObject *disable;           /* sys.monitoring.DISABLE */
    PyObject *mon_set_events, *mon_restart;
    int imports_seen;            /* a fresh import ran inside a context */
    /* set of top-level packages a denial interrupted */
    PyObject *failed_imports;
    /* FaEntry_Type, once ctx.c is ready: what the ContextVar may hold */
    PyTypeObject *entry_type;
    /* audit_perms objects and their context managers (ctx.c) */
    PyTypeObject *perms_type, *cm_type;
    /*
     * What fastaudit.core hands over as it loads (_package()): the reader
     * of its entry-point groups and its Learner. The extension lies below
     * the package and never imports it by name.
     */
    PyObject *core_entry_points, *core_learner;
};

extern struct fa_state fa_st;
/* A part fastaudit.core handed over, as a new reference; NULL (ImportError) before. */
PyObject *fa_core_part(PyObject *part);
/* The names state.c looks things up by, made once: 0 or -1. */
int fa_state_init(void);
PyObject *fa_current_entry(void);   /* new reference or NULL (no exception) */
/* The running asyncio task, a new reference, or NULL (no exception). */
PyObject *fa_current_task(void);
/* A module's __spec__ says its body is still running. */
int fa_spec_initializing(PyObject *spec);
int fa_module_allowed(PyObject *mod, PyObject *allowed);
/*
 * Drop what is left of imports a denial broke (called when a context is left).
 */
void fa_purge_failed_imports(void);

/* ---- frames.c: where the running code is --------------------------------- */

int fa_frames_init(void);
PyObject *fa_frame_name(PyFrameObject *f);
int fa_frame_is(PyFrameObject *f, const char *mod, const char *qual);
PyObject *fa_external_frame(void);
void fa_text_chain(struct fa_text *t, PyObject *extra);
PyObject *fa_chain_string(PyObject *extra);
/* The chain of callers an entry keeps: a tuple of names, or NULL raised. */
PyObject *fa_capture_chain(void);
/* threading.current_thread(), or NULL raised. */
PyObject *fa_current_thread(void);
/* The running asyncio task's identity (never dereferenced), or NULL. */
void *fa_task_identity(void);
/* The note for a denial away from where the context was entered, or NULL. */
PyObject *fa_origin_note(FaEntryObject *e);

/* ---- hook.c ------------------------------------------------------------ */

int fa_install(void);
enum { FA_TRUST_NAMED, FA_TRUST_STDLIB, FA_TRUST_INSTALLED };
/* os.mkfifo and os.mknod made to raise audit events (unaudited.c). */
int fa_unaudited_install(void);
/* Where installed code lives, read once (mk_audit, outside contexts). */
int fa_trust_init(void);
PyObject *fa_event_message(const char *event, PyObject *args);

/* ---- deny.c ------------------------------------------------------------ */

/*
 * Deny with msg unless a packaged audit hook or before_deny allows: 0 allowed,
 * -1 raised.
 */
struct fa_deny_detail {
    PyObject *path;          /* the path argument as given, or NULL */
    const char *resolved;    /* the path the engine judged, or NULL */
    /* the engine's reason name ("outside-roots"), or NULL */
    const char *rule;
    /* the operation class ("write", "remove"), or NULL */
    const char *op;
    PyObject *roots;         /* the context's roots */
    /* one sentence for the exception's notes, or NULL */
    PyObject *note;
    /* the context's policy, to name the fix; NULL: not known */
    const fa_policy *policy;
    /* the directory holding resolved exists (the judge held it) */
    int held;
};
int fa_deny(FaEntryObject *e, const char *event, PyObject *args, PyObject *msg,
            const struct fa_deny_detail *dd);
/* The last approval fa_deny() gave was fastaudit.UNCONFINED. */
extern int fa_approved_unconfined;
PyObject *fa_unconfined(void);

/* ---- py_bridge.c (libfashim.so, when preloaded) ------------------------ */

void fa_bridge_init(void);
int fa_native_on(void);
const char *fa_native_reason(void);
void fa_bridge_enter(PyObject *entry);
void fa_bridge_publish(PyObject *entry);
/*
 * The thread's Context may have changed (a Context watcher saw a switch, a
 * worker runs its work): publish if it did.
 */
void fa_bridge_switch(void);
void fa_bridge_changed(void);
/*
 * An entry of policy (a FaPolicyObject) was born (+1) or died (-1);
 * learn_fd: its learner's record, or -1.
 */
void fa_bridge_live(PyObject *policy, int delta, int learn_fd);
void fa_bridge_approve(enum fa_op op, const char *path);
/* unconfined: the host answered fastaudit.UNCONFINED (fa_unconfined()). */
void fa_bridge_approve_exec(const char *event, PyObject *args, int unconfined);
PyObject *fa_native_denials(void);
unsigned long long fa_native_denial_count(void);
int fa_bridge_note(PyObject *exc);
/* A denial on this thread still waits for its note (or to reach an OSError) */
int fa_bridge_note_pending(void);
/*
 * fn runs right after the shim refused a call of a thread that holds the
 * GIL, inside that call, while entries are alive (NULL: nothing runs).
 */
void fa_bridge_on_denial(void (*fn)(void));
/* A thread refused with the GIL released waits for its note: keep RAISE */
int fa_bridge_notes_waiting(void);
/* No entry is alive: no thread waits any more */
void fa_bridge_notes_forget(void);

/* ---- py_denial.c ------------------------------------------------------- */

int fa_raise_denial(PyObject *event, PyObject *msg,
                    const struct fa_deny_detail *dd);
/* fastaudit.AuditDenied, made once (borrowed), or NULL with an exception */
PyObject *fa_audit_denied(void);
PyObject *fa_all_denials(void);

/* ---- guard.c ------------------------------------------------------------ */

/*
 * exc.fastaudit = {layer, rule, fix} unless it has one; 0 or -1 with an
 * exception set.
 */
int fa_set_guard_attr(PyObject *exc, PyObject *layer, const char *rule,
                      const char *fix);

/* ---- py_learn.c: policy files and learning contexts --------------------- */

/*
 * The policy of mk_audit(): the policy file's (file not None) plus roots
 * (None: none more), or roots alone; in the engine's learn mode for
 * learn=True.
 */
PyObject *fa_policy_for(PyObject *file, PyObject *roots, int symlinks,
                        int outside_symlinks, int learn,
                        const struct fa_py_denies *dn);
/*
 * A new fastaudit.core.Learner, or NULL with an exception; *record is the
 * descriptor of its record (learn_record.h), which the Learner owns.
 */
PyObject *fa_learner_new(int *record);
/* _learn_read(fd, at): the records of a Learner's record since at. */
PyObject *fa_learn_read_py(PyObject *self, PyObject *args);
/*
 * Hand the learner the shim's new records, if the shim has any: 0, or -1 with
 * an exception.
 */
int fa_learn_native(PyObject *learner);
/*
 * Record a refusal of a learning context instead of raising: 0, or -1 with an
 * exception.
 */
int fa_learn_record(PyObject *learner, const char *event, PyObject *args,
                    const struct fa_deny_detail *dd);
PyObject *fa_suggest_roots_py(PyObject *self, PyObject *args, PyObject *kw);

/* ---- monitor.c --------------------------------------------------------- */

int fa_monitor_install(int tool_id);
int fa_monitor_enter(void);
int fa_monitor_exit(void);
/*
 * Native denial notes (3.12+, with the shim loaded) on fastaudit's one tool
 * id: installed by mk_audit() with the id it was given, their events
 * brought up to date at every entry and exit.
 */
int fa_notes_install(int tool_id);
int fa_notes_enter(void);
int fa_notes_exit(void);
extern PyMethodDef fa_monitor_cb_def;
/*
 * judge a call made from C as the CALL monitor would: 0, or -1 with the
 * refusal raised
 */
int fa_monitor_call(PyObject *fn);
PyObject *fa_lxml_monitor(PyObject *self, PyObject *const *args, Py_ssize_t n);

#endif
