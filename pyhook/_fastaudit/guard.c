/* SPDX-License-Identifier: Apache-2.0 */
/*
 * guard.c - exc.fastaudit, the explanation a refused call's exception
 * carries, set by whichever layer refused: the hook's AuditDenied
 * (py_denial.c) or an OSError of the shim's (py_bridge.c). Below both.
 */
#include "parts.h"

static PyObject *s_layer, *s_rule, *s_fix, *s_fastaudit;

/*
 * exc.fastaudit: what a program (or a model driving one) reads to know
 * that the guard refused the call, by which rule, and what would allow
 * it; the same keys for both layers. rule and fix are str or None.
 */
static int
set_guard(PyObject *exc, PyObject *layer, PyObject *rule, PyObject *fix)
{
    PyObject *d = PyDict_New();
    int rc = -1;

    if (!d) {
        return -1;
    }
    if (PyDict_SetItem(d, s_layer, layer) == 0
        && PyDict_SetItem(d, s_rule, rule) == 0
        && PyDict_SetItem(d, s_fix, fix) == 0)
    {
        rc = PyObject_SetAttr(exc, s_fastaudit, d);
    }
    Py_DECREF(d);
    return rc;
}

/*
 * Set once: the first layer to explain an exception is the one that
 * refused.
 */
int
fa_set_guard_attr(PyObject *exc, PyObject *layer, const char *rule,
                  const char *fix)
{
    PyObject *d, *r, *f;
    int rc;

    if (!s_fastaudit) {
        s_layer = PyUnicode_InternFromString("layer");
        s_rule = PyUnicode_InternFromString("rule");
        s_fix = PyUnicode_InternFromString("fix");
        s_fastaudit = s_layer && s_rule && s_fix
            ? PyUnicode_InternFromString("fastaudit") : NULL;
        if (!s_fastaudit) {
            return -1;
        }
    }
    d = PyObject_GetAttr(exc, s_fastaudit);
    if (d) {
        /* AuditDenied's class attribute (None) is not an explanation */
        int has = d != Py_None;

        Py_DECREF(d);
        if (has) {
            return 0;
        }
    } else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
    } else {
        return -1;
    }
    r = rule ? PyUnicode_DecodeFSDefault(rule) : Py_NewRef(Py_None);
    f = fix ? PyUnicode_DecodeFSDefault(fix) : Py_NewRef(Py_None);
    rc = r && f ? set_guard(exc, layer, r, f) : -1;
    Py_XDECREF(r);
    Py_XDECREF(f);
    return rc;
}
