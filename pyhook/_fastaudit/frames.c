/* SPDX-License-Identifier: Apache-2.0 */
/*
 * frames.c - where the running code is: the frames and their names, the
 * first frame outside the package, the chain of callers an entry keeps,
 * the thread and the task; and the note a denial gets when it happens
 * away from where its context was entered. Below the contexts (ctx.c),
 * the monitor and the denials, which all ask it.
 */
#include "parts.h"

#include <string.h>

/* ---- frames ------------------------------------------------------------- */

static PyObject *str_name;

static PyObject *
module_of(PyFrameObject *f)
{
    PyObject *g = fa_py_frame_globals(f), *m = NULL;

    if (g && PyDict_Check(g)) {
        m = PyDict_GetItemWithError(g, str_name);
    }
    Py_XINCREF(m);
    Py_XDECREF(g);
    if (!m && PyErr_Occurred()) {
        PyErr_Clear();
    }
    return m ? m : Py_NewRef(Py_None);
}

static int
ours(PyObject *mod)
{
    const char *s = PyUnicode_Check(mod) ? PyUnicode_AsUTF8(mod) : NULL;

    if (!s) {
        PyErr_Clear();
        return 0;
    }
    return !strncmp(s, "fastaudit.", 10);
}

/*
 * "module.qualname" of a code object, kept in the code object's extra
 * slot: a call chain names the same few code objects over and over, and
 * the slot is freed with the code object. The module is part of the key
 * because one code object can run under several globals (exec).
 */
struct cname {
    PyObject *mod;
    PyObject *name;
    int ours;
};


static Py_ssize_t cname_index = -1;

static void
cname_free(void *p)
{
    struct cname *c = p;

    if (!c) {
        return;
    }
    Py_XDECREF(c->mod);
    Py_XDECREF(c->name);
    PyMem_RawFree(c);
}

static PyObject *
name_of(PyObject *mod, PyCodeObject *code)
{
    struct fa_text t;

    fa_text_init(&t);
    if (PyUnicode_Check(mod)) {
        fa_text_u(&t, mod);
    } else {
        fa_text_steal(&t, PyObject_Str(mod));
    }
    fa_text_lit(&t, ".");
    fa_text_u(&t, fa_py_code_qualname(code));
    return fa_text_done(&t);
}

/* Borrowed: valid while the code object lives and runs under mod. */
static struct cname *
code_name(PyObject *mod, PyCodeObject *code)
{
    struct cname *c = NULL;

    if (fa_py_code_get_extra((PyObject *)code, cname_index, (void **)&c) < 0) {
        PyErr_Clear();
        return NULL;
    }
    if (c
        && (c->mod == mod
            || (PyUnicode_Check(mod) && PyUnicode_Check(c->mod)
                && PyUnicode_Compare(mod, c->mod) == 0)))
    {
        return c;
    }
    c = PyMem_RawMalloc(sizeof *c);
    if (!c) {
        PyErr_NoMemory();
        return NULL;
    }
    c->name = name_of(mod, code);
    if (!c->name) {
        PyMem_RawFree(c);
        return NULL;
    }
    c->mod = Py_NewRef(mod);
    c->ours = ours(mod);
    /* replacing an older entry frees it through cname_free */
    if (fa_py_code_set_extra((PyObject *)code, cname_index, c) < 0) {
        cname_free(c);
        return NULL;
    }
    return c;
}

static struct cname *
frame_cname(PyFrameObject *f)
{
    PyObject *mod = module_of(f);
    PyCodeObject *c = PyFrame_GetCode(f);
    struct cname *r = code_name(mod, c);

    Py_DECREF(mod);
    Py_DECREF(c);
    return r;
}

PyObject *
fa_frame_name(PyFrameObject *f)
{
    struct cname *c = frame_cname(f);

    return c ? Py_NewRef(c->name) : NULL;
}

int
fa_frame_is(PyFrameObject *f, const char *mod, const char *qual)
{
    PyObject *m = module_of(f);
    PyCodeObject *c = PyFrame_GetCode(f);
    const char *ms = PyUnicode_Check(m) ? PyUnicode_AsUTF8(m) : NULL;
    const char *qs = PyUnicode_AsUTF8(fa_py_code_qualname(c));
    int r = ms && qs && !strcmp(ms, mod) && !strcmp(qs, qual);

    PyErr_Clear();
    Py_DECREF(m);
    Py_DECREF(c);
    return r;
}

/* The first frame outside fastaudit, for before_deny. */
PyObject *
fa_external_frame(void)
{
    PyFrameObject *f = PyEval_GetFrame(), *b;
    PyObject *m;

    Py_XINCREF(f);
    while (f) {
        m = module_of(f);
        if (!ours(m)) {
            Py_DECREF(m);
            return (PyObject *)f;
        }
        Py_DECREF(m);
        b = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = b;
    }
    return Py_NewRef(Py_None);
}

#define CHAIN_MAX 64

/*
 * Names of the frames on the stack, innermost first, fastaudit's own left
 * out (at most CHAIN_MAX frames are looked at). New references: one code
 * object run under two globals on the same stack replaces its slot.
 */
static int
stack_names(PyObject **out)
{
    PyFrameObject *f = PyEval_GetFrame(), *b;
    struct cname *c;
    int n = 0, seen = 0;

    Py_XINCREF(f);
    while (f && seen++ < CHAIN_MAX) {
        c = frame_cname(f);
        if (!c) {
            Py_DECREF(f);
            while (n) {
                Py_DECREF(out[--n]);
            }
            return -1;
        }
        if (!c->ours) {
            out[n++] = Py_NewRef(c->name);
        }
        b = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = b;
    }
    Py_XDECREF(f);
    return n;
}

/* Appends "outermost -> ... -> innermost[ -> extra]" for the running stack. */
void
fa_text_chain(struct fa_text *t, PyObject *extra)
{
    PyObject *names[CHAIN_MAX];
    int n = stack_names(names), i;

    if (n < 0) {
        t->failed = 1;
        return;
    }
    for (i = n - 1; i >= 0; i--) {
        fa_text_steal(t, names[i]);
        if (i) {
            fa_text_lit(t, " -> ");
        }
    }
    if (extra && extra != Py_None) {
        if (n) {
            fa_text_lit(t, " -> ");
        }
        fa_text_u(t, extra);
    }
}

PyObject *
fa_chain_string(PyObject *extra)
{
    struct fa_text t;

    fa_text_init(&t);
    fa_text_chain(&t, extra);
    return fa_text_done(&t);
}

/* The chain an entry keeps for its origin note: names, outermost first. */
PyObject *
fa_capture_chain(void)
{
    PyObject *names[CHAIN_MAX], *t;
    int n = stack_names(names), i;

    if (n < 0) {
        return NULL;
    }
    t = PyTuple_New(n);
    for (i = 0; i < n; i++) {
        if (t) {
            PyTuple_SET_ITEM(t, i, names[n - 1 - i]);
        } else {
            Py_DECREF(names[n - 1 - i]);
        }
    }
    return t;
}

/* ---- thread and task identity ------------------------------------------- */

static PyObject *str_threading, *current_thread_fn;

void *
fa_task_identity(void)
{
    PyObject *task = fa_current_task();

    /* the identity alone is kept */
    Py_XDECREF(task);
    return task;
}

/*
 * The threading.Thread running this code, found in threading._active by
 * ident (a dict lookup) rather than through current_thread(); its name is
 * read only when an origin note is written. A thread threading has not
 * seen yet gets its dummy Thread from current_thread(), once.
 */
static PyObject *active_threads;

PyObject *
fa_current_thread(void)
{
    PyObject *mod, *key, *t;

    if (!current_thread_fn) {
        mod = PyImport_GetModule(str_threading);
        if (!mod && !PyErr_Occurred()) {
            mod = PyImport_Import(str_threading);
        }
        if (!mod) {
            return NULL;
        }
        current_thread_fn = PyObject_GetAttrString(mod, "current_thread");
        active_threads = PyObject_GetAttrString(mod, "_active");
        Py_DECREF(mod);
        if (!current_thread_fn) {
            return NULL;
        }
        if (!active_threads || !PyDict_Check(active_threads)) {
            Py_CLEAR(active_threads);
            PyErr_Clear();
        }
    }
    if (active_threads) {
        key = PyLong_FromUnsignedLong(PyThread_get_thread_ident());
        t = key ? PyDict_GetItemWithError(active_threads, key) : NULL;
        Py_XDECREF(key);
        if (t) {
            return Py_NewRef(t);
        }
        if (PyErr_Occurred()) {
            return NULL;
        }
    }
    return PyObject_CallNoArgs(current_thread_fn);
}

static PyObject *
thread_name_of(PyObject *thread)
{
    if (PyUnicode_Check(thread)) {
        return Py_NewRef(thread);
    }
    return PyObject_GetAttrString(thread, "name");
}

/* The note for a denial away from where the context was entered, or NULL. */
PyObject *
fa_origin_note(FaEntryObject *e)
{
    PyObject *name;
    struct fa_text t;
    Py_ssize_t i, n;

    if (e->tid == PyThread_get_thread_ident() && e->task == fa_task_identity()) {
        return NULL;
    }
    name = thread_name_of(e->thread);
    if (!name) {
        return NULL;
    }
    fa_text_init(&t);
    fa_text_lit(&t, "\nAudit context entered in thread ");
    fa_text_repr(&t, name);
    Py_DECREF(name);
    fa_text_lit(&t, " by: ");
    n = PyTuple_GET_SIZE(e->chain);
    for (i = 0; i < n; i++) {
        fa_text_u(&t, PyTuple_GET_ITEM(e->chain, i));
        if (i + 1 < n) {
            fa_text_lit(&t, " -> ");
        }
    }
    return fa_text_done(&t);
}

int
fa_frames_init(void)
{
    str_name = PyUnicode_InternFromString("__name__");
    str_threading = PyUnicode_InternFromString("threading");
    if (!str_name || !str_threading) {
        return -1;
    }
    if (cname_index < 0) {
        cname_index = fa_py_request_code_extra(cname_free);
    }
    if (cname_index < 0) {
        PyErr_SetString(PyExc_RuntimeError,
                        "fastaudit: no code object extra slot left");
        return -1;
    }
    return 0;
}
