/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ctx.c - audit_perms, its context manager, and what an entry records.
 *
 * The active state is one ContextVar holding an Entry: the configuration
 * snapshot it was entered with plus where it was entered (thread, asyncio
 * task, call chain), so a denial in an inherited copy of the context can
 * say where the context came from. asyncio tasks copy the ContextVar when
 * they are created; nesting restores through tokens. None of these objects
 * has an attribute Python code can set.
 */
#include "parts.h"

#include <string.h>

/* ---- Cfg: an immutable snapshot of one mk_audit's settings -------------- */

static void
cfg_dealloc(FaCfgObject *self)
{
    Py_XDECREF(self->pol);
    Py_XDECREF(self->before_deny);
    Py_XDECREF(self->on_call);
    Py_XDECREF(self->data);
    Py_XDECREF(self->import_allow);
    Py_XDECREF(self->learner);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
cfg_repr(FaCfgObject *self)
{
    return PyUnicode_FromFormat("AuditCfg(oks=%R, monitor_calls=%s, "
                                "import_allow=%R)",
                                self->pol->roots,
                                self->monitor_calls ? "True" : "False",
                                self->import_allow);
}

PyTypeObject FaCfg_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fastaudit._fastaudit.AuditCfg",
    .tp_basicsize = sizeof(FaCfgObject),
    .tp_dealloc = (destructor)cfg_dealloc,
    .tp_repr = (reprfunc)cfg_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The settings an audit context enforces (read-only).",
};

PyObject *
fa_cfg_new(FaPolicyObject *pol, PyObject *before_deny, PyObject *on_call,
           PyObject *data, PyObject *import_allow, int monitor_calls)
{
    FaCfgObject *c = PyObject_New(FaCfgObject, &FaCfg_Type);

    if (!c) {
        return NULL;
    }
    c->pol = (FaPolicyObject *)Py_NewRef(pol);
    c->before_deny = Py_NewRef(before_deny);
    c->on_call = Py_NewRef(on_call);
    c->data = Py_NewRef(data);
    c->import_allow = Py_NewRef(import_allow);
    c->monitor_calls = monitor_calls;
    c->libc_calls = 0;
    c->preset = 0;
    c->threads_follow = 0;
    c->trust_installed = 0;
    c->learner = NULL;
    c->learn_fd = -1;
    return (PyObject *)c;
}

void
fa_cfg_copy_modes(FaCfgObject *n, const FaCfgObject *cfg)
{
    n->libc_calls = cfg->libc_calls;
    n->preset = cfg->preset;
    n->threads_follow = cfg->threads_follow;
    n->trust_installed = cfg->trust_installed;
    n->learner = Py_XNewRef(cfg->learner);
    n->learn_fd = cfg->learn_fd;
}

/* sorted(set(a) | set(clean(b))): b may be one name or an iterable of names */
PyObject *
fa_mods_union(PyObject *a, PyObject *b)
{
    PyObject *set, *it, *item, *s, *list, *t;

    set = PySet_New(a);
    if (!set) {
        return NULL;
    }
    if (PyUnicode_Check(b)) {
        PyObject *one = PyTuple_Pack(1, b);
        it = one ? PyObject_GetIter(one) : NULL;
        Py_XDECREF(one);
    } else {
        it = PyObject_GetIter(b);
    }
    if (!it) {
        goto fail;
    }
    while ((item = PyIter_Next(it))) {
        if (item == Py_None || !PyObject_IsTrue(item)) {
            Py_DECREF(item);
            continue;
        }
        if (!PyUnicode_Check(item)) {
            PyErr_Format(PyExc_TypeError,
                         "module prefixes must be str, not %.100s",
                         Py_TYPE(item)->tp_name);
            Py_DECREF(item);
            Py_DECREF(it);
            goto fail;
        }
        s = PyObject_CallMethod(item, "strip", NULL);
        Py_DECREF(item);
        if (!s || (PyUnicode_GET_LENGTH(s) && PySet_Add(set, s) < 0)) {
            Py_XDECREF(s);
            Py_DECREF(it);
            goto fail;
        }
        Py_DECREF(s);
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) {
        goto fail;
    }
    list = PySequence_List(set);
    Py_DECREF(set);
    if (!list || PyList_Sort(list) < 0) {
        Py_XDECREF(list);
        return NULL;
    }
    t = PyList_AsTuple(list);
    Py_DECREF(list);
    return t;
fail:
    Py_DECREF(set);
    return NULL;
}

/* ---- Entry -------------------------------------------------------------- */

static void
entry_dealloc(FaEntryObject *self)
{
    fa_st.live_entries--;
    if (self->cfg) {
        fa_bridge_live((PyObject *)self->cfg->pol, -1, self->cfg->learn_fd);
    }
    Py_XDECREF(self->cfg);
    Py_XDECREF(self->thread);
    Py_XDECREF(self->chain);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject FaEntry_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fastaudit._fastaudit.AuditEntry",
    .tp_basicsize = sizeof(FaEntryObject),
    .tp_dealloc = (destructor)entry_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One entry into an audit context.",
};

static FaEntryObject *
entry_new(FaCfgObject *cfg)
{
    FaEntryObject *e = PyObject_New(FaEntryObject, &FaEntry_Type);

    if (!e) {
        return NULL;
    }
    /*
     * counted from birth: a copied context keeps the checks on until it dies
     */
    if (fa_st.live_entries++ == 0) {
        fa_moves_unwatched();
    }
    e->cfg = (FaCfgObject *)Py_NewRef(cfg);
    fa_bridge_live((PyObject *)cfg->pol, 1, cfg->learn_fd);
    e->tid = PyThread_get_thread_ident();
    e->task = fa_task_identity();
    e->thread = fa_current_thread();
    e->chain = e->thread ? fa_capture_chain() : NULL;
    if (!e->chain) {
        Py_DECREF(e);
        return NULL;
    }
    return e;
}

/* ---- audit_perms and its context manager -------------------------------- */

typedef struct {
    PyObject_HEAD
    FaCfgObject *cfg;
    vectorcallfunc vectorcall;
} FaPermsObject;

typedef struct {
    PyObject_HEAD
    FaPermsObject *perms;
    PyObject *token;
    int monitored;
} FaCMObject;

static void
perms_dealloc(FaPermsObject *self)
{
    Py_XDECREF(self->cfg);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *perms_vectorcall(PyObject *self, PyObject *const *args,
                                  size_t nargsf, PyObject *kwnames);

PyObject *
fa_perms_new(FaCfgObject *cfg)
{
    FaPermsObject *p = PyObject_New(FaPermsObject, &FaPerms_Type);

    if (!p) {
        return NULL;
    }
    p->cfg = (FaCfgObject *)Py_NewRef(cfg);
    p->vectorcall = perms_vectorcall;
    return (PyObject *)p;
}

static PyObject *
new_cm(FaPermsObject *self)
{
    FaCMObject *cm = PyObject_New(FaCMObject, &FaCM_Type);

    if (!cm) {
        return NULL;
    }
    cm->perms = (FaPermsObject *)Py_NewRef(self);
    cm->token = NULL;
    cm->monitored = 0;
    return (PyObject *)cm;
}

static PyObject *
perms_call(FaPermsObject *self, PyObject *args, PyObject *kw)
{
    if ((kw && PyDict_GET_SIZE(kw)) || PyTuple_GET_SIZE(args)) {
        PyErr_SetString(PyExc_TypeError, "audit_perms() takes no arguments");
        return NULL;
    }
    return new_cm(self);
}

/* `with audit_perms():` is the hot path: no argument tuple */
static PyObject *
perms_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                 PyObject *kwnames)
{
    (void)args;
    if (PyVectorcall_NARGS(nargsf) || (kwnames && PyTuple_GET_SIZE(kwnames))) {
        PyErr_SetString(PyExc_TypeError, "audit_perms() takes no arguments");
        return NULL;
    }
    return new_cm((FaPermsObject *)self);
}

static int
replace_cfg(FaPermsObject *self, PyObject *data, PyObject *imports)
{
    FaCfgObject *o = self->cfg;
    PyObject *n = fa_cfg_new(o->pol, o->before_deny, o->on_call,
                             data ? data : o->data,
                             imports ? imports : o->import_allow,
                             o->monitor_calls);

    if (!n) {
        return -1;
    }
    fa_cfg_copy_modes((FaCfgObject *)n, o);
    Py_SETREF(self->cfg, (FaCfgObject *)n);
    return 0;
}

static PyObject *
perms_set_data(FaPermsObject *self, PyObject *d)
{
    if (PySys_Audit("audit_perms.set_data", "O", d) < 0) {
        return NULL;
    }
    if (replace_cfg(self, d, NULL) < 0) {
        return NULL;
    }
    return Py_NewRef(self->cfg->data);
}

static PyObject *
perms_add_imports(FaPermsObject *self, PyObject *mods)
{
    PyObject *u;

    if (PySys_Audit("audit_perms.add_imports", "O", mods) < 0) {
        return NULL;
    }
    u = fa_mods_union(self->cfg->import_allow, mods);
    if (!u) {
        return NULL;
    }
    if (replace_cfg(self, NULL, u) < 0) {
        Py_DECREF(u);
        return NULL;
    }
    Py_DECREF(u);
    return Py_NewRef(self->cfg->import_allow);
}

static PyObject *
perms_repr(FaPermsObject *self)
{
    return PyUnicode_FromFormat("<audit_perms roots=%R>",
                                self->cfg->pol->roots);
}

/*
 * mk_audit(learn=True): what the context would have refused, and the roots it
 * needed.
 */
static PyObject *
perms_learned(FaPermsObject *self, PyObject *unused)
{
    (void)unused;
    if (!self->cfg->learner) {
        PyErr_SetString(PyExc_ValueError,
                        "learned(): this audit_perms was not made with "
                        "mk_audit(..., learn=True)");
        return NULL;
    }
    return Py_NewRef(self->cfg->learner);
}

static PyMethodDef perms_methods[] = {
    {"set_data", (PyCFunction)perms_set_data, METH_O,
     "set_data($self, d, /)\n--\n\n"
     "Host data passed to before_deny and on_call from the next entry on."},
    {"add_imports", (PyCFunction)perms_add_imports, METH_VARARGS,
     "add_imports($self, /, *mods)\n--\n\n"
     "Module prefixes whose import-time events are allowed."},
    {"learned", (PyCFunction)perms_learned, METH_NOARGS,
     "learned($self, /)\n--\n\n"
     "The Learner of mk_audit(..., learn=True): its records and "
     "suggested_roots()."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject FaPerms_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fastaudit._fastaudit.audit_perms",
    .tp_basicsize = sizeof(FaPermsObject),
    .tp_dealloc = (destructor)perms_dealloc,
    .tp_repr = (reprfunc)perms_repr,
    .tp_call = (ternaryfunc)perms_call,
    .tp_vectorcall_offset = offsetof(FaPermsObject, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_methods = perms_methods,
    .tp_doc = "audit_perms(): a context manager that enforces this policy "
              "while active.",
};

/* ---- thread pool work --------------------------------------------------- */

/*
 * A concurrent.futures.ThreadPoolExecutor runs submitted work on threads
 * of its own, each in a Context of its own: the submitter's ContextVar
 * does not follow the work, and an audited task could hand its writes to
 * the pool. Work submitted while an entry is active therefore runs in a
 * copy of the submitter's Context (what asyncio.to_thread does by hand),
 * and the shim is told before the work starts and after it ends: a
 * worker's next call, with the GIL released, must not keep the last
 * work item's answer.
 */
typedef struct {
    PyObject_HEAD
    PyObject *ctx;
    PyObject *fn;
} FaWorkObject;

static void
work_dealloc(FaWorkObject *self)
{
    Py_XDECREF(self->ctx);
    Py_XDECREF(self->fn);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
work_call(FaWorkObject *self, PyObject *args, PyObject *kw)
{
    PyObject *r;

    if (PyContext_Enter(self->ctx) < 0) {
        return NULL;
    }
    fa_bridge_switch();
    /* called from here, not from bytecode: the call monitor sees no CALL */
    r = fa_monitor_call(self->fn) < 0 ? NULL
        : PyObject_Call(self->fn, args, kw);
    if (PyContext_Exit(self->ctx) < 0) {
        Py_CLEAR(r);
    }
    fa_bridge_switch();
    return r;
}

static PyTypeObject FaWork_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fastaudit._fastaudit.ContextWork",
    .tp_basicsize = sizeof(FaWorkObject),
    .tp_dealloc = (destructor)work_dealloc,
    .tp_call = (ternaryfunc)work_call,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Work handed to a thread pool, run in its submitter's Context.",
};

static PyObject *pool_submit;   /* ThreadPoolExecutor.submit as it was */

/* fn, to be run in a copy of the current Context */
static FaWorkObject *
work_new(PyObject *fn)
{
    FaWorkObject *w = PyObject_New(FaWorkObject, &FaWork_Type);

    if (!w) {
        return NULL;
    }
    w->fn = Py_NewRef(fn);
    w->ctx = PyContext_CopyCurrent();
    if (!w->ctx) {
        Py_DECREF(w);
        return NULL;
    }
    return w;
}

/*
 * submit(self, fn, /, *args, **kwargs). While any entry lives, work runs
 * in a copy of the submitter's Context whether or not it holds one: a
 * pool thread started inside a context of threads_follow may run in a
 * copy of that context, and work the host submits later must not.
 */
static PyObject *
submit_in_context(PyObject *mod, PyObject *const *args, Py_ssize_t n,
                  PyObject *kwnames)
{
    PyObject *r, *small[8], **a = small;
    FaWorkObject *w;
    Py_ssize_t total = n + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);

    (void)mod;
    if (n < 2 || !fa_st.live_entries) {
        return PyObject_Vectorcall(pool_submit, args, (size_t)n, kwnames);
    }
    w = work_new(args[1]);
    if (!w) {
        return NULL;
    }
    if (total > (Py_ssize_t)(sizeof small / sizeof small[0])
        && !(a = PyMem_Malloc((size_t)total * sizeof *a)))
    {
        Py_DECREF(w);
        return PyErr_NoMemory();
    }
    memcpy(a, args, (size_t)total * sizeof *a);
    a[1] = (PyObject *)w;
    r = PyObject_Vectorcall(pool_submit, a, (size_t)n, kwnames);
    if (a != small) {
        PyMem_Free(a);
    }
    Py_DECREF(w);
    return r;
}

static PyMethodDef submit_def = {
    "submit", (PyCFunction)(void (*)(void))submit_in_context,
    METH_FASTCALL | METH_KEYWORDS,
    "Submit fn(*args, **kwargs); inside an audit context it runs in a copy "
    "of the submitter's Context."};

/*
 * Once, at the first entry into any context (so before any code runs in one).
 */
static void
pools_follow_contexts(void)
{
    static int done;
    PyObject *m = NULL, *cls = NULL, *orig = NULL, *name = NULL, *fn = NULL,
        *meth = NULL;

    if (done) {
        return;
    }
    done = 1;
    if (PyType_Ready(&FaWork_Type) < 0) {
        goto out;
    }
    m = PyImport_ImportModule("concurrent.futures.thread");
    cls = m ? PyObject_GetAttrString(m, "ThreadPoolExecutor") : NULL;
    orig = cls && PyType_Check(cls) ?
        PyDict_GetItemString(((PyTypeObject *)cls)->tp_dict, "submit") : NULL;
    name = orig ? PyUnicode_InternFromString("fastaudit._fastaudit") : NULL;
    fn = name ? PyCFunction_NewEx(&submit_def, NULL, name) : NULL;
    meth = fn ? PyInstanceMethod_New(fn) : NULL;
    if (!meth) {
        goto out;
    }
    pool_submit = Py_NewRef(orig);
    if (PyObject_SetAttrString(cls, "submit", meth) < 0) {
        Py_CLEAR(pool_submit);
    }
out:
    /* no executor to follow (an interpreter without threads): nothing to do */
    PyErr_Clear();
    Py_XDECREF(m);
    Py_XDECREF(cls);
    Py_XDECREF(name);
    Py_XDECREF(fn);
    Py_XDECREF(meth);
}

/* ---- threads that carry the context ----------------------------------- */

static PyObject *str_target, *str_args, *str_self_;

/*
 * A ThreadPoolExecutor's worker thread (3.10 to 3.13: target
 * concurrent.futures.thread._worker, args (ref, queue, initializer,
 * initargs)) with no initializer runs nothing but the work handed to it,
 * each item in its submitter's Context (submit_in_context): it carries
 * no context of its own, so that a pool created in a context and kept
 * (asyncio's default executor) does not run the host's later work under
 * it. Any other shape carries the context.
 */
static int
bare_pool_worker(PyObject *fn)
{
    PyObject *t, *target = NULL, *a = NULL;
    int r = 0;

    t = PyObject_GetAttr(fn, str_self_);
    if (t) {
        target = PyObject_GetAttr(t, str_target);
        a = PyObject_GetAttr(t, str_args);
    }
    if (target && a && PyFunction_Check(target) && PyTuple_Check(a)
        && PyTuple_GET_SIZE(a) == 4 && PyTuple_GET_ITEM(a, 2) == Py_None)
    {
        PyObject *m = PyFunction_GetModule(target);
        PyObject *q = ((PyFunctionObject *)target)->func_qualname;

        r = m && PyUnicode_Check(m) && q && PyUnicode_Check(q)
            && !PyUnicode_CompareWithASCIIString(m, "concurrent.futures.thread")
            && !PyUnicode_CompareWithASCIIString(q, "_worker");
    }
    PyErr_Clear();
    Py_XDECREF(t);
    Py_XDECREF(target);
    Py_XDECREF(a);
    return r;
}

int
fa_thread_start_follows(PyObject *args)
{
    PyObject *fn;

    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) < 1) {
        return 0;
    }
    fn = PyTuple_GET_ITEM(args, 0);
    return Py_IS_TYPE(fn, &FaWork_Type) || bare_pool_worker(fn);
}

/*
 * _thread.start_new_thread / start_joinable_thread (and threading's
 * names for them): inside a context of threads_follow, the thread's
 * function runs in a copy of the starter's Context; self is the function
 * replaced.
 */
static PyObject *
start_in_context(PyObject *orig, PyObject *const *args, Py_ssize_t n,
                 PyObject *kwnames)
{
    Py_ssize_t total = n + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    PyObject *entry, *r, *a[8];
    FaWorkObject *w;
    int follow;

    entry = n >= 1 && fa_st.live_entries ? fa_current_entry() : NULL;
    if (!entry && PyErr_Occurred()) {
        return NULL;
    }
    follow = entry && ((FaEntryObject *)entry)->cfg->threads_follow
             && total <= (Py_ssize_t)(sizeof a / sizeof a[0])
             && !bare_pool_worker(args[0]);
    Py_XDECREF(entry);
    if (!follow) {
        return PyObject_Vectorcall(orig, args, (size_t)n, kwnames);
    }
    w = work_new(args[0]);
    if (!w) {
        return NULL;
    }
    memcpy(a, args, (size_t)total * sizeof *a);
    a[0] = (PyObject *)w;
    r = PyObject_Vectorcall(orig, a, (size_t)n, kwnames);
    Py_DECREF(w);
    return r;
}

static PyMethodDef start_def = {
    "start_new_thread", (PyCFunction)(void (*)(void))start_in_context,
    METH_FASTCALL | METH_KEYWORDS,
    "Start a thread; inside an audit context that lets threads start, it "
    "runs in a copy of the starter's Context."};

static void
replace_starter(const char *modname, const char *attr)
{
    PyObject *m = PyImport_ImportModule(modname), *orig = NULL, *fn = NULL;

    orig = m ? PyObject_GetAttrString(m, attr) : NULL;
    /* once: a starter already ours stays */
    if (orig && !(PyCFunction_Check(orig)
                  && PyCFunction_GET_FUNCTION(orig)
                     == (PyCFunction)(void (*)(void))start_in_context))
    {
        fn = PyCFunction_NewEx(&start_def, orig, NULL);
        if (fn) {
            PyObject_SetAttrString(m, attr, fn);
        }
    }
    PyErr_Clear();
    Py_XDECREF(m);
    Py_XDECREF(orig);
    Py_XDECREF(fn);
}

/* Once, at the first entry into a context of threads_follow. */
static void
threads_follow_contexts(void)
{
    static int done;

    if (done) {
        return;
    }
    done = 1;
    if (PyType_Ready(&FaWork_Type) < 0) {
        PyErr_Clear();
        return;
    }
    replace_starter("threading", "_start_new_thread");
    replace_starter("threading", "_start_joinable_thread");
    replace_starter("_thread", "start_new_thread");
    replace_starter("_thread", "start_joinable_thread");
}

static void
cm_dealloc(FaCMObject *self)
{
    Py_XDECREF(self->perms);
    Py_XDECREF(self->token);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/*
 * The configuration entered is the one audited: it is held from the start,
 * because the audit hooks PySys_Audit runs are Python code that may replace
 * perms->cfg (set_data, add_imports) and drop the old one.
 */
static PyObject *
cm_enter(FaCMObject *self, PyObject *unused)
{
    FaCfgObject *cfg;
    PyObject *cur = NULL, *token = NULL, *r = NULL;
    FaEntryObject *e = NULL;
    int monitoring = 0;

    (void)unused;
    if (self->token) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this audit_perms() context is already entered; call "
                        "audit_perms() again");
        return NULL;
    }
    cfg = (FaCfgObject *)Py_NewRef((PyObject *)self->perms->cfg);
    pools_follow_contexts();
    if (cfg->threads_follow) {
        threads_follow_contexts();
    }
    cur = fa_current_entry();
    if (!cur && PyErr_Occurred()) {
        goto done;
    }
    /*
     * re-entering the active configuration is free; replacing it is a policy
     * change
     */
    if ((!cur || ((FaEntryObject *)cur)->cfg != cfg)
        && PySys_Audit("audit_perms.set_config", "O", (PyObject *)cfg) < 0)
    {
        goto done;
    }
    if (self->token) {
        /* a hook entered this same object meanwhile */
        PyErr_SetString(PyExc_RuntimeError,
                        "this audit_perms() context is already entered; call "
                        "audit_perms() again");
        goto done;
    }
    e = entry_new(cfg);
    if (!e) {
        goto done;
    }
    token = PyContextVar_Set(fa_st.var, (PyObject *)e);
    fa_bridge_changed();
    if (!token) {
        goto done;
    }
    if (cfg->monitor_calls) {
        if (fa_monitor_enter() < 0) {
            goto done;
        }
        monitoring = 1;
    }
    if (fa_notes_enter() < 0) {
        goto done;
    }
    self->monitored = cfg->monitor_calls;
    self->token = token;
    token = NULL;
    monitoring = 0;
    fa_bridge_enter((PyObject *)e);
    r = Py_NewRef(Py_None);
done:
    if (monitoring) {
        fa_monitor_exit();
    }
    if (token) {
        PyContextVar_Reset(fa_st.var, token);
        fa_bridge_changed();
        Py_DECREF(token);
    }
    Py_XDECREF(e);
    Py_XDECREF(cur);
    Py_DECREF(cfg);
    return r;
}

static PyObject *
cm_exit(FaCMObject *self, PyObject *const *args, Py_ssize_t n)
{
    PyObject *token = self->token;
    int r, m;

    (void)args;
    (void)n;
    if (!token) {
        PyErr_SetString(PyExc_RuntimeError,
                        "audit_perms() context exited without being entered");
        return NULL;
    }
    /*
     * An __exit__ from another thread or Context fails here (the token
     * belongs to the entering Context) and must leave everything as it
     * was, so that the entering code's own __exit__ still works.
     */
    r = PyContextVar_Reset(fa_st.var, token);
    if (r < 0) {
        return NULL;
    }
    self->token = NULL;
    Py_DECREF(token);
    fa_bridge_changed();
    {
        PyObject *cur = fa_current_entry();
        fa_bridge_publish(cur);
        Py_XDECREF(cur);
    }
    m = 0;
    if (self->monitored) {
        self->monitored = 0;
        m = fa_monitor_exit();
    }
    if (fa_notes_exit() < 0) {
        m = -1;
    }
    fa_purge_failed_imports();
    if (self->perms->cfg->learner
        && fa_learn_native(self->perms->cfg->learner) < 0)
    {
        m = -1;
    }
    if (m < 0) {
        return NULL;
    }
    Py_RETURN_FALSE;
}

static PyMethodDef cm_methods[] = {
    {"__enter__", (PyCFunction)cm_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)(void (*)(void))cm_exit, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

PyTypeObject FaCM_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fastaudit._fastaudit.audit_context",
    .tp_basicsize = sizeof(FaCMObject),
    .tp_dealloc = (destructor)cm_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = cm_methods,
    .tp_doc = "One use of an audit context.",
};

int
fa_ctx_init(void)
{
    fa_st.entry_type = &FaEntry_Type;
    fa_st.perms_type = &FaPerms_Type;
    fa_st.cm_type = &FaCM_Type;
    str_target = PyUnicode_InternFromString("_target");
    str_args = PyUnicode_InternFromString("_args");
    str_self_ = PyUnicode_InternFromString("__self__");
    if (!str_target || !str_args || !str_self_) {
        return -1;
    }
    return 0;
}
