/* SPDX-License-Identifier: Apache-2.0 */
/*
 * workspace_module.c - fastaudit._workspace: the Workspace API for Python.
 *
 * A thin binding: every decision and every system call is made by the C
 * library in src/workspace/; args.c converts arguments and errors and
 * wraps descriptors in ordinary file objects, object.c is the type, and
 * this file is the module: its functions and its initialisation.
 *
 * Multi-phase initialisation (PEP 489), as fastaudit._fastaudit, with
 * process-wide state and no module state: workspaces are process
 * resources (pinned descriptors), and the exception type, io.open and
 * safe_open's cache are made once for the process. So the module runs in
 * one interpreter only: it says so to CPython 3.12+ (its slot), and
 * refuses a second interpreter itself on older versions. Executing it
 * again in the same interpreter (a re-import) reuses what exists.
 */
#include "config.h"

#include "wsmodule.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

static PyObject *safe_open_cache;      /* (root, symlinks) -> Workspace */

#define SAFE_OPEN_CACHE_MAX 64

/*
 * Is the cached workspace's pinned root no longer the directory that rootb
 * names (deleted, renamed, made again)? Asked only when the open cannot go
 * by the root's path.
 */
static int
root_remade(WorkspaceObject *w, PyObject *rootb)
{
    struct stat st, pinned;

    if (w->ws == NULL || fstat(fa_ws_root_fd(w->ws), &pinned) != 0) {
        return 1;
    }
    if (pinned.st_nlink == 0) {
        return 1;
    }
    if (stat(PyBytes_AS_STRING(rootb), &st) != 0) {
        return 1;
    }
    return pinned.st_ino != st.st_ino || pinned.st_dev != st.st_dev;
}

static PyObject *
safe_open(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"root", "relpath", "mode", "buffering", "encoding",
                                        "errors", "newline", "symlinks", "mounts", NULL};
    PyObject *a[9], *key = NULL, *ws = NULL, *res = NULL, *keyroot;
    enum fa_symlinks sym = FA_SYM_BENEATH;
    unsigned flags = 0;
    PyObject *rootb = NULL;

    if (fa__ws_parse("safe_open", args, nargs, kwnames, names, 7, 2, a) < 0) {
        return NULL;
    }
    if (fa_py_symlinks(a[7], FA_SYM_BENEATH, &sym) < 0) {
        return NULL;
    }
    if (a[8] != NULL) {
        int mounts = PyObject_IsTrue(a[8]);

        if (mounts < 0) {
            return NULL;
        }
        flags = mounts ? 0 : FA_WS_NO_XDEV;
    }
    /* An exact str or bytes keys the cache itself: its hash is computed once. */
    if (PyUnicode_CheckExact(a[0]) || PyBytes_CheckExact(a[0])) {
        keyroot = Py_NewRef(a[0]);
    }
    else if ((keyroot = fa__ws_fspath(a[0])) == NULL) {
        return NULL;
    }
    key = Py_BuildValue("(OiI)", keyroot, (int)sym, flags);
    Py_DECREF(keyroot);
    if (key == NULL) {
        return NULL;
    }
    ws = PyDict_GetItemWithError(safe_open_cache, key);
    if (ws == NULL && PyErr_Occurred()) {
        goto exit;
    }
    Py_XINCREF(ws);
    if (ws != NULL && ((WorkspaceObject *)ws)->by_path) {
        /* one lookup along the root's path: it follows a root made again */
        int again = 0;

        res = fa__ws_open_file((WorkspaceObject *)ws, &again, a[1], a[2], a[3], a[4], a[5],
                               a[6]);
        if (res != NULL || !again) {
            goto exit;
        }
    }
    rootb = fa__ws_fspath(a[0]);
    if (rootb == NULL) {
        goto exit;
    }
    if (ws != NULL && root_remade((WorkspaceObject *)ws, rootb)) {
        /* the pinned root is no longer what the path names: pin it afresh */
        Py_CLEAR(ws);
        if (PyDict_DelItem(safe_open_cache, key) < 0) {
            goto exit;
        }
    }
    if (ws == NULL) {
        WorkspaceObject *w;

        ws = fa__ws_new(a[0], sym, flags);
        if (ws == NULL) {
            goto exit;
        }
        w = (WorkspaceObject *)ws;
        w->by_path = strcmp(PyBytes_AS_STRING(rootb), fa_ws_root(w->ws)) == 0;
        if (PyDict_GET_SIZE(safe_open_cache) >= SAFE_OPEN_CACHE_MAX) {
            PyDict_Clear(safe_open_cache);
        }
        if (PyDict_SetItem(safe_open_cache, key, ws) < 0) {
            goto exit;
        }
    }
    res = fa__ws_open_file((WorkspaceObject *)ws, NULL, a[1], a[2], a[3], a[4], a[5], a[6]);
exit:
    Py_XDECREF(rootb);
    Py_XDECREF(key);
    Py_XDECREF(ws);
    return res;
}

static PyObject *
force_fallback(PyObject *module, PyObject *arg)
{
    int on = PyObject_IsTrue(arg);

    if (on < 0) {
        return NULL;
    }
    fa_ws_force_fallback(on);
    Py_RETURN_NONE;
}

static PyObject *
uses_openat2(PyObject *module, PyObject *unused)
{
    return PyBool_FromLong(fa_ws_uses_openat2());
}

static PyMethodDef ws_methods[] = {
    {"safe_open", (PyCFunction)(void (*)(void))safe_open, METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("safe_open(root, relpath, mode='r', buffering=-1, encoding=None, "
               "errors=None, newline=None, *, symlinks='beneath', mounts=True)\n--\n\n"
               "Open relpath beneath root, resolved by the kernel beneath a pinned\n"
               "descriptor of root; returns an ordinary file object.")},
    {"_force_fallback", force_fallback, METH_O,
     PyDoc_STR("_force_fallback($module, on, /)\n--\n\n"
               "Resolve with the O_NOFOLLOW walk instead of openat2 (tests).")},
    {"_uses_openat2", uses_openat2, METH_NOARGS,
     PyDoc_STR("_uses_openat2($module, /)\n--\n\n"
               "True when paths are resolved with openat2.")},
    {NULL, NULL, 0, NULL},
};

#define ESCAPE_ERROR_DOC \
    "A path that would leave the workspace, or that the workspace refuses.\n\n" \
    "A PermissionError (errno EACCES). Attributes: path (as given), root (the\n" \
    "workspace root) and reason (the engine's name: 'escapes', 'absolute',\n" \
    "'symlink', 'magic-link', 'mount-crossing', 'deny-subtree', 'not-portable',\n" \
    "...; fastaudit.workspace.REASONS lists them)."

static PyInterpreterState *ws_interp;   /* the one interpreter the module runs in */

static int
add_symlinks_constants(PyObject *m)
{
    char name[32];
    int i, k;

    for (i = 0; i < FA_SYM_NMODES; i++) {
        const char *mode = fa_symlinks_name((enum fa_symlinks)i);

        k = snprintf(name, sizeof name, "SYMLINKS_%s", mode);
        if (k < 0 || (size_t)k >= sizeof name) {
            PyErr_SetString(PyExc_SystemError, "symlink mode name too long");
            return -1;
        }
        for (k = 9; name[k]; k++) {
            char ch = name[k];

            /* "nofollow-last" would be SYMLINKS_NOFOLLOW_LAST */
            name[k] = (char)(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch == '-' ? '_' : ch);
        }
        if (PyModule_AddIntConstant(m, name, i) < 0) {
            return -1;
        }
    }
    return 0;
}

static int
ws_exec(PyObject *m)
{
    PyObject *io;
    PyInterpreterState *interp = PyInterpreterState_Get();
    const char *env = getenv("FA_FORCE_FALLBACK");

    if (ws_interp != NULL && ws_interp != interp) {
        PyErr_SetString(PyExc_ImportError,
                        "fastaudit._workspace runs in one interpreter per process only");
        return -1;
    }
    if (env != NULL && env[0] == '1') {
        fa_ws_force_fallback(1);
    }
    if (fa__ws_io_open == NULL) {
        io = PyImport_ImportModule("io");
        if (io == NULL) {
            return -1;
        }
        fa__ws_io_open = PyObject_GetAttrString(io, "open");
        Py_DECREF(io);
        if (fa__ws_io_open == NULL) {
            return -1;
        }
    }
    if (fa__ws_escape_error == NULL) {
        /*
         * The class keeps the text signature in its tp_doc, where
         * __text_signature__ (and so inspect.signature) reads it; its
         * __doc__ is the text alone, as for a static type.
         */
        PyObject *doc = PyUnicode_FromString(ESCAPE_ERROR_DOC);

        fa__ws_escape_error = doc == NULL ? NULL : PyErr_NewExceptionWithDoc(
            "fastaudit.workspace.WorkspaceEscapeError",
            "WorkspaceEscapeError(*args)\n--\n\n" ESCAPE_ERROR_DOC,
            PyExc_PermissionError, NULL);
        if (fa__ws_escape_error == NULL
            || PyObject_SetAttrString(fa__ws_escape_error, "__doc__", doc) < 0)
        {
            Py_XDECREF(doc);
            Py_CLEAR(fa__ws_escape_error);
            return -1;
        }
        Py_DECREF(doc);
    }
    if (PyModule_AddObjectRef(m, "WorkspaceEscapeError", fa__ws_escape_error) < 0) {
        return -1;
    }
    if (safe_open_cache == NULL && (safe_open_cache = PyDict_New()) == NULL) {
        return -1;
    }
    if (fa__ws_init_type(m) < 0 || add_symlinks_constants(m) < 0) {
        return -1;
    }
    ws_interp = interp;
    return 0;
}

static PyModuleDef_Slot ws_slots[] = {
    {Py_mod_exec, ws_exec},
#if PY_VERSION_HEX >= 0x030C0000
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#endif
    {0, NULL},
};

static struct PyModuleDef ws_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "fastaudit._workspace",
    .m_doc = "Files beneath a pinned root directory (the C half of fastaudit.workspace).",
    .m_size = 0,
    .m_methods = ws_methods,
    .m_slots = ws_slots,
};

PyMODINIT_FUNC PyInit__workspace(void);

PyMODINIT_FUNC
PyInit__workspace(void)
{
    return PyModuleDef_Init(&ws_module);
}
