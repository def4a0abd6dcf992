/* SPDX-License-Identifier: Apache-2.0 */
/*
 * py_learn.c - mk_audit(policy=FILE) and mk_audit(learn=True).
 *
 * A policy file is read by the engine's one parser (src/policy_file.c),
 * the same fa-run --policy uses; its errors (FILE:LINE:COL) become
 * ValueError. A learning context refuses nothing the hook judges: each
 * refusal is handed to a fastaudit.core.Learner with what the engine knew
 * (the path it judged, the operation, the rule) and approved, so the shim
 * lets the same operation through. The roots the Learner suggests come
 * from the engine's rule (fa_suggest_roots(), src/places.c), the one
 * fa-run --learn and every denial's fix use.
 *
 * What the hook never sees (a C library's own open(), sqlite's VACUUM
 * INTO, a native thread, a program the context starts) reaches
 * libfashim.so alone: a learning context's policy is compiled in the
 * engine's learn mode, so the shim reports such a refusal as not enforced,
 * lets it through and appends it to the context's record (learn_record.h,
 * the record of fa-run --learn), whose descriptor the bridge hands over
 * with the context. The Learner reads what is new in it whenever the hook
 * runs, the context exits, or the records are read.
 */
#include "parts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "learn_record.h"

static PyObject *
policy_from_file(PyObject *file, PyObject *roots, int symlinks,
                 int outside_symlinks, int learn, const struct fa_py_denies *dn)
{
    struct fa_policy_file pf;
    char msg[PATH_MAX + 256];
    PyObject *b, *r, *none = NULL;
    fa_policy *p;
    int rc;

    if (!PyUnicode_FSConverter(file, &b)) {
        return NULL;
    }
    p = fa_policy_new();
    if (!p) {
        Py_DECREF(b);
        return PyErr_NoMemory();
    }
    if (learn) {
        fa_policy_set_learning(p);
    }
    rc = fa_policy_file_read(p, PyBytes_AS_STRING(b), &pf, msg, sizeof msg);
    Py_DECREF(b);
    if (rc < 0) {
        fa_policy_free(p);
        PyErr_Format(PyExc_ValueError, "mk_audit(policy=...): %s", msg);
        return NULL;
    }
    /*
     * As fa-run's --symlinks: the keyword and the file agree, or neither is
     * guessed at.
     */
    if (symlinks >= 0 && pf.symlinks_set && (int)pf.symlinks != symlinks) {
        PyErr_Format(PyExc_ValueError,
                     "mk_audit: symlinks='%s' contradicts 'symlinks %s' in "
                     "%s: give one",
                     fa_symlinks_name((enum fa_symlinks)symlinks),
                     fa_symlinks_name(pf.symlinks), pf.path);
        fa_policy_file_free(&pf);
        fa_policy_free(p);
        return NULL;
    }
    /*
     * Exec rules are fa-run's: a context refuses process starts unless the
     * host approves.
     */
    fa_policy_file_free(&pf);
    if (!roots) {
        roots = none = PyTuple_New(0);
        if (!roots) {
            fa_policy_free(p);
            return NULL;
        }
    }
    /*
     * The keyword adds to the file, as fa-run's option does; it never takes
     * away.
     */
    r = fa_policy_from_roots(roots, symlinks,
                             outside_symlinks || fa_policy_outside_symlinks(p),
                             p, dn);
    Py_XDECREF(none);
    return r;
}

PyObject *
fa_policy_for(PyObject *file, PyObject *roots, int symlinks,
              int outside_symlinks, int learn, const struct fa_py_denies *dn)
{
    fa_policy *base = NULL;

    if (file != Py_None) {
        return policy_from_file(file, roots, symlinks, outside_symlinks,
                                learn, dn);
    }
    /* roots=None restricts no path: there is nothing for the shim to learn. */
    if (learn && roots != Py_None) {
        base = fa_policy_new();
        if (!base) {
            return PyErr_NoMemory();
        }
        fa_policy_set_learning(base);
    }
    return fa_policy_from_roots(roots, symlinks, outside_symlinks, base, dn);
}

PyObject *
fa_learner_new(int *record)
{
    PyObject *learner = fa_core_part(fa_st.core_learner), *l;
    int fd;

    if (!learner) {
        return NULL;
    }
    fd = fa_learn_record_new();
    if (fd < 0) {
        Py_DECREF(learner);
        return PyErr_Format(PyExc_OSError, "mk_audit(learn=True): cannot make "
                            "the record of what libc calls would have been "
                            "refused: %s", strerror(errno));
    }
    /* the Learner owns the descriptor from here on */
    l = PyObject_CallFunction(learner, "Oik", Py_None, fd, (unsigned long)FA_LEARN_MAX);
    Py_DECREF(learner);
    if (!l) {
        close(fd);
        return NULL;
    }
    *record = fd;
    return l;
}

struct taken {
    PyObject *list;
};

static void
take_one(void *arg, const char *call, const char *op, const char *rule,
         const char *path)
{
    struct taken *t = arg;
    PyObject *r;

    if (!t->list) {
        return;
    }
    r = Py_BuildValue("(sssN)", call, op, rule,
                      PyUnicode_DecodeFSDefault(path));
    if (!r || PyList_Append(t->list, r) < 0) {
        Py_CLEAR(t->list);
    }
    Py_XDECREF(r);
}

/* _learn_read(fd, at): ([(call, op, rule, path)], at, lost) new since at */
PyObject *
fa_learn_read_py(PyObject *self, PyObject *args)
{
    struct taken t;
    struct stat st;
    Py_ssize_t at_in;
    size_t at;
    uint64_t lost = 0;
    char *buf;
    int fd;

    (void)self;
    if (!PyArg_ParseTuple(args, "in:_learn_read", &fd, &at_in)) {
        return NULL;
    }
    at = at_in > 0 ? (size_t)at_in : 0;
    t.list = PyList_New(0);
    if (!t.list) {
        return NULL;
    }
    if (fstat(fd, &st) < 0) {
        Py_DECREF(t.list);
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    if ((size_t)st.st_size >= FA_LEARN_HEADER) {
        buf = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE, fd, 0);
        if (buf == MAP_FAILED) {
            Py_DECREF(t.list);
            return PyErr_SetFromErrno(PyExc_OSError);
        }
        lost = fa_learn_record_read(buf, (size_t)st.st_size, &at, take_one,
                                    &t);
        munmap(buf, (size_t)st.st_size);
    }
    if (!t.list) {
        return NULL;
    }
    return Py_BuildValue("(NnK)", t.list, (Py_ssize_t)at,
                         (unsigned long long)lost);
}

/*
 * The shim's count of denials when a learner last looked, by any learner:
 * each learned call is one, so an unchanged count means nothing new.
 */
static unsigned long long native_looked;

int
fa_learn_native(PyObject *learner)
{
    unsigned long long n = fa_native_denial_count();
    PyObject *r;

    if (n == native_looked) {
        return 0;
    }
    /*
     * first, so that the audit events of the call below do not come back here
     */
    native_looked = n;
    r = PyObject_CallMethod(learner, "take_native", NULL);
    if (!r) {
        return -1;
    }
    Py_DECREF(r);
    return 0;
}

int
fa_learn_record(PyObject *learner, const char *event, PyObject *args,
                const struct fa_deny_detail *dd)
{
    PyObject *r;

    r = PyObject_CallMethod(learner, "record", "sOzzz", event, args,
                            dd ? dd->resolved : NULL, dd ? dd->op : NULL,
                            dd ? dd->rule : NULL);
    if (!r) {
        return -1;
    }
    Py_DECREF(r);
    return 0;
}

/* suggest_roots(paths, project=None): [(root, why_sensitive_or_None), ...] */
PyObject *
fa_suggest_roots_py(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "paths", "project", NULL };
    PyObject *paths, *project = Py_None, *seq = NULL, *projb = NULL,
        *out = NULL;
    PyObject **held = NULL;
    struct fa_suggested_root *sug = NULL;
    const char **dirs = NULL;
    char (*holders)[PATH_MAX] = NULL;
    Py_ssize_t i, n = 0;
    int k, nd = 0;

    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:suggest_roots", kwlist,
                                     &paths, &project))
    {
        return NULL;
    }
    if (project != Py_None && !PyUnicode_FSConverter(project, &projb)) {
        return NULL;
    }
    seq = PySequence_Fast(paths, "suggest_roots: paths must be a "
                          "collection of paths");
    if (!seq) {
        goto out;
    }
    n = PySequence_Fast_GET_SIZE(seq);
    dirs = calloc((size_t)n + 1, sizeof(*dirs));
    holders = calloc((size_t)n + 1, sizeof(*holders));
    sug = calloc((size_t)n + 1, sizeof(*sug));
    held = calloc((size_t)n + 1, sizeof(*held));
    if (!dirs || !holders || !sug || !held) {
        PyErr_NoMemory();
        goto out;
    }
    for (i = 0; i < n; i++) {
        PyObject *b;

        if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(seq, i), &b)) {
            goto out;
        }
        held[i] = b;
        if (PyBytes_AS_STRING(b)[0] != '/') {
            PyErr_Format(PyExc_ValueError,
                         "suggest_roots: %R is not an absolute path",
                         PySequence_Fast_GET_ITEM(seq, i));
            goto out;
        }
        /*
         * The directory a write to the path needs; only / holds it: / is
         * named.
         */
        if (!fa_place_holder(PyBytes_AS_STRING(b), holders[nd], PATH_MAX)) {
            strcpy(holders[nd], "/");
        }
        dirs[nd] = holders[nd];
        nd++;
    }
    k = fa_suggest_roots(dirs, nd, projb ? PyBytes_AS_STRING(projb) : NULL,
                         sug, nd);
    if (k < 0) {
        PyErr_SetString(PyExc_ValueError, "suggest_roots: bad paths");
        goto out;
    }
    out = PyList_New(k);
    for (i = 0; out && i < k; i++) {
        PyObject *t = Py_BuildValue("(Nz)",
                                    PyUnicode_DecodeFSDefault(sug[i].path),
                                    sug[i].sensitive);

        if (!t) {
            Py_CLEAR(out);
        } else {
            PyList_SET_ITEM(out, i, t);
        }
    }
out:
    if (held) {
        for (i = 0; i < n; i++) {
            Py_XDECREF(held[i]);
        }
    }
    free(held);
    free(dirs);
    free(holders);
    free(sug);
    Py_XDECREF(seq);
    Py_XDECREF(projb);
    return out;
}
