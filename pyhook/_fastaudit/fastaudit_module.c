/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fastaudit_module.c - fastaudit._fastaudit: mk_audit(), audit_state() and the
 * module definition (PEP 489 multi-phase init).
 *
 * The enforcement state is process-wide (see hook.c), so the module is
 * declared unusable from subinterpreters rather than pretending each
 * interpreter has its own hook.
 */
#include "parts.h"
#include "../py_symlinks.h"

#include <string.h>

static char *mk_audit_kw[] = {
    "roots", "before_deny", "on_call", "data", "tool_id", "monitor_calls",
    "allow_imports", "native", "allow_outside_symlinks", "native_calls",
    "policy", "learn", "symlinks", "preset", "threads", "trust_imports",
    "deny", "deny_read", NULL,
};

/*
 * One of choices (NULL-terminated) or NULL (None or left out): its index,
 * the default's (-1 for NULL) when left out, or -2 with ValueError.
 */
static int
choice(const char *kw, const char *given, const char *const *choices,
       int dflt)
{
    char list[128];
    size_t o = 0;
    int i;

    if (!given) {
        return dflt;
    }
    for (i = 0; choices[i]; i++) {
        if (!strcmp(given, choices[i])) {
            return i;
        }
    }
    /* 'a', 'b' or 'c' */
    for (i = 0; choices[i] && o < sizeof list; i++) {
        o += (size_t)snprintf(list + o, sizeof list - o, "%s'%s'",
                              i == 0 ? "" : choices[i + 1] || dflt < 0 ? ", " : " or ",
                              choices[i]);
    }
    PyErr_Format(PyExc_ValueError, "%s must be %s%s, not '%s'", kw, list,
                 dflt < 0 ? " or None" : "", given);
    return -2;
}

static const char *const presets[] = {"data", NULL};
static const char *const native_calls_modes[] = {"audit", "libc", NULL};
static const char *const threads_modes[] = {"deny", "context", NULL};
static const char *const trust_modes[] = {"named", "stdlib", "installed", NULL};

static PyObject *
mk_audit(PyObject *self, PyObject *args, PyObject *kw)
{
    PyObject *roots = NULL, *policy = Py_None, *learner = NULL,
        *before_deny = Py_None, *on_call = Py_None, *data = Py_None;
    PyObject *allow_imports = NULL, *pol = NULL, *imports = NULL, *cfg = NULL,
        *r = NULL;
    PyObject *symlinks_arg = NULL, *monitor_arg = NULL, *preset_arg = Py_None;
    struct fa_py_denies dn = { NULL, NULL };
    enum fa_symlinks mode;
    int symlinks = -1;
    const char *native = "auto", *native_calls = NULL, *threads = NULL,
        *trust_imports = NULL;
    int tool_id = 3, monitor_calls, outside_symlinks = 0, learn = 0, on;
    int record = -1, preset = -1, libc_calls, follow, trust;

    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOOiOO$spzOpOOzzOO:mk_audit",
                                     mk_audit_kw, &roots,
                                     &before_deny, &on_call, &data, &tool_id,
                                     &monitor_arg,
                                     &allow_imports, &native,
                                     &outside_symlinks, &native_calls,
                                     &policy, &learn, &symlinks_arg,
                                     &preset_arg, &threads, &trust_imports,
                                     &dn.deny, &dn.deny_read))
    {
        return NULL;
    }
    /* preset='data': the host mode; each keyword given still decides */
    if (preset_arg != Py_None) {
        if (!PyUnicode_Check(preset_arg)) {
            PyErr_Format(PyExc_ValueError,
                         "preset must be 'data' or None, not %R", preset_arg);
            return NULL;
        }
        preset = choice("preset", PyUnicode_AsUTF8(preset_arg), presets, -1);
        if (preset < -1 || PyErr_Occurred()) {
            return NULL;
        }
    }
    libc_calls = choice("native_calls", native_calls, native_calls_modes,
                        preset >= 0);
    follow = choice("threads", threads, threads_modes, preset >= 0);
    /* The standard library is trusted while it initialises by default. */
    trust = choice("trust_imports", trust_imports, trust_modes, preset >= 0 ? 2 : 1);
    if (libc_calls < 0 || follow < 0 || trust < 0) {
        return NULL;
    }
    if (monitor_arg) {
        monitor_calls = PyObject_IsTrue(monitor_arg);
        if (monitor_calls < 0) {
            return NULL;
        }
    } else {
        /* the preset monitors native calls where Python can */
        monitor_calls = preset >= 0 ? FA_HAVE_MONITORING : 1;
    }
    if (symlinks_arg && symlinks_arg != Py_None) {
        if (fa_py_symlinks(symlinks_arg, FA_SYM_TRUST, &mode) < 0) {
            return NULL;
        }
        symlinks = (int)mode;
    }
    /* roots may be left out only when a policy file gives them */
    if (!roots && policy == Py_None) {
        PyErr_SetString(PyExc_TypeError, "mk_audit() missing required "
                        "argument 'roots' (pos 1)");
        return NULL;
    }
    if (learn && before_deny != Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "mk_audit(learn=True) approves every refusal itself: "
                        "a before_deny would never be asked");
        return NULL;
    }
    if (strcmp(native, "auto") && strcmp(native, "require")) {
        PyErr_Format(PyExc_ValueError,
                     "native must be 'auto' or 'require', not '%s'", native);
        return NULL;
    }
    if (!strcmp(native, "require") && !fa_native_on()) {
        /* The package knows where its shim is and how this process was
         * started, so the message can give the exact command. */
        PyObject *hint = NULL,
            *shim = PyImport_ImportModule("fastaudit._shim");

        if (shim) {
            hint = PyObject_CallMethod(shim, "reexec_hint", NULL);
        }
        Py_XDECREF(shim);
        if (!hint) {
            PyErr_Clear();
            hint = PyUnicode_FromString("run it under fa-run, or with "
                                        "LD_PRELOAD=libfashim.so");
            if (!hint) {
                return NULL;
            }
        }
        PyErr_Format(PyExc_RuntimeError,
                     "mk_audit(native='require'): native checks are off: %s; "
                     "%U", fa_native_reason(), hint);
        Py_DECREF(hint);
        return NULL;
    }
    if (fa_install() < 0) {
        return NULL;
    }
    if (PySys_Audit("audit_perms.set_config", "O",
                    roots ? roots : policy) < 0)
    {
        return NULL;
    }
    on = PyObject_IsTrue(on_call);
    if (on < 0) {
        return NULL;
    }
    if (on && !monitor_calls) {
        PyErr_SetString(PyExc_RuntimeError,
                        "on_call requires monitor_calls=True");
        return NULL;
    }
    if (monitor_calls && fa_monitor_install(tool_id) < 0) {
        return NULL;
    }
    if (fa_notes_install(tool_id) < 0) {
        return NULL;
    }
    if (trust && fa_trust_init() < 0) {
        return NULL;
    }
    pol = fa_policy_for(policy, roots, symlinks, outside_symlinks, learn, &dn);
    if (!pol) {
        return NULL;
    }
    if (learn && !(learner = fa_learner_new(&record))) {
        Py_DECREF(pol);
        return NULL;
    }
    if (allow_imports) {
        imports = fa_mods_union(fa_st.import_allow, allow_imports);
    } else {
        imports = Py_NewRef(fa_st.import_allow);
    }
    if (imports) {
        cfg = fa_cfg_new((FaPolicyObject *)pol, before_deny,
                         on ? on_call : Py_None, data, imports, monitor_calls);
    }
    if (cfg) {
        ((FaCfgObject *)cfg)->libc_calls = libc_calls;
        ((FaCfgObject *)cfg)->preset = preset >= 0;
        ((FaCfgObject *)cfg)->threads_follow = follow;
        ((FaCfgObject *)cfg)->trust_installed = trust;
        ((FaCfgObject *)cfg)->learner = Py_XNewRef(learner);
        ((FaCfgObject *)cfg)->learn_fd = learner ? record : -1;
        r = fa_perms_new((FaCfgObject *)cfg);
    }
    Py_XDECREF(cfg);
    Py_XDECREF(imports);
    Py_XDECREF(learner);
    Py_DECREF(pol);
    return r;
}

static PyObject *
audit_state(PyObject *self, PyObject *unused)
{
    PyObject *entry, *d, *tid;
    FaCfgObject *cfg;

    (void)self;
    (void)unused;
    if (fa_install() < 0) {
        return NULL;
    }
    entry = fa_current_entry();
    if (!entry && PyErr_Occurred()) {
        return NULL;
    }
    cfg = entry ? ((FaEntryObject *)entry)->cfg : NULL;
    tid = fa_st.tool_id < 0 ? Py_NewRef(Py_None)
        : PyLong_FromLong(fa_st.tool_id);
    d = Py_BuildValue("{s:O,s:O,s:N,s:O,s:O,s:n,s:n,s:O,s:O,s:O,s:s,s:K,s:N,"
                      "s:N}",
                      "safe_native", fa_st.safe_native,
                      "monitoring", FA_HAVE_MONITORING ? Py_True : Py_False,
                      "tool_id", tid,
                      "active", entry ? Py_True : Py_False,
                      "roots", cfg ? cfg->pol->roots : Py_None,
                      "monitor_on", fa_st.monitor_on,
                      "live_entries", fa_st.live_entries,
                      "monitor_calls",
                      cfg ? (cfg->monitor_calls ? Py_True : Py_False)
                          : Py_None,
                      "import_allow",
                      cfg ? cfg->import_allow : fa_st.import_allow,
                      "native", fa_native_on() ? Py_True : Py_False,
                      "native_reason",
                      fa_native_on() ? "libfashim.so loaded"
                                     : fa_native_reason(),
                      "native_denial_count", fa_native_denial_count(),
                      "native_denials", fa_native_denials(),
                      "denials", fa_all_denials());
    /*
     * A context of preset='data' (or of its modes) says how its native calls
     * are judged: at libc, by the call monitor, or not at all, and why.
     */
    if (d && cfg
        && (cfg->preset || cfg->libc_calls || cfg->threads_follow
            || cfg->trust_installed == FA_TRUST_INSTALLED))
    {
        const char *how, *why;
        PyObject *extra;

        if (cfg->libc_calls && fa_native_on()) {
            how = "libc";
            why = "judged at libc by libfashim.so against the context's roots";
        } else if (cfg->monitor_calls) {
            how = "audit";
            why = cfg->libc_calls
                ? "audited by the call monitor (fail closed): libfashim.so "
                  "is not loaded; run under fa-run or with "
                  "LD_PRELOAD=libfashim.so to judge them at libc"
                : "audited by the call monitor (native_calls='audit')";
        } else {
            how = "unchecked";
            why = FA_HAVE_MONITORING
                ? "neither monitored (monitor_calls=False) nor judged at libc "
                  "(libfashim.so is not loaded, or native_calls='audit')"
                : "no call monitor before Python 3.12, and libfashim.so is "
                  "not loaded: run under fa-run or with "
                  "LD_PRELOAD=libfashim.so";
        }
        extra = Py_BuildValue("{s:s,s:s,s:s,s:s,s:s}",
                              "preset", cfg->preset ? "data" : "",
                              "native_calls", how,
                              "native_calls_why", why,
                              "threads",
                              cfg->threads_follow ? "context" : "deny",
                              "trust_imports",
                              trust_modes[cfg->trust_installed]);
        if (extra && !cfg->preset) {
            PyDict_SetItemString(extra, "preset", Py_None);
        }
        if (!extra || PyDict_Update(d, extra) < 0) {
            Py_CLEAR(d);
        }
        Py_XDECREF(extra);
    }
    /*
     * Only in a learning context, so that every other snapshot keeps the
     * reference's keys.
     */
    if (d && cfg && cfg->learner) {
        PyObject *sug = PyObject_CallMethod(cfg->learner, "suggested_roots",
                                            NULL);

        if (!sug || PyDict_SetItemString(d, "suggested_roots", sug) < 0) {
            Py_CLEAR(d);
        }
        Py_XDECREF(sug);
    }
    Py_XDECREF(entry);
    return d;
}

static PyObject *
native_denials(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return fa_native_denials();
}

static PyObject *
recent_denials(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return fa_all_denials();
}

/*
 * fastaudit.core hands over what the hook calls back: the extension lies
 * below the package and never imports it by name. The first call's parts
 * stay: a later one (the package loaded again in another interpreter,
 * which the hook does not serve, or any caller) changes nothing.
 */
static PyObject *
package_parts(PyObject *self, PyObject *args)
{
    PyObject *eps, *learner;

    (void)self;
    if (!PyArg_ParseTuple(args, "OO:_package", &eps, &learner)) {
        return NULL;
    }
    if (!PyCallable_Check(eps) || !PyCallable_Check(learner)) {
        PyErr_SetString(PyExc_TypeError,
                        "_package(entry_points, learner): both are callables");
        return NULL;
    }
    if (fa_st.core_entry_points) {
        Py_RETURN_NONE;
    }
    fa_st.core_entry_points = Py_NewRef(eps);
    fa_st.core_learner = Py_NewRef(learner);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"native_denials", native_denials, METH_NOARGS,
     "native_denials($module, /)\n--\n\n"
     "Recent writes and process starts refused by libfashim.so, oldest "
     "first,\nas dicts with the fields of the shim's log line (an empty "
     "list without it)."},
    {"recent_denials", recent_denials, METH_NOARGS,
     "recent_denials($module, /)\n--\n\n"
     "Recent denials of every layer, oldest first: the audit hook's and the "
     "call monitor's\n"
     "(layer 'hook') and libfashim.so's (layer 'libc'), also those a library "
     "swallowed."},
    {"mk_audit", (PyCFunction)(void (*)(void))mk_audit,
     METH_VARARGS | METH_KEYWORDS,
     "mk_audit(roots, before_deny=None, on_call=None, data=None, tool_id=3,\n"
     "         monitor_calls=True, allow_imports=(), *, native='auto',\n"
     "         allow_outside_symlinks=False, native_calls=None, policy=None,\n"
     "         learn=False, symlinks=None, preset=None, threads=None,\n"
     "         trust_imports=None, deny=(), deny_read=())\n--\n\n"
     "Install the audit hook (once) and return an audit_perms context "
     "factory:\n"
     "inside `with audit_perms():` writes outside roots, process starts, "
     "thread\n"
     "starts and other sensitive events raise PermissionError.\n\n"
     "roots: directories writes may go to (None: anywhere; may be left out "
     "when a\n"
     "policy file gives them). before_deny(event, args, frame, msg, data, "
     "calls)\n"
     "may allow what would be refused; on_call sees calls into native code "
     "the\n"
     "call monitor (monitor_calls, Python 3.12+, sys.monitoring tool_id) "
     "audits;\n"
     "data goes to both; allow_imports names packages whose import-time "
     "events\n"
     "are allowed.\n\n"
     "Keyword-only:\n"
     "  native: 'auto', or 'require' (RuntimeError unless libfashim.so is "
     "loaded).\n"
     "  allow_outside_symlinks: symlinks may be made whatever their "
     "target.\n"
     "  native_calls: 'audit' (the call monitor refuses undeclared native "
     "calls)\n"
     "    or 'libc' (with libfashim.so loaded, their writes are judged at "
     "libc).\n"
     "  policy: a policy file; roots then add to its roots.\n"
     "  learn: refuse nothing, record what would have been refused\n"
     "    (audit_perms.learned()).\n"
     "  symlinks: 'trust', 'beneath' or 'nofollow'.\n"
     "  deny: deny subtrees (paths) and deny patterns ('**/.env', "
     "'secrets/**'),\n"
     "    protected as a whole from every write.\n"
     "  deny_read: patterns of files no read-open may reach ('secrets': "
     "the\n"
     "    built-in set of keys and credentials); directories may be "
     "listed.\n"
     "  threads: 'deny' (thread starts are refused; Python 3.12+, before "
     "which they\n"
     "    raise no event) or 'context' (a thread started inside runs in a "
     "copy of\n"
     "    the context).\n"
     "  trust_imports: modules trusted while they initialise, besides\n"
     "    allow_imports: 'named' (none), 'stdlib' (the standard library's;\n"
     "    the default) or 'installed' (also installed distributions'); never\n"
     "    a file beneath a root or written since the process started.\n"
     "  preset: None (the strict default) or 'data', the host mode: "
     "native_calls=\n"
     "    'libc', threads='context', trust_imports='installed', and "
     "monitor_calls\n"
     "    where the Python has it. Keywords given still decide."},
    {"_package", package_parts, METH_VARARGS,
     "_package(entry_points, learner, /)\n--\n\n"
     "Called by fastaudit.core as it loads: the reader of its entry-point\n"
     "groups and its Learner, which the hook calls back. The first call's\n"
     "parts stay."},
    {"_learn_read", fa_learn_read_py, METH_VARARGS,
     "_learn_read(fd, at, /)\n--\n\n"
     "A Learner's new records, its offset, and the count lost."},
    {"audit_state", audit_state, METH_NOARGS,
     "audit_state($module, /)\n--\n\n"
     "A debug snapshot of the audit state, as a dict: the active context's "
     "roots\n"
     "and settings, whether native checks are on (and why not), recent "
     "denials."},
    {"suggest_roots", (PyCFunction)(void (*)(void))fa_suggest_roots_py,
     METH_VARARGS | METH_KEYWORDS,
     "suggest_roots(paths, project=None)\n--\n\n"
     "The fewest write roots that allow writing the given absolute paths, as\n"
     "[(root, why_sensitive_or_None)]: fa-run --learn's rule."},
    {"lxml_monitor", (PyCFunction)(void (*)(void))fa_lxml_monitor,
     METH_FASTCALL,
     "lxml_monitor(caller, callee, fn, code, off, data, calls, /)\n--\n\n"
     "The bundled monitor hook for lxml: DISABLE ordinary lxml calls, keep "
     "file writers audited."},
    {NULL, NULL, 0, NULL},
};

static int
exec_module(PyObject *m)
{
    static PyTypeObject *types[] = {&FaPolicy_Type, &FaCfg_Type, &FaEntry_Type,
                                    &FaPerms_Type, &FaCM_Type};
    size_t i;

    for (i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (PyType_Ready(types[i]) < 0) {
            return -1;
        }
    }
    if (fa_state_init() < 0 || fa_frames_init() < 0 || fa_ctx_init() < 0) {
        return -1;
    }
    fa_bridge_init();
    if (!fa_native_on()) {
        fa_moves_watch();
    }
    if (PyModule_AddIntConstant(m, "MONITORING", FA_HAVE_MONITORING) < 0) {
        return -1;
    }
    if (!fa_unconfined()
        || PyModule_AddObjectRef(m, "UNCONFINED", fa_unconfined()) < 0)
    {
        return -1;
    }
    if (!fa_audit_denied()
        || PyModule_AddObjectRef(m, "AuditDenied", fa_audit_denied()) < 0)
    {
        return -1;
    }
    return 0;
}

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, exec_module},
#if PY_VERSION_HEX >= 0x030C0000
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#endif
    {0, NULL},
};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT,
    .m_name = "fastaudit._fastaudit",
    .m_doc = "The fastaudit audit hook, contexts and call monitor, in C.",
    .m_size = 0,
    .m_methods = methods,
    .m_slots = slots,
};

PyMODINIT_FUNC PyInit__fastaudit(void);

PyMODINIT_FUNC
PyInit__fastaudit(void)
{
    return PyModuleDef_Init(&moddef);
}
