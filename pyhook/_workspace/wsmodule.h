/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the files of fastaudit._workspace. */
#ifndef FA_WSMODULE_H
#define FA_WSMODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "workspace/fa_workspace.h"
#include "../py_symlinks.h"

typedef struct {
    PyObject_HEAD
    fa_ws *ws;
    int busy;           /* calls running with the GIL released */
    int closing;        /* close() was called while busy */
    int by_path;        /* safe_open: the root was given in its resolved form */
    PyObject *root;     /* str */
} WorkspaceObject;

/* Process-wide: the module supports a single interpreter (see workspace_module.c). */
extern PyTypeObject *fa__ws_type;
extern PyObject *fa__ws_escape_error;
/* io.open, which wraps the descriptors a workspace opens. */
extern PyObject *fa__ws_io_open;

/*
 * Bracket a call that releases the GIL: enter fails with ValueError on a
 * closed workspace; leave finishes a close() that came in meanwhile.
 */
int fa__ws_enter(WorkspaceObject *self);
void fa__ws_leave(WorkspaceObject *self);
/* Raise the calling thread's last workspace error; returns NULL. */
PyObject *fa__ws_raise(void);
/* Check args against names; out[i] is NULL when absent. 0 or -1. */
int fa__ws_parse(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                 PyObject *kwnames, const char *const *names, int npos, int nreq,
                 PyObject **out);
/* A path argument (str, bytes, os.PathLike) as a new bytes object. */
PyObject *fa__ws_fspath(PyObject *obj);
/* open() on a path of ws: parse mode, open through the C API, wrap the fd. */
PyObject *fa__ws_open_file(WorkspaceObject *self, int *again, PyObject *path, PyObject *mode,
                           PyObject *buffering, PyObject *encoding, PyObject *errors,
                           PyObject *newline);
/* A new Workspace (base type) on root; used by safe_open's cache. */
PyObject *fa__ws_new(PyObject *root, enum fa_symlinks symlinks, unsigned flags);
int fa__ws_init_type(PyObject *module);

#endif
