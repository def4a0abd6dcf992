/* SPDX-License-Identifier: Apache-2.0 */
/*
 * py_policy.c - path events judged by a context's policy (whose roots
 * roots.c compiled into the engine's fa_policy).
 *
 * The engine is the only place path rules live: nothing here resolves or
 * compares paths. What this file knows is how each event spells its
 * paths and descriptors, and which operation class each one is.
 */
#include "parts.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

/* One path argument, read the way the event spells it. */
struct fa_arg {
    PyObject *obj;          /* the argument as raised (for messages) */
    PyObject *bytes;        /* owned fs-encoded form, or NULL */
    const char *path;
    int dirfd;
    char fdpath[PATH_MAX];
};

static int
arg_dirfd(PyObject *args, int idx)
{
    PyObject *v;
    long fd;

    if (idx < 0 || idx >= PyTuple_GET_SIZE(args)) {
        return AT_FDCWD;
    }
    v = PyTuple_GET_ITEM(args, idx);
    if (!PyLong_Check(v)) {
        return AT_FDCWD;
    }
    fd = PyLong_AsLong(v);
    if (fd < 0) {
        PyErr_Clear();
        return AT_FDCWD;
    }
    return (int)fd;
}

static int
ascii_str(PyObject *o)
{
#if PY_VERSION_HEX < 0x030C0000
    /* a legacy string not yet in its canonical form: leave it to the converter */
    if (!PyUnicode_IS_READY(o)) {
        return 0;
    }
#endif
    return PyUnicode_IS_ASCII(o);
}

/*
 * Returns 1 with a->path set, 0 if the argument is not a path at all.
 * An int names an open descriptor (fchmod, fchown, fchdir, fsetxattr):
 * it is judged by the path it names now, read from /proc/self/fd.
 */
static int
arg_read(struct fa_arg *a, PyObject *obj, int dirfd)
{
    char link[64];
    ssize_t len;
    long fd;

    a->obj = obj;
    a->bytes = NULL;
    a->dirfd = dirfd;
    if (PyLong_Check(obj)) {
        fd = PyLong_AsLong(obj);
        if (fd < 0 || fd > INT_MAX) {
            PyErr_Clear();
            return 0;
        }
        snprintf(link, sizeof link, "/proc/self/fd/%ld", fd);
        len = readlink(link, a->fdpath, sizeof a->fdpath - 1);
        if (len <= 0) {
            return 0;
        }
        a->fdpath[len] = 0;
        a->path = a->fdpath;
        a->dirfd = AT_FDCWD;
        return 1;
    }
    /*
     * An ASCII str is its own file-system encoding (every one CPython uses
     * on POSIX is a superset of ASCII): judged in place, no bytes object
     * made on every event. Embedded NULs take the converter's refusal.
     */
    if (PyUnicode_CheckExact(obj) && ascii_str(obj)
        && strlen((const char *)PyUnicode_DATA(obj))
           == (size_t)PyUnicode_GET_LENGTH(obj))
    {
        a->path = (const char *)PyUnicode_DATA(obj);
        return 1;
    }
    if (!PyUnicode_FSConverter(obj, &a->bytes)) {
        PyErr_Clear();
        return 0;
    }
    a->path = PyBytes_AS_STRING(a->bytes);
    return 1;
}

static void
arg_done(struct fa_arg *a)
{
    Py_CLEAR(a->bytes);
}

/*
 * A directory entry change (remove, rename) aimed at a root itself: its
 * parent is outside, so "not in roots" would read as nonsense.
 */
static int
is_root_itself(FaEntryObject *e, struct fa_arg *a, enum fa_op op)
{
    struct fa_decision d;

    if (op != FA_OP_REMOVE && op != FA_OP_RENAME) {
        return 0;
    }
    return fa_check(e->cfg->pol->policy, FA_OP_DIR, a->dirfd, a->path,
                    &d) == FA_ALLOW;
}

/* The seed's message; "is a root itself" where that is the reason. */
static PyObject *
path_message(const char *event, FaEntryObject *e, struct fa_arg *a, int root)
{
    struct fa_text t;

    fa_text_init(&t);
    fa_text_c(&t, event);
    fa_text_lit(&t, " ");
    fa_text_repr(&t, a->obj);
    if (root) {
        fa_text_lit(&t, " is an allowed root itself, not a path inside ");
    } else {
        fa_text_lit(&t, " not in ");
    }
    fa_text_u(&t, e->cfg->pol->roots_repr);
    return fa_text_done(&t);
}

/* "open '.env' is protected by the deny pattern '**' then '/.env'" */
static PyObject *
pattern_message(const char *event, FaEntryObject *e, struct fa_arg *a,
                const struct fa_decision *d)
{
    const fa_policy *p = e->cfg->pol->policy;
    int read = d->why == FA_WHY_DENY_READ,
        g = fa_policy_glob_for(p, d->path, read, 1);
    struct fa_text t;

    fa_text_init(&t);
    fa_text_c(&t, event);
    fa_text_lit(&t, " ");
    fa_text_repr(&t, a->obj);
    if (read) {
        fa_text_lit(&t, " is kept from reading by the pattern ");
    } else {
        fa_text_lit(&t, " is protected by the deny pattern ");
    }
    fa_text_lit(&t, "'");
    fa_text_c(&t, g >= 0 ? fa_policy_glob(p, g, NULL) : "?");
    fa_text_lit(&t, "'");
    return fa_text_done(&t);
}

/*
 * "fastaudit: write judged at /p: not under any allowed root (outside-roots)"
 */
static PyObject *
path_note(struct fa_arg *a, const struct fa_decision *d, enum fa_op op,
          int root, int by_cwd)
{
    struct fa_text t;

    fa_text_init(&t);
    fa_text_lit(&t, "fastaudit: ");
    fa_text_c(&t, fa_op_name(op));
    fa_text_lit(&t, " judged at ");
    fa_text_c(&t, d->path[0] ? d->path : a->path);
    fa_text_lit(&t, ": ");
    if (root) {
        fa_text_lit(&t, "a root can be written into, not removed or renamed");
    } else if (d->why == FA_WHY_ERROR && d->err > 0) {
        fa_text_c(&t, fa_why_error_text(d->err));
    } else {
        fa_text_c(&t, fa_why_text(d->why));
    }
    fa_text_lit(&t, " (");
    fa_text_c(&t, fa_why_name(d->why));
    fa_text_lit(&t, ")");
    if (d->err && d->why != FA_WHY_ERROR) {
        fa_text_lit(&t, ": ");
        fa_text_c(&t, strerror(d->err));
    }
    if (by_cwd) {
        fa_text_lit(&t,
                    "; judged against the current directory: os.open()'s "
                    "audit event carries no dir_fd (load libfashim.so to "
                    "have the real openat judged)");
    }
    return fa_text_done(&t);
}

/*
 * Set while fa_approve_event() runs the judgement: an operation the host
 * allows regardless (a trusted import) is passed to the shim as an
 * approval exactly where the hook would have refused it, so the shim
 * honours it and nothing is approved that needs no approval.
 */
static int approving;

/*
 * key: the path the shim files the operation under, for an approval (the
 * source of a rename or link, whichever side the hook refused).
 */
static int
deny_path(const char *event, PyObject *args, FaEntryObject *e,
          struct fa_arg *a,
          const struct fa_decision *d, enum fa_op op, const char *key)
{
    int root, rc;
    PyObject *msg;
    struct fa_deny_detail dd;

    if (approving) {
        fa_bridge_approve(op, key);
        return 0;
    }
    root = d->why == FA_WHY_OUTSIDE && is_root_itself(e, a, op);
    msg = d->why == FA_WHY_DENY_PATTERN || d->why == FA_WHY_DENY_READ
          ? pattern_message(event, e, a, d)
          : path_message(event, e, a, root);
    if (!msg) {
        return -1;
    }
    dd.path = a->obj;
    dd.resolved = d->path[0] ? d->path : a->path;
    dd.rule = root ? "root-itself" : fa_why_name(d->why);
    dd.op = fa_op_name(op);
    dd.roots = e->cfg->pol->roots;
    dd.policy = e->cfg->pol->policy;
    dd.held = d->found >= 0;
    /*
     * os.open() of a relative path without the shim: its dir_fd, if any, is
     * unknown
     */
    dd.note = path_note(a, d, op, root,
                        !strcmp(event, "open") && PyTuple_GET_SIZE(args) > 1
                        && PyTuple_GET_ITEM(args, 1) == Py_None
                        && a->path[0] != '/');
    if (!dd.note) {
        Py_DECREF(msg);
        return -1;
    }
    rc = fa_deny(e, event, args, msg, &dd);
    Py_DECREF(msg);
    Py_DECREF(dd.note);
    /* the host allowed it: the shim must not refuse the same operation */
    if (rc == 0) {
        fa_bridge_approve(op, key);
    }
    return rc;
}

static int
judge_one(const char *event, PyObject *args, FaEntryObject *e,
          struct fa_arg *a, enum fa_op op, int dir_fallback)
{
    const fa_policy *p = e->cfg->pol->policy;
    struct fa_decision d;
    struct stat st;
    int isdir;

    if (fa_check_verdict(p, op, a->dirfd, a->path, &d) == FA_ALLOW
        && !(dir_fallback && fa_policy_ndeny(p)))
    {
        return 0;
    }
    /*
     * NamedTemporaryFile and TemporaryFile raise open with the directory
     * they create in (an opener, or O_TMPFILE): that directory is what is
     * written into, so it is what gets judged.
     */
    if (dir_fallback) {
        /* nothing at the path the judge resolved: no directory either */
        isdir = d.found != 0 && fstatat(a->dirfd, a->path, &st, 0) == 0
                && S_ISDIR(st.st_mode);
        if (isdir
            && fa_check(p, FA_OP_DIR, a->dirfd, a->path, &d) == FA_ALLOW)
        {
            return 0;
        }
        if (isdir) {
            op = FA_OP_DIR;
        } else if (d.verdict == FA_ALLOW) {
            return 0;
        }
    }
    return deny_path(event, args, e, a, &d, op, a->path);
}

static int
judge_two(const char *event, PyObject *args, FaEntryObject *e,
          struct fa_arg *a, struct fa_arg *b, enum fa_op op)
{
    const fa_policy *p = e->cfg->pol->policy;
    struct fa_decision d1, d2;

    fa_check2(p, op, a->dirfd, a->path, b->dirfd, b->path, &d1, &d2);
    if (d1.verdict != FA_ALLOW
        && deny_path(event, args, e, a, &d1, op, a->path) < 0)
    {
        return -1;
    }
    if (d2.verdict != FA_ALLOW
        && deny_path(event, args, e, b, &d2, op, a->path) < 0)
    {
        return -1;
    }
    return 0;
}

static int
not_a_path(const char *event, PyObject *args, FaEntryObject *e, PyObject *obj)
{
    struct fa_deny_detail dd = {obj, NULL, "not-a-path", NULL,
                                e->cfg->pol->roots, NULL,
                      e->cfg->pol->policy, 0};
    PyObject *msg;
    int rc;

    if (approving) {
        return 0;
    }
    msg = PyUnicode_FromFormat("%s %R not in %U", event, obj,
                               e->cfg->pol->roots_repr);
    if (!msg) {
        return -1;
    }
    dd.note = PyUnicode_FromString("fastaudit: the argument is not a path "
                                   "(not-a-path)");
    rc = dd.note ? fa_deny(e, event, args, msg, &dd) : -1;
    Py_XDECREF(dd.note);
    Py_DECREF(msg);
    return rc;
}

static int
open_writes(PyObject *args)
{
    PyObject *mode = PyTuple_GET_ITEM(args, 1),
        *fl = PyTuple_GET_ITEM(args, 2);
    const char *m;
    long flags = PyLong_Check(fl) ? PyLong_AsLong(fl) : 0;

    if (PyUnicode_Check(mode)) {
        m = PyUnicode_AsUTF8(mode);
        return !m || strpbrk(m, "wax+") != NULL;
    }
    return (flags & WRITE_FLAGS) != 0;
}

static int
is_memory_db(PyObject *obj)
{
    const char *s;

    /* 3.10 passes the name as bytes, later versions as given */
    if (PyBytes_Check(obj)) {
        s = PyBytes_AS_STRING(obj);
    } else if (PyUnicode_Check(obj)) {
        s = PyUnicode_AsUTF8(obj);
    } else {
        return 0;
    }
    return s && (!strcmp(s, ":memory:") || !*s);
}

static int
hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* 1 if the query string q (after '?') has name=value among its pairs. */
static int
query_has(const char *q, const char *name, const char *value)
{
    size_t nl = strlen(name), vl = strlen(value);

    while (q && *q && *q != '#') {
        if (!strncmp(q, name, nl) && q[nl] == '='
            && !strncmp(q + nl + 1, value, vl)
            && (q[nl + 1 + vl] == '&' || q[nl + 1 + vl] == '#' || !q[nl + 1 + vl]))
        {
            return 1;
        }
        q = strchr(q, '&');
        q = q ? q + 1 : NULL;
    }
    return 0;
}

/*
 * sqlite3.connect(database, uri=True) opens the file a "file:" URI names,
 * and the event does not say whether uri was given: a name that starts
 * with "file:" is judged by the file its URI names (a literal file named
 * so lies in the same directory as its URI's relative path, or the
 * judgement is the stricter one). 1: a->path is that file; 0: nothing is
 * written to a named file (in memory, read-only, a temporary database);
 * -1: no URI sqlite would accept (an authority other than localhost, a
 * bad escape).
 */
static int
sqlite_uri(struct fa_arg *a)
{
    const char *s = a->path + 5, *q;
    size_t o = 0;
    int hi, lo;

    if (s[0] == '/' && s[1] == '/') {
        const char *end = strchr(s + 2, '/');
        size_t alen = end ? (size_t)(end - (s + 2)) : strlen(s + 2);

        if (alen && !(alen == 9 && !strncmp(s + 2, "localhost", 9))) {
            return -1;
        }
        s += 2 + alen;
    }
    q = strpbrk(s, "?#");
    if (q && *q == '?'
        && (query_has(q + 1, "mode", "ro") || query_has(q + 1, "mode", "memory")
            || query_has(q + 1, "immutable", "1") || query_has(q + 1, "vfs", "memdb")))
    {
        return 0;
    }
    for (; *s && *s != '?' && *s != '#'; s++) {
        if (o + 1 >= sizeof a->fdpath) {
            return -1;
        }
        if (*s == '%') {
            if ((hi = hexval(s[1])) < 0 || (lo = hexval(s[2])) < 0 || !(hi | lo)) {
                return -1;
            }
            a->fdpath[o++] = (char)(hi << 4 | lo);
            s += 2;
        } else {
            a->fdpath[o++] = *s;
        }
    }
    a->fdpath[o] = 0;
    if (!o || !strcmp(a->fdpath, ":memory:")) {
        return 0;
    }
    a->path = a->fdpath;
    return 1;
}

/*
 * A read-open under read patterns: the file the path resolves to, by its
 * real name. A directory (listing) and what is not a path pass; the shim,
 * when loaded, judges the real call again, dir_fd included.
 */
static int
judge_read(const char *event, PyObject *args, FaEntryObject *e)
{
    struct fa_decision d;
    struct fa_arg a;
    PyObject *fl = PyTuple_GET_ITEM(args, 2);
    long flags = PyLong_Check(fl) ? PyLong_AsLong(fl) : 0;
    int rc = 0;

    a.bytes = NULL;
    if (!arg_read(&a, PyTuple_GET_ITEM(args, 0), AT_FDCWD)) {
        return 0;
    }
    if (PyTuple_GET_ITEM(args, 1) == Py_None && a.path[0] != '/'
        && fa_native_on())
    {
        arg_done(&a);
        return 0;     /* os.open() relative: the shim sees its dir_fd */
    }
    if (fa_check_read(e->cfg->pol->policy, AT_FDCWD, a.path, (int)flags, &d)
        != FA_ALLOW)
    {
        rc = deny_path(event, args, e, &a, &d, FA_OP_READ, a.path);
    }
    arg_done(&a);
    return rc;
}

int
fa_judge_event(PyObject *entry, const struct fa_evinfo *ev, PyObject *args)
{
    FaEntryObject *e = (FaEntryObject *)entry;
    const char *event = ev->name;
    /* Not "= {0}": that would clear both PATH_MAX buffers on every event. */
    struct fa_arg a, b;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    PyObject *o1, *o2;
    long flags;
    int rc = 0;

    a.obj = b.obj = NULL;
    a.bytes = b.bytes = NULL;
    a.path = b.path = NULL;
    a.dirfd = b.dirfd = AT_FDCWD;

    if (ev->cls == FA_EV_OPEN && n >= 3
        && !PyLong_Check(PyTuple_GET_ITEM(args, 0)) && !open_writes(args))
    {
        return fa_policy_read_globs(e->cfg->pol->policy)
               ? judge_read(event, args, e) : 0;
    }
    if (fa_policy_unrestricted(e->cfg->pol->policy)) {
        return 0;
    }
    switch (ev->cls) {
    case FA_EV_OPEN:
        if (n < 3 || PyLong_Check(PyTuple_GET_ITEM(args, 0))) {
            return 0;      /* open(fd): the descriptor's own open was judged */
        }
        if (!open_writes(args)) {
            return 0;
        }
        flags = PyLong_Check(PyTuple_GET_ITEM(args, 2))
            ? PyLong_AsLong(PyTuple_GET_ITEM(args, 2)) : 0;
        /*
         * os.open(path, flags, dir_fd=fd) raises open without its dir_fd
         * (python/cpython#116429): the hook can only judge the path against
         * the current directory. With the shim loaded, the shim sees the
         * real openat() and decides such calls exactly.
         */
        if (!arg_read(&a, PyTuple_GET_ITEM(args, 0), AT_FDCWD)) {
            return not_a_path(event, args, e, PyTuple_GET_ITEM(args, 0));
        }
        if (PyTuple_GET_ITEM(args, 1) == Py_None && a.path[0] != '/'
            && fa_native_on())
        {
            arg_done(&a);
            /* os.open() of a relative path: the shim sees its dir_fd */
            return 0;
        }
        if ((flags & O_TMPFILE) == O_TMPFILE) {
            rc = judge_one(event, args, e, &a, FA_OP_DIR, 0);
        } else {
            rc = judge_one(event, args, e, &a, FA_OP_WRITE, 1);
        }
        break;
    case FA_EV_TRUNCATE:
        if (n < 1 || PyLong_Check(PyTuple_GET_ITEM(args, 0))) {
            /* ftruncate: the descriptor was judged when opened */
            return 0;
        }
        /* fall through */
    case FA_EV_FIRST:
    case FA_EV_CHDIR:
        if (n < 1) {
            return 0;
        }
        o1 = PyTuple_GET_ITEM(args, 0);
        if (!strcmp(event, "sqlite3.connect") && is_memory_db(o1)) {
            return 0;
        }
        if (!arg_read(&a, o1, arg_dirfd(args, ev->dirfd_arg))) {
            return not_a_path(event, args, e, o1);
        }
        if (!strcmp(event, "sqlite3.connect") && !strncmp(a.path, "file:", 5)) {
            int u = sqlite_uri(&a);

            if (u <= 0) {
                arg_done(&a);
                return u == 0 ? 0 : not_a_path(event, args, e, o1);
            }
        }
        rc = judge_one(event, args, e, &a, ev->op, 0);
        break;
    case FA_EV_DST:
        if (n < 2) {
            return 0;
        }
        o2 = PyTuple_GET_ITEM(args, 1);
        if (o2 == Py_None && ev->op == FA_OP_DIR) {
            a.obj = o2;
            a.path = ".";
            a.dirfd = AT_FDCWD;
        } else if (!arg_read(&a, o2, AT_FDCWD)) {
            return not_a_path(event, args, e, o2);
        }
        rc = judge_one(event, args, e, &a, ev->op, 0);
        break;
    case FA_EV_BOTH:
        if (n < 2) {
            return 0;
        }
        o1 = PyTuple_GET_ITEM(args, 0);
        o2 = PyTuple_GET_ITEM(args, 1);
        if (ev->op == FA_OP_SYMLINK) {
            /* the new link is the path; its target text is the second */
            if (!arg_read(&a, o2, arg_dirfd(args, ev->dirfd_arg))) {
                return not_a_path(event, args, e, o2);
            }
            if (!arg_read(&b, o1, a.dirfd)) {
                arg_done(&a);
                return not_a_path(event, args, e, o1);
            }
        } else {
            if (!arg_read(&a, o1, arg_dirfd(args, ev->dirfd_arg))) {
                return not_a_path(event, args, e, o1);
            }
            if (!arg_read(&b, o2, arg_dirfd(args, ev->dirfd2_arg))) {
                arg_done(&a);
                return not_a_path(event, args, e, o2);
            }
        }
        rc = judge_two(event, args, e, &a, &b, ev->op);
        break;
    default:
        return 0;
    }
    arg_done(&a);
    arg_done(&b);
    return rc;
}

/*
 * A host allowance for an event (trusted import): approve at the shim what the
 * hook would refuse.
 */
void
fa_approve_event(PyObject *entry, const struct fa_evinfo *ev, PyObject *args)
{
    if (!fa_native_on()) {
        return;
    }
    approving = 1;
    if (fa_judge_event(entry, ev, args) < 0) {
        PyErr_Clear();
    }
    approving = 0;
}
