/* SPDX-License-Identifier: Apache-2.0 */
/*
 * monitor.c - the sys.monitoring CALL callback (3.12+) that turns calls
 * into undeclared native code into "fastaudit.call" audit events.
 *
 * CALL fires at Python call sites only. A site whose callee is Python
 * code, the standard library or a declared-safe native module is
 * DISABLEd, so it costs nothing until the next context entry restarts
 * events. Events are switched on by the first monitoring context entered
 * and off by the last one left: between contexts nothing is instrumented.
 */
#include "parts.h"

#include <string.h>

static const char *const lxml_writers[] = {
    "lxml.etree._ElementTree.write",
    "lxml.etree._ElementTree.write_c14n",
    "lxml.etree._XSLTResultTree.write_output",
    "lxml.etree.xmlfile",
    "lxml.etree.xmlfile.__enter__",
};

/*
 * The bundled lxml monitor hook: ordinary lxml calls are DISABLEd, the
 * five calls that write files without a Python open event stay audited.
 * Decided on the name alone, so lxml is never imported.
 */
PyObject *
fa_lxml_monitor(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    const char *callee;
    size_t i;

    (void)self;
    if (n < 2 || !PyUnicode_Check(args[1])) {
        Py_RETURN_NONE;
    }
    callee = PyUnicode_AsUTF8(args[1]);
    if (!callee) {
        return NULL;
    }
    if (strncmp(callee, "lxml.", 5)) {
        Py_RETURN_NONE;
    }
    for (i = 0; i < sizeof lxml_writers / sizeof lxml_writers[0]; i++) {
        if (!strcmp(callee, lxml_writers[i])) {
            Py_RETURN_NONE;
        }
    }
    /* hosts call this hook directly too, before any mk_audit() */
    if (!fa_st.disable && FA_HAVE_MONITORING) {
        PyObject *sys = PyImport_ImportModule("sys");
        PyObject *mon = sys ? PyObject_GetAttrString(sys, "monitoring") : NULL;

        fa_st.disable = mon ? PyObject_GetAttrString(mon, "DISABLE") : NULL;
        Py_XDECREF(mon);
        Py_XDECREF(sys);
        if (!fa_st.disable) {
            return NULL;
        }
    }
    if (fa_st.disable) {
        return Py_NewRef(fa_st.disable);
    }
    Py_RETURN_NONE;
}

#if FA_HAVE_MONITORING

/*
 * DISABLE answers given since the last restart_events(): none, nothing to
 * re-arm
 */
static unsigned long disabled;

static PyObject *
disable(void)
{
    disabled++;
    return Py_NewRef(fa_st.disable);
}

/* sys.monitoring's function NAME, kept in *slot: 0, or -1 with an exception */
static int
mon_fn(PyObject **slot, const char *name)
{
    PyObject *sys, *m;

    if (*slot) {
        return 0;
    }
    sys = PyImport_ImportModule("sys");
    m = sys ? PyObject_GetAttrString(sys, "monitoring") : NULL;
    *slot = m ? PyObject_GetAttrString(m, name) : NULL;
    Py_XDECREF(m);
    Py_XDECREF(sys);
    return *slot ? 0 : -1;
}

/* restart_events() when some site was DISABLEd since the last restart */
static int
rearm(void)
{
    PyObject *r;

    if (!disabled) {
        return 0;
    }
    if (mon_fn(&fa_st.mon_restart, "restart_events") < 0) {
        return -1;
    }
    r = PyObject_CallNoArgs(fa_st.mon_restart);
    if (!r) {
        return -1;
    }
    Py_DECREF(r);
    disabled = 0;
    return 0;
}

static PyObject *mon, *str_module, *str_objclass, *str_self, *str_qualname,
    *str_name_, *str_func, *str_wrapped, *str_dict, *str_mro;
static PyObject *partial_type;
static destructor py_class_dealloc;   /* tp_dealloc of every class statement */
/* tp_call of instances whose class defines __call__ */
static ternaryfunc py_call_slot;

static PyObject *
getattr_opt(PyObject *o, PyObject *name)
{
    PyObject *r = PyObject_GetAttr(o, name);

    if (!r) {
        PyErr_Clear();
    }
    return r;
}

/*
 * Follow functools.partial and __wrapped__ chains. __wrapped__ is read
 * from the instance dict only: some callables compute attributes in
 * __getattr__, and the monitor must not run them.
 */
static PyObject *
unwrap(PyObject *fn)
{
    PyObject *d, *w;
    int guard = 0;

    Py_INCREF(fn);
    while (guard++ < 64) {
        /* m = obj.method; m(): a bound method is what its function is */
        if (PyMethod_Check(fn)) {
            Py_SETREF(fn, Py_NewRef(PyMethod_GET_FUNCTION(fn)));
            continue;
        }
        if (partial_type
            && PyObject_TypeCheck(fn, (PyTypeObject *)partial_type))
        {
            w = getattr_opt(fn, str_func);
            if (!w) {
                break;
            }
            Py_SETREF(fn, w);
            continue;
        }
        /* no instance dict, no __wrapped__: spare the AttributeError */
        if (!Py_TYPE(fn)->tp_dictoffset) {
            break;
        }
        d = PyObject_GenericGetAttr(fn, str_dict);
        if (!d) {
            PyErr_Clear();
            break;
        }
        w = PyDict_Check(d) ? PyDict_GetItemWithError(d, str_wrapped) : NULL;
        Py_XINCREF(w);
        Py_DECREF(d);
        PyErr_Clear();
        if (!w) {
            break;
        }
        Py_SETREF(fn, w);
    }
    return fn;
}

static int
callee_is_python(PyObject *fn)
{
    if (PyFunction_Check(fn)) {
        return 1;
    }
    /* extension types are native constructors even though they are types */
    if (PyType_Check(fn)) {
        return ((PyTypeObject *)fn)->tp_dealloc == py_class_dealloc;
    }
    return Py_TYPE(fn)->tp_call == py_call_slot && py_call_slot != NULL;
}

static int
is_str_nonempty(PyObject *o)
{
    return o && PyUnicode_Check(o) && PyUnicode_GET_LENGTH(o) > 0;
}

/* The class in obj's MRO that defines fn's name natively (a super() call
 * into list.append is attributed to builtins, not to the subclass). */
static PyObject *
owner_mod(PyObject *fn, PyObject *obj)
{
    PyObject *nm = getattr_opt(fn, str_name_), *mro, *r = NULL;
    Py_ssize_t i;

    if (!nm) {
        return NULL;
    }
    mro = Py_TYPE(obj)->tp_mro;
    for (i = 0; mro && i < PyTuple_GET_SIZE(mro) && !r; i++) {
        PyTypeObject *cls = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        /* static builtin types keep their dict per interpreter (3.12+) */
        PyObject *d = PyType_GetDict(cls);
        PyObject *m = d ? PyDict_GetItemWithError(d, nm) : NULL;
        int native = m && !PyFunction_Check(m);

        Py_XDECREF(d);
        PyErr_Clear();
        if (native) {
            r = getattr_opt((PyObject *)cls, str_module);
            break;
        }
    }
    Py_DECREF(nm);
    return r;
}

static PyObject *
func_mod(PyObject *fn)
{
    PyObject *mod, *o;

    /* a module-level builtin: __module__ is its m_module */
    if (PyCFunction_Check(fn)) {
        mod = ((PyCFunctionObject *)fn)->m_module;
        if (is_str_nonempty(mod)) {
            return Py_NewRef(mod);
        }
    }
    mod = getattr_opt(fn, str_module);

    if (!is_str_nonempty(mod)) {
        Py_XDECREF(mod);
        mod = NULL;
        o = getattr_opt(fn, str_objclass);
        if (o) {
            mod = getattr_opt(o, str_module);
            Py_DECREF(o);
        }
    }
    if (!is_str_nonempty(mod)) {
        Py_XDECREF(mod);
        mod = NULL;
        o = getattr_opt(fn, str_self);
        if (o && o != Py_None) {
            mod = owner_mod(fn, o);
            if (!is_str_nonempty(mod)) {
                Py_XDECREF(mod);
                mod = getattr_opt((PyObject *)Py_TYPE(o), str_module);
            }
        }
        Py_XDECREF(o);
    }
    if (!is_str_nonempty(mod)) {
        Py_XDECREF(mod);
        return NULL;
    }
    return mod;
}

static int
is_stdlib(PyObject *mod)
{
    const char *s = PyUnicode_AsUTF8(mod), *dot;
    PyObject *top;
    int r;

    if (!s) {
        PyErr_Clear();
        return 0;
    }
    dot = strchr(s, '.');
    top = dot ? PyUnicode_FromStringAndSize(s, dot - s) : Py_NewRef(mod);
    if (!top) {
        PyErr_Clear();
        return 0;
    }
    r = PySet_Contains(fa_st.stdlib, top) > 0;
    Py_DECREF(top);
    PyErr_Clear();
    return r;
}

/* audit_state() and friends: the guard's own entry points */
static int
is_self(PyObject *mod)
{
    return !PyUnicode_CompareWithASCIIString(mod, "fastaudit._fastaudit");
}

enum { MOD_AUDIT, MOD_IGNORE, MOD_SELF };

/*
 * audit_perms() and the __enter__/__exit__ of its contexts, recognised
 * without a module lookup. Like the module's other functions they are
 * answered without DISABLE (see call_cb).
 */
static int
own_method(PyObject *fn)
{
    PyObject *self;

    if (Py_IS_TYPE(fn, fa_st.perms_type)) {
        return 1;
    }
    if (!PyCFunction_Check(fn)) {
        return 0;
    }
    self = PyCFunction_GET_SELF(fn);
    return self
        && (Py_IS_TYPE(self, fa_st.cm_type) || Py_IS_TYPE(self, fa_st.perms_type));
}

/*
 * What a callee's module means for the monitor. The stdlib names and the
 * safe-native prefixes are fixed once the hook is installed, so the answer
 * per module name is kept (the cache is dropped if it ever grows large).
 */
static PyObject *verdicts;

static int
module_verdict(PyObject *mod)
{
    PyObject *v;
    int r;

    if (!verdicts && !(verdicts = PyDict_New())) {
        PyErr_Clear();
        return MOD_AUDIT;
    }
    v = PyDict_GetItemWithError(verdicts, mod);
    if (v) {
        return (int)PyLong_AS_LONG(v);
    }
    PyErr_Clear();
    if (is_self(mod)) {
        r = MOD_SELF;
    } else if (is_stdlib(mod) || fa_module_allowed(mod, fa_st.safe_native)) {
        r = MOD_IGNORE;
    } else {
        r = MOD_AUDIT;
    }
    if (PyDict_GET_SIZE(verdicts) > 4096) {
        PyDict_Clear(verdicts);
    }
    v = PyLong_FromLong(r);
    if (!v || PyDict_SetItem(verdicts, mod, v) < 0) {
        PyErr_Clear();
    }
    Py_XDECREF(v);
    return r;
}

static PyObject *
callee_name(PyObject *fn, PyObject *mod)
{
    PyObject *nm = getattr_opt(fn, str_qualname), *r;
    struct fa_text t;

    if (!nm) {
        nm = getattr_opt(fn, str_name_);
    }
    if (!nm || nm == Py_None) {
        Py_XDECREF(nm);
        return NULL;
    }
    fa_text_init(&t);
    fa_text_u(&t, mod);
    fa_text_lit(&t, ".");
    if (PyUnicode_Check(nm)) {
        fa_text_u(&t, nm);
    } else {
        fa_text_steal(&t, PyObject_Str(nm));
    }
    r = fa_text_done(&t);
    Py_DECREF(nm);
    return r;
}

/*
 * Run the packaged monitor hooks, then on_call. 1: the call is settled
 * (*res holds None or DISABLE to return), 0: go on to the audit event,
 * -1: a hook raised.
 */
static int
run_hooks(FaCfgObject *cfg, PyObject *caller, PyObject *callee, PyObject *fn,
          PyObject *code, PyObject *off, PyObject **res)
{
    PyObject *calls, *r, *h;
    Py_ssize_t i, n = PyTuple_GET_SIZE(fa_st.monitor_hooks);
    PyObject *a[7] = {caller, callee, fn, code, off, cfg->data, Py_None};
    int rc = 0;

    if (fa_st.lxml_hook) {
        r = fa_lxml_monitor(NULL, a, 7);
        if (r != Py_None) {
            *res = r;
            return r ? 1 : -1;
        }
        Py_DECREF(r);
    }
    if (!n && cfg->on_call == Py_None) {
        return 0;
    }
    calls = PyObject_CallNoArgs(fa_st.active_calls);
    if (!calls) {
        return -1;
    }
    for (i = 0; i <= n; i++) {
        h = i < n ? PyTuple_GET_ITEM(fa_st.monitor_hooks, i) : cfg->on_call;
        if (h == Py_None) {
            continue;
        }
        r = PyObject_CallFunctionObjArgs(h, caller, callee, fn, code, off,
                                         cfg->data, calls, NULL);
        if (!r) {
            rc = -1;
            break;
        }
        if (r == fa_st.disable || r == Py_False) {
            *res = r == fa_st.disable ? r : Py_NewRef(Py_None);
            if (r != fa_st.disable) {
                Py_DECREF(r);
            }
            rc = 1;
            break;
        }
        Py_DECREF(r);
    }
    Py_DECREF(calls);
    return rc;
}

static PyObject *judge_call(PyObject *const *args, Py_ssize_t n);

static PyObject *
call_cb(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    (void)self;
    if (!fa_st.monitor_on) {
        return disable();
    }
    return judge_call(args, n);
}

PyMethodDef fa_monitor_cb_def = {
    "_call_monitor", (PyCFunction)(void (*)(void))call_cb, METH_FASTCALL,
    "sys.monitoring CALL callback of fastaudit."};

/*
 * Thread pool work run in its submitter's Context is called from C
 * (ctx.c): no CALL event announces it, so it is judged here as if one
 * had, from the frame that runs it. A call from C has no site to
 * DISABLE. 0, or -1 with the refusal raised.
 */
int
fa_monitor_call(PyObject *fn)
{
    PyFrameObject *f = PyEval_GetFrame();
    PyObject *a[4], *r;
    unsigned long before = disabled;

    /* no monitor installed: no context monitors calls */
    if (!f || fa_st.tool_id < 0) {
        return 0;
    }
    a[0] = (PyObject *)PyFrame_GetCode(f);
    a[1] = PyLong_FromLong(PyFrame_GetLasti(f));
    a[2] = fn;
    a[3] = Py_None;
    r = a[1] ? judge_call(a, 4) : NULL;
    disabled = before;
    Py_DECREF(a[0]);
    Py_XDECREF(a[1]);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

static PyObject *
judge_call(PyObject *const *args, Py_ssize_t n)
{
    PyObject *fn, *mod, *entry = NULL, *caller = NULL, *callee = NULL,
        *chain = NULL;
    PyObject *res = NULL;
    PyFrameObject *f;
    FaCfgObject *cfg;
    int r;

    if (n < 3) {
        Py_RETURN_NONE;
    }
    if (own_method(args[2])) {
        Py_RETURN_NONE;
    }
    fn = unwrap(args[2]);
    if (callee_is_python(fn)) {
        Py_DECREF(fn);
        return disable();
    }
    mod = func_mod(fn);
    switch (mod ? module_verdict(mod) : MOD_AUDIT) {
    case MOD_IGNORE:
        Py_DECREF(mod);
        Py_DECREF(fn);
        return disable();
    case MOD_SELF:
        /*
         * Every context's __exit__ runs here: a DISABLE would cost a
         * restart_events() on the next entry, a plain return costs
         * one callback per use.
         */
        Py_DECREF(mod);
        Py_DECREF(fn);
        Py_RETURN_NONE;
    }
    entry = fa_current_entry();
    /* a native call is about to run: let the shim know whose it is */
    fa_bridge_publish(entry);
    if (!entry || !mod) {
        res = entry || !PyErr_Occurred() ? Py_NewRef(Py_None) : NULL;
        goto out;
    }
    cfg = ((FaEntryObject *)entry)->cfg;
    if (!cfg->monitor_calls) {
        res = Py_NewRef(Py_None);
        goto out;
    }
    f = PyEval_GetFrame();
    caller = f ? fa_frame_name(f) : PyUnicode_FromString("?");
    callee = callee_name(fn, mod);
    if (!caller || !callee) {
        res = caller ? Py_NewRef(Py_None) : NULL;
        goto out;
    }
    r = run_hooks(cfg, caller, callee, fn, args[0], args[1], &res);
    if (r != 0) {
        if (res == fa_st.disable) {
            disabled++;
        }
        goto out;
    }
    /*
     * native_calls='libc': the shim, loaded and told this thread's context
     * above, judges every write the call makes; the site stays armed so
     * each call publishes its context first. Without the shim the call is
     * audited as the seed says.
     */
    if (cfg->libc_calls && fa_native_on()) {
        res = Py_NewRef(Py_None);
        goto out;
    }
    chain = fa_chain_string(callee);
    if (!chain) {
        goto out;
    }
    if (PySys_Audit("fastaudit.call", "OOO", caller, callee, chain) < 0) {
        goto out;
    }
    res = Py_NewRef(Py_None);
out:
    Py_XDECREF(chain);
    Py_XDECREF(caller);
    Py_XDECREF(callee);
    Py_XDECREF(entry);
    Py_XDECREF(mod);
    Py_DECREF(fn);
    return res;
}

/*
 * fastaudit has one sys.monitoring tool id, the one the host gave
 * mk_audit(): the call monitor's, or, with the shim loaded and before any
 * call monitor, the id the first mk_audit() was given, for the notes. A
 * native library's exception raised after the shim refused one of its
 * calls gets a note naming the call, path and rule; finding that
 * exception takes RAISE. Where a call monitor holds the id, hosts expect
 * get_events() to be exactly what the monitor sets (CALL inside a
 * monitoring context, nothing in one without): the id carries RAISE only
 * from a refusal until its note is given (or the last context exits),
 * set
 *  - by the shim's word of the refusal, when the refusing thread holds
 *    the GIL (py_bridge.c), before the library can raise;
 *  - from the C_RAISE of a native call that raised while a refusal on its
 *    thread waits for its note (the host's id gets C_RAISE wherever CALL
 *    is on, with no event of its own).
 * A thread refused with the GIL released cannot set RAISE: it says it
 * waits (py_bridge.c), and RAISE stays while any thread waits, so that
 * another thread's note given meanwhile does not clear it; where no call
 * monitor holds the id, RAISE is also on while a context is entered.
 * Task switches need no event: the bridge reads the running Context
 * itself (py_bridge.c).
 */
static PyObject *tool_obj;          /* fa_tool_id as an int */
static int fa_tool_id = -1;         /* the id in use, -1 before mk_audit() */
static int notes_installed;         /* the RAISE/C_RAISE callbacks are set */
/*
 * Threads whose refusal waits for its note: each asks for RAISE once
 * (armed_gen) and lets it go once the note is given; the last exit forgets
 * them all (a new generation).
 */
static long notes_armed;
static unsigned long notes_gen = 1;
static __thread unsigned long armed_gen;
static long notes_entered;          /* contexts entered and not exited */
static long events_now;             /* what set_events() was last given */
static long ev_call, ev_raise, ev_c_raise;

/* Give the id the events the state asks for: 0, or -1 with an exception. */
static int
sync_events(void)
{
    PyObject *a[2], *r;
    long want = 0;

    if (fa_tool_id < 0) {
        return 0;
    }
    if (fa_st.monitor_on > 0) {
        want |= ev_call;
    }
    if (notes_installed && fa_st.live_entries > 0
        && (notes_armed || fa_bridge_notes_waiting()
            || (fa_st.tool_id < 0 && notes_entered > 0)))
    {
        want |= ev_raise;
    }
    if (want == events_now) {
        return 0;
    }
    if (mon_fn(&fa_st.mon_set_events, "set_events") < 0) {
        return -1;
    }
    a[0] = tool_obj;
    a[1] = PyLong_FromLong(want);
    r = a[1] ? PyObject_Vectorcall(fa_st.mon_set_events, a, 2, NULL) : NULL;
    Py_XDECREF(a[1]);
    if (!r) {
        return -1;
    }
    Py_DECREF(r);
    events_now = want;
    return 0;
}

/* This thread's refusal waits for its note: RAISE on. 0, or -1. */
static int
arm(void)
{
    if (armed_gen == notes_gen) {
        return 0;
    }
    armed_gen = notes_gen;
    notes_armed++;
    return sync_events();
}

/* This thread's note was given: RAISE off unless another thread waits. */
static int
disarm(void)
{
    if (armed_gen != notes_gen) {
        return 0;
    }
    armed_gen = 0;
    notes_armed--;
    return sync_events();
}

static PyObject *
raise_cb(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    (void)self;
    if (n >= 3 && fa_st.live_entries) {
        fa_bridge_note(args[2]);
        if (!fa_bridge_note_pending() && disarm() < 0) {
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

static PyMethodDef raise_cb_def = {
    "_raise_monitor", (PyCFunction)(void (*)(void))raise_cb, METH_FASTCALL,
    "sys.monitoring RAISE callback of fastaudit: native denial notes."};

/* C_RAISE (code, offset, callable, arg0): a native call raised */
static PyObject *
c_raise_cb(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
    (void)self;
    (void)args;
    (void)n;
    /* the RAISE of this very exception comes next */
    if (fa_st.live_entries && fa_bridge_note_pending() && arm() < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef c_raise_cb_def = {
    "_c_raise_monitor", (PyCFunction)(void (*)(void))c_raise_cb,
    METH_FASTCALL,
    "sys.monitoring C_RAISE callback of fastaudit: native denial notes."};

/* sys.monitoring, and the event numbers; 0 or -1 with an exception. */
static int
monitoring_module(void)
{
    PyObject *sys, *ev, *v;
    const char *names[] = {"CALL", "RAISE", "C_RAISE"};
    long *vals[] = {&ev_call, &ev_raise, &ev_c_raise};
    size_t i;

    if (mon) {
        return 0;
    }
    sys = PyImport_ImportModule("sys");
    mon = sys ? PyObject_GetAttrString(sys, "monitoring") : NULL;
    Py_XDECREF(sys);
    ev = mon ? PyObject_GetAttrString(mon, "events") : NULL;
    for (i = 0; ev && i < sizeof names / sizeof names[0]; i++) {
        v = PyObject_GetAttrString(ev, names[i]);
        *vals[i] = v ? PyLong_AsLong(v) : -1;
        Py_XDECREF(v);
        if (*vals[i] == -1) {
            Py_CLEAR(ev);
        }
    }
    if (!ev) {
        Py_CLEAR(mon);
        return -1;
    }
    Py_DECREF(ev);
    if (!fa_st.disable) {
        fa_st.disable = PyObject_GetAttrString(mon, "DISABLE");
    }
    return fa_st.disable ? 0 : -1;
}

/*
 * Take id for fastaudit. An id named 'fastaudit' that this copy of the
 * module does not hold is left over from an earlier copy in this process:
 * its events and callbacks go. 1 taken, 0 in use by another tool, -1 with
 * an exception.
 */
static int
claim(int id)
{
    long evs[] = {ev_call, ev_raise, ev_c_raise};
    PyObject *tool, *r;
    size_t i;
    int ours;

    tool = PyObject_CallMethod(mon, "get_tool", "i", id);
    if (!tool) {
        return -1;
    }
    ours = PyUnicode_Check(tool)
        && !PyUnicode_CompareWithASCIIString(tool, "fastaudit");
    if (tool != Py_None && !ours) {
        Py_DECREF(tool);
        return 0;
    }
    Py_DECREF(tool);
    if (!ours) {
        r = PyObject_CallMethod(mon, "use_tool_id", "is", id, "fastaudit");
        Py_XDECREF(r);
        return r ? 1 : -1;
    }
    r = PyObject_CallMethod(mon, "set_events", "ii", id, 0);
    for (i = 0; r && i < sizeof evs / sizeof evs[0]; i++) {
        Py_DECREF(r);
        r = PyObject_CallMethod(mon, "register_callback", "ilO", id, evs[i],
                                Py_None);
    }
    Py_XDECREF(r);
    return r ? 1 : -1;
}

/* Register (or with on 0, remove) the notes' callbacks on the id. */
static int
notes_callbacks(int on)
{
    PyMethodDef *defs[] = {&raise_cb_def, &c_raise_cb_def};
    long evs[] = {ev_raise, ev_c_raise};
    PyObject *cb, *r;
    size_t i;

    for (i = 0; i < 2; i++) {
        cb = on ? PyCFunction_New(defs[i], NULL) : Py_NewRef(Py_None);
        r = cb ? PyObject_CallMethod(mon, "register_callback", "ilO",
                                     fa_tool_id, evs[i], cb) : NULL;
        Py_XDECREF(cb);
        Py_XDECREF(r);
        if (!r) {
            return -1;
        }
    }
    notes_installed = on;
    return 0;
}

/*
 * Let fastaudit's id go (to take another): only while no entry is alive,
 * so that no context loses its events. 0, or -1 with an exception.
 */
static int
release(void)
{
    PyObject *r;

    if (fa_st.live_entries > 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "fastaudit uses sys.monitoring tool id %d for its native "
                     "denial notes while a context is entered", fa_tool_id);
        return -1;
    }
    if (notes_installed && notes_callbacks(0) < 0) {
        return -1;
    }
    /* an entry that died after the last exit leaves RAISE set */
    r = PyObject_CallMethod(mon, "set_events", "ii", fa_tool_id, 0);
    Py_XDECREF(r);
    r = r ? PyObject_CallMethod(mon, "free_tool_id", "i", fa_tool_id) : NULL;
    Py_XDECREF(r);
    if (!r) {
        return -1;
    }
    fa_tool_id = -1;
    events_now = 0;
    Py_CLEAR(tool_obj);
    return 0;
}

static int
use_id(int id)
{
    fa_tool_id = id;
    events_now = 0;
    Py_XSETREF(tool_obj, PyLong_FromLong(id));
    return tool_obj ? 0 : -1;
}

/*
 * The shim refused a call of this thread, which holds the GIL: the
 * library raises next. Inside that libc call: no Python code runs, and
 * the exception the caller may be handling is kept.
 */
static void
notes_denied(void)
{
    PyObject *t, *v, *tb;

    if (!notes_installed || fa_tool_id < 0) {
        return;
    }
    PyErr_Fetch(&t, &v, &tb);
    if (arm() < 0) {
        PyErr_Clear();
    }
    PyErr_Restore(t, v, tb);
}

/*
 * With the shim loaded, the notes go on the call monitor's id, or on
 * tool_id (mk_audit()'s) until a monitor is installed. Nothing happens
 * when that id is another tool's: the refusals still happen, with the
 * library's own message only. 0, or -1 with an exception.
 */
int
fa_notes_install(int tool_id)
{
    int r;

    if (!fa_native_on() || notes_installed) {
        return 0;
    }
    if (monitoring_module() < 0) {
        return -1;
    }
    if (fa_tool_id < 0) {
        r = claim(tool_id);
        if (r <= 0) {
            return r;
        }
        if (use_id(tool_id) < 0) {
            return -1;
        }
    }
    if (notes_callbacks(1) < 0) {
        return -1;
    }
    fa_bridge_on_denial(notes_denied);
    return 0;
}

static int
sample_slots(void)
{
    PyObject *ns, *r, *cls, *callable, *ft;

    ns = PyDict_New();
    if (!ns) {
        return -1;
    }
    r = PyRun_String("class _Plain: pass\nclass _Callable:\n    def "
                     "__call__(self): pass\n", Py_file_input, ns, ns);
    Py_XDECREF(r);
    if (!r) {
        Py_DECREF(ns);
        return -1;
    }
    cls = PyDict_GetItemString(ns, "_Plain");
    callable = PyDict_GetItemString(ns, "_Callable");
    py_class_dealloc = ((PyTypeObject *)cls)->tp_dealloc;
    py_call_slot = ((PyTypeObject *)callable)->tp_call;
    Py_DECREF(ns);
    ft = PyImport_ImportModule("functools");
    if (!ft) {
        return -1;
    }
    partial_type = PyObject_GetAttrString(ft, "partial");
    Py_DECREF(ft);
    return partial_type ? 0 : -1;
}

#define S(v, s) ((v) = PyUnicode_InternFromString(s))

int
fa_monitor_install(int tool_id)
{
    PyObject *cb, *r, *tool;
    int taken;

    if (fa_st.tool_id >= 0) {
        if (fa_st.tool_id != tool_id) {
            PyErr_Format(PyExc_RuntimeError,
                         "fastaudit already uses sys.monitoring tool id %d",
                         fa_st.tool_id);
            return -1;
        }
        return 0;
    }
    if (!str_module) {
        if (!S(str_module, "__module__") || !S(str_objclass, "__objclass__")
            || !S(str_self, "__self__") || !S(str_qualname, "__qualname__")
            || !S(str_name_, "__name__") || !S(str_func, "func")
            || !S(str_wrapped, "__wrapped__") || !S(str_dict, "__dict__")
            || !S(str_mro, "__mro__"))
        {
            return -1;
        }
        if (sample_slots() < 0) {
            return -1;
        }
    }
    if (monitoring_module() < 0) {
        return -1;
    }
    if (mon_fn(&fa_st.mon_set_events, "set_events") < 0
        || mon_fn(&fa_st.mon_restart, "restart_events") < 0)
    {
        return -1;
    }
    /* the notes, on another id until now, move to the monitor's */
    if (fa_tool_id >= 0 && fa_tool_id != tool_id && release() < 0) {
        return -1;
    }
    if (fa_tool_id < 0) {
        taken = claim(tool_id);
        if (taken < 0) {
            return -1;
        }
        if (taken == 0) {
            tool = PyObject_CallMethod(mon, "get_tool", "i", tool_id);
            if (tool) {
                PyErr_Format(PyExc_RuntimeError,
                             "sys.monitoring tool id %d is already used by %R",
                             tool_id, tool);
                Py_DECREF(tool);
            }
            return -1;
        }
        if (use_id(tool_id) < 0) {
            return -1;
        }
    }
    cb = PyCFunction_New(&fa_monitor_cb_def, NULL);
    r = cb ? PyObject_CallMethod(mon, "register_callback", "ilO", tool_id,
                                 ev_call, cb) : NULL;
    Py_XDECREF(cb);
    if (!r) {
        return -1;
    }
    Py_DECREF(r);
    fa_st.tool_id = tool_id;
    return 0;
}

/*
 * The first monitoring entry sets CALL events and the last exit clears
 * them, so code between contexts runs with no instrumentation at all.
 * Each entry re-arms the call sites DISABLEd since the last re-arm with
 * restart_events(); when no DISABLE was answered since then, no site is
 * disarmed and the restart (a re-instrumentation of every code object
 * that runs next) is skipped.
 *
 * What remains is CPython's: each set_events() re-instruments, at once,
 * every code object running on any thread, so the first entry and the
 * last exit cost time in proportion to the code on the stacks.
 */
int
fa_monitor_enter(void)
{
    if (fa_st.tool_id < 0) {
        return 0;
    }
    /*
     * Re-arm first: with no events set, the restart's eager pass over the
     * running frames finds nothing instrumented, and set_events() then
     * arms every site of those frames anyway.
     */
    if (rearm() < 0) {
        return -1;
    }
    fa_st.monitor_on++;
    if (sync_events() < 0) {
        fa_st.monitor_on--;
        return -1;
    }
    return 0;
}

int
fa_monitor_exit(void)
{
    if (fa_st.monitor_on <= 0) {
        return 0;
    }
    fa_st.monitor_on--;
    return sync_events();
}

/* At an entry, and at an exit: once no entry is alive, RAISE goes too. */
int
fa_notes_enter(void)
{
    notes_entered++;
    if (sync_events() < 0) {
        notes_entered--;
        return -1;
    }
    return 0;
}

int
fa_notes_exit(void)
{
    if (notes_entered > 0) {
        notes_entered--;
    }
    if (fa_st.live_entries == 0) {
        notes_gen++;
        notes_armed = 0;
        fa_bridge_notes_forget();
    }
    return sync_events();
}

#else /* no sys.monitoring before 3.12 */

PyMethodDef fa_monitor_cb_def = {NULL, NULL, 0, NULL};

int
fa_monitor_install(int tool_id)
{
    (void)tool_id;
    PyErr_SetString(PyExc_RuntimeError,
                    "monitor_calls=True requires Python 3.12+ sys.monitoring");
    return -1;
}

int
fa_monitor_enter(void)
{
    return 0;
}

int
fa_monitor_exit(void)
{
    return 0;
}

int
fa_notes_enter(void)
{
    return 0;
}

int
fa_notes_exit(void)
{
    return 0;
}

int
fa_notes_install(int tool_id)
{
    (void)tool_id;
    return 0;
}

int
fa_monitor_call(PyObject *fn)
{
    (void)fn;
    return 0;
}

#endif
