# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures for the fastaudit tests.

Entry points are read once, by the first mk_audit() of the process, so the
fake distribution that declares them is put on sys.path when this file is
imported, before any test runs. The native test modules (a plain C
extension and a Cython module) are compiled once per session.
"""
import os
import sys
import sysconfig
import tempfile
import textwrap

import pytest

MON = sys.version_info >= (3, 12)
HERE = os.path.dirname(os.path.abspath(__file__))

_site = tempfile.mkdtemp(prefix='fa-test-site-')


def _write(rel, text):
    path = os.path.join(_site, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(textwrap.dedent(text))


_write('fastaudit_testpkg-1.0.dist-info/METADATA',
       'Metadata-Version: 2.1\nName: fastaudit-testpkg\nVersion: 1.0\n')
_write('fastaudit_testpkg-1.0.dist-info/entry_points.txt', '''
    [fastaudit_safe_native]
    probe = fa_safe_probe

    [fastaudit_import_allow]
    importer = fa_importer

    [fastaudit_monitor_hook]
    testhooks = fa_testhooks:monitor

    [fastaudit_audit_hook]
    testhooks = fa_testhooks:audit
''')
_write('fa_testhooks.py', '''
    import sys
    seen = []

    def monitor(caller, callee, fn, code, off, data, calls):
        seen.append(callee)
        if callee == 'fa_probe.hook_suppressed':
            return False
        if callee == 'fa_probe.hook_disabled':
            return sys.monitoring.DISABLE

    def audit(event, args, frame, msg, data, calls):
        return event == 'fa_test.allowed_by_package_hook'
''')
# Import-time side effects that raise sensitive events.
_SIDE_EFFECT = '''
    def f():
        return 1
    f.__code__ = (lambda: 2).__code__
    VALUE = f()
'''
_write('fa_importer/__init__.py', _SIDE_EFFECT)
_write('fa_importer/sub.py', _SIDE_EFFECT)
_write('fa_badimport.py', _SIDE_EFFECT)
_write('fa_hostimport.py', _SIDE_EFFECT)
_write('fa_lateimport.py', _SIDE_EFFECT)
sys.path.insert(0, _site)

_PROBE_C = r'''
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <dlfcn.h>
#include <unistd.h>

static PyObject *noop(PyObject *m, PyObject *a) { Py_RETURN_NONE; }

/* A write no audit event announces: only the call monitor sees it. */
static PyObject *write_file(PyObject *m, PyObject *args)
{
    const char *path, *data;
    FILE *f;
    if (!PyArg_ParseTuple(args, "ss", &path, &data))
        return NULL;
    f = fopen(path, "w");
    if (!f)
        return PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
    fputs(data, f);
    fclose(f);
    Py_RETURN_NONE;
}

/* The same write with the GIL released, as most I/O libraries do it. */
static PyObject *write_file_nogil(PyObject *m, PyObject *args)
{
    const char *path, *data;
    FILE *f;
    if (!PyArg_ParseTuple(args, "ss", &path, &data))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    f = fopen(path, "w");
    if (f) {
        fputs(data, f);
        fclose(f);
    }
    Py_END_ALLOW_THREADS
    if (!f)
        return PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
    Py_RETURN_NONE;
}

static PyObject *run_system(PyObject *m, PyObject *args)
{
    const char *cmd;
    int rc;
    if (!PyArg_ParseTuple(args, "s", &cmd))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = system(cmd);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(rc);
}

static void *thread_main(void *p)
{
    FILE *f = fopen((const char *)p, "w");
    if (f)
        fclose(f);
    return f ? (void *)1 : NULL;
}

/* A native thread started here writes on its own. */
static PyObject *thread_write(PyObject *m, PyObject *args)
{
    const char *path;
    pthread_t t;
    void *ok = NULL;
    if (!PyArg_ParseTuple(args, "s", &path))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    if (pthread_create(&t, NULL, thread_main, (void *)path) == 0)
        pthread_join(t, &ok);
    Py_END_ALLOW_THREADS
    return PyBool_FromLong(ok != NULL);
}

/*
 * The shim numbers a denial, names the calling object with dladdr() (which
 * takes the loader's lock), and only then makes its record readable. A
 * thread held inside dlopen() (by fa_blocker's constructor) keeps that
 * lock, so a denial made meanwhile stays numbered and unreadable until
 * release_loader_lock().
 */
static int hold_in[2], hold_out[2];
static pthread_t holder, late;
static char hold_lib[4096], late_path[4096];

static void *hold_loader(void *unused)
{
    return dlopen(hold_lib, RTLD_NOW | RTLD_LOCAL);
}

static void *late_write(void *unused)
{
    FILE *f = fopen(late_path, "w");
    if (f)
        fclose(f);
    return NULL;
}

/* Outside any context: the pipes fa_blocker's constructor talks through. */
static PyObject *prepare_hold(PyObject *m, PyObject *args)
{
    const char *lib;
    char env[32];
    if (!PyArg_ParseTuple(args, "s", &lib))
        return NULL;
    if (pipe(hold_in) || pipe(hold_out))
        return PyErr_SetFromErrno(PyExc_OSError);
    snprintf(env, sizeof env, "%d,%d", hold_in[0], hold_out[1]);
    setenv("FA_PROBE_HOLD", env, 1);
    snprintf(hold_lib, sizeof hold_lib, "%s", lib);
    Py_RETURN_NONE;
}

/* Hold the loader's lock, then start a native thread writing path. */
static PyObject *hold_loader_lock(PyObject *m, PyObject *args)
{
    const char *path;
    char c;
    int ok;
    if (!PyArg_ParseTuple(args, "s", &path))
        return NULL;
    snprintf(late_path, sizeof late_path, "%s", path);
    Py_BEGIN_ALLOW_THREADS
    ok = pthread_create(&holder, NULL, hold_loader, NULL) == 0 && read(hold_out[0], &c, 1) == 1 &&
         pthread_create(&late, NULL, late_write, NULL) == 0;
    Py_END_ALLOW_THREADS
    return PyBool_FromLong(ok);
}

static PyObject *release_loader_lock(PyObject *m, PyObject *unused)
{
    char c = 1;
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = write(hold_in[1], &c, 1) == 1;
    pthread_join(holder, NULL);
    pthread_join(late, NULL);
    Py_END_ALLOW_THREADS
    return PyBool_FromLong(ok);
}

static PyMethodDef methods[] = {
    {"prepare_hold", prepare_hold, METH_VARARGS, NULL},
    {"hold_loader_lock", hold_loader_lock, METH_VARARGS, NULL},
    {"release_loader_lock", release_loader_lock, METH_NOARGS, NULL},
    {"noop", noop, METH_NOARGS, NULL},
    {"write_file_nogil", write_file_nogil, METH_VARARGS, NULL},
    {"run_system", run_system, METH_VARARGS, NULL},
    {"thread_write", thread_write, METH_VARARGS, NULL},
    {"hook_suppressed", noop, METH_NOARGS, NULL},
    {"hook_disabled", noop, METH_NOARGS, NULL},
    {"write_file", write_file, METH_VARARGS, NULL},
    {NULL},
};

static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, MODNAME_S, NULL, -1, methods};

PyMODINIT_FUNC INITFUNC(void) { return PyModule_Create(&def); }
'''

# A library whose constructor blocks dlopen() (so the loader's lock is held)
# until fa_probe.release_loader_lock(); never imported, only dlopen()ed.
_BLOCKER_C = r'''
#include <Python.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void hold(void)
{
    const char *s = getenv("FA_PROBE_HOLD");
    int in, out;
    char c = 1;
    if (s && sscanf(s, "%d,%d", &in, &out) == 2 && write(out, &c, 1) == 1)
        (void)!read(in, &c, 1);
}

PyMODINIT_FUNC PyInit_fa_blocker(void) { return NULL; }
'''

_PYX = '''
def cy_add(a, b):
    return a + b
'''


@pytest.fixture(scope='session')
def native_mods(tmp_path_factory):
    """fa_probe (undeclared C), fa_safe_probe (declared safe), fa_cy (Cython);
    fa_blocker's file sits next to them."""
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext
    out = tmp_path_factory.mktemp('native')
    src = out / 'probe.c'
    src.write_text(_PROBE_C)
    exts = [Extension(name, [str(src)], define_macros=[
                ('MODNAME_S', f'"{name}"'), ('INITFUNC', f'PyInit_{name}')])
            for name in ('fa_probe', 'fa_safe_probe')]
    (out / 'blocker.c').write_text(_BLOCKER_C)
    exts.append(Extension('fa_blocker', [str(out / 'blocker.c')]))
    try:
        from Cython.Build import cythonize
        (out / 'fa_cy.pyx').write_text(_PYX)
        exts += cythonize([str(out / 'fa_cy.pyx')], quiet=True,
                          compiler_directives={'language_level': 3})
    except ImportError:
        pass
    dist = Distribution({'name': 'fa-native-probe', 'ext_modules': exts})
    cmd = build_ext(dist)
    cmd.build_lib = str(out)
    cmd.build_temp = str(out / 'tmp')
    cmd.ensure_finalized()
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1), os.dup(2)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        cmd.run()
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(devnull)
    sys.path.insert(0, str(out))
    import fa_probe
    import fa_safe_probe
    try:
        import fa_cy
    except ImportError:
        fa_cy = None
    return fa_probe, fa_safe_probe, fa_cy


@pytest.fixture
def root(tmp_path):
    d = tmp_path / 'root'
    d.mkdir()
    return d


@pytest.fixture
def outside(tmp_path):
    d = tmp_path / 'outside'
    d.mkdir()
    return d


@pytest.fixture
def mk():
    """mk_audit with call monitoring wherever this Python has it."""
    from fastaudit import mk_audit

    def make(roots, **kw):
        kw.setdefault('monitor_calls', MON)
        return mk_audit(roots, **kw)
    return make


def pytest_report_header(config):
    import fastaudit
    return f'fastaudit from {os.path.dirname(fastaudit.__file__)}; ext {sysconfig.get_config_var("EXT_SUFFIX")}'
