/* SPDX-License-Identifier: Apache-2.0 */
/*
 * roots.c - mk_audit's roots compiled into the engine's fa_policy: the
 * Policy object a context judges with (py_policy.c) and a learning
 * context starts from (py_learn.c). Nothing here resolves or compares
 * paths: the engine does.
 */
#include "parts.h"

#include <errno.h>
#include <string.h>

static void
policy_dealloc(FaPolicyObject *self)
{
    if (self->policy) {
        fa_policy_free(self->policy);
    }
    Py_XDECREF(self->roots);
    Py_XDECREF(self->roots_repr);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject FaPolicy_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fastaudit._fastaudit.Policy",
    .tp_basicsize = sizeof(FaPolicyObject),
    .tp_dealloc = (destructor)policy_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A sealed set of write roots (engine policy).",
};

static int
add_root(fa_policy *p, PyObject *item)
{
    PyObject *b;
    const char *s;
    char msg[256] = "";
    int r;

    if (!PyUnicode_FSConverter(item, &b)) {
        return -1;
    }
    s = PyBytes_AS_STRING(b);
    if (!strcmp(s, ".")) {
        r = fa_policy_add_cwd_root(p);
    } else {
        r = fa_policy_add_root(p, s, msg, sizeof msg);
    }
    if (r < 0) {
        errno = -r;
        PyErr_Format(PyExc_ValueError, "mk_audit: root %R cannot be used: %s",
                     item, msg[0] ? msg : strerror(-r));
    }
    Py_DECREF(b);
    return r < 0 ? -1 : 0;
}

/*
 * One entry of deny= (read 0) or deny_read= (read 1): a pattern, or for
 * deny= an exact subtree when it has no wildcard.
 */
static int
add_deny(fa_policy *p, PyObject *item, int read)
{
    PyObject *b;
    const char *s;
    char msg[PATH_MAX + 128] = "";
    int r;

    if (PyUnicode_Check(item) || PyBytes_Check(item)
        || PyObject_HasAttrString(item, "__fspath__"))
    {
        if (!PyUnicode_FSConverter(item, &b)) {
            return -1;
        }
    } else {
        PyErr_Format(PyExc_TypeError, "mk_audit: %s entries must be paths or "
                     "patterns, not %.100s", read ? "deny_read" : "deny",
                     Py_TYPE(item)->tp_name);
        return -1;
    }
    s = PyBytes_AS_STRING(b);
    if (read) {
        r = fa_policy_add_deny_read(p, s, msg, sizeof msg);
    } else if (fa_glob_is_pattern(s)) {
        r = fa_policy_add_deny_glob(p, s, msg, sizeof msg);
    } else {
        r = fa_policy_add_deny(p, s, msg, sizeof msg);
    }
    if (r < 0) {
        PyErr_Format(PyExc_ValueError, "mk_audit: %s entry %R cannot be used: %s",
                     read ? "deny_read" : "deny", item,
                     msg[0] ? msg : strerror(-r));
    }
    Py_DECREF(b);
    return r < 0 ? -1 : 0;
}

/* Every entry of a deny= or deny_read= iterable (a lone path is refused). */
static int
add_denies(fa_policy *p, PyObject *list, int read)
{
    PyObject *it, *item;
    int r = 0;

    if (!list || list == Py_None) {
        return 0;
    }
    if (PyUnicode_Check(list) || PyBytes_Check(list)
        || PyObject_HasAttrString(list, "__fspath__"))
    {
        PyErr_Format(PyExc_TypeError, "mk_audit: %s must be a collection of "
                     "paths or patterns, not a single one",
                     read ? "deny_read" : "deny");
        return -1;
    }
    it = PyObject_GetIter(list);
    if (!it) {
        return -1;
    }
    while (r == 0 && (item = PyIter_Next(it))) {
        r = add_deny(p, item, read);
        Py_DECREF(item);
    }
    Py_DECREF(it);
    return r < 0 || PyErr_Occurred() ? -1 : 0;
}

PyObject *
fa_policy_from_roots(PyObject *roots, int symlinks, int outside_symlinks,
                     fa_policy *base, const struct fa_py_denies *dn)
{
    FaPolicyObject *self;
    PyObject *it, *item, *s;
    char msg[256] = "";
    int i, n, r;

    self = PyObject_New(FaPolicyObject, &FaPolicy_Type);
    if (!self) {
        fa_policy_free(base);
        return NULL;
    }
    self->policy = base; /* ours from here on, whatever happens */
    self->roots = NULL;
    self->roots_repr = NULL;
    if (roots == Py_None && base) {
        PyErr_SetString(PyExc_ValueError,
                        "mk_audit: roots=None (no restriction) contradicts a "
                        "policy file");
        goto fail;
    }
    if (roots == Py_None) {
        /*
         * Still a policy: the shim needs one to know a context is active
         * (process starts stay denied without path restrictions).
         */
        self->roots = Py_NewRef(Py_None);
        self->policy = fa_policy_new();
        if (!self->policy) {
            PyErr_NoMemory();
            goto fail;
        }
        fa_policy_set_unrestricted(self->policy);
        if (dn && (add_denies(self->policy, dn->deny, 0) < 0
                   || add_denies(self->policy, dn->deny_read, 1) < 0))
        {
            goto fail;
        }
        if (fa_policy_seal(self->policy, 0, msg, sizeof msg) < 0) {
            PyErr_Format(PyExc_ValueError, "mk_audit: %s", msg);
            goto fail;
        }
        goto done;
    }
    /* a lone path iterates as characters: refuse rather than guess */
    if (PyUnicode_Check(roots) || PyBytes_Check(roots)
        || PyObject_HasAttrString(roots, "__fspath__"))
    {
        PyErr_SetString(PyExc_TypeError,
                        "mk_audit: roots must be a collection of paths or "
                        "None, not a single path");
        goto fail;
    }
    if (!self->policy) {
        self->policy = fa_policy_new();
    }
    if (!self->policy) {
        PyErr_NoMemory();
        goto fail;
    }
    it = PyObject_GetIter(roots);
    if (!it) {
        goto fail;
    }
    while ((item = PyIter_Next(it))) {
        r = add_root(self->policy, item);
        Py_DECREF(item);
        if (r < 0) {
            Py_DECREF(it);
            goto fail;
        }
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) {
        goto fail;
    }
    if (symlinks >= 0) {
        fa_policy_set_symlinks(self->policy, (enum fa_symlinks)symlinks);
    }
    fa_policy_set_outside_symlinks(self->policy, outside_symlinks);
    if (dn && (add_denies(self->policy, dn->deny, 0) < 0
               || add_denies(self->policy, dn->deny_read, 1) < 0))
    {
        goto fail;
    }
    r = fa_policy_seal(self->policy, 0, msg, sizeof msg);
    if (r < 0) {
        PyErr_Format(PyExc_ValueError,
                     "mk_audit: the roots cannot be used: %s",
                     msg[0] ? msg : strerror(-r));
        goto fail;
    }
    n = fa_policy_nroots(self->policy);
    self->roots = PyTuple_New(n);
    if (!self->roots) {
        goto fail;
    }
    for (i = 0; i < n; i++) {
        s = PyUnicode_DecodeFSDefault(fa_policy_root(self->policy, i));
        if (!s) {
            goto fail;
        }
        PyTuple_SET_ITEM(self->roots, i, s);
    }
done:
    /* the roots never change: every path denial quotes the same text */
    self->roots_repr = PyObject_Repr(self->roots);
    if (!self->roots_repr) {
        goto fail;
    }
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}
