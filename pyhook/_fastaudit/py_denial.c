/* SPDX-License-Identifier: Apache-2.0 */
/*
 * py_denial.c - the exception a denial raises (fastaudit.AuditDenied, a
 * PermissionError), and the recent denials of every layer as Python sees
 * them.
 *
 * The message is exactly the seed's ("os.remove '/p' not in ('/r',)",
 * the origin note after it): hosts compare and parse it. What the engine
 * knows beyond that (the path judged, the rule, the roots) travels as
 * fields of the exception and as one exception note that ends with the
 * fix, on every refusal of the hook and of the call monitor alike
 * (__notes__, which 3.11's add_note() appends to and 3.10 tracebacks
 * simply do not print).
 *
 * The class is made here, in C, when _fastaudit is loaded (the module's
 * AuditDenied, which the package re-exports as fastaudit.AuditDenied): the
 * hook needs no Python module to raise it, and code run in a context
 * cannot swap the class the hook raises.
 *
 * Libraries swallow exceptions ("No usable temporary directory"), so
 * every refusal is also kept in a small ring, read by recent_denials()
 * together with the shim's own.
 */
#include "parts.h"

#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "denial.h"

static PyObject *s_notes, *s_path, *s_resolved, *s_rule, *s_op, *s_roots,
    *s_event, *s_layer, *s_libc, *s_fix, *s_fastaudit, *s_hook, *s_spec,
    *s_name;

#define NRECENT 32

struct recent {
    unsigned long long seq;
    struct timespec when;
    int tid;
    PyObject *event, *msg, *path, *fix;   /* owned; fix may be NULL */
    const char *rule, *op;          /* static strings */
};

static struct recent ring[NRECENT];
static unsigned long long nrecent;

/*
 * gettid() is a system call on every denial otherwise; a forked child
 * starts with the cache cleared (its one thread has a new id).
 */
static __thread int my_tid;

static void
forget_tid(void)
{
    my_tid = 0;
}

static int
thread_id(void)
{
    static int registered;

    if (!registered) {
        registered = 1;
        pthread_atfork(NULL, NULL, forget_tid);
    }
    if (!my_tid) {
        my_tid = (int)gettid();
    }
    return my_tid;
}

static int
names(void)
{
    if (s_notes) {
        return 0;
    }
    s_notes = PyUnicode_InternFromString("__notes__");
    s_path = PyUnicode_InternFromString("path");
    s_resolved = PyUnicode_InternFromString("resolved");
    s_rule = PyUnicode_InternFromString("rule");
    s_op = PyUnicode_InternFromString("op");
    s_roots = PyUnicode_InternFromString("roots");
    s_event = PyUnicode_InternFromString("event");
    s_layer = PyUnicode_InternFromString("layer");
    s_libc = PyUnicode_InternFromString("libc");
    s_fix = PyUnicode_InternFromString("fix");
    s_fastaudit = PyUnicode_InternFromString("fastaudit");
    s_hook = PyUnicode_InternFromString("hook");
    s_spec = PyUnicode_InternFromString("__spec__");
    s_name = PyUnicode_InternFromString("__name__");
    return s_notes && s_path && s_resolved && s_rule && s_op && s_roots
           && s_event && s_layer && s_libc && s_fix && s_fastaudit && s_hook
           && s_spec && s_name
        ? 0 : -1;
}

/*
 * fastaudit.AuditDenied: every field a refusal may carry is also a class
 * attribute (None), so that each is there on every instance; what a
 * refusal knows is set on the instance, in its __dict__. __notes__ is not
 * one of them: add_note() wants it absent or a list.
 */
static PyObject *audit_denied;

static const char *const denied_fields[] = {
    "event", "fix", "fastaudit", "path", "resolved", "rule", "op", "roots",
};

#define AUDIT_DENIED_DOC \
"A refusal of fastaudit's audit hook or call monitor.\n" \
"\n" \
"A PermissionError: except PermissionError catches it. str() is the\n" \
"fastaudit API's message, unchanged (\"open '/p' not in ('/r',)\",\n" \
"\"Audit: subprocess.Popen blocked in sandbox with args: ...\"), followed\n" \
"by where the context was\n" \
"entered when the refusal came from another thread or task. Every refusal\n" \
"carries one note (__notes__): what was judged and why, ending\n" \
"\"; to allow: FIX\" when a change of policy allows it.\n" \
"\n" \
"Fields (None where they do not apply):\n" \
"\n" \
"event      the audit event refused: 'open', 'os.remove', 'subprocess.Popen',\n" \
"           'fastaudit.call' (the call monitor), ...\n" \
"fix        the smallest change that would allow it, as text; None when no\n" \
"           change of policy does\n" \
"fastaudit  {'layer': 'hook', 'rule': rule, 'fix': fix}: the keys the\n" \
"           OSError of a call libfashim.so refused carries too (layer 'libc')\n" \
"rule       the rule that refused: 'outside-roots', 'root-itself',\n" \
"           'link-target', 'symlink', 'deny-subtree', 'not-a-path', ...;\n" \
"           'blocked-event' for an event the context refuses outright\n" \
"path       the path argument as given (str, bytes or int)\n" \
"resolved   the path the engine judged, as a str\n" \
"op         the operation judged: 'write', 'create', 'remove', 'dir', ...\n" \
"roots      the context's roots, as given to mk_audit()\n" \
"\n" \
"A refusal raised while a module initialises (its first import) suggests\n" \
"allow_imports=(PKG,) for that module's top-level package."

PyObject *
fa_audit_denied(void)
{
    PyObject *t, *doc;
    size_t i;

    if (audit_denied) {
        return audit_denied;
    }
    /*
     * The text signature goes in tp_doc, where __text_signature__ (and so
     * inspect.signature) reads it; __doc__ is the text alone.
     */
    doc = PyUnicode_FromString(AUDIT_DENIED_DOC);
    if (!doc) {
        return NULL;
    }
    t = PyErr_NewExceptionWithDoc("fastaudit.AuditDenied",
                                  "AuditDenied(*args)\n--\n\n" AUDIT_DENIED_DOC,
                                  PyExc_PermissionError, NULL);
    if (!t || PyObject_SetAttrString(t, "__doc__", doc) < 0) {
        Py_XDECREF(t);
        Py_DECREF(doc);
        return NULL;
    }
    Py_DECREF(doc);
    for (i = 0; i < sizeof denied_fields / sizeof denied_fields[0]; i++) {
        if (PyObject_SetAttrString(t, denied_fields[i], Py_None) < 0) {
            Py_DECREF(t);
            return NULL;
        }
    }
    audit_denied = t;
    return audit_denied;
}

/*
 * The record of a denial; its rule is "blocked-event" for an event refused
 * outright, as the exception's is.
 */
static void
remember(PyObject *event, PyObject *msg, const struct fa_deny_detail *dd,
         PyObject *fix)
{
    struct recent *r = &ring[nrecent % NRECENT];

    Py_XDECREF(r->event);
    Py_XDECREF(r->msg);
    Py_XDECREF(r->path);
    Py_XDECREF(r->fix);
    r->fix = fix && fix != Py_None ? Py_NewRef(fix) : NULL;
    r->seq = ++nrecent;
    clock_gettime(CLOCK_REALTIME, &r->when);
    r->tid = thread_id();
    r->event = Py_NewRef(event);
    r->msg = Py_NewRef(msg);
    r->path = dd && dd->path ? Py_NewRef(dd->path) : NULL;
    r->rule = dd ? dd->rule : "blocked-event";
    r->op = dd ? dd->op : NULL;
}

/*
 * The engine's rule and operation names are static strings: each becomes
 * one interned str, found again by its address.
 */
#define NCONST 48
static struct {
    const char *s;
    PyObject *u;
} consts[NCONST];

static PyObject *
const_str(const char *s)
{
    int i;

    for (i = 0; i < NCONST && consts[i].s; i++) {
        if (consts[i].s == s) {
            return Py_NewRef(consts[i].u);
        }
    }
    if (i == NCONST) {
        return PyUnicode_InternFromString(s);
    }
    consts[i].u = PyUnicode_InternFromString(s);
    if (!consts[i].u) {
        return NULL;
    }
    consts[i].s = s;
    return Py_NewRef(consts[i].u);
}

/*
 * The fix of a hook-layer denial, by the one rule of fixes (src/denial.c);
 * None when no change of policy allows it. A loop of refusals usually
 * asks for the same fix again: the last one's str is given again while
 * the text is the same (the text itself is made anew every time, since
 * it names the directories that exist now).
 */
static PyObject *
path_fix(const struct fa_deny_detail *dd)
{
    static char last[PATH_MAX + 256];
    static PyObject *last_fix;
    char text[sizeof(last)];
    struct fa_buf b = FA_BUF_INIT(text);
    struct fa_denial_view v;
    PyObject *fix;

    memset(&v, 0, sizeof(v));
    v.op = dd->op;
    v.rule = dd->rule;
    v.resolved = dd->resolved;
    v.from_context = 1;
    v.policy = dd->policy;
    v.held = dd->held;
    if (!fa_denial_fix(&b, &v) || !fa_buf_fits(&b)) {
        return Py_NewRef(Py_None);
    }
    if (last_fix && b.len + 1 <= sizeof(last)
        && !memcmp(last, text, b.len + 1))
    {
        return Py_NewRef(last_fix);
    }
    fix = PyUnicode_DecodeFSDefaultAndSize(text, (Py_ssize_t)b.len);
    if (fix) {
        memcpy(last, text, b.len + 1);
        Py_XSETREF(last_fix, Py_NewRef(fix));
    }
    return fix;
}

/*
 * The fix for an event a context blocks outright: the host approves it; a
 * thread start and an undeclared native call also have a mode of
 * mk_audit() that allows them, named first.
 */
static PyObject *
blocked_fix(PyObject *event)
{
    /* the last event's text, while the hook passes the same name object */
    static PyObject *last_event, *last_fix;
    struct fa_text t;
    PyObject *fix;
    const char *name;

    if (event == last_event) {
        return Py_NewRef(last_fix);
    }
    name = PyUnicode_AsUTF8(event);
    if (!name) {
        return NULL;
    }
    fa_text_init(&t);
    fa_text_lit(&t, "the audit context blocks ");
    fa_text_u(&t, event);
    fa_text_lit(&t, ": ");
    if (fa_event_lookup(name)->cls == FA_EV_THREAD) {
        fa_text_lit(&t, "pass threads='context' to mk_audit() to run the "
                    "thread in a copy of the context, or ");
    } else if (!strcmp(name, "fastaudit.call")) {
        fa_text_lit(&t, "declare the module safe (a fastaudit_safe_native "
                    "entry point), return False from on_call for it, pass "
                    "native_calls='libc' to mk_audit() with libfashim.so "
                    "loaded, or ");
    }
    fa_text_lit(&t, "approve it from the host (before_deny returning True, "
                "or a tool started through track_call)");
    fix = fa_text_done(&t);
    if (fix) {
        Py_XSETREF(last_event, Py_NewRef(event));
        Py_XSETREF(last_fix, Py_NewRef(fix));
    }
    return fix;
}

/* The engine's name for a C string, None for NULL. */
static PyObject *
const_or_none(const char *s)
{
    return s ? const_str(s) : Py_NewRef(Py_None);
}

static int
put(PyObject *d, PyObject *key, PyObject *value)
{
    return PyDict_SetItem(d, key, value ? value : Py_None);
}

/*
 * The module whose first import the refused code runs in: the innermost
 * frame whose module is still initialising (the frames hook.c's import
 * allowance looks at), as a new reference, or NULL (no error set).
 */
static PyObject *
initializing_module(void)
{
    PyFrameObject *f = PyEval_GetFrame(), *b;
    PyObject *g, *spec, *name, *found = NULL;

    Py_XINCREF(f);
    while (f && !found) {
        g = fa_py_frame_globals(f);
        if (g && PyDict_Check(g)) {
            spec = PyDict_GetItemWithError(g, s_spec);
            name = spec ? PyDict_GetItemWithError(g, s_name) : NULL;
            if (name && PyUnicode_Check(name) && fa_spec_initializing(spec)
                && PyUnicode_CompareWithASCIIString(name, "__main__") != 0)
            {
                found = Py_NewRef(name);
            }
        }
        PyErr_Clear();
        Py_XDECREF(g);
        b = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = b;
    }
    Py_XDECREF(f);
    return found;
}

/*
 * The fix of an event refused while module initialises: trusting the
 * import of its top-level package, which is what allow_imports names.
 */
static PyObject *
import_fix(PyObject *module)
{
    Py_ssize_t dot = PyUnicode_FindChar(module, '.', 0,
                                        PyUnicode_GET_LENGTH(module), 1);
    PyObject *top, *fix;
    struct fa_text t;

    if (dot == -2) {
        return NULL;
    }
    top = dot < 0 ? Py_NewRef(module) : PyUnicode_Substring(module, 0, dot);
    if (!top) {
        return NULL;
    }
    fa_text_init(&t);
    fa_text_lit(&t, "pass allow_imports=(");
    fa_text_repr(&t, top);
    fa_text_lit(&t, ",) to mk_audit(), or call audit_perms.add_imports(");
    fa_text_repr(&t, top);
    fa_text_lit(&t, ") outside the context");
    fix = fa_text_done(&t);
    Py_DECREF(top);
    return fix;
}

/* What kind of refusal an event refused outright is, as the note says it. */
static const char *
blocked_why(PyObject *event)
{
    const char *name = PyUnicode_AsUTF8(event);
    const struct fa_evinfo *ev;

    if (!name) {
        PyErr_Clear();
        return "the audit context refuses events it does not list";
    }
    if (!strcmp(name, "fastaudit.call")) {
        return "a call into native code that is not declared safe";
    }
    ev = fa_event_lookup(name);
    switch (ev->cls) {
    case FA_EV_NATIVE:
        return "native code through ctypes is beyond what the hook judges";
    case FA_EV_THREAD:
        return "an audit context starts no thread (its work would run "
               "unaudited)";
    case FA_EV_ENV:
        return "a sensitive environment variable (command lookup, imports, "
               "loading, identity, temporary files) is the host's to set";
    case FA_EV_SETATTR:
        return "a sensitive attribute assignment (a function's code or "
               "defaults, a class's identity)";
    case FA_EV_INTERNAL:
        return "a context's policy is not changed from inside it";
    case FA_EV_SPAWN:
        return "an audit context starts no process";
    default:
        break;
    }
    if (ev->moves & FA_MOVES_START) {
        return "an audit context starts no process";
    }
    if (!strncmp(name, "ctypes.", 7)) {
        return "native code through ctypes is beyond what the hook judges";
    }
    return "the audit context refuses events it does not list";
}

/*
 * The note of an event refused outright, in the shape of a path's:
 * "fastaudit: EVENT refused[ while MODULE initialises]: WHY (blocked-event)
 * ; to allow: FIX"
 */
static PyObject *
blocked_note(PyObject *event, PyObject *module, PyObject *fix)
{
    struct fa_text t;

    fa_text_init(&t);
    fa_text_lit(&t, "fastaudit: ");
    fa_text_u(&t, event);
    fa_text_lit(&t, " refused");
    if (module) {
        fa_text_lit(&t, " while ");
        fa_text_u(&t, module);
        fa_text_lit(&t, " initialises");
    }
    fa_text_lit(&t, ": ");
    fa_text_c(&t, blocked_why(event));
    fa_text_lit(&t, " (blocked-event); to allow: ");
    fa_text_u(&t, fix);
    return fa_text_done(&t);
}

/*
 * The fields of a denial, in the order programs have always found them in
 * vars(exc): event, fix, fastaudit, then for a path the path as given, the
 * path judged, the rule, the operation class, the roots, and the note
 * (for an event refused outright: the rule, then the note). One dict,
 * filled and then made the exception's __dict__: the exception is new,
 * so it has no attribute of its own yet.
 */
static PyObject *
denial_attrs(PyObject *event, PyObject *fix, PyObject *rule,
             const struct fa_deny_detail *dd, PyObject *blocked)
{
    PyObject *d = PyDict_New(), *guard = PyDict_New(), *v = NULL,
        *notes = NULL;
    struct fa_text t;
    int ok;

    if (!d || !guard) {
        goto fail;
    }
    ok = PyDict_SetItem(guard, s_layer, s_hook) == 0
         && PyDict_SetItem(guard, s_rule, rule) == 0
         && PyDict_SetItem(guard, s_fix, fix) == 0
         && PyDict_SetItem(d, s_event, event) == 0
         && PyDict_SetItem(d, s_fix, fix) == 0
         && PyDict_SetItem(d, s_fastaudit, guard) == 0;
    if (!ok) {
        goto fail;
    }
    Py_CLEAR(guard);
    if (!dd) {
        if (PyDict_SetItem(d, s_rule, rule) < 0) {
            goto fail;
        }
        v = Py_NewRef(blocked);
    } else {
        v = dd->resolved ? PyUnicode_DecodeFSDefault(dd->resolved)
            : Py_NewRef(Py_None);
        ok = v && put(d, s_path, dd->path) == 0
             && PyDict_SetItem(d, s_resolved, v) == 0
             && PyDict_SetItem(d, s_rule, rule) == 0;
        Py_XSETREF(v, ok ? const_or_none(dd->op) : NULL);
        ok = v && PyDict_SetItem(d, s_op, v) == 0
             && put(d, s_roots, dd->roots) == 0;
        Py_CLEAR(v);
        if (!ok) {
            goto fail;
        }
        if (!dd->note) {
            return d;
        }
        /* one note, ending as the shim's line does: "...; to allow: FIX" */
        if (fix != Py_None) {
            fa_text_init(&t);
            fa_text_u(&t, dd->note);
            fa_text_lit(&t, "; to allow: ");
            fa_text_u(&t, fix);
            v = fa_text_done(&t);
        } else {
            v = Py_NewRef(dd->note);
        }
    }
    notes = v ? PyList_New(1) : NULL;
    if (!notes) {
        goto fail;
    }
    PyList_SET_ITEM(notes, 0, v);
    v = NULL;
    if (PyDict_SetItem(d, s_notes, notes) < 0) {
        goto fail;
    }
    Py_DECREF(notes);
    return d;
fail:
    Py_XDECREF(d);
    Py_XDECREF(guard);
    Py_XDECREF(v);
    Py_XDECREF(notes);
    return NULL;
}

/*
 * Raise fastaudit.AuditDenied(msg) for event; returns -1 (always).
 */
int
fa_raise_denial(PyObject *event, PyObject *msg,
                const struct fa_deny_detail *dd)
{
    PyObject *exc = NULL, *attrs = NULL, *fix = NULL, *rule = NULL,
        *module = NULL, *note = NULL, *type = fa_audit_denied();
    const char *name;

    if (!type || names() < 0) {
        return -1;
    }
    if (dd) {
        fix = path_fix(dd);
        rule = const_or_none(dd->rule);
    } else {
        /*
         * refused while a module initialises: trusting that import allows
         * it (not a policy change, which no import allowance lets through)
         */
        name = PyUnicode_AsUTF8(event);
        if (!name) {
            return -1;
        }
        module = initializing_module();
        if (module && fa_event_lookup(name)->cls != FA_EV_INTERNAL) {
            fix = import_fix(module);
        } else {
            Py_CLEAR(module);
            fix = blocked_fix(event);
        }
        rule = const_str("blocked-event");
        note = fix ? blocked_note(event, module, fix) : NULL;
        if (!note) {
            goto out;
        }
    }
    if (!fix || !rule) {
        goto out;
    }
    attrs = denial_attrs(event, fix, rule, dd, note);
    if (!attrs) {
        goto out;
    }
    exc = PyObject_CallOneArg(type, msg);
    if (!exc || PyObject_GenericSetDict(exc, attrs, NULL) < 0) {
        goto out;
    }
    remember(event, msg, dd, fix);
    PyErr_SetObject(type, exc);
out:
    Py_XDECREF(exc);
    Py_XDECREF(attrs);
    Py_XDECREF(fix);
    Py_XDECREF(rule);
    Py_XDECREF(module);
    Py_XDECREF(note);
    return -1;
}

/*
 * The keys the shim's records use, where they mean the same; "time" in the
 * log's format.
 */
static PyObject *
hook_item(const struct recent *r)
{
    char small[64];
    struct fa_buf b = FA_BUF_INIT(small);

    fa_put_time(&b, &r->when);
    return Py_BuildValue("{s:s,s:K,s:s#,s:i,s:O,s:O,s:O,s:z,s:z,s:O}",
                         "layer", "hook", "seq", r->seq, "time", b.p,
                         (Py_ssize_t)b.len,
                         "tid", r->tid, "event", r->event, "message", r->msg,
                         "path", r->path ? r->path : Py_None, "rule", r->rule,
                         "op", r->op,
                         "fix", r->fix ? r->fix : Py_None);
}

static PyObject *sort_key;

/*
 * Recent denials of both layers, oldest first: the audit hook's (layer
 * "hook") and the shim's (layer "libc", the native records as
 * native_denials() gives them).
 */
PyObject *
fa_all_denials(void)
{
    PyObject *list = PyList_New(0), *native = NULL, *item, *r;
    unsigned long long i, first;
    Py_ssize_t k;

    if (!list) {
        return NULL;
    }
    if (names() < 0) {
        goto fail;
    }
    first = nrecent > NRECENT ? nrecent - NRECENT : 0;
    for (i = first; i < nrecent; i++) {
        item = hook_item(&ring[i % NRECENT]);
        if (!item || PyList_Append(list, item) < 0) {
            goto fail;
        }
        Py_DECREF(item);
    }
    native = fa_native_denials();
    if (!native) {
        goto fail;
    }
    for (k = 0; k < PyList_GET_SIZE(native); k++) {
        item = PyList_GET_ITEM(native, k);
        if (PyDict_Check(item) && PyDict_SetItem(item, s_layer, s_libc) < 0) {
            goto fail;
        }
        if (PyList_Append(list, item) < 0) {
            goto fail;
        }
    }
    Py_CLEAR(native);
    if (!sort_key) {
        PyObject *op = PyImport_ImportModule("operator");
        /* fixed-width UTC times: text order is time order */
        sort_key = op ? PyObject_CallMethod(op, "itemgetter", "s", "time")
            : NULL;
        Py_XDECREF(op);
        if (!sort_key) {
            goto fail;
        }
    }
    {
        PyObject *kw = Py_BuildValue("{s:O}", "key", sort_key);
        PyObject *m = PyObject_GetAttrString(list, "sort");
        PyObject *a = PyTuple_New(0);

        r = kw && m && a ? PyObject_Call(m, a, kw) : NULL;
        Py_XDECREF(kw);
        Py_XDECREF(m);
        Py_XDECREF(a);
        Py_XDECREF(r);
        if (!r) {
            goto fail;
        }
    }
    return list;
fail:
    Py_XDECREF(native);
    Py_DECREF(list);
    return NULL;
}
