/* SPDX-License-Identifier: Apache-2.0 */
/*
 * args.c - what the module's functions and the Workspace's methods share:
 * their arguments parsed, a path argument read, the workspace's error
 * raised as a Python exception, and a file opened through the C library
 * and wrapped by io.open. Below both workspace_module.c and object.c.
 */
#include "config.h"

#include "wsmodule.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

PyObject *fa__ws_escape_error;
PyObject *fa__ws_io_open;

int
fa__ws_enter(WorkspaceObject *self)
{
    if (self->ws == NULL || self->closing) {
        PyErr_SetString(PyExc_ValueError, "operation on a closed workspace");
        return -1;
    }
    self->busy++;
    return 0;
}

void
fa__ws_leave(WorkspaceObject *self)
{
    if (--self->busy == 0 && self->closing && self->ws != NULL) {
        fa_ws_close(self->ws);
        self->ws = NULL;
    }
}

PyObject *
fa__ws_raise(void)
{
    const struct fa_ws_error *e = fa_ws_last_error();
    PyObject *exc = NULL, *path = NULL, *root = NULL, *reason = NULL;
    char msg[3 * PATH_MAX];

    path = PyUnicode_DecodeFSDefault(e->path);
    if (path == NULL) {
        return NULL;
    }
    if (e->err == EACCES && e->why != FA_WHY_NONE) {
        fa_ws_strerror(e, msg, sizeof msg);
        root = PyUnicode_DecodeFSDefault(e->root);
        reason = PyUnicode_FromString(fa_ws_why_name(e->why));
        if (root == NULL || reason == NULL) {
            goto exit;
        }
        exc = PyObject_CallFunction(fa__ws_escape_error, "isO", EACCES, msg, path);
        if (exc == NULL
            || PyObject_SetAttrString(exc, "path", path) < 0
            || PyObject_SetAttrString(exc, "root", root) < 0
            || PyObject_SetAttrString(exc, "reason", reason) < 0)
        {
            goto exit;
        }
        PyErr_SetObject(fa__ws_escape_error, exc);
    }
    else if (e->err == EINVAL && e->detail[0]) {
        fa_ws_strerror(e, msg, sizeof msg);
        PyErr_SetString(PyExc_ValueError, msg);
    }
    else {
        errno = e->err ? e->err : EIO;
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
    }
exit:
    Py_XDECREF(exc);
    Py_XDECREF(path);
    Py_XDECREF(root);
    Py_XDECREF(reason);
    return NULL;
}

int
fa__ws_parse(const char *fname, PyObject *const *args, Py_ssize_t nargs,
             PyObject *kwnames, const char *const *names, int npos, int nreq,
             PyObject **out)
{
    Py_ssize_t i, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    int n, j;

    for (n = 0; names[n]; n++) {
        out[n] = NULL;
    }
    if (nargs > npos) {
        PyErr_Format(PyExc_TypeError,
                     "%s() takes at most %d positional arguments (%zd given)",
                     fname, npos, nargs);
        return -1;
    }
    for (i = 0; i < nargs; i++) {
        out[i] = args[i];
    }
    for (i = 0; i < nkw; i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i);

        for (j = 0; j < n; j++) {
            if (PyUnicode_CompareWithASCIIString(key, names[j]) == 0) {
                break;
            }
        }
        if (j == n) {
            PyErr_Format(PyExc_TypeError,
                         "%s() got an unexpected keyword argument '%U'", fname, key);
            return -1;
        }
        if (out[j] != NULL) {
            PyErr_Format(PyExc_TypeError,
                         "%s() got multiple values for argument '%s'", fname, names[j]);
            return -1;
        }
        out[j] = args[nargs + i];
    }
    for (j = 0; j < nreq; j++) {
        if (out[j] == NULL) {
            PyErr_Format(PyExc_TypeError,
                         "%s() missing required argument '%s'", fname, names[j]);
            return -1;
        }
    }
    return 0;
}

PyObject *
fa__ws_fspath(PyObject *obj)
{
    PyObject *bytes = NULL;

    if (!PyUnicode_FSConverter(obj, &bytes)) {
        return NULL;
    }
    return bytes;
}

/*
 * io.open's mode rules, applied before anything is opened: an invalid
 * mode must not create or truncate the file first.
 */
static int
mode_flags(PyObject *modeobj, int text_args, PyObject *buffering, int *flags)
{
    const char *mode, *c;
    int creating = 0, reading = 0, writing = 0, appending = 0, updating = 0;
    int text = 0, binary = 0;

    mode = PyUnicode_AsUTF8(modeobj);
    if (mode == NULL) {
        return -1;
    }
    for (c = mode; *c; c++) {
        int *seen;

        switch (*c) {
        case 'x': seen = &creating; break;
        case 'r': seen = &reading; break;
        case 'w': seen = &writing; break;
        case 'a': seen = &appending; break;
        case '+': seen = &updating; break;
        case 't': seen = &text; break;
        case 'b': seen = &binary; break;
        default: seen = NULL; break;
        }
        if (seen == NULL || *seen) {
            PyErr_Format(PyExc_ValueError, "invalid mode: '%s'", mode);
            return -1;
        }
        *seen = 1;
    }
    if (text && binary) {
        PyErr_SetString(PyExc_ValueError, "can't have text and binary mode at once");
        return -1;
    }
    if (creating + reading + writing + appending != 1) {
        PyErr_SetString(PyExc_ValueError,
                        "must have exactly one of create/read/write/append mode");
        return -1;
    }
    if (binary && text_args) {
        PyErr_SetString(PyExc_ValueError,
                        "binary mode doesn't take an encoding, errors or newline argument");
        return -1;
    }
    if (!binary && buffering != NULL && PyLong_Check(buffering)
        && PyLong_AsLong(buffering) == 0)
    {
        PyErr_SetString(PyExc_ValueError, "can't have unbuffered text I/O");
        return -1;
    }
    *flags = updating ? O_RDWR : (reading ? O_RDONLY : O_WRONLY);
    if (writing) {
        *flags |= O_CREAT | O_TRUNC;
    }
    else if (creating) {
        *flags |= O_CREAT | O_EXCL;
    }
    else if (appending) {
        *flags |= O_CREAT | O_APPEND;
    }
    return 0;
}

/*
 * again == NULL: open through the pinned root. Otherwise by the root's
 * path (fa_ws_openat_bypath); *again is set, with no exception, when that
 * cannot decide and the pinned route must.
 */
PyObject *
fa__ws_open_file(WorkspaceObject *self, int *again, PyObject *path, PyObject *mode,
                 PyObject *buffering, PyObject *encoding, PyObject *errors,
                 PyObject *newline)
{
    PyObject *bytes, *fdobj, *file, *fargs[7];
    PyThreadState *ts;
    int flags, fd, text_args;

    static PyObject *read_mode;

    if (mode == NULL) {
        if (read_mode == NULL && (read_mode = PyUnicode_InternFromString("r")) == NULL) {
            return NULL;
        }
        mode = read_mode;
    }
    text_args = (encoding != NULL && encoding != Py_None)
                || (errors != NULL && errors != Py_None)
                || (newline != NULL && newline != Py_None);
    if (!PyUnicode_Check(mode)) {
        PyErr_Format(PyExc_TypeError, "open() argument 'mode' must be str, not %.200s",
                     Py_TYPE(mode)->tp_name);
        return NULL;
    }
    if (mode_flags(mode, text_args, buffering, &flags) < 0) {
        return NULL;
    }
    bytes = fa__ws_fspath(path);
    if (bytes == NULL) {
        return NULL;
    }
    if (fa__ws_enter(self) < 0) {
        Py_DECREF(bytes);
        return NULL;
    }
    ts = PyEval_SaveThread();
    if (again != NULL) {
        fd = fa_ws_openat_bypath(self->ws, PyBytes_AS_STRING(bytes), flags, 0666);
    }
    else {
        fd = fa_ws_openat(self->ws, PyBytes_AS_STRING(bytes), flags, 0666);
    }
    PyEval_RestoreThread(ts);
    fa__ws_leave(self);
    Py_DECREF(bytes);
    if (fd == -EAGAIN && again != NULL) {
        *again = 1;
        return NULL;
    }
    if (fd < 0) {
        return fa__ws_raise();
    }
    fdobj = PyLong_FromLong(fd);
    if (fdobj == NULL) {
        close(fd);
        return NULL;
    }
    fargs[0] = fdobj;
    fargs[1] = mode;
    fargs[2] = buffering;
    fargs[3] = encoding;
    fargs[4] = errors;
    fargs[5] = newline;
    for (int i = 2; i < 6; i++) {
        if (fargs[i] == NULL) {
            fargs[i] = i == 2 ? NULL : Py_None;
        }
    }
    if (fargs[2] == NULL) {
        static PyObject *minus_one;

        if (minus_one == NULL && (minus_one = PyLong_FromLong(-1)) == NULL) {
            Py_DECREF(fdobj);
            close(fd);
            return NULL;
        }
        fargs[2] = minus_one;
    }
    file = PyObject_Vectorcall(fa__ws_io_open, fargs, 6, NULL);
    Py_DECREF(fdobj);
    if (file == NULL) {
        close(fd);
    }
    return file;
}
