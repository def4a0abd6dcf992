/* SPDX-License-Identifier: Apache-2.0 */
/*
 * py_symlinks.h - the symlinks= keyword, read the same way by both
 * extension modules (mk_audit, Workspace, safe_open): a mode's name from
 * the engine's table, None for the caller's default, a ValueError naming
 * the choices for anything else.
 */
#ifndef FA_PY_SYMLINKS_H
#define FA_PY_SYMLINKS_H

#include <Python.h>

#include "fa_policy.h"

static inline int
fa_py_symlinks(PyObject *obj, enum fa_symlinks dflt, enum fa_symlinks *out)
{
    const char *s;
    char modes[64];

    *out = dflt;
    if (obj == NULL || obj == Py_None) {
        return 0;
    }
    s = PyUnicode_Check(obj) ? PyUnicode_AsUTF8(obj) : NULL;
    if (s != NULL && fa_symlinks_parse(s, out) == 0) {
        return 0;
    }
    if (!PyErr_Occurred()) {
        fa_symlinks_choices(modes, sizeof modes);
        PyErr_Format(PyExc_ValueError, "symlinks must be %s, not %R", modes, obj);
    }
    return -1;
}

#endif
