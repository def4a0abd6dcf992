/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Workspace type: one fa_ws handle, its methods and its lifetime.
 *
 * Calls release the GIL around the system calls, as os.* functions do. A
 * close() that arrives while another thread is inside a call only marks the
 * workspace closed; the last call out frees the handle (fa__ws_leave(),
 * args.c).
 */
#include "config.h"

#include "wsmodule.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

PyTypeObject *fa__ws_type;
static PyObject *stat_result;

/* Release the GIL around one C call on a path argument. */
#define WS_CALL(self, res, expr)                \
    do {                                        \
        PyThreadState *ts_;                     \
        if (fa__ws_enter(self) < 0) {           \
            goto exit;                          \
        }                                       \
        ts_ = PyEval_SaveThread();              \
        res = (expr);                           \
        PyEval_RestoreThread(ts_);              \
        fa__ws_leave(self);                     \
    } while (0)

static int
ws_setup(WorkspaceObject *self, PyObject *root, PyObject *deny, enum fa_symlinks sym,
         unsigned flags)
{
    PyObject *rootb = NULL, *denyl = NULL, *seq = NULL;
    const char **denyv = NULL;
    struct fa_ws_error err;
    fa_ws *ws = NULL;
    Py_ssize_t i, n = 0;
    int rc, res = -1;

    if (self->ws != NULL || self->closing) {
        PyErr_SetString(PyExc_RuntimeError, "Workspace is already initialised");
        return -1;
    }
    rootb = fa__ws_fspath(root);
    if (rootb == NULL) {
        goto exit;
    }
    if (deny != NULL && deny != Py_None) {
        if (PyUnicode_Check(deny) || PyBytes_Check(deny)) {
            PyErr_SetString(PyExc_TypeError, "deny must be a collection of paths, not a path");
            goto exit;
        }
        seq = PySequence_Fast(deny, "deny must be an iterable of paths");
        if (seq == NULL) {
            goto exit;
        }
        n = PySequence_Fast_GET_SIZE(seq);
        denyl = PyList_New(n);
        denyv = PyMem_Calloc((size_t)n + 1, sizeof *denyv);
        if (denyl == NULL || denyv == NULL) {
            PyErr_NoMemory();
            goto exit;
        }
        for (i = 0; i < n; i++) {
            PyObject *b = fa__ws_fspath(PySequence_Fast_GET_ITEM(seq, i));

            if (b == NULL) {
                goto exit;
            }
            PyList_SET_ITEM(denyl, i, b);
            denyv[i] = PyBytes_AS_STRING(b);
        }
    }
    Py_BEGIN_ALLOW_THREADS
    rc = fa_ws_open(PyBytes_AS_STRING(rootb), denyv, sym, flags, &ws, &err);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        fa__ws_raise();
        goto exit;
    }
    self->root = PyUnicode_DecodeFSDefault(fa_ws_root(ws));
    if (self->root == NULL) {
        fa_ws_close(ws);
        goto exit;
    }
    self->ws = ws;
    res = 0;
exit:
    PyMem_Free(denyv);
    Py_XDECREF(denyl);
    Py_XDECREF(seq);
    Py_XDECREF(rootb);
    return res;
}

static int
ws_init(PyObject *op, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"root", "deny", "symlinks", "portable", "mounts", NULL};
    PyObject *root, *deny = NULL, *symobj = NULL;
    enum fa_symlinks sym;
    int portable = 0, mounts = 1;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOpp:Workspace", kwlist,
                                     &root, &deny, &symobj, &portable, &mounts))
    {
        return -1;
    }
    if (fa_py_symlinks(symobj, FA_SYM_BENEATH, &sym) < 0) {
        return -1;
    }
    return ws_setup((WorkspaceObject *)op, root, deny, sym,
                    (portable ? FA_WS_PORTABLE : 0) | (mounts ? 0 : FA_WS_NO_XDEV));
}

PyObject *
fa__ws_new(PyObject *root, enum fa_symlinks symlinks, unsigned flags)
{
    PyObject *op = fa__ws_type->tp_alloc(fa__ws_type, 0);

    if (op == NULL) {
        return NULL;
    }
    if (ws_setup((WorkspaceObject *)op, root, NULL, symlinks, flags) < 0) {
        Py_DECREF(op);
        return NULL;
    }
    return op;
}

static void
ws_dealloc(PyObject *op)
{
    WorkspaceObject *self = (WorkspaceObject *)op;
    PyTypeObject *tp = Py_TYPE(op);

    PyObject_GC_UnTrack(op);
    if (self->ws != NULL) {
        fa_ws_close(self->ws);
        self->ws = NULL;
    }
    Py_CLEAR(self->root);
    tp->tp_free(op);
    Py_DECREF(tp);
}

static int
ws_traverse(PyObject *op, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(op));
    return 0;
}

/* ---- methods ----------------------------------------------------------- */

static PyObject *
ws_open(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"path", "mode", "buffering", "encoding", "errors",
                                        "newline", NULL};
    PyObject *a[6];

    if (fa__ws_parse("open", args, nargs, kwnames, names, 6, 1, a) < 0) {
        return NULL;
    }
    return fa__ws_open_file((WorkspaceObject *)op, NULL, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static int
flag_arg(PyObject *obj, int dflt)
{
    return obj == NULL ? dflt : PyObject_IsTrue(obj);
}

static int
mode_arg(PyObject *obj, mode_t dflt, mode_t *out)
{
    long m;

    *out = dflt;
    if (obj == NULL) {
        return 0;
    }
    m = PyLong_AsLong(obj);
    if (m == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (m < 0 || m > 07777) {
        PyErr_SetString(PyExc_ValueError, "mode must be between 0 and 0o7777");
        return -1;
    }
    *out = (mode_t)m;
    return 0;
}

static PyObject *
ws_mkdir(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"path", "parents", "exist_ok", "mode", NULL};
    WorkspaceObject *self = (WorkspaceObject *)op;
    PyObject *a[4], *p = NULL, *res = NULL;
    int parents, exist_ok, rc;
    mode_t mode;

    if (fa__ws_parse("mkdir", args, nargs, kwnames, names, 4, 1, a) < 0) {
        return NULL;
    }
    if ((parents = flag_arg(a[1], 0)) < 0 || (exist_ok = flag_arg(a[2], 0)) < 0
        || mode_arg(a[3], 0777, &mode) < 0 || (p = fa__ws_fspath(a[0])) == NULL)
    {
        return NULL;
    }
    WS_CALL(self, rc, fa_ws_mkdir(self->ws, PyBytes_AS_STRING(p), mode, parents, exist_ok));
    res = rc < 0 ? fa__ws_raise() : Py_NewRef(Py_None);
exit:
    Py_XDECREF(p);
    return res;
}

static PyObject *
remove_common(WorkspaceObject *self, PyObject *path, int dir)
{
    PyObject *p, *res = NULL;
    int rc;

    if ((p = fa__ws_fspath(path)) == NULL) {
        return NULL;
    }
    WS_CALL(self, rc, dir ? fa_ws_rmdir(self->ws, PyBytes_AS_STRING(p))
                          : fa_ws_unlink(self->ws, PyBytes_AS_STRING(p)));
    res = rc < 0 ? fa__ws_raise() : Py_NewRef(Py_None);
exit:
    Py_DECREF(p);
    return res;
}

static PyObject *
ws_unlink(PyObject *op, PyObject *path)
{
    return remove_common((WorkspaceObject *)op, path, 0);
}

static PyObject *
ws_rmdir(PyObject *op, PyObject *path)
{
    return remove_common((WorkspaceObject *)op, path, 1);
}

static PyObject *
ws_rename(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"src", "dst", "replace", "exchange", NULL};
    WorkspaceObject *self = (WorkspaceObject *)op;
    PyObject *a[4], *s = NULL, *d = NULL, *res = NULL;
    int replace, exchange, rc;
    unsigned flags = 0;

    if (fa__ws_parse("rename", args, nargs, kwnames, names, 2, 2, a) < 0) {
        return NULL;
    }
    if ((replace = flag_arg(a[2], 1)) < 0 || (exchange = flag_arg(a[3], 0)) < 0) {
        return NULL;
    }
    if (exchange && !replace) {
        PyErr_SetString(PyExc_ValueError, "exchange=True cannot be combined with replace=False");
        return NULL;
    }
    flags = exchange ? FA_WS_EXCHANGE : (replace ? 0 : FA_WS_NOREPLACE);
    if ((s = fa__ws_fspath(a[0])) == NULL || (d = fa__ws_fspath(a[1])) == NULL) {
        goto exit;
    }
    WS_CALL(self, rc, fa_ws_rename(self->ws, PyBytes_AS_STRING(s), PyBytes_AS_STRING(d), flags));
    res = rc < 0 ? fa__ws_raise() : Py_NewRef(Py_None);
exit:
    Py_XDECREF(s);
    Py_XDECREF(d);
    return res;
}

static PyObject *
two_paths(WorkspaceObject *self, const char *fname, PyObject *const *args, Py_ssize_t nargs,
          PyObject *kwnames, const char *const *names, int symlink)
{
    PyObject *a[2], *s = NULL, *d = NULL, *res = NULL;
    int rc;

    if (fa__ws_parse(fname, args, nargs, kwnames, names, 2, 2, a) < 0) {
        return NULL;
    }
    if ((s = fa__ws_fspath(a[0])) == NULL || (d = fa__ws_fspath(a[1])) == NULL) {
        goto exit;
    }
    WS_CALL(self, rc, symlink
            ? fa_ws_symlink(self->ws, PyBytes_AS_STRING(s), PyBytes_AS_STRING(d))
            : fa_ws_link(self->ws, PyBytes_AS_STRING(s), PyBytes_AS_STRING(d)));
    res = rc < 0 ? fa__ws_raise() : Py_NewRef(Py_None);
exit:
    Py_XDECREF(s);
    Py_XDECREF(d);
    return res;
}

static PyObject *
ws_link(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"src", "dst", NULL};

    return two_paths((WorkspaceObject *)op, "link", args, nargs, kwnames, names, 0);
}

static PyObject *
ws_symlink(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"target", "path", NULL};

    return two_paths((WorkspaceObject *)op, "symlink", args, nargs, kwnames, names, 1);
}

struct names {
    PyObject *list;
    int as_bytes;
};

static int
add_name(void *arg, const char *name, unsigned char d_type)
{
    struct names *n = arg;
    PyObject *s;
    int rc;

    s = n->as_bytes ? PyBytes_FromString(name) : PyUnicode_DecodeFSDefault(name);
    if (s == NULL) {
        return -1;
    }
    rc = PyList_Append(n->list, s);
    Py_DECREF(s);
    return rc;
}

static PyObject *
ws_listdir(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"path", NULL};
    WorkspaceObject *self = (WorkspaceObject *)op;
    PyObject *a[1], *p = NULL, *path;
    struct names n = {NULL, 0};
    int rc;

    if (fa__ws_parse("listdir", args, nargs, kwnames, names, 1, 0, a) < 0) {
        return NULL;
    }
    path = a[0];
    if (path == NULL || path == Py_None) {
        p = PyBytes_FromString(".");
    }
    else {
        PyObject *f = PyOS_FSPath(path);

        if (f == NULL) {
            return NULL;
        }
        n.as_bytes = PyBytes_Check(f);
        Py_DECREF(f);
        p = fa__ws_fspath(path);
    }
    if (p == NULL || (n.list = PyList_New(0)) == NULL) {
        goto exit;
    }
    /* The callback builds Python objects: the GIL stays held here. */
    if (fa__ws_enter(self) < 0) {
        Py_CLEAR(n.list);
        goto exit;
    }
    rc = fa_ws_listdir(self->ws, PyBytes_AS_STRING(p), add_name, &n);
    fa__ws_leave(self);
    if (rc == -1 && PyErr_Occurred()) {
        Py_CLEAR(n.list);
    }
    else if (rc < 0) {
        Py_CLEAR(n.list);
        fa__ws_raise();
    }
exit:
    Py_XDECREF(p);
    return n.list;
}

static PyObject *
make_stat(const struct stat *st)
{
    PyObject *t, *res = NULL;
    Py_ssize_t nf = 19;

    if (stat_result == NULL) {
        PyObject *os = PyImport_ImportModule("os");

        if (os == NULL) {
            return NULL;
        }
        stat_result = PyObject_GetAttrString(os, "stat_result");
        Py_DECREF(os);
        if (stat_result == NULL) {
            return NULL;
        }
    }
    t = Py_BuildValue(
        "(KKKKKKLLLLdddLLLlLK)",
        (unsigned long long)st->st_mode, (unsigned long long)st->st_ino,
        (unsigned long long)st->st_dev, (unsigned long long)st->st_nlink,
        (unsigned long long)st->st_uid, (unsigned long long)st->st_gid,
        (long long)st->st_size,
        (long long)st->st_atim.tv_sec, (long long)st->st_mtim.tv_sec,
        (long long)st->st_ctim.tv_sec,
        st->st_atim.tv_sec + st->st_atim.tv_nsec * 1e-9,
        st->st_mtim.tv_sec + st->st_mtim.tv_nsec * 1e-9,
        st->st_ctim.tv_sec + st->st_ctim.tv_nsec * 1e-9,
        (long long)st->st_atim.tv_sec * 1000000000LL + st->st_atim.tv_nsec,
        (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec,
        (long long)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec,
        (long)st->st_blksize, (long long)st->st_blocks,
        (unsigned long long)st->st_rdev);
    if (t == NULL) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(t) == nf) {
        res = PyObject_CallOneArg(stat_result, t);
    }
    Py_DECREF(t);
    return res;
}

static PyObject *
ws_stat(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"path", "follow_symlinks", NULL};
    WorkspaceObject *self = (WorkspaceObject *)op;
    PyObject *a[2], *p = NULL, *res = NULL;
    struct stat st;
    int follow, rc;

    if (fa__ws_parse("stat", args, nargs, kwnames, names, 2, 1, a) < 0) {
        return NULL;
    }
    if ((follow = flag_arg(a[1], 1)) < 0 || (p = fa__ws_fspath(a[0])) == NULL) {
        return NULL;
    }
    WS_CALL(self, rc, fa_ws_stat(self->ws, PyBytes_AS_STRING(p), &st, follow));
    res = rc < 0 ? fa__ws_raise() : make_stat(&st);
exit:
    Py_XDECREF(p);
    return res;
}

static PyObject *
ws_readlink(PyObject *op, PyObject *path)
{
    WorkspaceObject *self = (WorkspaceObject *)op;
    PyObject *p, *f, *res = NULL;
    char buf[PATH_MAX];
    ssize_t n;
    int as_bytes;

    if ((f = PyOS_FSPath(path)) == NULL) {
        return NULL;
    }
    as_bytes = PyBytes_Check(f);
    Py_DECREF(f);
    if ((p = fa__ws_fspath(path)) == NULL) {
        return NULL;
    }
    WS_CALL(self, n, fa_ws_readlink(self->ws, PyBytes_AS_STRING(p), buf, sizeof buf));
    if (n < 0) {
        res = fa__ws_raise();
    }
    else {
        res = as_bytes ? PyBytes_FromStringAndSize(buf, n)
                       : PyUnicode_DecodeFSDefaultAndSize(buf, n);
    }
exit:
    Py_DECREF(p);
    return res;
}

static PyObject *
ws_atomic_write(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"path", "data", "mode", NULL};
    WorkspaceObject *self = (WorkspaceObject *)op;
    PyObject *a[3], *p = NULL, *res = NULL;
    Py_buffer view = {0};
    mode_t mode;
    int rc;

    if (fa__ws_parse("atomic_write", args, nargs, kwnames, names, 3, 2, a) < 0) {
        return NULL;
    }
    if (PyUnicode_Check(a[1])) {
        PyErr_SetString(PyExc_TypeError, "atomic_write() data must be bytes-like, not str");
        return NULL;
    }
    if (mode_arg(a[2], 0666, &mode) < 0 || PyObject_GetBuffer(a[1], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if ((p = fa__ws_fspath(a[0])) == NULL) {
        goto exit;
    }
    WS_CALL(self, rc, fa_ws_atomic_write(self->ws, PyBytes_AS_STRING(p), view.buf,
                                         (size_t)view.len, mode));
    res = rc < 0 ? fa__ws_raise() : PyLong_FromSsize_t(view.len);
exit:
    PyBuffer_Release(&view);
    Py_XDECREF(p);
    return res;
}

static PyObject *
ws_subworkspace(PyObject *op, PyObject *path)
{
    WorkspaceObject *self = (WorkspaceObject *)op, *child;
    PyObject *p, *res = NULL;
    fa_ws *ws = NULL;
    int rc;

    if ((p = fa__ws_fspath(path)) == NULL) {
        return NULL;
    }
    WS_CALL(self, rc, fa_ws_sub(self->ws, PyBytes_AS_STRING(p), &ws));
    if (rc < 0) {
        res = fa__ws_raise();
        goto exit;
    }
    child = (WorkspaceObject *)Py_TYPE(op)->tp_alloc(Py_TYPE(op), 0);
    if (child == NULL) {
        fa_ws_close(ws);
        goto exit;
    }
    child->ws = ws;
    child->root = PyUnicode_DecodeFSDefault(fa_ws_root(ws));
    if (child->root == NULL) {
        Py_DECREF(child);
        goto exit;
    }
    res = (PyObject *)child;
exit:
    Py_DECREF(p);
    return res;
}

static PyObject *
ws_close(PyObject *op, PyObject *unused)
{
    WorkspaceObject *self = (WorkspaceObject *)op;

    if (self->ws != NULL && !self->closing) {
        self->closing = 1;
        if (self->busy == 0) {
            fa_ws_close(self->ws);
            self->ws = NULL;
        }
    }
    Py_RETURN_NONE;
}

static PyObject *
ws_enter_cm(PyObject *op, PyObject *unused)
{
    WorkspaceObject *self = (WorkspaceObject *)op;

    if (self->ws == NULL || self->closing) {
        PyErr_SetString(PyExc_ValueError, "operation on a closed workspace");
        return NULL;
    }
    return Py_NewRef(op);
}

static PyObject *
ws_exit_cm(PyObject *op, PyObject *const *args, Py_ssize_t nargs)
{
    return ws_close(op, NULL);
}

static PyObject *
ws_get_root(PyObject *op, void *closure)
{
    WorkspaceObject *self = (WorkspaceObject *)op;

    if (self->root == NULL) {
        PyErr_SetString(PyExc_ValueError, "Workspace is not initialised");
        return NULL;
    }
    return Py_NewRef(self->root);
}

static PyObject *
ws_get_closed(PyObject *op, void *closure)
{
    WorkspaceObject *self = (WorkspaceObject *)op;

    return PyBool_FromLong(self->ws == NULL || self->closing);
}

static PyObject *
ws_get_symlinks(PyObject *op, void *closure)
{
    WorkspaceObject *self = (WorkspaceObject *)op;

    if (fa__ws_enter(self) < 0) {
        return NULL;
    }
    fa__ws_leave(self);
    return PyUnicode_FromString(fa_symlinks_name(fa_ws_symlinks(self->ws)));
}

static PyObject *
ws_get_portable(PyObject *op, void *closure)
{
    WorkspaceObject *self = (WorkspaceObject *)op;

    if (fa__ws_enter(self) < 0) {
        return NULL;
    }
    fa__ws_leave(self);
    return PyBool_FromLong(fa_ws_flags(self->ws) & FA_WS_PORTABLE);
}

static PyObject *
ws_get_mounts(PyObject *op, void *closure)
{
    WorkspaceObject *self = (WorkspaceObject *)op;

    if (fa__ws_enter(self) < 0) {
        return NULL;
    }
    fa__ws_leave(self);
    return PyBool_FromLong(!(fa_ws_flags(self->ws) & FA_WS_NO_XDEV));
}

static PyObject *
ws_repr(PyObject *op)
{
    WorkspaceObject *self = (WorkspaceObject *)op;

    if (self->root == NULL) {
        return PyUnicode_FromFormat("<%s (uninitialised)>", Py_TYPE(op)->tp_name);
    }
    return PyUnicode_FromFormat("<%s %R%s>", Py_TYPE(op)->tp_name, self->root,
                                self->ws == NULL || self->closing ? " closed" : "");
}

#define FASTKW (METH_FASTCALL | METH_KEYWORDS)
#define FASTFN(f) ((PyCFunction)(void (*)(void))(f))

static PyMethodDef ws_methods[] = {
    {"open", FASTFN(ws_open), FASTKW,
     PyDoc_STR("open($self, /, path, mode='r', buffering=-1, encoding=None, errors=None,\n"
               "     newline=None)\n--\n\n"
               "Open path beneath the root, as the built-in open() does; returns an\n"
               "ordinary file object.")},
    {"mkdir", FASTFN(ws_mkdir), FASTKW,
     PyDoc_STR("mkdir($self, /, path, parents=False, exist_ok=False, mode=0o777)\n--\n\n"
               "Make the directory path (and its missing parents with parents=True).")},
    {"unlink", ws_unlink, METH_O,
     PyDoc_STR("unlink($self, path, /)\n--\n\nRemove the file (or link) path.")},
    {"rmdir", ws_rmdir, METH_O,
     PyDoc_STR("rmdir($self, path, /)\n--\n\nRemove the empty directory path.")},
    {"rename", FASTFN(ws_rename), FASTKW,
     PyDoc_STR("rename($self, /, src, dst, *, replace=True, exchange=False)\n--\n\n"
               "Rename src to dst, both beneath the root. replace=False refuses an\n"
               "existing dst; exchange=True swaps the two atomically.")},
    {"link", FASTFN(ws_link), FASTKW,
     PyDoc_STR("link($self, /, src, dst)\n--\n\nMake dst a hard link to src.")},
    {"symlink", FASTFN(ws_symlink), FASTKW,
     PyDoc_STR("symlink($self, /, target, path)\n--\n\n"
               "Make path a symlink to target, which must be relative and stay inside.")},
    {"listdir", FASTFN(ws_listdir), FASTKW,
     PyDoc_STR("listdir($self, /, path='.')\n--\n\n"
               "The names in the directory path (bytes for a bytes path), as\n"
               "os.listdir gives them.")},
    {"stat", FASTFN(ws_stat), FASTKW,
     PyDoc_STR("stat($self, /, path, follow_symlinks=True)\n--\n\n"
               "os.stat_result of path; follow_symlinks=False for a link itself.")},
    {"readlink", ws_readlink, METH_O,
     PyDoc_STR("readlink($self, path, /)\n--\n\n"
               "The target of the symlink path (bytes for a bytes path).")},
    {"atomic_write", FASTFN(ws_atomic_write), FASTKW,
     PyDoc_STR("atomic_write($self, /, path, data, mode=0o666)\n--\n\n"
               "Replace path's content with the bytes-like data atomically: a reader\n"
               "sees the old or the new content, never a torn file. Returns the\n"
               "count written.")},
    {"subworkspace", ws_subworkspace, METH_O,
     PyDoc_STR("subworkspace($self, path, /)\n--\n\n"
               "A workspace pinned on the directory path of this one.")},
    {"close", ws_close, METH_NOARGS,
     PyDoc_STR("close($self, /)\n--\n\nRelease the root's descriptor; later calls raise "
               "ValueError.")},
    {"__enter__", ws_enter_cm, METH_NOARGS,
     PyDoc_STR("__enter__($self, /)\n--\n\nThe workspace itself.")},
    {"__exit__", FASTFN(ws_exit_cm), METH_FASTCALL,
     PyDoc_STR("__exit__($self, exc_type, exc, tb, /)\n--\n\nclose() it.")},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef ws_getset[] = {
    {"root", ws_get_root, NULL, PyDoc_STR("The resolved root directory."), NULL},
    {"closed", ws_get_closed, NULL, PyDoc_STR("True once close() ran."), NULL},
    {"symlinks", ws_get_symlinks, NULL,
     PyDoc_STR("The symlink mode: 'beneath', 'nofollow' or 'trust'."), NULL},
    {"portable", ws_get_portable, NULL,
     PyDoc_STR("True when names other systems cannot hold are refused."), NULL},
    {"mounts", ws_get_mounts, NULL,
     PyDoc_STR("False when paths may not cross a mount point below the root."), NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot ws_slots[] = {
    {Py_tp_init, ws_init},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_dealloc, ws_dealloc},
    {Py_tp_traverse, ws_traverse},
    {Py_tp_methods, ws_methods},
    {Py_tp_getset, ws_getset},
    {Py_tp_repr, ws_repr},
    {Py_tp_doc, (void *)PyDoc_STR(
        "Workspace(root, deny=(), symlinks='beneath', portable=False, mounts=True)\n--\n\n"
        "Files beneath a directory pinned by a descriptor. Every path is\n"
        "relative to the root and resolved by the kernel beneath it.\n"
        "mounts=False refuses paths that cross a mount point below the root.")},
    {0, NULL},
};

static PyType_Spec ws_spec = {
    .name = "fastaudit.workspace.Workspace",
    .basicsize = sizeof(WorkspaceObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .slots = ws_slots,
};

int
fa__ws_init_type(PyObject *module)
{
    if (fa__ws_type == NULL) {
        fa__ws_type = (PyTypeObject *)PyType_FromSpec(&ws_spec);
        if (fa__ws_type == NULL) {
            return -1;
        }
    }
    return PyModule_AddObjectRef(module, "Workspace", (PyObject *)fa__ws_type);
}
