/*
 * ctx.c - audit_perms, its context manager, and what an entry records.
 *
 * The active state is one ContextVar holding an Entry: the configuration
 * snapshot it was entered with plus where it was entered (thread, asyncio
 * task, call chain), so a denial in an inherited copy of the context can
 * say where the context came from. asyncio tasks copy the ContextVar when
 * they are created; nesting restores through tokens. None of these objects
 * has an attribute Python code can set.
 */
#include "parts.h"

#include <string.h>

/* ---- frames ------------------------------------------------------------- */

static PyObject *str_name;

static PyObject *globals_of(PyFrameObject *f)
{
#if PY_VERSION_HEX >= 0x030B0000
	return PyFrame_GetGlobals(f);
#else
	Py_XINCREF(f->f_globals);
	return f->f_globals;
#endif
}

static PyObject *module_of(PyFrameObject *f)
{
	PyObject *g = globals_of(f), *m = NULL;

	if (g && PyDict_Check(g))
		m = PyDict_GetItemWithError(g, str_name);
	Py_XINCREF(m);
	Py_XDECREF(g);
	PyErr_Clear();
	return m ? m : Py_NewRef(Py_None);
}

static PyObject *qualname_of(PyCodeObject *c)
{
#if PY_VERSION_HEX >= 0x030B0000
	return c->co_qualname;
#else
	return c->co_name;
#endif
}

static PyObject *name_of(PyObject *mod, PyCodeObject *code)
{
	if (PyUnicode_Check(mod))
		return PyUnicode_FromFormat("%U.%U", mod, qualname_of(code));
	return PyUnicode_FromFormat("%S.%U", mod, qualname_of(code));
}

PyObject *fa_frame_name(PyFrameObject *f)
{
	PyObject *mod = module_of(f), *r;
	PyCodeObject *c = PyFrame_GetCode(f);

	r = name_of(mod, c);
	Py_DECREF(mod);
	Py_DECREF(c);
	return r;
}

static int ours(PyObject *mod)
{
	const char *s = PyUnicode_Check(mod) ? PyUnicode_AsUTF8(mod) : NULL;

	if (!s) {
		PyErr_Clear();
		return 0;
	}
	return !strncmp(s, "fastaudit.", 10);
}

int fa_frame_is(PyFrameObject *f, const char *mod, const char *qual)
{
	PyObject *m = module_of(f);
	PyCodeObject *c = PyFrame_GetCode(f);
	const char *ms = PyUnicode_Check(m) ? PyUnicode_AsUTF8(m) : NULL;
	const char *qs = PyUnicode_AsUTF8(qualname_of(c));
	int r = ms && qs && !strcmp(ms, mod) && !strcmp(qs, qual);

	PyErr_Clear();
	Py_DECREF(m);
	Py_DECREF(c);
	return r;
}

/* The first frame outside fastaudit, for before_deny. */
PyObject *fa_external_frame(void)
{
	PyFrameObject *f = PyEval_GetFrame(), *b;
	PyObject *m;

	Py_XINCREF(f);
	while (f) {
		m = module_of(f);
		if (!ours(m)) {
			Py_DECREF(m);
			return (PyObject *)f;
		}
		Py_DECREF(m);
		b = PyFrame_GetBack(f);
		Py_DECREF(f);
		f = b;
	}
	return Py_NewRef(Py_None);
}

/*
 * The stack as a flat tuple (module, code, module, code, ...), innermost
 * first. Names are formatted only if a denial needs them, so entering a
 * context stays cheap; the code objects keep the names alive.
 */
static PyObject *capture_chain(void)
{
	PyFrameObject *f = PyEval_GetFrame(), *b;
	PyObject *items[128], *t;
	int n = 0, i;

	Py_XINCREF(f);
	while (f && n < 128) {
		items[n++] = module_of(f);
		items[n++] = (PyObject *)PyFrame_GetCode(f);
		b = PyFrame_GetBack(f);
		Py_DECREF(f);
		f = b;
	}
	Py_XDECREF(f);
	t = PyTuple_New(n);
	for (i = 0; i < n; i++) {
		if (t)
			PyTuple_SET_ITEM(t, i, items[i]);
		else
			Py_DECREF(items[i]);
	}
	return t;
}

/* outermost -> ... -> innermost [-> extra], fastaudit's own frames left out */
static PyObject *format_chain(PyObject *flat, PyObject *extra)
{
	PyObject *names, *sep, *r, *nm;
	Py_ssize_t i, n = PyTuple_GET_SIZE(flat);

	names = PyList_New(0);
	if (!names)
		return NULL;
	for (i = n - 2; i >= 0; i -= 2) {
		PyObject *mod = PyTuple_GET_ITEM(flat, i);
		if (ours(mod))
			continue;
		nm = name_of(mod, (PyCodeObject *)PyTuple_GET_ITEM(flat, i + 1));
		if (!nm || PyList_Append(names, nm) < 0) {
			Py_XDECREF(nm);
			Py_DECREF(names);
			return NULL;
		}
		Py_DECREF(nm);
	}
	if (extra && extra != Py_None && PyList_Append(names, extra) < 0) {
		Py_DECREF(names);
		return NULL;
	}
	sep = PyUnicode_FromString(" -> ");
	r = sep ? PyUnicode_Join(sep, names) : NULL;
	Py_XDECREF(sep);
	Py_DECREF(names);
	return r;
}

PyObject *fa_chain_string(PyObject *extra)
{
	PyObject *flat = capture_chain(), *r;

	if (!flat)
		return NULL;
	r = format_chain(flat, extra);
	Py_DECREF(flat);
	return r;
}

/* ---- thread and task identity ------------------------------------------- */

/*
 * The running asyncio task, compared by identity only (as id() would be).
 * asyncio is looked up, never imported: without it there is no task. The
 * two functions are kept once found; asyncio replaces neither.
 */
static PyObject *str_asyncio, *str_threading, *get_running_loop, *current_task_fn, *current_thread_fn;

static void *current_task(void)
{
	PyObject *aio, *loop, *task = NULL;
	void *id = NULL;

	if (!get_running_loop) {
		aio = PyImport_GetModule(str_asyncio);
		if (!aio) {
			PyErr_Clear();
			return NULL;
		}
		get_running_loop = PyObject_GetAttrString(aio, "_get_running_loop");
		current_task_fn = get_running_loop ? PyObject_GetAttrString(aio, "current_task") : NULL;
		Py_DECREF(aio);
		if (!current_task_fn) {
			Py_CLEAR(get_running_loop);
			PyErr_Clear();
			return NULL;
		}
	}
	loop = PyObject_CallNoArgs(get_running_loop);
	if (loop && loop != Py_None)
		task = PyObject_CallOneArg(current_task_fn, loop);
	if (task && task != Py_None)
		id = task;
	Py_XDECREF(task);
	Py_XDECREF(loop);
	PyErr_Clear();
	return id;
}

static PyObject *thread_name(void)
{
	PyObject *mod, *t, *name;

	if (!current_thread_fn) {
		mod = PyImport_GetModule(str_threading);
		if (!mod && !PyErr_Occurred())
			mod = PyImport_Import(str_threading);
		if (!mod)
			return NULL;
		current_thread_fn = PyObject_GetAttrString(mod, "current_thread");
		Py_DECREF(mod);
		if (!current_thread_fn)
			return NULL;
	}
	t = PyObject_CallNoArgs(current_thread_fn);
	if (!t)
		return NULL;
	name = PyObject_GetAttrString(t, "name");
	Py_DECREF(t);
	return name;
}

/* ---- Cfg: an immutable snapshot of one mk_audit's settings --------------- */

static void cfg_dealloc(FaCfgObject *self)
{
	Py_XDECREF(self->pol);
	Py_XDECREF(self->before_deny);
	Py_XDECREF(self->on_call);
	Py_XDECREF(self->data);
	Py_XDECREF(self->import_allow);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *cfg_repr(FaCfgObject *self)
{
	return PyUnicode_FromFormat("AuditCfg(oks=%R, monitor_calls=%s, import_allow=%R)",
				    self->pol->roots, self->monitor_calls ? "True" : "False",
				    self->import_allow);
}

PyTypeObject FaCfg_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "fastaudit._fastaudit.AuditCfg",
	.tp_basicsize = sizeof(FaCfgObject),
	.tp_dealloc = (destructor)cfg_dealloc,
	.tp_repr = (reprfunc)cfg_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "The settings an audit context enforces (read-only).",
};

PyObject *fa_cfg_new(FaPolicyObject *pol, PyObject *before_deny, PyObject *on_call,
		     PyObject *data, PyObject *import_allow, int monitor_calls)
{
	FaCfgObject *c = PyObject_New(FaCfgObject, &FaCfg_Type);

	if (!c)
		return NULL;
	c->pol = (FaPolicyObject *)Py_NewRef(pol);
	c->before_deny = Py_NewRef(before_deny);
	c->on_call = Py_NewRef(on_call);
	c->data = Py_NewRef(data);
	c->import_allow = Py_NewRef(import_allow);
	c->monitor_calls = monitor_calls;
	return (PyObject *)c;
}

/* sorted(set(a) | set(clean(b))): b may be one name or an iterable of names */
PyObject *fa_mods_union(PyObject *a, PyObject *b)
{
	PyObject *set, *it, *item, *s, *list, *t;

	set = PySet_New(a);
	if (!set)
		return NULL;
	if (PyUnicode_Check(b)) {
		PyObject *one = PyTuple_Pack(1, b);
		it = one ? PyObject_GetIter(one) : NULL;
		Py_XDECREF(one);
	} else {
		it = PyObject_GetIter(b);
	}
	if (!it)
		goto fail;
	while ((item = PyIter_Next(it))) {
		if (item == Py_None || !PyObject_IsTrue(item)) {
			Py_DECREF(item);
			continue;
		}
		if (!PyUnicode_Check(item)) {
			PyErr_Format(PyExc_TypeError, "module prefixes must be str, not %.100s",
				     Py_TYPE(item)->tp_name);
			Py_DECREF(item);
			Py_DECREF(it);
			goto fail;
		}
		s = PyObject_CallMethod(item, "strip", NULL);
		Py_DECREF(item);
		if (!s || (PyUnicode_GET_LENGTH(s) && PySet_Add(set, s) < 0)) {
			Py_XDECREF(s);
			Py_DECREF(it);
			goto fail;
		}
		Py_DECREF(s);
	}
	Py_DECREF(it);
	if (PyErr_Occurred())
		goto fail;
	list = PySequence_List(set);
	Py_DECREF(set);
	if (!list || PyList_Sort(list) < 0) {
		Py_XDECREF(list);
		return NULL;
	}
	t = PyList_AsTuple(list);
	Py_DECREF(list);
	return t;
fail:
	Py_DECREF(set);
	return NULL;
}

/* ---- Entry -------------------------------------------------------------- */

static void entry_dealloc(FaEntryObject *self)
{
	fa_st.live_entries--;
	Py_XDECREF(self->cfg);
	Py_XDECREF(self->tname);
	Py_XDECREF(self->chain);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject FaEntry_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "fastaudit._fastaudit.AuditEntry",
	.tp_basicsize = sizeof(FaEntryObject),
	.tp_dealloc = (destructor)entry_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One entry into an audit context.",
};

static FaEntryObject *entry_new(FaCfgObject *cfg)
{
	FaEntryObject *e = PyObject_New(FaEntryObject, &FaEntry_Type);

	if (!e)
		return NULL;
	/* counted from birth: a copied context keeps the checks on until it dies */
	fa_st.live_entries++;
	e->cfg = (FaCfgObject *)Py_NewRef(cfg);
	e->tid = PyThread_get_thread_ident();
	e->task = current_task();
	e->tname = thread_name();
	e->chain = e->tname ? capture_chain() : NULL;
	if (!e->chain) {
		Py_DECREF(e);
		return NULL;
	}
	return e;
}

PyObject *fa_current_entry(void)
{
	PyObject *v = NULL;

	if (!fa_st.var || PyContextVar_Get(fa_st.var, NULL, &v) < 0)
		return NULL;
	if (v && !Py_IS_TYPE(v, &FaEntry_Type)) {
		Py_DECREF(v);
		return NULL;
	}
	return v;
}

PyObject *fa_origin_note(FaEntryObject *e)
{
	PyObject *chain, *r;

	if (e->tid == PyThread_get_thread_ident() && e->task == current_task())
		return PyUnicode_FromString("");
	chain = format_chain(e->chain, NULL);
	if (!chain)
		return NULL;
	r = PyUnicode_FromFormat("\nAudit context entered in thread %R by: %U", e->tname, chain);
	Py_DECREF(chain);
	return r;
}

/* ---- audit_perms and its context manager --------------------------------- */

typedef struct {
	PyObject_HEAD
	FaCfgObject *cfg;
} FaPermsObject;

typedef struct {
	PyObject_HEAD
	FaPermsObject *perms;
	PyObject *token;
	int monitored;
} FaCMObject;

static void perms_dealloc(FaPermsObject *self)
{
	Py_XDECREF(self->cfg);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

PyObject *fa_perms_new(FaCfgObject *cfg)
{
	FaPermsObject *p = PyObject_New(FaPermsObject, &FaPerms_Type);

	if (!p)
		return NULL;
	p->cfg = (FaCfgObject *)Py_NewRef(cfg);
	return (PyObject *)p;
}

static PyObject *perms_call(FaPermsObject *self, PyObject *args, PyObject *kw)
{
	FaCMObject *cm;

	if ((kw && PyDict_GET_SIZE(kw)) || PyTuple_GET_SIZE(args)) {
		PyErr_SetString(PyExc_TypeError, "audit_perms() takes no arguments");
		return NULL;
	}
	cm = PyObject_New(FaCMObject, &FaCM_Type);
	if (!cm)
		return NULL;
	cm->perms = (FaPermsObject *)Py_NewRef(self);
	cm->token = NULL;
	cm->monitored = 0;
	return (PyObject *)cm;
}

static int replace_cfg(FaPermsObject *self, PyObject *data, PyObject *imports)
{
	FaCfgObject *o = self->cfg;
	PyObject *n = fa_cfg_new(o->pol, o->before_deny, o->on_call, data ? data : o->data,
				 imports ? imports : o->import_allow, o->monitor_calls);

	if (!n)
		return -1;
	Py_SETREF(self->cfg, (FaCfgObject *)n);
	return 0;
}

static PyObject *perms_set_data(FaPermsObject *self, PyObject *d)
{
	if (PySys_Audit("audit_perms.set_data", "O", d) < 0)
		return NULL;
	if (replace_cfg(self, d, NULL) < 0)
		return NULL;
	return Py_NewRef(self->cfg->data);
}

static PyObject *perms_add_imports(FaPermsObject *self, PyObject *mods)
{
	PyObject *u;

	if (PySys_Audit("audit_perms.add_imports", "O", mods) < 0)
		return NULL;
	u = fa_mods_union(self->cfg->import_allow, mods);
	if (!u)
		return NULL;
	if (replace_cfg(self, NULL, u) < 0) {
		Py_DECREF(u);
		return NULL;
	}
	Py_DECREF(u);
	return Py_NewRef(self->cfg->import_allow);
}

static PyObject *perms_repr(FaPermsObject *self)
{
	return PyUnicode_FromFormat("<audit_perms roots=%R>", self->cfg->pol->roots);
}

static PyMethodDef perms_methods[] = {
	{"set_data", (PyCFunction)perms_set_data, METH_O,
	 "set_data(d): host data passed to before_deny and on_call from the next entry on."},
	{"add_imports", (PyCFunction)perms_add_imports, METH_VARARGS,
	 "add_imports(*mods): module prefixes whose import-time events are allowed."},
	{NULL},
};

PyTypeObject FaPerms_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "fastaudit._fastaudit.audit_perms",
	.tp_basicsize = sizeof(FaPermsObject),
	.tp_dealloc = (destructor)perms_dealloc,
	.tp_repr = (reprfunc)perms_repr,
	.tp_call = (ternaryfunc)perms_call,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_methods = perms_methods,
	.tp_doc = "audit_perms(): a context manager that enforces this policy while active.",
};

static void cm_dealloc(FaCMObject *self)
{
	Py_XDECREF(self->perms);
	Py_XDECREF(self->token);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *cm_enter(FaCMObject *self, PyObject *unused)
{
	FaCfgObject *cfg = self->perms->cfg;
	PyObject *cur, *token;
	FaEntryObject *e;

	(void)unused;
	if (self->token) {
		PyErr_SetString(PyExc_RuntimeError,
				"this audit_perms() context is already entered; call audit_perms() again");
		return NULL;
	}
	cur = fa_current_entry();
	if (!cur && PyErr_Occurred())
		return NULL;
	/* re-entering the active configuration is free; replacing it is a policy change */
	if (!cur || ((FaEntryObject *)cur)->cfg != cfg) {
		if (PySys_Audit("audit_perms.set_config", "O", (PyObject *)cfg) < 0) {
			Py_XDECREF(cur);
			return NULL;
		}
	}
	Py_XDECREF(cur);
	Py_INCREF(cfg);
	e = entry_new(cfg);
	if (!e) {
		Py_DECREF(cfg);
		return NULL;
	}
	token = PyContextVar_Set(fa_st.var, (PyObject *)e);
	fa_bridge_changed();
	if (!token) {
		Py_DECREF(e);
		Py_DECREF(cfg);
		return NULL;
	}
	if (cfg->monitor_calls && fa_monitor_enter() < 0) {
		PyContextVar_Reset(fa_st.var, token);
		Py_DECREF(token);
		Py_DECREF(e);
		Py_DECREF(cfg);
		return NULL;
	}
	self->monitored = cfg->monitor_calls;
	self->token = token;
	fa_bridge_enter((PyObject *)e);
	Py_DECREF(e);
	Py_DECREF(cfg);
	Py_RETURN_NONE;
}

static PyObject *cm_exit(FaCMObject *self, PyObject *const *args, Py_ssize_t n)
{
	PyObject *token = self->token;
	int r, m;

	(void)args;
	(void)n;
	if (!token) {
		PyErr_SetString(PyExc_RuntimeError, "audit_perms() context exited without being entered");
		return NULL;
	}
	self->token = NULL;
	r = PyContextVar_Reset(fa_st.var, token);
	Py_DECREF(token);
	fa_bridge_changed();
	if (r == 0) {
		PyObject *cur = fa_current_entry();
		fa_bridge_publish(cur);
		Py_XDECREF(cur);
	}
	m = 0;
	if (self->monitored) {
		self->monitored = 0;
		if (r < 0) {
			PyObject *et, *ev, *tb;
			PyErr_Fetch(&et, &ev, &tb);
			m = fa_monitor_exit();
			PyErr_Restore(et, ev, tb);
		} else {
			m = fa_monitor_exit();
		}
	}
	if (r < 0 || m < 0)
		return NULL;
	Py_RETURN_FALSE;
}

static PyMethodDef cm_methods[] = {
	{"__enter__", (PyCFunction)cm_enter, METH_NOARGS, NULL},
	{"__exit__", (PyCFunction)(void (*)(void))cm_exit, METH_FASTCALL, NULL},
	{NULL},
};

PyTypeObject FaCM_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "fastaudit._fastaudit.audit_context",
	.tp_basicsize = sizeof(FaCMObject),
	.tp_dealloc = (destructor)cm_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_methods = cm_methods,
	.tp_doc = "One use of an audit context.",
};

int fa_ctx_init(void)
{
	str_name = PyUnicode_InternFromString("__name__");
	str_asyncio = PyUnicode_InternFromString("asyncio");
	str_threading = PyUnicode_InternFromString("threading");
	return str_name && str_asyncio && str_threading ? 0 : -1;
}
