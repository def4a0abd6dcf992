/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpython_private.h - every use of CPython API outside the stable and
 * public C API, in one place (README, "The extension and CPython's
 * private API", says why each is needed). Checked against CPython 3.10.13,
 * 3.11.7, 3.12.1, 3.13.0 and 3.14.10; a new minor version is added here
 * first.
 *
 * - Frame globals: 3.11 added PyFrame_GetGlobals(); 3.10 has only the
 *   frame struct (frameobject.h).
 * - A code object's qualified name, read on every audited call chain:
 *   the PyCodeObject member (co_qualname from 3.11, co_name before); the
 *   attribute lookup would allocate on the audit hook's path.
 * - A code object's flags and plain name: PyCodeObject members, read where
 *   the call monitor and the hook tell coroutines and module bodies apart.
 * - Code extra slots, where names of code objects are cached: unstable
 *   API from 3.12 (PyUnstable_*), underscore names before.
 * - A thread's current Context and its version, the key of the native
 *   bridge's per-thread answer: PyThreadState members (no accessor exists),
 *   read on every write the shim asks about.
 * - Whether this thread holds the GIL: PyThreadState_GetUnchecked() from
 *   3.13, the underscore name before.
 * - A weak reference's referent, read without the GIL by the native
 *   bridge (PyWeakref_GetRef() would take a reference): the
 *   PyWeakReference member, which CPython sets to None when the referent
 *   dies.
 * - A frame's last instruction, which the native bridge compares: 3.11
 *   added PyFrame_GetLasti(); 3.10 has the frame struct.
 */
#ifndef FA_CPYTHON_PRIVATE_H
#define FA_CPYTHON_PRIVATE_H

#include <Python.h>
#include <frameobject.h>

#if PY_VERSION_HEX < 0x030A0000 || PY_VERSION_HEX >= 0x030F0000
#error "cpython_private.h has been checked against CPython 3.10 to 3.14 only"
#endif

/* A new reference to the frame's globals, or NULL. */
static inline PyObject *
fa_py_frame_globals(PyFrameObject *f)
{
#if PY_VERSION_HEX >= 0x030B0000
    return PyFrame_GetGlobals(f);
#else
    Py_XINCREF(f->f_globals);
    return f->f_globals;
#endif
}

/* The code object's qualified name (its plain name on 3.10), borrowed. */
static inline PyObject *
fa_py_code_qualname(PyCodeObject *c)
{
#if PY_VERSION_HEX >= 0x030B0000
    return c->co_qualname;
#else
    return c->co_name;
#endif
}

/* The code object's flags (CO_COROUTINE, ...). */
static inline int
fa_py_code_flags(PyCodeObject *c)
{
    return c->co_flags;
}

/* The code object's plain name, borrowed. */
static inline PyObject *
fa_py_code_name(PyCodeObject *c)
{
    return c->co_name;
}

#if PY_VERSION_HEX >= 0x030C0000
#define fa_py_request_code_extra PyUnstable_Eval_RequestCodeExtraIndex
#define fa_py_code_get_extra PyUnstable_Code_GetExtra
#define fa_py_code_set_extra PyUnstable_Code_SetExtra
#else
#define fa_py_request_code_extra _PyEval_RequestCodeExtraIndex
#define fa_py_code_get_extra _PyCode_GetExtra
#define fa_py_code_set_extra _PyCode_SetExtra
#endif

/* The thread's current Context (borrowed, may be NULL) and its version. */
static inline PyObject *
fa_py_ts_context(PyThreadState *ts)
{
    return ts->context;
}

static inline uint64_t
fa_py_ts_context_ver(PyThreadState *ts)
{
    return ts->context_ver;
}

/* The thread state this thread has attached, or NULL; never fails. */
static inline PyThreadState *
fa_py_ts_unchecked(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return PyThreadState_GetUnchecked();
#else
    return _PyThreadState_UncheckedGet();
#endif
}

/* The referent of a weak reference (None once it died), borrowed. */
static inline PyObject *
fa_py_weakref_target(PyObject *ref)
{
    return ((PyWeakReference *)ref)->wr_object;
}

/* The index of the frame's last instruction. */
static inline int
fa_py_frame_lasti(PyFrameObject *f)
{
#if PY_VERSION_HEX >= 0x030B0000
    return PyFrame_GetLasti(f);
#else
    return f->f_lasti;
#endif
}

#endif
