/* SPDX-License-Identifier: Apache-2.0 */
/*
 * state.c - what every part of the extension reads: the process-wide
 * state (fa_st), the running context's entry and asyncio task, whether a
 * module is among allowed prefixes or still initialising, and the purge
 * of what a denied import left behind.
 * Below all the other files of the extension: it calls none of them.
 */
#include "parts.h"

#include <string.h>

struct fa_state fa_st = {.tool_id = -1};

static PyObject *s_asyncio, *s_dict, *s_initializing;

PyObject *
fa_core_part(PyObject *part)
{
    if (!part) {
        PyErr_SetString(PyExc_ImportError,
                        "fastaudit._fastaudit works through the fastaudit "
                        "package, which has not finished loading: import "
                        "fastaudit first");
        return NULL;
    }
    return Py_NewRef(part);
}

int
fa_state_init(void)
{
    if (!s_asyncio) {
        s_asyncio = PyUnicode_InternFromString("asyncio");
        s_dict = PyUnicode_InternFromString("__dict__");
        s_initializing = PyUnicode_InternFromString("_initializing");
    }
    return s_asyncio && s_dict && s_initializing ? 0 : -1;
}

/*
 * The entry of the context running here, from the ContextVar: only an
 * entry the extension made counts (Python code can reach the variable
 * through a copied Context and set anything in it).
 */
PyObject *
fa_current_entry(void)
{
    PyObject *v = NULL;

    if (!fa_st.var || PyContextVar_Get(fa_st.var, NULL, &v) < 0) {
        return NULL;
    }
    if (v && !Py_IS_TYPE(v, fa_st.entry_type)) {
        Py_DECREF(v);
        return NULL;
    }
    return v;
}

/*
 * The running asyncio task, compared by identity only (as id() would be).
 * asyncio is looked up, never imported: without it there is no task. The
 * two functions are kept once found; asyncio replaces neither.
 */
static PyObject *get_running_loop, *current_task_fn;

PyObject *
fa_current_task(void)
{
    PyObject *aio, *loop, *task = NULL;

    if (!get_running_loop) {
        aio = PyImport_GetModule(s_asyncio);
        if (!aio) {
            PyErr_Clear();
            return NULL;
        }
        get_running_loop = PyObject_GetAttrString(aio, "_get_running_loop");
        current_task_fn = get_running_loop
            ? PyObject_GetAttrString(aio, "current_task") : NULL;
        Py_DECREF(aio);
        if (!current_task_fn) {
            Py_CLEAR(get_running_loop);
            PyErr_Clear();
            return NULL;
        }
    }
    loop = PyObject_CallNoArgs(get_running_loop);
    if (loop && loop != Py_None) {
        task = PyObject_CallOneArg(current_task_fn, loop);
    }
    Py_XDECREF(loop);
    PyErr_Clear();
    if (task == Py_None) {
        Py_CLEAR(task);
    }
    return task;
}

/* The module's spec says it is still executing its body. */
int
fa_spec_initializing(PyObject *spec)
{
    PyObject *d, *v;
    int r = 0;

    if (!spec || spec == Py_None) {
        return 0;
    }
    /* generic lookup: a spec class's own __getattr__ must not run here */
    d = PyObject_GenericGetAttr(spec, s_dict);
    if (!d) {
        PyErr_Clear();
        return 0;
    }
    if (PyDict_Check(d)) {
        v = PyDict_GetItemWithError(d, s_initializing);
        r = v && PyObject_IsTrue(v) > 0;
    }
    PyErr_Clear();
    Py_DECREF(d);
    return r;
}

/* Is mod one of allowed's prefixes, or a submodule of one? */
int
fa_module_allowed(PyObject *mod, PyObject *allowed)
{
    const char *m, *p;
    Py_ssize_t i, n, lp;

    if (!mod || !PyUnicode_Check(mod)) {
        return 0;
    }
    m = PyUnicode_AsUTF8(mod);
    if (!m) {
        PyErr_Clear();
        return 0;
    }
    n = PyTuple_GET_SIZE(allowed);
    for (i = 0; i < n; i++) {
        p = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(allowed, i), &lp);
        if (p && !strncmp(m, p, lp) && (m[lp] == 0 || m[lp] == '.')) {
            return 1;
        }
    }
    PyErr_Clear();
    return 0;
}

/* Drop the submodules of packages whose import a denial interrupted. */
void
fa_purge_failed_imports(void)
{
    PyObject *modules, *keys, *name, *k, *et, *ev, *tb;
    Py_ssize_t i, n, len;

    if (!fa_st.failed_imports || PySet_GET_SIZE(fa_st.failed_imports) == 0) {
        return;
    }
    PyErr_Fetch(&et, &ev, &tb);
    modules = PyImport_GetModuleDict();
    keys = PyDict_Keys(modules);
    while (keys && (name = PySet_Pop(fa_st.failed_imports))) {
        if (PyDict_Contains(modules, name) == 0) {
            len = PyUnicode_GET_LENGTH(name);
            n = PyList_GET_SIZE(keys);
            for (i = 0; i < n; i++) {
                k = PyList_GET_ITEM(keys, i);
                if (PyUnicode_Check(k)
                    && PyUnicode_Tailmatch(k, name, 0, len, -1) == 1
                    && PyUnicode_GET_LENGTH(k) > len
                    && PyUnicode_READ_CHAR(k, len) == '.')
                {
                    PyDict_DelItem(modules, k);
                }
            }
        }
        Py_DECREF(name);
    }
    Py_XDECREF(keys);
    PyErr_Clear();
    PyErr_Restore(et, ev, tb);
}
