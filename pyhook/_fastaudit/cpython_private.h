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
 * - The value a ContextVar has in a thread's current Context, read by the
 *   native bridge without the GIL, from a thread that runs native code
 *   with the GIL released: the Context and HAMT structs (Include/internal/
 *   pycore_context.h, pycore_hamt.h, Python/hamt.c). PyContextVar_Get()
 *   needs the GIL; the Context is the calling thread's own (only that
 *   thread can change it, and it is in native code), and a HAMT is never
 *   changed once built. The bridge checks the walk against a tree of many
 *   variables before it relies on it.
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

/* Python/hamt.c's nodes; a HAMT is immutable once built. */
struct fa_py_hamt {
    PyObject_HEAD
    PyObject *root;
    PyObject *weakreflist;
    Py_ssize_t count;
};

struct fa_py_hamt_bitmap {
    PyObject_VAR_HEAD
    uint32_t bitmap;
    PyObject *array[1];         /* key, value or (NULL, subnode) pairs */
};

struct fa_py_hamt_array {
    PyObject_HEAD
    PyObject *array[32];        /* subnodes by 5 bits of the hash */
    Py_ssize_t count;
};

struct fa_py_hamt_collision {
    PyObject_VAR_HEAD
    int32_t hash;
    PyObject *array[1];         /* key, value pairs */
};

struct fa_py_context {
    PyObject_HEAD
    PyObject *prev;
    struct fa_py_hamt *vars;
};

/* The 32-bit hash a HAMT files key under (hamt_hash()); GIL held. */
static inline int32_t
fa_py_hamt_hash(PyObject *key)
{
    Py_hash_t h = PyObject_Hash(key);
    int32_t x;

    if (h == -1) {
        return -1;
    }
#if SIZEOF_PY_HASH_T > 4
    x = (int32_t)(h & 0xffffffffl) ^ (int32_t)(h >> 32);
#else
    x = (int32_t)h;
#endif
    return x == -1 ? -2 : x;
}

/*
 * key's value in ctx (a Context, or NULL), borrowed, or NULL when key is
 * not set there; hash is fa_py_hamt_hash(key). Needs no GIL: see above.
 * Keys are compared by identity, as a ContextVar compares.
 */
static inline PyObject *
fa_py_context_peek(PyObject *ctx, PyObject *key, int32_t hash)
{
    const struct fa_py_hamt *h;
    PyObject *node;
    const char *kind;
    uint32_t shift, bit, idx;
    Py_ssize_t i;

    if (!ctx) {
        return NULL;
    }
    h = ((const struct fa_py_context *)ctx)->vars;
    node = h ? h->root : NULL;
    for (shift = 0; node && shift < 40; shift += 5) {
        kind = Py_TYPE(node)->tp_name;
        if (!strcmp(kind, "hamt_bitmap_node")) {
            const struct fa_py_hamt_bitmap *b = (const void *)node;

            bit = (uint32_t)1 << (((uint32_t)hash >> shift) & 0x1f);
            if (!(b->bitmap & bit)) {
                return NULL;
            }
            idx = 2 * (uint32_t)__builtin_popcount(b->bitmap & (bit - 1));
            if (b->array[idx]) {
                return b->array[idx] == key ? b->array[idx + 1] : NULL;
            }
            node = b->array[idx + 1];
        } else if (!strcmp(kind, "hamt_array_node")) {
            node = ((const struct fa_py_hamt_array *)node)
                       ->array[((uint32_t)hash >> shift) & 0x1f];
        } else if (!strcmp(kind, "hamt_collision_node")) {
            const struct fa_py_hamt_collision *c = (const void *)node;

            for (i = 0; i + 1 < Py_SIZE(c); i += 2) {
                if (c->array[i] == key) {
                    return c->array[i + 1];
                }
            }
            return NULL;
        } else {
            return NULL;
        }
    }
    return NULL;
}

#endif
