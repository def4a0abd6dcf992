/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hook.c - the process-wide C audit hook and the data it judges with.
 *
 * CPython offers no way to remove an audit hook, and C hooks are called for
 * every interpreter, so everything here lives for the life of the process
 * and is reachable only from C. Every event in the process pays for the
 * first test in audit_hook(): while no context entry is alive anywhere, the
 * hook returns before touching the ContextVar.
 */
#include "parts.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static PyObject *str_name, *str_self, *str_spec, *str_dict, *str_init;

/* ---- installed code, trusted while it initialises ---------------------- */

/*
 * mk_audit(preset='data') trusts the modules of the standard library and
 * of installed distributions while they initialise, as allow_imports does
 * for the packages it names: a module whose file lies beneath the
 * interpreter's library or site directories (and the directories their
 * .pth files add, as site does), was not written since the
 * process started (its mtime and ctime are older, by a second's margin),
 * and is not beneath one of the context's roots. built-in and frozen
 * modules are the interpreter's own.
 */
static PyObject *trusted_dirs;    /* tuple of resolved directories (bytes) */
static PyObject *stdlib_dirs;     /* those of the standard library alone */
static PyObject *trusted_files;   /* origin -> resolved path (bytes) or False */
static PyObject *str_origin;
static double proc_start;

static double
process_start(void)
{
    char buf[1024], *p;
    FILE *f;
    unsigned long long ticks = 0, btime = 0;
    ssize_t n;
    int fd, i;

    fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0) {
        close(fd);
    }
    if (n <= 0) {
        return 0;
    }
    buf[n] = 0;
    /* the command name may hold anything: fields count from its ')' */
    p = strrchr(buf, ')');
    for (i = 0; p && i < 20; i++) {
        p = strchr(p + 1, ' ');
    }
    if (!p || sscanf(p + 1, "%llu", &ticks) != 1) {
        return 0;
    }
    f = fopen("/proc/stat", "re");
    while (f && fgets(buf, sizeof buf, f)) {
        if (sscanf(buf, "btime %llu", &btime) == 1) {
            break;
        }
    }
    if (f) {
        fclose(f);
    }
    if (!btime) {
        return 0;
    }
    return (double)btime + (double)ticks / (double)sysconf(_SC_CLK_TCK);
}

int
fa_trust_init(void)
{
    PyObject *g, *r;

    if (trusted_dirs) {
        return 0;
    }
    str_origin = PyUnicode_InternFromString("origin");
    trusted_files = PyDict_New();
    g = PyDict_New();
    if (!str_origin || !trusted_files || !g) {
        Py_XDECREF(g);
        return -1;
    }
    r = PyRun_String(
        "import os, site, sysconfig\n"
        "p = sysconfig.get_paths()\n"
        "d = [p.get(k) for k in ('stdlib', 'platstdlib', 'purelib', "
        "'platlib')]\n"
        "try:\n"
        "    d += site.getsitepackages() + [site.getusersitepackages()]\n"
        "except Exception:\n"
        "    pass\n"
        "for sp in [x for x in d[2:] if x and os.path.isdir(x)]:\n"
        "    for n in sorted(os.listdir(sp)):\n"
        "        if not n.endswith('.pth'):\n"
        "            continue\n"
        "        try:\n"
        "            f = open(os.path.join(sp, n), encoding='utf-8')\n"
        "        except OSError:\n"
        "            continue\n"
        "        with f:\n"
        "            for line in f:\n"
        "                line = line.rstrip()\n"
        "                if line and not line.startswith(('#', 'import ', "
        "'import\\t')):\n"
        "                    x = os.path.join(sp, line)\n"
        "                    if os.path.isdir(x):\n"
        "                        d.append(x)\n"
        "dirs = tuple(sorted({os.fsencode(os.path.realpath(x)) for x in d "
        "if x}))\n"
        "import sys\n"
        "b = sysconfig.get_paths(vars={'base': sys.base_prefix, "
        "'platbase': sys.base_exec_prefix, 'installed_base': sys.base_prefix, "
        "'installed_platbase': sys.base_exec_prefix})\n"
        "std = tuple(sorted({os.fsencode(os.path.realpath(b[k])) for k in "
        "('stdlib', 'platstdlib') if b.get(k)}))\n", Py_file_input, g, g);
    Py_XDECREF(r);
    if (r) {
        trusted_dirs = PyDict_GetItemString(g, "dirs");
        stdlib_dirs = PyDict_GetItemString(g, "std");
        Py_XINCREF(trusted_dirs);
        Py_XINCREF(stdlib_dirs);
    }
    Py_DECREF(g);
    if (!trusted_dirs || !stdlib_dirs) {
        Py_CLEAR(trusted_dirs);
        return -1;
    }
    proc_start = process_start();
    if (!proc_start) {
        /* no /proc: what exists now counts as installed */
        proc_start = (double)time(NULL);
    }
    return 0;
}

static int
under(const char *path, const char *dir, Py_ssize_t n)
{
    return !strncmp(path, dir, (size_t)n)
        && (path[n] == '/' || path[n] == 0 || (n == 1 && dir[0] == '/'));
}

/* origin's resolved path when installed code lies there, or NULL */
static const char *
installed_file(PyObject *origin)
{
    PyObject *v = PyDict_GetItemWithError(trusted_files, origin), *b = NULL;
    char real[PATH_MAX];
    struct stat st;
    const char *res = NULL;
    Py_ssize_t i, n;

    if (v) {
        return PyBytes_Check(v) ? PyBytes_AS_STRING(v) : NULL;
    }
    if (PyErr_Occurred() || !PyUnicode_FSConverter(origin, &b)) {
        PyErr_Clear();
        return NULL;
    }
    if (realpath(PyBytes_AS_STRING(b), real) && stat(real, &st) == 0
        && (double)st.st_mtime < proc_start - 1
        && (double)st.st_ctime < proc_start - 1)
    {
        for (i = 0; i < PyTuple_GET_SIZE(trusted_dirs) && !res; i++) {
            PyObject *d = PyTuple_GET_ITEM(trusted_dirs, i);

            n = PyBytes_GET_SIZE(d);
            if (under(real, PyBytes_AS_STRING(d), n)) {
                res = real;
            }
        }
    }
    Py_DECREF(b);
    v = res ? PyBytes_FromString(res) : Py_NewRef(Py_False);
    if (!v || PyDict_SetItem(trusted_files, origin, v) < 0) {
        PyErr_Clear();
        Py_XDECREF(v);
        return NULL;
    }
    Py_DECREF(v);
    return res ? PyBytes_AS_STRING(v) : NULL;
}

/*
 * 1 if path (resolved) is the standard library's: beneath its directory,
 * and not in the site-packages (or Debian's dist-packages) that an
 * interpreter's own prefix holds there.
 */
static int
stdlib_file(const char *path)
{
    Py_ssize_t i, n;

    for (i = 0; i < PyTuple_GET_SIZE(stdlib_dirs); i++) {
        PyObject *d = PyTuple_GET_ITEM(stdlib_dirs, i);

        n = PyBytes_GET_SIZE(d);
        if (under(path, PyBytes_AS_STRING(d), n) && path[n] == '/'
            && strncmp(path + n + 1, "site-packages/", 14)
            && strncmp(path + n + 1, "dist-packages/", 14))
        {
            return 1;
        }
    }
    return 0;
}

/*
 * The module whose spec dict this is: code the context trusts at this
 * level (FA_TRUST_*) that the policy cannot write.
 */
static int
spec_trusted(PyObject *specdict, const fa_policy *pol, int level)
{
    PyObject *origin = PyDict_GetItemWithError(specdict, str_origin);
    const char *path;
    struct fa_decision d;

    if (!origin || !PyUnicode_Check(origin)) {
        PyErr_Clear();
        return 0;
    }
    if (!PyUnicode_CompareWithASCIIString(origin, "built-in")
        || !PyUnicode_CompareWithASCIIString(origin, "frozen"))
    {
        return 1;
    }
    path = installed_file(origin);
    if (path && level < FA_TRUST_INSTALLED && !stdlib_file(path)) {
        path = NULL;
    }
    return path && (fa_policy_unrestricted(pol)
                    || fa_check(pol, FA_OP_WRITE, AT_FDCWD, path, &d)
                       != FA_ALLOW);
}

/* The spec's __dict__, a new reference, or NULL (no exception). */
static PyObject *
spec_dict(PyObject *spec)
{
    PyObject *d;

    if (!spec || spec == Py_None) {
        return NULL;
    }
    /* generic lookup: a spec class's own __getattr__ must not run here */
    d = PyObject_GenericGetAttr(spec, str_dict);
    if (d && !PyDict_Check(d)) {
        Py_CLEAR(d);
    }
    PyErr_Clear();
    return d;
}

/*
 * Some module is initialising on this stack: the body of a module being
 * imported is always there while any of its code runs. Looks at code
 * names first, globals only for module bodies: what every event of a
 * context pays where imports are allowed.
 */
static int
module_initialising(void)
{
    PyFrameObject *f = PyEval_GetFrame(), *b;
    PyObject *g, *spec;
    PyCodeObject *c;
    int hit = 0, body;

    Py_XINCREF(f);
    while (f && !hit) {
        c = PyFrame_GetCode(f);
        body = PyUnicode_Check(fa_py_code_name(c))
               && PyUnicode_CompareWithASCIIString(fa_py_code_name(c),
                                                   "<module>") == 0;
        Py_DECREF(c);
        if (body && (g = fa_py_frame_globals(f))) {
            if (PyDict_Check(g)) {
                spec = PyDict_GetItemWithError(g, str_spec);
                hit = fa_spec_initializing(spec);
            }
            Py_DECREF(g);
        }
        PyErr_Clear();
        b = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = b;
    }
    Py_XDECREF(f);
    return hit;
}

/*
 * The event comes from a module initialising that the context trusts:
 * one allow_imports names (any frame of it on the stack), or, with
 * trust_installed, installed code, reached from the innermost frame
 * through installed code alone (a module of the snippet's, a finder it
 * installed, code run with globals of its own: none of these lends the
 * trust of an import further out).
 */
static int
importing_allowed_module(FaCfgObject *cfg)
{
    PyObject *allowed = cfg->import_allow;
    PyFrameObject *f, *b;
    PyObject *g, *spec, *name, *sd;
    int hit = 0, trust = trusted_dirs ? cfg->trust_installed : FA_TRUST_NAMED, init;

    if (!PyTuple_GET_SIZE(allowed) && !trust) {
        return 0;
    }
    if (!module_initialising()) {
        return 0;
    }
    f = PyEval_GetFrame();
    Py_XINCREF(f);
    while (f && !hit) {
        g = fa_py_frame_globals(f);
        spec = name = NULL;
        if (g && PyDict_Check(g)) {
            spec = PyDict_GetItemWithError(g, str_spec);
            name = PyDict_GetItemWithError(g, str_name);
        }
        init = fa_spec_initializing(spec);
        hit = init && fa_module_allowed(name, allowed);
        if (!hit && trust) {
            sd = spec_dict(spec);
            if (sd && spec_trusted(sd, cfg->pol->policy, trust)) {
                hit = init;
            } else {
                trust = 0;
            }
            Py_XDECREF(sd);
        }
        PyErr_Clear();
        Py_XDECREF(g);
        b = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = b;
    }
    Py_XDECREF(f);
    return hit;
}

static int
on_stack(const char *mod, const char *qual)
{
    PyFrameObject *f = PyEval_GetFrame(), *b;
    int hit = 0;

    Py_XINCREF(f);
    while (f && !hit) {
        hit = fa_frame_is(f, mod, qual);
        b = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = b;
    }
    Py_XDECREF(f);
    return hit;
}

/*
 * asyncio's default executor names its threads "asyncio_N" and starts them
 * from BaseEventLoop.run_in_executor (DNS lookups need this). When that
 * executor exists, asyncio.run() ends by joining it from a helper thread
 * started in shutdown_default_executor. No other thread start passes.
 */
static int
executor_thread(PyObject *args)
{
    PyObject *t, *name;
    const char *s;
    int named;

    if (on_stack("asyncio.base_events",
                 "BaseEventLoop.shutdown_default_executor"))
    {
        return 1;
    }
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) < 1) {
        return 0;
    }
    t = PyObject_GetAttr(PyTuple_GET_ITEM(args, 0), str_self);
    if (!t) {
        PyErr_Clear();
        return 0;
    }
    name = PyObject_GetAttrString(t, "name");
    Py_DECREF(t);
    if (!name) {
        PyErr_Clear();
        return 0;
    }
    s = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    named = s && !strncmp(s, "asyncio_", 8);
    Py_DECREF(name);
    PyErr_Clear();
    return named
        && on_stack("asyncio.base_events", "BaseEventLoop.run_in_executor");
}

static int
env_denied(PyObject *key)
{
    PyObject *b = NULL;
    char buf[256];
    const char *s;
    size_t i;

    if (!PyUnicode_FSConverter(key, &b)) {
        PyErr_Clear();
        return 1;
    }
    s = PyBytes_AS_STRING(b);
    for (i = 0; i < sizeof buf - 1 && s[i]; i++) {
        buf[i] = (char)toupper((unsigned char)s[i]);
    }
    buf[i] = 0;
    Py_DECREF(b);
    return fa_env_sensitive(buf);
}

PyObject *
fa_event_message(const char *event, PyObject *args)
{
    struct fa_text t;

    fa_text_init(&t);
    fa_text_lit(&t, "Audit: ");
    fa_text_c(&t, event);
    fa_text_lit(&t, " blocked in sandbox with args: ");
    if (!strcmp(event, "fastaudit.call") && PyTuple_Check(args)
        && PyTuple_GET_SIZE(args) > 2
        && PyUnicode_Check(PyTuple_GET_ITEM(args, 2)))
    {
        /* the monitor passes the chain it saw as the third argument */
        PyObject *shown = PyTuple_GetSlice(args, 0, 2);

        if (shown) {
            fa_text_tuple_repr(&t, shown);
        } else {
            t.failed = 1;
        }
        Py_XDECREF(shown);
        fa_text_lit(&t, "\nCall chain: ");
        fa_text_u(&t, PyTuple_GET_ITEM(args, 2));
    } else {
        fa_text_tuple_repr(&t, args);
        fa_text_lit(&t, "\nCall chain: ");
        fa_text_chain(&t, NULL);
    }
    return fa_text_done(&t);
}

/*
 * subprocess.Popen, once allowed, starts its program through
 * os.posix_spawn or (3.14 raises an event for it) _posixsubprocess.fork_exec,
 * handing either the very argument list the Popen event carried: that start
 * is the one the host allowed. The list is kept in the thread's dict, alive,
 * so that its identity means something, for the next start only.
 */
#define POPEN_KEY "fastaudit.allowed_popen"

static void
popen_allowed(const char *event, PyObject *args)
{
    PyObject *d;

    if (strcmp(event, "subprocess.Popen") || PyTuple_GET_SIZE(args) < 2) {
        return;
    }
    d = PyThreadState_GetDict();
    if (!d || PyDict_SetItemString(d, POPEN_KEY, PyTuple_GET_ITEM(args, 1))) {
        PyErr_Clear();
    }
}

/* both events carry (program or candidates, argv, env) */
static int
start_of_allowed_popen(PyObject *args)
{
    PyObject *d = PyThreadState_GetDict(), *argv, *allowed;
    int same;

    allowed = d ? PyDict_GetItemString(d, POPEN_KEY) : NULL;
    if (!allowed) {
        return 0;
    }
    argv = PyTuple_GET_SIZE(args) > 1 ? PyTuple_GET_ITEM(args, 1) : NULL;
    same = argv == allowed;
    if (PyDict_DelItemString(d, POPEN_KEY) < 0) {
        PyErr_Clear();
    }
    return same;
}

static int
deny_event(FaEntryObject *e, const char *event, PyObject *args)
{
    PyObject *msg = fa_event_message(event, args);
    int rc;

    if (!msg) {
        return -1;
    }
    rc = fa_deny(e, event, args, msg, NULL);
    Py_DECREF(msg);
    if (rc == 0) {
        fa_bridge_approve_exec(event, args, fa_approved_unconfined);
        popen_allowed(event, args);
    }
    return rc;
}

static int
check_event(FaEntryObject *e, const char *event, PyObject *args)
{
    const struct fa_evinfo *ev = fa_event_lookup(event);
    PyObject *a1;
    const char *name;

    if (ev->moves) {
        fa_moves_announce(ev->moves);
    }
    switch (ev->cls) {
    case FA_EV_ALLOW:
        return 0;
    case FA_EV_IMPORT:
        fa_st.imports_seen = 1;
        return 0;
    case FA_EV_THREAD:
        if (executor_thread(args)
            || (e->cfg->threads_follow && fa_thread_start_follows(args)))
        {
            return 0;
        }
        break;
    case FA_EV_INTERNAL:
        /* no import allowance: the policy cannot be replaced from inside */
        return deny_event(e, event, args);
    case FA_EV_SPAWN:
        if (start_of_allowed_popen(args)) {
            return 0;
        }
        break;
    case FA_EV_NATIVE:
        /*
         * 3.14 audits every ctypes call, earlier versions none: where the
         * shim judges what native code does at libc, a ctypes call is let
         * through as before; where it does not, it is refused like any
         * unlisted event
         */
        if (fa_native_on()) {
            return 0;
        }
        break;
    default:
        break;
    }
    if (importing_allowed_module(e->cfg)) {
        /*
         * the shim honours the allowance too (import-time writes, process
         * starts)
         */
        if (ev->cls != FA_EV_OTHER && ev->cls != FA_EV_THREAD
            && ev->cls != FA_EV_ENV && ev->cls != FA_EV_SETATTR
            && ev->cls != FA_EV_SPAWN && ev->cls != FA_EV_NATIVE)
        {
            fa_approve_event((PyObject *)e, ev, args);
        } else {
            fa_bridge_approve_exec(event, args, 0);
            popen_allowed(event, args);
        }
        return 0;
    }
    switch (ev->cls) {
    case FA_EV_ENV:
        if (PyTuple_GET_SIZE(args) >= 1
            && !env_denied(PyTuple_GET_ITEM(args, 0)))
        {
            return 0;
        }
        return deny_event(e, event, args);
    case FA_EV_SETATTR:
        a1 = PyTuple_GET_SIZE(args) >= 2 ? PyTuple_GET_ITEM(args, 1) : NULL;
        name = a1 && PyUnicode_Check(a1) ? PyUnicode_AsUTF8(a1) : NULL;
        if (name && fa_setattr_allowed(name)) {
            return 0;
        }
        PyErr_Clear();
        return deny_event(e, event, args);
    case FA_EV_OTHER:
    case FA_EV_THREAD:
    case FA_EV_SPAWN:
    case FA_EV_NATIVE:
        return deny_event(e, event, args);
    default:
        return fa_judge_event((PyObject *)e, ev, args);
    }
}

/*
 * Outside the contexts, a move still moves paths a context proved free of
 * links (moves.c); the event is looked up only where the hook keeps its
 * proofs by its own count.
 */
static void
note_moves(const char *event)
{
    const struct fa_evinfo *ev;

    if (fa_moves_on() && (ev = fa_event_lookup(event))->moves) {
        fa_moves_announce(ev->moves);
    }
}

static int
audit_hook(const char *event, PyObject *args, void *unused)
{
    PyObject *entry;
    int rc;

    (void)unused;
    fa_moves_settle();
    if (!fa_st.live_entries) {
        return 0;
    }
    /* C hooks see every interpreter; the contexts belong to the main one */
    if (PyInterpreterState_Get() != fa_st.interp) {
        note_moves(event);
        return 0;
    }
    if (!strcmp(event, "fastaudit.probe")) {
        fa_st.installed = 2;
        return 0;
    }
    entry = fa_current_entry();
    /* asyncio switches contexts silently: keep the shim's answer current */
    fa_bridge_publish(entry);
    if (!entry) {
        note_moves(event);
        return PyErr_Occurred() ? -1 : 0;
    }
    /* the learner's records in event order: the shim's, then this event's */
    if (((FaEntryObject *)entry)->cfg->learner
        && fa_learn_native(((FaEntryObject *)entry)->cfg->learner) < 0)
    {
        Py_DECREF(entry);
        return -1;
    }
    rc = check_event((FaEntryObject *)entry, event, args);
    Py_DECREF(entry);
    return rc;
}

/*
 * The bundled lxml hook, when listed, is called directly from C (it
 * decides on the name alone): a new tuple of the other hooks.
 */
static PyObject *
without_lxml_hook(PyObject *hooks)
{
    PyObject *list = PyList_New(0), *h, *t;
    Py_ssize_t i;

    if (!list) {
        return NULL;
    }
    for (i = 0; i < PyTuple_GET_SIZE(hooks); i++) {
        h = PyTuple_GET_ITEM(hooks, i);
        if (PyCFunction_Check(h)
            && PyCFunction_GET_FUNCTION(h)
               == (PyCFunction)(void (*)(void))fa_lxml_monitor)
        {
            fa_st.lxml_hook = 1;
            continue;
        }
        if (PyList_Append(list, h) < 0) {
            Py_DECREF(list);
            return NULL;
        }
    }
    t = PyList_AsTuple(list);
    Py_DECREF(list);
    return t;
}

static PyObject *
intern(const char *s)
{
    return PyUnicode_InternFromString(s);
}

/*
 * What _entry_points() returned is held in locals, each reference owned
 * before it is kept, and published to fa_st only once all of it is there:
 * a failure half-way leaves fa_st as it was, never holding a pointer that
 * dies with the tuple it was borrowed from.
 */
int
fa_install(void)
{
    PyObject *fn = NULL, *eps = NULL, *sys = NULL;
    PyObject *safe, *imports, *mhooks, *ahooks, *active;
    PyObject *own_mhooks = NULL, *stdlib = NULL, *var = NULL;
    int rc = -1;

    if (fa_st.installed) {
        return 0;
    }
    str_name = intern("__name__");
    str_self = intern("__self__");
    str_spec = intern("__spec__");
    str_dict = intern("__dict__");
    str_init = intern("_initializing");
    if (!str_name || !str_self || !str_spec || !str_dict || !str_init) {
        return -1;
    }
    fn = fa_core_part(fa_st.core_entry_points);
    if (!fn) {
        goto out;
    }
    eps = PyObject_CallNoArgs(fn);
    if (!eps) {
        goto out;
    }
    if (!PyArg_ParseTuple(eps,
                          "O!O!O!O!O;_entry_points() returned a bad shape",
                          &PyTuple_Type, &safe, &PyTuple_Type, &imports,
                          &PyTuple_Type, &mhooks, &PyTuple_Type, &ahooks,
                          &active))
    {
        goto out;
    }
    own_mhooks = without_lxml_hook(mhooks);
    if (!own_mhooks) {
        goto out;
    }
    sys = PyImport_ImportModule("sys");
    if (!sys) {
        goto out;
    }
    stdlib = PyObject_GetAttrString(sys, "stdlib_module_names");
    if (!stdlib) {
        goto out;
    }
    var = PyContextVar_New("fastaudit_cfg", NULL);
    if (!var) {
        goto out;
    }
    Py_XSETREF(fa_st.safe_native, Py_NewRef(safe));
    Py_XSETREF(fa_st.import_allow, Py_NewRef(imports));
    Py_XSETREF(fa_st.monitor_hooks, own_mhooks);
    Py_XSETREF(fa_st.audit_hooks, Py_NewRef(ahooks));
    Py_XSETREF(fa_st.active_calls, Py_NewRef(active));
    Py_XSETREF(fa_st.stdlib, stdlib);
    Py_XSETREF(fa_st.var, var);
    own_mhooks = stdlib = var = NULL;
    fa_st.interp = PyInterpreterState_Get();
    /*
     * A hook already installed may veto ours with a RuntimeError, which
     * PySys_AddAuditHook swallows (returning 0): prove ours runs.
     */
    if (PySys_AddAuditHook(audit_hook, NULL) < 0) {
        goto out;
    }
    if (fa_unaudited_install() < 0) {
        goto out;
    }
    fa_st.installed = 1;
    fa_st.live_entries++;
    rc = PySys_Audit("fastaudit.probe", NULL);
    fa_st.live_entries--;
    if (rc < 0) {
        goto fail;
    }
    if (fa_st.installed != 2) {
        PyErr_SetString(PyExc_RuntimeError,
                        "fastaudit: the audit hook could not be installed "
                        "(vetoed by another hook)");
        goto fail;
    }
    rc = 0;
    goto out;
fail:
    fa_st.installed = 0;
    rc = -1;
out:
    Py_XDECREF(own_mhooks);
    Py_XDECREF(stdlib);
    Py_XDECREF(var);
    Py_XDECREF(fn);
    Py_XDECREF(eps);
    Py_XDECREF(sys);
    return rc;
}
