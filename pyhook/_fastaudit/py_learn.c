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
 * INTO) reaches libfashim.so alone: a learning context's policy is compiled
 * in the engine's learn mode, so the shim reports such a refusal as not
 * enforced and lets it through, and the Learner takes the shim's records
 * (the native denials the bridge reads back) whenever the hook runs, the
 * context exits, or the records are read.
 */
#include "parts.h"

#include <stdlib.h>
#include <string.h>

static PyObject *
policy_from_file(PyObject *file, PyObject *roots, int symlinks,
                 int outside_symlinks, int learn)
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
                             p);
    Py_XDECREF(none);
    return r;
}

PyObject *
fa_policy_for(PyObject *file, PyObject *roots, int symlinks,
              int outside_symlinks, int learn)
{
    fa_policy *base = NULL;

    if (file != Py_None) {
        return policy_from_file(file, roots, symlinks, outside_symlinks,
                                learn);
    }
    /* roots=None restricts no path: there is nothing for the shim to learn. */
    if (learn && roots != Py_None) {
        base = fa_policy_new();
        if (!base) {
            return PyErr_NoMemory();
        }
        fa_policy_set_learning(base);
    }
    return fa_policy_from_roots(roots, symlinks, outside_symlinks, base);
}

PyObject *
fa_learner_new(void)
{
    PyObject *core = PyImport_ImportModule("fastaudit.core"), *l;

    if (!core) {
        return NULL;
    }
    /* The shim's earlier denials are not this context's. */
    l = PyObject_CallMethod(core, "Learner", "OK", Py_None,
                            fa_native_denial_count());
    Py_DECREF(core);
    return l;
}

/* The shim's count of denials when a learner last looked, by any learner. */
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
