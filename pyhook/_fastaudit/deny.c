/* SPDX-License-Identifier: Apache-2.0 */
/*
 * deny.c - a refusal of the hook or the monitor: the packaged audit hooks
 * and before_deny asked first, then AuditDenied raised (py_denial.c), or,
 * in a learning context, the refusal recorded. Below the hook and the
 * judge of events (py_policy.c) that call it.
 */
#include "parts.h"

#include <string.h>

/*
 * A denial raised while a package is being imported for the first time
 * usually ends that import, and importlib drops only the modules whose
 * own execution failed: submodules that finished stay in sys.modules and
 * make the next import of the package, outside the context, half-work.
 * The outermost package being imported is remembered; when the context
 * is left and that package is not in sys.modules, its leftovers go.
 */
static void
note_failed_import(void)
{
    static PyObject *str_spec, *str_name;
    PyFrameObject *f, *b;
    PyObject *g, *spec, *name, *top = NULL;
    const char *s, *dot;

    if (!str_spec) {
        str_spec = PyUnicode_InternFromString("__spec__");
        str_name = str_spec ? PyUnicode_InternFromString("__name__") : NULL;
        if (!str_name) {
            Py_CLEAR(str_spec);
            PyErr_Clear();
            return;
        }
    }
    f = PyEval_GetFrame();
    Py_XINCREF(f);
    while (f) {
        /*
         * a module body runs as a code object named "<module>": only those can
         * be importing
         */
        PyCodeObject *c = PyFrame_GetCode(f);
        int body = PyUnicode_Check(fa_py_code_name(c))
                   && PyUnicode_CompareWithASCIIString(fa_py_code_name(c),
                                                       "<module>") == 0;

        Py_DECREF(c);
        g = body ? fa_py_frame_globals(f) : NULL;
        if (g && PyDict_Check(g)) {
            spec = PyDict_GetItemWithError(g, str_spec);
            name = PyDict_GetItemWithError(g, str_name);
            if (name && PyUnicode_Check(name) && fa_spec_initializing(spec)) {
                Py_XSETREF(top, Py_NewRef(name));
            }
        }
        PyErr_Clear();
        Py_XDECREF(g);
        b = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = b;
    }
    if (!top) {
        return;
    }
    s = PyUnicode_AsUTF8(top);
    dot = s ? strchr(s, '.') : NULL;
    if (dot) {
        Py_SETREF(top, PyUnicode_FromStringAndSize(s, dot - s));
    }
    if (top && !fa_st.failed_imports) {
        fa_st.failed_imports = PySet_New(NULL);
    }
    if (!top || !fa_st.failed_imports
        || PySet_Add(fa_st.failed_imports, top) < 0)
    {
        PyErr_Clear();
    }
    Py_XDECREF(top);
}

/*
 * fastaudit.UNCONFINED: what before_deny (or a packaged audit hook)
 * returns to let a process start outside the context's policy. Any other
 * true answer starts it under the context's roots (the shim carries them
 * into the child's environment).
 */
static PyObject *unconfined;
/* The last approval fa_deny() gave was UNCONFINED. */
int fa_approved_unconfined;

static PyObject *
unconfined_repr(PyObject *self)
{
    (void)self;
    return PyUnicode_FromString("fastaudit.UNCONFINED");
}

static PyType_Slot unconfined_slots[] = {
    {Py_tp_repr, (void *)unconfined_repr},
    {Py_tp_doc,
     (void *)"before_deny's answer for a process start that is to run "
             "outside the context's roots, as the host process would."},
    {0, NULL},
};

static PyType_Spec unconfined_spec = {
    "fastaudit.Unconfined", 0, 0, Py_TPFLAGS_DEFAULT, unconfined_slots,
};

PyObject *
fa_unconfined(void)
{
    PyObject *t;

    if (!unconfined) {
        t = PyType_FromSpec(&unconfined_spec);
        if (!t) {
            return NULL;
        }
        unconfined = PyObject_CallNoArgs(t);
        Py_DECREF(t);
    }
    return unconfined;
}

/*
 * The event's name as a str, the same object while the same event is
 * refused again (a loop of refusals is common: a library retrying, a
 * scan of paths): the denial's fix text is keyed on it too.
 */
static PyObject *
event_str(const char *event)
{
    static char last[64];
    static PyObject *last_str;
    size_t n = strlen(event);
    PyObject *s;

    if (last_str && !strcmp(last, event)) {
        return Py_NewRef(last_str);
    }
    s = PyUnicode_FromStringAndSize(event, (Py_ssize_t)n);
    if (s && n < sizeof last) {
        memcpy(last, event, n + 1);
        Py_XSETREF(last_str, Py_NewRef(s));
    }
    return s;
}

int
fa_deny(FaEntryObject *e, const char *event, PyObject *args, PyObject *msg,
        const struct fa_deny_detail *dd)
{
    PyObject *note, *full, *ev = NULL, *frame = NULL, *calls = NULL, *r;
    Py_ssize_t i, n;
    int truth, rc = -1;

    /*
     * A learning context refuses nothing: it records, and approves; the
     * programs it lets start learn into its record (the shim's exec.c).
     */
    fa_approved_unconfined = 0;
    if (e->cfg->learner) {
        return fa_learn_record(e->cfg->learner, event, args, dd);
    }
    note = fa_origin_note(e);
    if (!note && PyErr_Occurred()) {
        return -1;
    }
    full = note ? PyUnicode_Concat(msg, note) : Py_NewRef(msg);
    Py_XDECREF(note);
    if (!full) {
        return -1;
    }
    ev = event_str(event);
    if (!ev) {
        goto out;
    }
    n = PyTuple_GET_SIZE(fa_st.audit_hooks);
    if (n || e->cfg->before_deny != Py_None) {
        frame = fa_external_frame();
        calls = PyObject_CallNoArgs(fa_st.active_calls);
        if (!frame || !calls) {
            goto out;
        }
        for (i = 0; i <= n; i++) {
            PyObject *h = i < n ? PyTuple_GET_ITEM(fa_st.audit_hooks, i)
                : e->cfg->before_deny;
            if (h == Py_None) {
                continue;
            }
            r = PyObject_CallFunctionObjArgs(h, ev, args, frame, full,
                                             e->cfg->data, calls, NULL);
            if (!r) {
                goto out;
            }
            fa_approved_unconfined = unconfined && r == unconfined;
            truth = PyObject_IsTrue(r);
            Py_DECREF(r);
            if (truth < 0) {
                goto out;
            }
            if (truth) {
                rc = 0;
                goto out;
            }
        }
    }
    if (fa_st.imports_seen) {
        note_failed_import();
    }
    fa_raise_denial(ev, full, dd);
out:
    Py_XDECREF(ev);
    Py_XDECREF(frame);
    Py_XDECREF(calls);
    Py_DECREF(full);
    return rc;
}
