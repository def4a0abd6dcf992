/* SPDX-License-Identifier: Apache-2.0 */
/*
 * unaudited.c - CPython's writers that raise no audit event: os.mkfifo
 * and os.mknod make directory entries with none (CPython 3.10-3.14), so
 * the hook alone would never see them. When the hook is installed, both
 * are replaced in os and posix by functions that raise "os.mkfifo"
 * (path, mode, dir_fd) and "os.mknod" (path, mode, device, dir_fd), which
 * the events table judges as creations, then call the originals with the
 * arguments unchanged. The originals are kept here, not in Python: code in
 * a context that puts them back finds nothing to put back but these.
 *
 * Writes through an open descriptor (os.write, os.sendfile,
 * os.copy_file_range, os.posix_fallocate) need no event: the open was
 * judged. dbm's C back ends and os.chroot stay the shim's (README).
 */
#include "parts.h"

struct unaudited {
    const char *name;      /* in os and posix, and the event's name */
    const char *event;
    int nargs;             /* positional parameters before dir_fd */
    PyObject *real;        /* the original function */
};

static struct unaudited fns[] = {
    {"mkfifo", "os.mkfifo", 2, NULL},
    {"mknod", "os.mknod", 3, NULL},
};

/* The argument named name, positional at i, or NULL (borrowed). */
static PyObject *
arg(PyObject *const *args, Py_ssize_t n, PyObject *kwnames, Py_ssize_t i, const char *name)
{
    Py_ssize_t k, nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;

    if (i >= 0 && i < n) {
        return args[i];
    }
    for (k = 0; k < nk; k++) {
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), name) == 0) {
            return args[n + k];
        }
    }
    return NULL;
}

static PyObject *
audited(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    struct unaudited *u = &fns[PyLong_AsLong(self)];
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    PyObject *path = arg(args, n, kwnames, 0, "path");
    PyObject *mode = arg(args, n, kwnames, 1, "mode");
    PyObject *device = arg(args, n, kwnames, 2, "device");
    PyObject *dir_fd = arg(args, n, kwnames, -1, "dir_fd");
    int rc;

    /* A call the original refuses for its arguments is left to refuse them. */
    if (path) {
        if (u->nargs == 3) {
            rc = PySys_Audit(u->event, "OOOO", path, mode ? mode : Py_None,
                             device ? device : Py_None, dir_fd ? dir_fd : Py_None);
        } else {
            rc = PySys_Audit(u->event, "OOO", path, mode ? mode : Py_None,
                             dir_fd ? dir_fd : Py_None);
        }
        if (rc < 0) {
            return NULL;
        }
    }
    return PyObject_Vectorcall(u->real, args, nargsf, kwnames);
}

/* Named and documented as the originals, with their signatures. */
static PyMethodDef defs[] = {
    {"mkfifo", (PyCFunction)(void (*)(void))audited, METH_FASTCALL | METH_KEYWORDS,
     "mkfifo($module, /, path, mode=438, *, dir_fd=None)\n--\n\n"
     "Create a \"fifo\" (a POSIX named pipe): os.mkfifo, raising the audit\n"
     "event os.mkfifo (path, mode, dir_fd) first, which CPython's does not."},
    {"mknod", (PyCFunction)(void (*)(void))audited, METH_FASTCALL | METH_KEYWORDS,
     "mknod($module, /, path, mode=384, device=0, *, dir_fd=None)\n--\n\n"
     "Create a node in the file system: os.mknod, raising the audit event\n"
     "os.mknod (path, mode, device, dir_fd) first, which CPython's does not."},
};

/* Replace module.name by f where it is still the original. */
static int
replace_in(const char *module, const char *name, PyObject *real, PyObject *f)
{
    PyObject *m = PyImport_ImportModule(module), *cur;
    int rc = 0;

    if (!m) {
        return -1;
    }
    cur = PyObject_GetAttrString(m, name);
    if (!cur) {
        PyErr_Clear();    /* not on this platform */
    } else {
        if (cur == real) {
            rc = PyObject_SetAttrString(m, name, f);
        }
        Py_DECREF(cur);
    }
    Py_DECREF(m);
    return rc;
}

int
fa_unaudited_install(void)
{
    size_t i;

    for (i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        struct unaudited *u = &fns[i];
        PyObject *posix, *idx, *modname, *f;

        if (u->real) {
            continue;
        }
        posix = PyImport_ImportModule("posix");
        if (!posix) {
            return -1;
        }
        u->real = PyObject_GetAttrString(posix, u->name);
        Py_DECREF(posix);
        if (!u->real) {
            PyErr_Clear();
            continue;
        }
        idx = PyLong_FromSize_t(i);
        modname = PyUnicode_FromString("posix");
        f = idx && modname ? PyCFunction_NewEx(&defs[i], idx, modname) : NULL;
        Py_XDECREF(idx);
        Py_XDECREF(modname);
        if (!f) {
            Py_CLEAR(u->real);
            return -1;
        }
        if (replace_in("posix", u->name, u->real, f) < 0
            || replace_in("os", u->name, u->real, f) < 0)
        {
            Py_DECREF(f);
            return -1;
        }
        Py_DECREF(f);
    }
    return 0;
}
