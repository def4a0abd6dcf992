"""Cost of the fastaudit audit hook, against no hook, a no-op C hook and the
pure-Python reference implementation, in one run on one Python.

    python bench/hook/bench_hook.py --build BUILDDIR [--ref REF_PYTHON]

BUILDDIR is a configured and built tree (its pyhook/ holds the package).
REF_PYTHON is a Python of the same version with the reference fastaudit
installed (pip install fastaudit), e.g. build/bench-ref-3.12/bin/python.
Every variant runs in a fresh process: audit hooks cannot be removed.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

NOOP_C = r'''
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <fcntl.h>
#include <unistd.h>

static int hook(const char *event, PyObject *args, void *data) { return 0; }

static PyObject *install(PyObject *m, PyObject *a)
{
    if (PySys_AddAuditHook(hook, NULL) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *noop(PyObject *m, PyObject *a) { Py_RETURN_NONE; }

/* n write-opens of one path from native code, as a C library would do them */
static PyObject *write_opens(PyObject *m, PyObject *args)
{
    const char *path;
    long n, i;
    if (!PyArg_ParseTuple(args, "sl", &path, &n))
        return NULL;
    for (i = 0; i < n; i++) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            return PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
        close(fd);
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"install", install, METH_NOARGS, NULL},
    {"noop", noop, METH_NOARGS, NULL},
    {"write_opens", write_opens, METH_VARARGS, NULL},
    {NULL},
};
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "fa_bench_noop", NULL, -1, methods};
PyMODINIT_FUNC PyInit_fa_bench_noop(void) { return PyModule_Create(&def); }
'''


def build_noop(out):
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext
    src = os.path.join(out, 'noop.c')
    with open(src, 'w') as f:
        f.write(NOOP_C)
    dist = Distribution({'name': 'fa-bench-noop',
                         'ext_modules': [Extension('fa_bench_noop', [src])]})
    cmd = build_ext(dist)
    cmd.build_lib, cmd.build_temp = out, os.path.join(out, 'tmp')
    cmd.ensure_finalized()
    with open(os.devnull, 'w') as null:
        saved = os.dup(1), os.dup(2)
        os.dup2(null.fileno(), 1)
        os.dup2(null.fileno(), 2)
        try:
            cmd.run()
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)


# ---- worker side ----------------------------------------------------------

def best(fn, n, repeat=5):
    """Best per-iteration time in ns of fn(n) over repeat runs."""
    out = []
    for _ in range(repeat):
        t = time.perf_counter_ns()
        fn(n)
        out.append((time.perf_counter_ns() - t) / n)
    return min(out)


def loop_event(n):
    audit = sys.audit
    for _ in range(n):
        audit('bench.event', 1)


def make_open_loop(path):
    def run(n):
        for _ in range(n):
            open(path, 'w').close()
    return run


def remove_cost(d, n=2000):
    """Time os.remove alone over pre-created files."""
    names = [os.path.join(d, f'r{i}') for i in range(n)]
    res = []
    for _ in range(3):
        for p in names:
            os.close(os.open(p, os.O_CREAT | os.O_WRONLY))
        t = time.perf_counter_ns()
        for p in names:
            os.remove(p)
        res.append((time.perf_counter_ns() - t) / n)
    return min(res)


def dirs(base):
    d1 = os.path.join(base, 'r1')
    d5 = os.path.join(base, 'r5', 'a', 'b', 'c', 'd')
    os.makedirs(d1, exist_ok=True)
    os.makedirs(d5, exist_ok=True)
    return d1, d5


def native_worker(base):
    """Native write-opens: outside any context, then inside one (bridge)."""
    import fa_bench_noop
    d1, d5 = dirs(base)
    r = {}
    for key, d in (('n_open1', d1), ('n_open5', d5)):
        p = os.path.join(d, 'n')
        r[key + '_free'] = best(lambda n: fa_bench_noop.write_opens(p, n), 5000)
    r['py_open_free'] = best(make_open_loop(os.path.join(d1, 'p')), 3000)
    try:
        from fastaudit import mk_audit, audit_state
    except ImportError:
        return r
    r['native'] = audit_state()['native']
    for key, d in (('n_open1', d1), ('n_open5', d5)):
        p = os.path.join(d, 'n')
        ap = mk_audit([d], monitor_calls=False)
        with ap():
            r[key + '_ctx'] = best(lambda n: fa_bench_noop.write_opens(p, n), 5000)
    return r


def worker(mode, base):
    import fa_bench_noop
    if mode == 'native':
        return native_worker(base)
    r = {}
    d1, d5 = dirs(base)
    if mode == 'bare':
        r['event'] = best(loop_event, 200000)
        r['open1'] = best(make_open_loop(os.path.join(d1, 'f')), 3000)
        r['open5'] = best(make_open_loop(os.path.join(d5, 'f')), 3000)
        r['remove'] = remove_cost(d1)

        def native(n):
            f = fa_bench_noop.noop
            for _ in range(n):
                f()
        r['native'] = best(native, 200000)
        return r
    if mode == 'noop':
        fa_bench_noop.install()
        r['event'] = best(loop_event, 200000)
        return r
    # ours or the reference: the same public API
    from fastaudit import mk_audit
    mon = sys.version_info >= (3, 12)
    ap1 = mk_audit([d1], monitor_calls=mon)
    ap5 = mk_audit([os.path.join(base, 'r5')], monitor_calls=mon)
    off = mk_audit([d1], monitor_calls=False)
    r['event'] = best(loop_event, 200000)
    with ap1():
        r['open1'] = best(make_open_loop(os.path.join(d1, 'f')), 3000)
        r['remove'] = remove_cost(d1)
    with ap5():
        r['open5'] = best(make_open_loop(os.path.join(d5, 'f')), 3000)

    def deny_event(n):
        audit = sys.audit
        for _ in range(n):
            try:
                audit('bench.denied', 1)
            except PermissionError:
                pass
    with off():
        r['deny'] = best(deny_event, 20000)
    outside = os.path.join(base, 'outside')

    def deny_open(n):
        for _ in range(n):
            try:
                open(outside, 'w')
            except PermissionError:
                pass
    with off():
        r['deny_open'] = best(deny_open, 20000)

    def enter_leave(ap):
        def run(n):
            for _ in range(n):
                with ap():
                    pass
        return run
    r['enter_off'] = best(enter_leave(off), 20000)
    if mon:
        r['enter_on'] = best(enter_leave(ap1), 5000)

        def native(n):
            f = fa_bench_noop.noop
            for _ in range(n):
                try:
                    f()
                except PermissionError:
                    pass
        with ap1():
            r['native'] = best(native, 20000)
    return r


# ---- driver side ------------------------------------------------------------

def run_worker(python, mode, env, base):
    out = subprocess.run([python, os.path.abspath(__file__), '--worker', mode, '--base', base],
                         env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f'{mode} worker failed:\n{out.stderr}')
    return json.loads(out.stdout)


def fmt(ns):
    if ns is None:
        return '-'
    return f'{ns:.0f} ns' if ns < 1000 else f'{ns / 1000:.2f} us'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', help='configured build tree with pyhook/')
    ap.add_argument('--ref', help='Python with the reference fastaudit installed')
    ap.add_argument('--shim', help='libfashim.so, for the native rows')
    ap.add_argument('--worker')
    ap.add_argument('--base')
    a = ap.parse_args()
    if a.worker:
        print(json.dumps(worker(a.worker, a.base)))
        return
    tmp = tempfile.mkdtemp(prefix='fa-bench-')
    build_noop(tmp)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1')
    plain = dict(env, PYTHONPATH=tmp)
    ours_env = dict(env, PYTHONPATH=os.pathsep.join(
        [os.path.join(os.path.abspath(a.build), 'pyhook'), tmp]))
    res = {}
    for mode, py, e in (('bare', sys.executable, plain), ('noop', sys.executable, plain),
                        ('ours', sys.executable, ours_env)):
        res[mode] = run_worker(py, mode, e, os.path.join(tmp, mode))
    if a.ref:
        res['ref'] = run_worker(a.ref, 'ref', plain, os.path.join(tmp, 'ref'))
    if a.shim:
        res['n_bare'] = run_worker(sys.executable, 'native', plain, os.path.join(tmp, 'nb'))
        res['n_shim'] = run_worker(sys.executable, 'native', dict(ours_env, LD_PRELOAD=a.shim),
                                   os.path.join(tmp, 'ns'))
    b, n, o, r = res['bare'], res['noop'], res['ours'], res.get('ref', {})
    print(f'fastaudit hook benchmark, Python {sys.version.split()[0]}, best of 5')
    rows = [
        ('sys.audit event, no context active', 'event', n['event'], 'no-op C hook', 1.2),
        ('write-open inside a context, root depth 1', 'open1', b['open1'], 'bare', 1.15),
        ('write-open inside a context, root depth 5', 'open5', b['open5'], 'bare', 1.15),
        ('os.remove inside a context', 'remove', b['remove'], 'bare', 1.25),
        ('a denial (event, with call chain)', 'deny', None, None, None),
        ('a denial (open outside the roots)', 'deny_open', None, None, None),
        ('enter + leave, monitoring on', 'enter_on', None, None, None),
        ('enter + leave, monitoring off', 'enter_off', None, None, None),
        ('denied native call (monitor)', 'native', b['native'], 'bare call', None),
    ]
    print(f"{'what':44} {'bare':>10} {'no-op hook':>11} {'reference':>11} {'ours':>10} "
          f"{'ours/base':>10} {'ref/ours':>9}")
    print(f'  (no hook at all: {fmt(b["event"])} per event)')
    for label, key, base, basename, target in rows:
        ov, rv = o.get(key), r.get(key)
        ratio = f'{ov / base:.2f}x' if ov and base else '-'
        vs = f'{rv / ov:.1f}x' if ov and rv else '-'
        bare = b.get(key) if key != 'event' else None
        print(f'{label:44} {fmt(bare):>10} {fmt(n.get(key)):>11} {fmt(rv):>11} {fmt(ov):>10} '
              f'{ratio:>10} {vs:>9}' + (f'   (target <= {target}x {basename})' if target else ''))

    if a.shim:
        nb, ns = res['n_bare'], res['n_shim']
        print(f"\nnative write-open (open+close from C), shim {'active' if ns.get('native') else 'NOT active'}")
        print(f"{'what':44} {'no shim':>10} {'shim, no ctx':>13} {'shim, ctx':>10} "
              f"{'loaded/no':>10} {'ctx/no':>8}")
        for label, key in (('root depth 1', 'n_open1'), ('root depth 5', 'n_open5')):
            b0, f0, c0 = nb[key + '_free'], ns[key + '_free'], ns.get(key + '_ctx')
            print(f'{label:44} {fmt(b0):>10} {fmt(f0):>13} {fmt(c0):>10} {f0 / b0:>9.2f}x '
                  f'{(c0 / b0 if c0 else 0):>7.2f}x   (targets <= 1.02x / <= 1.10x)')
        b0, f0 = nb['py_open_free'], ns['py_open_free']
        print(f"{'Python open() write, no context':44} {fmt(b0):>10} {fmt(f0):>13} {'-':>10} "
              f'{f0 / b0:>9.2f}x')


if __name__ == '__main__':
    main()
